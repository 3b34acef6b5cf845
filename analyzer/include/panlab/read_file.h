/* SPDX-License-Identifier: MIT */
/* Reading input files whole, and quoting their bytes in one-line errors (panlab/error.h). */
#ifndef PANLAB_READ_FILE_H
#define PANLAB_READ_FILE_H

#include <stddef.h>

#include "panlab/error.h"

/*
 * Copies at most max bytes of src into dst (size dst_size) as printable
 * ASCII, escaping anything else as \xNN, so quoted input can never break the
 * one-line error. Returns dst.
 */
char *pl_quote(char *dst, size_t dst_size, const void *src, size_t max);

/*
 * Reads a whole file into a malloc'd buffer (caller frees *buf; a NUL is
 * appended after *len bytes for the text readers' convenience).
 */
int pl_read_file(const char *path, char **buf, size_t *len, struct pl_error *err);

#endif /* PANLAB_READ_FILE_H */
