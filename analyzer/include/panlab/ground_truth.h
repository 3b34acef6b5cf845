/* SPDX-License-Identifier: MIT */
/*
 * Ground truth (include/FORMAT.md "Ground truth"): input times T_in taken by the
 * injector and frame times T_out taken at the display, outside the tracer.
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

struct pl_ground_truth {
	bool has_ready, has_end;
	uint64_t ready_ns, end_ns;
	uint64_t ninputs;
	struct pl_gt_input *inputs;	/* in seq order, times non-decreasing */
	uint64_t nframes;
	uint64_t *frames_ns;		/* T_out per frame seq, non-decreasing */
};

int pl_ground_truth_parse(const char *name, const char *buf, size_t len,
			  struct pl_ground_truth *out, struct pl_error *err);
int pl_ground_truth_read_file(const char *path, struct pl_ground_truth *out,
			      struct pl_error *err);
void pl_ground_truth_free(struct pl_ground_truth *gt);

/*
 * Ground-truth transaction of input i: the last frame flushed in
 * [T_in(i), T_in(i+1)), or [T_in(i), end) for the last input, with no upper
 * bound when the file has no `end`. Returns false if no frame falls there.
 */
bool pl_ground_truth_output(const struct pl_ground_truth *gt, uint64_t i,
			    uint64_t *t_out_ns);

#endif /* PANLAB_GROUND_TRUTH_H */
