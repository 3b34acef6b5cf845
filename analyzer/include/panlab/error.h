/* SPDX-License-Identifier: MIT */
/*
 * One error format for the whole analyzer (STYLE.md "Everywhere"):
 *   file@offset: what is wrong, expected what     (binary input)
 *   file:line: what is wrong, expected what       (text input)
 *   file: what is wrong                           (no position: open, write)
 *
 * Library functions never print: they fill a caller-owned struct pl_error and
 * return -1. The command line prints err.msg as the single line on stderr.
 */
#ifndef PANLAB_ERROR_H
#define PANLAB_ERROR_H

#include <stddef.h>
#include <stdint.h>

#define PL_ERROR_MAX 512

/* Caller-owned, typically on the stack; no heap memory inside. */
struct pl_error {
	char msg[PL_ERROR_MAX];	/* one line, no trailing newline */
};

void pl_error_at_offset(struct pl_error *err, const char *file, uint64_t offset,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void pl_error_at_line(struct pl_error *err, const char *file, uint64_t line,
		      const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void pl_error_file(struct pl_error *err, const char *file, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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

#endif /* PANLAB_ERROR_H */
