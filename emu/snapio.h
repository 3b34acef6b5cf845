/* Snapshot streams: the byte layer under a snapshot file (host/snapshot.c).
 *
 * A file is a header (magic, version) and a sequence of sections. A section
 * is a 4-character tag, its payload length in bytes (u64), the payload and
 * the CRC-32 of the payload (u32). Integers are little-endian. Sections are
 * written and read in a fixed order, so every reader knows what comes next
 * and a tag mismatch means a file of another machine or version.
 *
 * Reading is strict: the first problem (short file, checksum, tag, length,
 * a value out of range) is recorded as one line "FILE@OFFSET: what is wrong,
 * expected what" and every later read returns zeros; callers check
 * snap_r_failed() at the end of a section. Small sections are read whole
 * and their checksum is verified before any value is used; a streamed
 * section (RAM) is checked at its end.
 *
 * Ownership: snap_w_open()/snap_r_open() allocate; snap_w_close()/
 * snap_r_close() close the file and free. The path string must outlive the
 * stream. */
#ifndef PANLAB_SNAPIO_H
#define PANLAB_SNAPIO_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

typedef struct snap_w snap_w;
typedef struct snap_r snap_r;

#define SNAP_ERR_BYTES 512

/* ---- writing ---- */
/* Creates path; NULL with err set if it cannot. */
snap_w *snap_w_open(const char *path, uint32_t version, struct pl_error *err);
void snap_w_begin(snap_w *w, const char *tag);
void snap_w_end(snap_w *w);
void snap_put_u8(snap_w *w, uint8_t v);
void snap_put_u16(snap_w *w, uint16_t v);
void snap_put_u32(snap_w *w, uint32_t v);
void snap_put_u64(snap_w *w, uint64_t v);
void snap_put_i32(snap_w *w, int32_t v);
void snap_put_bytes(snap_w *w, const void *p, size_t n);
/* Length-prefixed (u32) string. */
void snap_put_str(snap_w *w, const char *s);
/* Closes the file; returns 0, or -1 with err set if any write failed. */
int snap_w_close(snap_w *w, struct pl_error *err);

/* ---- reading ---- */
/* Opens path and checks the magic and version; NULL with err set. */
snap_r *snap_r_open(const char *path, uint32_t version, struct pl_error *err);
/* Reads the header of the next section, which must be tag, and (unless
 * stream) its whole payload with the checksum checked. Returns 0 or -1. */
int snap_r_begin(snap_r *r, const char *tag, int stream);
/* Checks that the payload was consumed exactly (and, for a streamed
 * section, its checksum). Returns 0 or -1. */
int snap_r_end(snap_r *r);
uint8_t snap_get_u8(snap_r *r);
uint16_t snap_get_u16(snap_r *r);
uint32_t snap_get_u32(snap_r *r);
uint64_t snap_get_u64(snap_r *r);
int32_t snap_get_i32(snap_r *r);
void snap_get_bytes(snap_r *r, void *p, size_t n);
/* A string of at most cap - 1 bytes into buf (NUL-terminated). */
void snap_get_str(snap_r *r, char *buf, size_t cap);
/* Reads a u32 that must be at most max; what names it in the error. */
uint32_t snap_get_u32_max(snap_r *r, uint32_t max, const char *what);
/* Records an error at the offset of the value just read, printf-style
 * after "FILE@OFFSET: ". Returns -1. */
int snap_r_fail(snap_r *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same at a given file offset (a value read earlier). */
int snap_r_fail_at(snap_r *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The file offset of the next value. */
uint64_t snap_r_offset(const snap_r *r);
int snap_r_failed(const snap_r *r);
const char *snap_r_error(const snap_r *r);
/* Checks that the file ends after the last section read. Returns 0 or -1. */
int snap_r_eof(snap_r *r);
void snap_r_close(snap_r *r);

#endif
