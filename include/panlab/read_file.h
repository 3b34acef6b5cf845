/* SPDX-License-Identifier: MIT */
/*
 * Opening and reading input files, the one way every panlab program does it
 * (include/README.md): a directory given where a file is expected is one
 * error line, and nothing is read past a cap, so an endless input
 * (/dev/zero, a runaway pipe) or a huge file is an error with the cap in it,
 * not a read until memory runs out. Errors follow panlab/error.h.
 *
 * Static inline like error.h, so the analyzer, the replay library (host and
 * armel) and emu/ share it without a library; no state.
 */
#ifndef PANLAB_READ_FILE_H
#define PANLAB_READ_FILE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "panlab/error.h"

/* Caps of the inputs that are read whole, in bytes; each is far above any real input. */
#define PL_CAP_SCRIPT_BYTES (16u << 20)		/* a replay script */
#define PL_CAP_TEXT_BYTES (256u << 20)		/* ground truth, System.map, served content */
#define PL_CAP_TRACE_BYTES (1u << 30)		/* a trace read whole (stream mode has none) */
#define PL_CAP_EXPECT_BYTES (1u << 20)		/* a workload's .expect file */
#define PL_CAP_KERNEL_BYTES (64u << 20)		/* a zImage */
#define PL_CAP_INITRD_BYTES (512u << 20)	/* an initramfs, compressed */
#define PL_CAP_DTB_BYTES (2u << 20)		/* a device tree blob */

/*
 * Copies at most max bytes of src into dst (size dst_size) as printable
 * ASCII, escaping anything else as \xNN, so quoted input can never break the
 * one-line error. Returns dst.
 */
static inline char *pl_quote(char *dst, size_t dst_size, const void *src, size_t max)
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

/*
 * Opens an input for reading ("rb"): NULL with err set if it cannot be
 * opened or is a directory. The caller fcloses the FILE.
 */
static inline FILE *pl_open_input(const char *path, struct pl_error *err)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	if (!f) {
		pl_error_file(err, path, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		pl_error_file(err, path, "is a directory, expected a file");
		fclose(f);
		return NULL;
	}
	return f;
}

/*
 * Reads the whole of an open input, f, of at most cap_bytes into a malloc'd
 * buffer (the caller frees *buf; a NUL is appended after *len bytes for the
 * text readers). path names it in errors, what in the over-the-cap error
 * ("a trace"). Regular files are checked against the cap before reading;
 * pipes and devices are read up to it. f is closed in every case.
 */
static inline int pl_read_stream(FILE *f, const char *path, size_t cap_bytes, const char *what,
				 char **buf, size_t *len, struct pl_error *err)
{
	struct stat st;
	char *data = NULL;
	size_t size = 0, cap = 0;

	if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
		if ((unsigned long long)st.st_size > cap_bytes) {
			pl_error_file(err, path, "%lld bytes, more than the %zu-byte cap for %s",
				      (long long)st.st_size, cap_bytes, what);
			fclose(f);
			return -1;
		}
		cap = (size_t)st.st_size + 2;	/* +1 to see the end, +1 for the NUL */
		data = pl_xcalloc(cap, 1);
	}
	for (;;) {
		if (cap - size < 2) {
			cap = cap ? cap * 2 : 65536;
			if (cap > cap_bytes + 2)
				cap = cap_bytes + 2;
			data = pl_xrealloc(data, cap, 1);
		}
		size_t got = fread(data + size, 1, cap - size - 1, f);

		size += got;
		if (size > cap_bytes) {
			pl_error_at_offset(err, path, cap_bytes,
					   "more than the %zu-byte cap for %s (an endless input?)",
					   cap_bytes, what);
			goto fail;
		}
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

/* pl_read_stream() of the input at path, opened by pl_open_input(). */
static inline int pl_read_file(const char *path, size_t cap_bytes, const char *what,
			       char **buf, size_t *len, struct pl_error *err)
{
	FILE *f = pl_open_input(path, err);

	return f ? pl_read_stream(f, path, cap_bytes, what, buf, len, err) : -1;
}

#endif /* PANLAB_READ_FILE_H */
