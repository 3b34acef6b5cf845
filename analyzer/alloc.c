/* SPDX-License-Identifier: MIT */
#include "alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void out_of_memory(size_t n, size_t size)
{
	fprintf(stderr, "panlab analyzer: out of memory allocating %zu x %zu bytes\n", n, size);
	abort();
}

void *pl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory(n, size);
	return p;
}

void *pl_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		out_of_memory(n, size);
	size_t bytes = n * size;

	p = realloc(p, bytes ? bytes : 1);
	if (!p)
		out_of_memory(n, size);
	return p;
}
