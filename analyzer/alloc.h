/* SPDX-License-Identifier: MIT */
/*
 * Allocation for the analysis stages. Sizes there are bounded by the already
 * validated trace, so running out of memory is an environment failure, not
 * bad input: report it and abort instead of threading it through every stage.
 */
#ifndef PANLAB_ALLOC_H
#define PANLAB_ALLOC_H

#include <stddef.h>

/* Zeroed array of n elements of size bytes (at least one byte is allocated). */
void *pl_xcalloc(size_t n, size_t size) __attribute__((returns_nonnull, malloc));
/* Resizes p to n elements of size bytes, checking n * size for overflow. */
void *pl_xrealloc(void *p, size_t n, size_t size) __attribute__((returns_nonnull));

#endif /* PANLAB_ALLOC_H */
