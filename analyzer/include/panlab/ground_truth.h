/* SPDX-License-Identifier: MIT */
/*
 * Ground truth (include/FORMAT.md "Ground truth"): input times T_in taken by the
 * injector and frame times T_out taken at the display, outside the tracer,
 * with the inputs each frame answers as its marker said (panlab/marker.h).
 *
 * Ownership: pl_ground_truth_parse/read_file allocate the arrays of a
 * caller-provided struct; pl_ground_truth_free releases them. On error
 * nothing stays allocated and err holds "file:line: ...".
 */
#ifndef PANLAB_GROUND_TRUTH_H
#define PANLAB_GROUND_TRUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "panlab/error.h"

enum pl_input_kind {
	PL_INPUT_TAP = 1,
	PL_INPUT_KEY = 2,
};

struct pl_gt_input {
	uint64_t t_ns;		/* T_in; the index in inputs[] is its seq */
	enum pl_input_kind kind;
	uint32_t x, y;		/* tap */
	uint32_t code;		/* key */
};

/* What the display read off a frame's marker. */
enum pl_gt_marker {
	PL_GT_MARKER_UNREAD = 0,	/* the line says nothing (a display without a reader) */
	PL_GT_MARKER_ABSENT,		/* "no-marker": the frame carries none */
	PL_GT_MARKER_UNREADABLE,	/* "unreadable": never matched, counted */
	PL_GT_MARKER_ANSWERS,		/* "answers ID...": the inputs it answers (maybe none) */
	PL_GT_MARKER_REPEAT,		/* "repeat": an app frame shown before, shown again: never matched */
};

/* How an input's ground-truth end was found. */
enum pl_gt_rule {
	PL_GT_RULE_NONE = 0,	/* no frame: the input has no ground-truth end */
	PL_GT_RULE_MARKER,	/* the last frame whose marker names the input */
	PL_GT_RULE_WINDOW,	/* no marker names it: the last frame without a marker in its window */
};

struct pl_ground_truth {
	bool has_ready, has_end;
	uint64_t ready_ns, end_ns;
	uint64_t ninputs;
	struct pl_gt_input *inputs;	/* in seq order, times non-decreasing */
	uint64_t nframes;
	uint64_t *frames_ns;		/* T_out per frame seq, non-decreasing */
	enum pl_gt_marker *frame_marker;	/* per frame */
	/* Frame f answers answers[answer_first[f] .. answer_first[f + 1]) (input seqs). */
	uint64_t *answer_first;		/* nframes + 1 entries once parsed */
	uint64_t nanswers;
	uint64_t *answers;
	uint64_t unreadable_frames;	/* frames whose marker could not be read */
	uint64_t *marker_frame;		/* per input: the last frame naming it, UINT64_MAX if none */
};

int pl_ground_truth_parse(const char *name, const char *buf, size_t len,
			  struct pl_ground_truth *out, struct pl_error *err);
int pl_ground_truth_read_file(const char *path, struct pl_ground_truth *out,
			      struct pl_error *err);
void pl_ground_truth_free(struct pl_ground_truth *gt);

/*
 * Ground-truth end of input i, by identity first: the last frame whose marker
 * names i, which is the flush that first showed i's last update. Only if no
 * marker names i, by time window among the frames that carry no marker
 * (UNREAD or ABSENT; a marker that answers other inputs, or none, or is
 * unreadable, never matches): the last such frame flushed in
 * [T_in(i), T_in(i+1)), or [T_in(i), end) for the last input, with no upper
 * bound when the file has no `end`. Returns the rule (PL_GT_RULE_NONE: no
 * frame, *t_out_ns untouched).
 */
enum pl_gt_rule pl_ground_truth_output(const struct pl_ground_truth *gt, uint64_t i,
				       uint64_t *t_out_ns);
const char *pl_gt_rule_name(enum pl_gt_rule rule);

#endif /* PANLAB_GROUND_TRUTH_H */
