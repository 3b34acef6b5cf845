/* SPDX-License-Identifier: MIT */
/* panlab frame marker: the code a frame carries to say which inputs it answers, as a camera rig
 * reads a marker off a real phone's screen (include/FORMAT.md, "Ground truth"). The display
 * ground truth's codec, here so that its writer and its readers reach it as equals.
 *
 * The platform library draws it into every app frame (workloads/lib/window.c); the display device
 * reads it back from the scanout when the frame is flushed (emu/replay.c on the phone, the
 * compositor on the qemu backend) and writes the input ids into the ground truth.
 *
 * Layout: a strip PL_MARKER_HEIGHT_PX tall across the bottom of the frame, of square cells
 * PL_MARKER_CELL_PX wide, read row by row, left to right, one bit each: pure white (0xffffff)
 * is 1, pure black is 0. The bits, most significant first: a 16-bit start pattern
 * (PL_MARKER_START), an 8-bit count of inputs (0..PL_MARKER_MAX_INPUTS), the drawing process's
 * pid and its frame number (32 bits each), PL_MARKER_MAX_INPUTS 32-bit input ids (unused ones 0)
 * and a CRC-16/CCITT-FALSE over everything after the start pattern (41 bytes, big-endian).
 * Pixels are 4 bytes each; only the three colour bytes are read, so the strip reads the same in
 * XRGB and BGRX order.
 *
 * A frame reads as PL_MARKER_NONE when its start pattern is absent (fewer than
 * PL_MARKER_START_MIN_CELLS of its 16 cells as drawn: a program that draws no marker, or a
 * uniform area); as PL_MARKER_UNREADABLE when the start pattern is there (even in part) but a cell
 * is neither pure black nor white, the count is too large or the CRC does not match (a torn or
 * overdrawn frame). Only PL_MARKER_OK may be matched to inputs.
 *
 * Ownership: no allocation, no global state; pixel buffers belong to the caller. Static inline, so
 * the guest (armel) and the emulator draw and read alike with nothing to link.
 */
#ifndef PANLAB_MARKER_H
#define PANLAB_MARKER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "panlab/ground_truth_format.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PL_MARKER_CELL_PX 4
#define PL_MARKER_COLS 120 /* cells per row: 480 px */
#define PL_MARKER_ROWS 3
#define PL_MARKER_HEIGHT_PX (PL_MARKER_ROWS * PL_MARKER_CELL_PX)
#define PL_MARKER_WIDTH_PX (PL_MARKER_COLS * PL_MARKER_CELL_PX)
#define PL_MARKER_MAX_INPUTS 8
#define PL_MARKER_START 0xa53cu /* 8 ones and 8 zeros: a uniform strip matches 8 cells */
#define PL_MARKER_START_MIN_CELLS 12

struct pl_marker {
	uint32_t count;				  /* inputs answered, <= PL_MARKER_MAX_INPUTS */
	uint32_t pid;				  /* the process that drew the frame */
	uint32_t frame;				  /* its frame number (UI_UPDATE a0), increasing */
	uint32_t input_ids[PL_MARKER_MAX_INPUTS]; /* the first count are meaningful */
};

enum pl_marker_status {
	PL_MARKER_NONE = 0,   /* no marker drawn */
	PL_MARKER_OK,	      /* read; the struct holds it */
	PL_MARKER_UNREADABLE, /* a marker is there but cannot be read: never matched */
	PL_MARKER_REPEAT,     /* read, but that app frame was shown before (pl_marker_seen) */
};

/* What a display has shown so far: the newest frame number per process, as a rig remembers the
 * frames it has seen. A zeroed struct is empty; it holds the last PL_MARKER_SEEN_PIDS processes. */
#define PL_MARKER_SEEN_PIDS 16
struct pl_marker_seen {
	uint32_t pid[PL_MARKER_SEEN_PIDS], frame[PL_MARKER_SEEN_PIDS];
	unsigned n, next;
};

/* The codec's own steps; callers use the four functions below. */
#define PL_MARKER_PAYLOAD_BYTES (1 + 4 + 4 + 4 * PL_MARKER_MAX_INPUTS)
#define PL_MARKER_IDS_AT 9 /* count, pid, frame, then the ids */
#define PL_MARKER_BITS (16 + 8 * PL_MARKER_PAYLOAD_BYTES + 16)

_Static_assert(PL_MARKER_BITS <= PL_MARKER_ROWS * PL_MARKER_COLS,
	       "the marker's bits fit its strip");

/* CRC-16/CCITT-FALSE (poly 0x1021, init 0xffff), bitwise: 33 bytes per frame. */
static inline uint16_t pl_marker_crc16(const uint8_t *p, size_t n)
{
	uint16_t crc = 0xffff;
	for (size_t i = 0; i < n; i++) {
		crc ^= (uint16_t)(p[i] << 8);
		for (int b = 0; b < 8; b++)
			crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
	}
	return crc;
}

static inline void pl_marker_put32(uint8_t *p, uint32_t v)
{
	for (int b = 0; b < 4; b++)
		p[b] = (uint8_t)(v >> (24 - 8 * b));
}

static inline uint32_t pl_marker_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void pl_marker_encode_payload(const struct pl_marker *m,
					    uint8_t out[PL_MARKER_PAYLOAD_BYTES])
{
	uint32_t count = m->count < PL_MARKER_MAX_INPUTS ? m->count : PL_MARKER_MAX_INPUTS;
	memset(out, 0, PL_MARKER_PAYLOAD_BYTES);
	out[0] = (uint8_t)count;
	pl_marker_put32(out + 1, m->pid);
	pl_marker_put32(out + 5, m->frame);
	for (uint32_t i = 0; i < count; i++)
		pl_marker_put32(out + PL_MARKER_IDS_AT + 4 * i, m->input_ids[i]);
}

static inline uint8_t *pl_marker_cell_at(uint8_t *pixels, uint32_t height_px, uint32_t stride_bytes,
					 unsigned bit)
{
	uint32_t row = height_px - PL_MARKER_HEIGHT_PX + (bit / PL_MARKER_COLS) * PL_MARKER_CELL_PX;
	uint32_t col = (bit % PL_MARKER_COLS) * PL_MARKER_CELL_PX;
	return pixels + (size_t)row * stride_bytes + (size_t)col * 4;
}

/* For a marker read PL_MARKER_OK: PL_MARKER_REPEAT if its process showed this frame or a later
 * one before (a surface raised again re-shows its last frame, which answers nothing new), else
 * PL_MARKER_OK, remembering the frame. Any other status is returned as is. */
static inline enum pl_marker_status
pl_marker_seen_check(struct pl_marker_seen *s, enum pl_marker_status st, const struct pl_marker *m)
{
	if (st != PL_MARKER_OK)
		return st;
	for (unsigned i = 0; i < s->n; i++) {
		if (s->pid[i] != m->pid)
			continue;
		if (m->frame <= s->frame[i])
			return PL_MARKER_REPEAT;
		s->frame[i] = m->frame;
		return PL_MARKER_OK;
	}
	/* A new process takes a free entry, or the oldest one's. */
	unsigned k = s->n < PL_MARKER_SEEN_PIDS ? s->n++ : s->next++ % PL_MARKER_SEEN_PIDS;
	s->pid[k] = m->pid;
	s->frame[k] = m->frame;
	return PL_MARKER_OK;
}

/* Draws m (count clamped to PL_MARKER_MAX_INPUTS) into the bottom PL_MARKER_HEIGHT_PX rows of a
 * frame of width_px x height_px pixels, stride_bytes apart. A frame smaller than the strip gets
 * nothing. */
static inline void pl_marker_draw(uint8_t *pixels, uint32_t width_px, uint32_t height_px,
				  uint32_t stride_bytes, const struct pl_marker *m)
{
	if (width_px < PL_MARKER_WIDTH_PX || height_px < PL_MARKER_HEIGHT_PX)
		return;
	uint8_t bytes[2 + PL_MARKER_PAYLOAD_BYTES + 2];
	bytes[0] = PL_MARKER_START >> 8;
	bytes[1] = PL_MARKER_START & 0xff;
	pl_marker_encode_payload(m, bytes + 2);
	uint16_t crc = pl_marker_crc16(bytes + 2, PL_MARKER_PAYLOAD_BYTES);
	bytes[2 + PL_MARKER_PAYLOAD_BYTES] = (uint8_t)(crc >> 8);
	bytes[3 + PL_MARKER_PAYLOAD_BYTES] = (uint8_t)crc;
	for (unsigned bit = 0; bit < PL_MARKER_ROWS * PL_MARKER_COLS; bit++) {
		/* Cells past the code are black: the whole strip is the marker's. */
		int one = bit < PL_MARKER_BITS && (bytes[bit / 8] >> (7 - bit % 8) & 1);
		uint8_t *cell = pl_marker_cell_at(pixels, height_px, stride_bytes, bit);
		for (int y = 0; y < PL_MARKER_CELL_PX; y++)
			for (int x = 0; x < PL_MARKER_CELL_PX; x++) {
				uint8_t *px = cell + (size_t)y * stride_bytes + (size_t)x * 4;
				px[0] = px[1] = px[2] = one ? 0xff : 0;
				px[3] = 0;
			}
	}
}

/* 1 or 0 for a pure white or black cell, -1 for anything else. */
static inline int pl_marker_read_cell(const uint8_t *pixels, uint32_t height_px,
				      uint32_t stride_bytes, unsigned bit)
{
	const uint8_t *cell = pl_marker_cell_at((uint8_t *)pixels, height_px, stride_bytes, bit);
	uint8_t first = cell[0];
	if (first != 0 && first != 0xff)
		return -1;
	for (int y = 0; y < PL_MARKER_CELL_PX; y++)
		for (int x = 0; x < PL_MARKER_CELL_PX; x++) {
			const uint8_t *px = cell + (size_t)y * stride_bytes + (size_t)x * 4;
			if (px[0] != first || px[1] != first || px[2] != first)
				return -1;
		}
	return first ? 1 : 0;
}

/* Reads the strip of a frame laid out as for pl_marker_draw. On PL_MARKER_OK fills *out; on
 * PL_MARKER_UNREADABLE sets *why (if why is not NULL) to a static phrase saying what failed. */
static inline enum pl_marker_status pl_marker_read(const uint8_t *pixels, uint32_t width_px,
						   uint32_t height_px, uint32_t stride_bytes,
						   struct pl_marker *out, const char **why)
{
	const char *reason = NULL;
	if (width_px < PL_MARKER_WIDTH_PX || height_px < PL_MARKER_HEIGHT_PX)
		return PL_MARKER_NONE;
	unsigned start_cells = 0;
	for (unsigned bit = 0; bit < 16; bit++)
		start_cells += pl_marker_read_cell(pixels, height_px, stride_bytes, bit) ==
			       (int)(PL_MARKER_START >> (15 - bit) & 1);
	if (start_cells < PL_MARKER_START_MIN_CELLS)
		return PL_MARKER_NONE;
	uint8_t bytes[2 + PL_MARKER_PAYLOAD_BYTES + 2] = { 0 };
	for (unsigned bit = 0; bit < PL_MARKER_BITS && !reason; bit++) {
		int v = pl_marker_read_cell(pixels, height_px, stride_bytes, bit);
		if (v < 0)
			reason = "a cell is neither black nor white";
		else
			bytes[bit / 8] |= (uint8_t)(v << (7 - bit % 8));
	}
	if (!reason && (bytes[0] << 8 | bytes[1]) != PL_MARKER_START)
		reason = "damaged start pattern";
	else if (!reason && bytes[2] > PL_MARKER_MAX_INPUTS)
		reason = "input count above the maximum";
	else if (!reason && pl_marker_crc16(bytes + 2, PL_MARKER_PAYLOAD_BYTES) !=
				    (uint16_t)(bytes[2 + PL_MARKER_PAYLOAD_BYTES] << 8 |
					       bytes[3 + PL_MARKER_PAYLOAD_BYTES]))
		reason = "checksum mismatch";
	if (reason) {
		if (why)
			*why = reason;
		return PL_MARKER_UNREADABLE;
	}
	memset(out, 0, sizeof(*out));
	out->count = bytes[2];
	out->pid = pl_marker_get32(bytes + 3);
	out->frame = pl_marker_get32(bytes + 7);
	for (uint32_t i = 0; i < out->count; i++)
		out->input_ids[i] = pl_marker_get32(bytes + 2 + PL_MARKER_IDS_AT + 4 * i);
	return PL_MARKER_OK;
}

/* The ground-truth frame line (panlab/ground_truth_format.h) of flush seq at t_ns, for a frame
 * whose marker read as status (m as read; used only for PL_MARKER_OK). Returns its length, or -1 if size
 * is too small (then buf holds a truncated, terminated string). */
static inline int pl_marker_gt_frame(char *buf, size_t size, uint64_t seq, uint64_t t_ns,
				     enum pl_marker_status status, const struct pl_marker *m)
{
	if (status == PL_MARKER_OK)
		return pl_gt_frame(buf, size, seq, t_ns, PL_GT_WORD_ANSWERS, m->input_ids,
				   m->count);
	return pl_gt_frame(buf, size, seq, t_ns,
			   status == PL_MARKER_UNREADABLE ? PL_GT_WORD_UNREADABLE :
			   status == PL_MARKER_REPEAT	  ? PL_GT_WORD_REPEAT :
							    PL_GT_WORD_NO_MARKER,
			   NULL, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* PANLAB_MARKER_H */
