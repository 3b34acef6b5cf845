/* SPDX-License-Identifier: MIT */
/*
 * The one error and allocation convention of every panlab program, host
 * and guest (include/README.md):
 *
 *   file@offset: what is wrong, expected what     (binary input)
 *   file:line: what is wrong, expected what       (text input)
 *   file: what is wrong                           (no position: open, write)
 *   what is wrong                                 (no file: options, state)
 *
 * Library functions never print: they fill a caller-owned struct pl_error
 * and return -1 (or NULL). The front end prints "prog: " and err.msg as the
 * single line on stderr (pl_error_print, pl_error_exit) and exits with
 * PL_EXIT_FAILED, or PL_EXIT_USAGE when the command line itself was wrong.
 * A program with no caller to hand an error to exits through pl_exit_error
 * (the guest's services and apps: pl_die).
 *
 * Running out of memory is an environment failure, not bad input: the
 * pl_x* allocators report it in one line and exit PL_EXIT_FAILED, so no
 * caller checks for NULL. Input sizes are checked before allocating.
 *
 * Everything is static inline so the kernel module's neighbours (guest
 * userspace, armel) and the host share it without a library; no state.
 */
#ifndef PANLAB_ERROR_H
#define PANLAB_ERROR_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PL_ERROR_MAX 512

/* Exit statuses of every panlab command. */
enum {
	PL_EXIT_OK = 0,
	PL_EXIT_FAILED = 1, /* bad input, a failed run, the environment */
	PL_EXIT_USAGE = 2,  /* a wrong command line: unknown option, bad value */
	/*
	 * panlab-phone --snapshot-load (and run-phone.sh, run-experiment.sh):
	 * the snapshot cannot be used (unreadable, or not this build's: another
	 * format, machine, guest kernel or initramfs), refused before the guest
	 * ran; booting cold may succeed.
	 */
	PL_EXIT_SNAPSHOT_REFUSED = 3,
};

/* Caller-owned, typically on the stack; no heap memory inside. */
struct pl_error {
	char msg[PL_ERROR_MAX];	/* one line, no trailing newline */
};

/* Appends fmt after the first used bytes, and flattens any newline so the error stays one line. */
static inline void pl_error_vformat(struct pl_error *err, int used, const char *fmt, va_list ap)
{
	if (used < 0 || (size_t)used >= sizeof(err->msg))
		used = (int)sizeof(err->msg) - 1;
	vsnprintf(err->msg + used, sizeof(err->msg) - (size_t)used, fmt, ap);
	for (char *p = err->msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
}

__attribute__((format(printf, 4, 5)))
static inline void pl_error_at_offset(struct pl_error *err, const char *file, uint64_t offset,
				      const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pl_error_vformat(err, snprintf(err->msg, sizeof(err->msg), "%s@%llu: ", file,
				       (unsigned long long)offset), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 4, 5)))
static inline void pl_error_at_line(struct pl_error *err, const char *file, uint64_t line,
				    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pl_error_vformat(err, snprintf(err->msg, sizeof(err->msg), "%s:%llu: ", file,
				       (unsigned long long)line), fmt, ap);
	va_end(ap);
}

__attribute__((format(printf, 3, 4)))
static inline void pl_error_file(struct pl_error *err, const char *file, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pl_error_vformat(err, snprintf(err->msg, sizeof(err->msg), "%s: ", file), fmt, ap);
	va_end(ap);
}

/* An error about no file (an option, the machine's state). */
__attribute__((format(printf, 2, 3)))
static inline void pl_error_set(struct pl_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pl_error_vformat(err, 0, fmt, ap);
	va_end(ap);
}

/* Same, returning -1 for a caller's "return pl_fail(err, ...)". */
__attribute__((format(printf, 2, 3)))
static inline int pl_fail(struct pl_error *err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pl_error_vformat(err, 0, fmt, ap);
	va_end(ap);
	return -1;
}

/* Prints "prog: msg" on stderr: the one way a front end reports an error. */
static inline void pl_error_print(const char *prog, const struct pl_error *err)
{
	fprintf(stderr, "%s: %s\n", prog, err->msg);
}

/* Prints "prog: msg" and exits with status. */
__attribute__((noreturn))
static inline void pl_error_exit(const char *prog, const struct pl_error *err, int status)
{
	pl_error_print(prog, err);
	exit(status);
}

/*
 * Formats an error and exits with status: for a program with no caller to
 * hand the error to (a guest service, a test's helper).
 */
__attribute__((noreturn, format(printf, 3, 4))) static inline void
pl_exit_error(const char *prog, int status, const char *fmt, ...)
{
	struct pl_error err;
	va_list ap;

	va_start(ap, fmt);
	pl_error_vformat(&err, 0, fmt, ap);
	va_end(ap);
	pl_error_exit(prog, &err, status);
}

#ifdef _GNU_SOURCE
/*
 * The same under the program's own name (glibc's
 * program_invocation_short_name) and PL_EXIT_FAILED: the guest's services
 * and apps, which have one way to fail.
 */
#define pl_die(...) pl_exit_error(program_invocation_short_name, PL_EXIT_FAILED, __VA_ARGS__)
#endif

/*
 * Ends the writes to f, named path in errors ("stdout" for stdout). A write
 * that failed on the way (a full disk, a closed pipe) only sets the
 * stream's error flag, so that is checked as well as the last flush.
 * stdout is flushed and stays open; any other stream is closed. Returns 0,
 * or -1 with err set.
 */
static inline int pl_close_output(FILE *f, const char *path, struct pl_error *err)
{
	errno = 0;
	int failed = fflush(f) != 0, saved = errno;

	failed |= ferror(f) != 0;
	if (f != stdout && fclose(f) != 0 && !failed) {
		failed = 1;
		saved = errno;
	}
	if (!failed)
		return 0;
	pl_error_file(err, path, "cannot write: %s", saved ? strerror(saved) :
		      "an earlier write failed (a full disk or a closed pipe?)");
	return -1;
}

/*
 * A command's exit status once its stdout is written: status, or, when
 * stdout could not be written, PL_EXIT_FAILED (unless status already says
 * a failure) after "prog: stdout: cannot write: ..." on stderr.
 */
static inline int pl_finish_stdout(const char *prog, int status)
{
	struct pl_error err;

	if (pl_close_output(stdout, "stdout", &err) == 0)
		return status;
	fprintf(stderr, "%s: %s\n", prog, err.msg);
	return status ? status : PL_EXIT_FAILED;
}

/*
 * A whole decimal number as options and text formats write it: digits only
 * (no sign, no space, no "+"), at most max. Returns 0 with *out set, or -1.
 */
static inline int pl_parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		uint64_t d = (uint64_t)(*s - '0');

		if (d > max || v > (max - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

__attribute__((noreturn))
static inline void pl_out_of_memory(size_t n, size_t size)
{
	fprintf(stderr, "panlab: out of memory allocating %zu x %zu bytes\n", n, size);
	exit(PL_EXIT_FAILED);
}

/* Zeroed array of n elements of size bytes (at least one byte is allocated). */
__attribute__((returns_nonnull, malloc))
static inline void *pl_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		pl_out_of_memory(n, size);
	return p;
}

/* Resizes p to n elements of size bytes, checking n * size for overflow. */
__attribute__((returns_nonnull))
static inline void *pl_xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		pl_out_of_memory(n, size);
	size_t bytes = n * size;

	p = realloc(p, bytes ? bytes : 1);
	if (!p)
		pl_out_of_memory(n, size);
	return p;
}

/* A copy of the string s, the caller's to free. */
__attribute__((returns_nonnull, malloc)) static inline char *pl_xstrdup(const char *s)
{
	size_t bytes = strlen(s) + 1;

	return memcpy(pl_xcalloc(bytes, 1), s, bytes);
}

#endif /* PANLAB_ERROR_H */
