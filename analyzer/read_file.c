/* SPDX-License-Identifier: MIT */
#include "panlab/read_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *pl_quote(char *dst, size_t dst_size, const void *src, size_t max)
{
	const unsigned char *s = src;
	size_t o = 0;

	for (size_t i = 0; i < max && o + 5 < dst_size; i++) {
		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\')
			dst[o++] = (char)s[i];
		else
			o += (size_t)snprintf(dst + o, dst_size - o, "\\x%02x", s[i]);
	}
	if (dst_size)
		dst[o < dst_size ? o : dst_size - 1] = '\0';
	return dst;
}

int pl_read_file(const char *path, char **buf, size_t *len, struct pl_error *err)
{
	FILE *f = fopen(path, "rb");
	char *data = NULL;
	size_t size = 0, cap = 0;

	if (!f) {
		pl_error_file(err, path, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;

	/* Size the buffer from fstat when it can; keep growing anyway, so pipes work too. */
	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		cap = (size_t)st.st_size + 2;
		data = malloc(cap);
		if (!data) {
			pl_error_file(err, path, "out of memory reading %zu bytes", cap);
			goto fail;
		}
	}
	for (;;) {
		if (cap - size < 2) {
			size_t ncap = cap ? cap * 2 : 65536;
			char *n = realloc(data, ncap);

			if (!n) {
				pl_error_file(err, path, "out of memory reading %zu bytes", ncap);
				goto fail;
			}
			data = n;
			cap = ncap;
		}
		size_t got = fread(data + size, 1, cap - size - 1, f);

		size += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		pl_error_file(err, path, "read error: %s", strerror(errno));
		goto fail;
	}
	fclose(f);
	data[size] = '\0';
	*buf = data;
	*len = size;
	return 0;
fail:
	free(data);
	fclose(f);
	return -1;
}
