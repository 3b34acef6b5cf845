/* SPDX-License-Identifier: MIT */
/*
 * The ground-truth file: T_in of every injected input and T_out of every display flush, taken
 * outside the tracer (include/FORMAT.md, "Ground truth", says what each line means and how the
 * reader checks it).
 *
 * One writer: the line formatters below. Every producer (emu/replay.c on the phone; the guest's
 * injector, replay/src/inject.c, with panlab-session or panlab-replay writing the header; the
 * compositor's frame lines on qemu) formats its lines here and only chooses how to write them.
 * One reader: analyzer/ground_truth.c, which spells the same words from here.
 *
 * Each formatter writes one line, newline included, into buf (size bytes, terminated) and
 * returns its length, or -1 if it does not fit (buf then holds a truncated, terminated string).
 * Static inline, no allocation: the guest (armel) and the host format alike.
 */
#ifndef PANLAB_GROUND_TRUTH_FORMAT_H
#define PANLAB_GROUND_TRUTH_FORMAT_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define PL_GT_MAGIC "panlab-ground-truth"
#define PL_GT_VERSION 1

/* The first word of each record. */
#define PL_GT_WORD_READY "ready"
#define PL_GT_WORD_INPUT "input"
#define PL_GT_WORD_FRAME "frame"
#define PL_GT_WORD_END "end"

/* An input's kind. */
#define PL_GT_WORD_TAP "tap"
#define PL_GT_WORD_KEY "key"

/*
 * Ground truth numbers actions: a key held with modifiers (a script's CTRL+C, a capital) is one
 * input, the key's, so its modifiers' presses are none; a modifier pressed alone is an input.
 * These are the modifier keys' Linux codes (input-event-codes.h: KEY_LEFTCTRL, KEY_LEFTSHIFT,
 * KEY_RIGHTSHIFT, KEY_LEFTALT, KEY_RIGHTCTRL, KEY_RIGHTALT), for the readers of presses that
 * must count them alike (inputd, the analyzer's kernel-only inference).
 */
static inline int pl_gt_key_is_modifier(uint32_t code)
{
	return code == 29 || code == 42 || code == 54 || code == 56 || code == 97 || code == 100;
}

/* A frame's marker word; only PL_GT_WORD_ANSWERS is followed by input ids. */
#define PL_GT_WORD_NO_MARKER "no-marker"
#define PL_GT_WORD_UNREADABLE "unreadable"
#define PL_GT_WORD_REPEAT "repeat"
#define PL_GT_WORD_ANSWERS "answers"

/* Room for any line a writer makes: a frame answering a marker's 8 ids takes 143 bytes. */
#define PL_GT_LINE_BYTES 192

static inline int pl_gt_fit(int n, size_t size)
{
	return n >= 0 && (size_t)n < size ? n : -1;
}

static inline int pl_gt_header(char *buf, size_t size)
{
	return pl_gt_fit(snprintf(buf, size, PL_GT_MAGIC " %d\n", PL_GT_VERSION), size);
}

static inline int pl_gt_ready(char *buf, size_t size, uint64_t t_ns)
{
	return pl_gt_fit(snprintf(buf, size, PL_GT_WORD_READY " %" PRIu64 "\n", t_ns), size);
}

/* A tap, or a swipe where its touch began, at (x_px, y_px). */
static inline int pl_gt_input_tap(char *buf, size_t size, uint64_t seq, uint64_t t_ns, int32_t x_px,
				  int32_t y_px)
{
	return pl_gt_fit(snprintf(buf, size,
				  PL_GT_WORD_INPUT " %" PRIu64 " %" PRIu64 " " PL_GT_WORD_TAP
						   " %" PRId32 " %" PRId32 "\n",
				  seq, t_ns, x_px, y_px),
			 size);
}

/* A key press: code is the Linux input event code. */
static inline int pl_gt_input_key(char *buf, size_t size, uint64_t seq, uint64_t t_ns,
				  uint32_t code)
{
	return pl_gt_fit(snprintf(buf, size,
				  PL_GT_WORD_INPUT " %" PRIu64 " %" PRIu64 " " PL_GT_WORD_KEY
						   " %" PRIu32 "\n",
				  seq, t_ns, code),
			 size);
}

/* A flush; marker is one of the PL_GT_* marker words, ids[0..count) the inputs it answers
 * (written only for PL_GT_WORD_ANSWERS). */
static inline int pl_gt_frame(char *buf, size_t size, uint64_t seq, uint64_t t_ns,
			      const char *marker, const uint32_t *ids, uint32_t count)
{
	int n = snprintf(buf, size, PL_GT_WORD_FRAME " %" PRIu64 " %" PRIu64 " %s", seq, t_ns,
			 marker);
	for (uint32_t i = 0;
	     !strcmp(marker, PL_GT_WORD_ANSWERS) && i < count && pl_gt_fit(n, size) >= 0; i++)
		n += snprintf(buf + n, size - (size_t)n, " %" PRIu32, ids[i]);
	if (pl_gt_fit(n, size) >= 0)
		n += snprintf(buf + n, size - (size_t)n, "\n");
	return pl_gt_fit(n, size);
}

static inline int pl_gt_end(char *buf, size_t size, uint64_t t_ns)
{
	return pl_gt_fit(snprintf(buf, size, PL_GT_WORD_END " %" PRIu64 "\n", t_ns), size);
}

#endif /* PANLAB_GROUND_TRUTH_FORMAT_H */
