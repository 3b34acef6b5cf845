/* panlab frame marker: the code a frame carries to say which inputs it answers, as a camera rig
 * reads a marker off a real phone's screen (analyzer/FORMAT.md, "Ground truth").
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
 * and a CRC-16/CCITT-FALSE over everything after the start pattern (41 bytes, big-endian). Pixels are 4 bytes each; only the three colour bytes are read, so the strip reads
 * the same in XRGB and BGRX order.
 *
 * A frame reads as PL_MARKER_NONE when its start pattern is absent (fewer than
 * PL_MARKER_START_MIN_CELLS of its 16 cells as drawn: a program that draws no marker, or a
 * uniform area); as PL_MARKER_UNREADABLE when the start pattern is there (even in part) but a cell
 * is neither pure black nor white, the count is too large or the CRC does not match (a torn or
 * overdrawn frame). Only PL_MARKER_OK may be matched to inputs.
 *
 * Ownership: no allocation, no global state; pixel buffers belong to the caller.
 */
#ifndef PANLAB_MARKER_H
#define PANLAB_MARKER_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PL_MARKER_CELL_PX 4
#define PL_MARKER_COLS 120		/* cells per row: 480 px */
#define PL_MARKER_ROWS 3
#define PL_MARKER_HEIGHT_PX (PL_MARKER_ROWS * PL_MARKER_CELL_PX)
#define PL_MARKER_WIDTH_PX (PL_MARKER_COLS * PL_MARKER_CELL_PX)
#define PL_MARKER_MAX_INPUTS 8
#define PL_MARKER_START 0xa53cu		/* 8 ones and 8 zeros: a uniform strip matches 8 cells */
#define PL_MARKER_START_MIN_CELLS 12

struct pl_marker {
	uint32_t count;				/* inputs answered, <= PL_MARKER_MAX_INPUTS */
	uint32_t pid;				/* the process that drew the frame */
	uint32_t frame;				/* its frame number (UI_UPDATE a0), increasing */
	uint32_t input_ids[PL_MARKER_MAX_INPUTS];	/* the first count are meaningful */
};

enum pl_marker_status {
	PL_MARKER_NONE = 0,	/* no marker drawn */
	PL_MARKER_OK,		/* read; the struct holds it */
	PL_MARKER_UNREADABLE,	/* a marker is there but cannot be read: never matched */
	PL_MARKER_REPEAT,	/* read, but that app frame was shown before (pl_marker_seen) */
};

/* What a display has shown so far: the newest frame number per process, as a rig remembers the
 * frames it has seen. A zeroed struct is empty; it holds the last PL_MARKER_SEEN_PIDS processes. */
#define PL_MARKER_SEEN_PIDS 16
struct pl_marker_seen {
	uint32_t pid[PL_MARKER_SEEN_PIDS], frame[PL_MARKER_SEEN_PIDS];
	unsigned n, next;
};

/* For a marker read PL_MARKER_OK: PL_MARKER_REPEAT if its process showed this frame or a later
 * one before (a surface raised again re-shows its last frame, which answers nothing new), else
 * PL_MARKER_OK, remembering the frame. Any other status is returned as is. */
enum pl_marker_status pl_marker_seen_check(struct pl_marker_seen *s, enum pl_marker_status st,
					   const struct pl_marker *m);

/* Draws m (count clamped to PL_MARKER_MAX_INPUTS) into the bottom PL_MARKER_HEIGHT_PX rows of a
 * frame of width_px x height_px pixels, stride_bytes apart. A frame smaller than the strip gets
 * nothing. */
void pl_marker_draw(uint8_t *pixels, uint32_t width_px, uint32_t height_px, uint32_t stride_bytes,
		    const struct pl_marker *m);

/* Reads the strip of a frame laid out as for pl_marker_draw. On PL_MARKER_OK fills *out; on
 * PL_MARKER_UNREADABLE sets *why (if why is not NULL) to a static phrase saying what failed. */
enum pl_marker_status pl_marker_read(const uint8_t *pixels, uint32_t width_px, uint32_t height_px,
				     uint32_t stride_bytes, struct pl_marker *out, const char **why);

/* The ground-truth frame line (panlab/ground_truth_format.h) of flush seq at t_ns, for a frame
 * whose marker read as status (m as read, for PL_MARKER_OK). Returns its length, or -1 if size
 * is too small (then buf holds a truncated, terminated string). */
int pl_marker_gt_frame(char *buf, size_t size, uint64_t seq, uint64_t t_ns,
		       enum pl_marker_status status, const struct pl_marker *m);

#ifdef __cplusplus
}
#endif

#endif /* PANLAB_MARKER_H */
