/* SPDX-License-Identifier: MIT */
/*
 * Validation: detected transactions x ground truth. A transaction matches
 * the ground-truth input whose seq equals its input id (the dispatcher and
 * the injector number inputs the same way), each input at most once.
 *
 * The detected latency runs from input to pixels (struct pl_pixels: the
 * kernel's delivery of the input to the display flush that first showed its
 * last update), the ground truth from T_in at the input device to T_out of
 * the frame matched to the input (by its marker, or by time window for
 * frames without one: pl_ground_truth_output). Each row keeps the trace's
 * pipeline segments, so that the critical path's breakdown plus input
 * dispatch and display pipeline is the detected latency, and the difference
 * from ground truth is what remains.
 *
 * An input that changed nothing on screen (no frame in its window) is a
 * negative: no transaction for it is right, and it does not lower recall.
 *
 * Ownership: pl_validate allocates rows in a caller-provided struct;
 * pl_validation_free releases them. Times in ns.
 */
#ifndef PANLAB_VALIDATE_H
#define PANLAB_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "panlab/ground_truth.h"
#include "panlab/transactions.h"

/* Signed statistics over the rows that have both latencies. */
struct pl_stat {
	uint64_t n;
	int64_t min, max;
	int64_t mean;		/* truncated toward zero; 0 when n == 0 */
};

/*
 * One row per ground-truth input (in seq order), then one per detected
 * transaction that matched none (in input time order): every row has an
 * input, a transaction, or both.
 */
struct pl_row {
	uint64_t input;			/* ground-truth seq, or PL_NONE */
	uint64_t tx;			/* index into pl_transactions.items, or PL_NONE */
	bool has_truth;			/* a ground-truth frame was matched to the input */
	enum pl_gt_rule rule;		/* how (PL_GT_RULE_NONE without one) */
	uint64_t truth_in_ns, truth_out_ns;	/* T_in, T_out (if has_truth) */
	uint64_t truth_latency_ns;	/* T_out - T_in (if has_truth) */
	/* Valid if tx != PL_NONE && has_truth: */
	int64_t difference_ns;		/* detected (input to pixels) - ground truth */
	/* From the trace, valid if tx != PL_NONE (struct pl_pixels): */
	int64_t input_dispatch_ns;	/* kernel delivery .. UI_INPUT */
	int64_t display_pipeline_ns;	/* last UI_UPDATE .. flush: vsync queue + composition + flush */
};

/* Nearest-rank percentiles of a set of latencies (0 everywhere when n == 0). */
struct pl_percentiles {
	uint64_t n;
	uint64_t p50, p90, p95, p99, max;
};

struct pl_validation {
	uint64_t inputs;		/* ground-truth inputs */
	uint64_t transactions;		/* detected */
	uint64_t matched;		/* inputs with a transaction of their id */
	/* Against the ground truth: an input with a frame in its window is a positive. */
	uint64_t true_positives;	/* inputs with a frame and a transaction */
	uint64_t false_negatives;	/* inputs with a frame and no transaction */
	uint64_t true_negatives;	/* inputs without a frame and without a transaction */
	bool has_precision, has_recall;	/* false when the denominator is 0 */
	double precision;		/* true_positives / transactions */
	double recall;			/* true_positives / (true_positives + false_negatives) */
	uint64_t inputs_without_frame;	/* ground-truth inputs whose window has no frame */
	uint64_t rule_counts[3];	/* matched rows by enum pl_gt_rule of their input */
	uint64_t unreadable_frames;	/* the ground truth's frames with an unreadable marker */
	uint64_t nrows;
	struct pl_row *rows;
	struct pl_stat error_ns;	/* |difference_ns| */
	struct pl_stat difference_ns;
	/* The trace's pipeline segments over matched rows with ground truth: */
	struct pl_stat input_dispatch_ns;
	struct pl_stat display_pipeline_ns;
	struct pl_stat vsync_queue_ns;
	struct pl_stat composition_ns;
	struct pl_stat flush_ns;
	struct pl_percentiles detected_latency_ns;	/* over detected transactions */
	struct pl_percentiles truth_latency_ns;		/* over inputs whose window has a frame */
};

/* Sorts v[0..n) in place and reads the nearest-rank percentiles off it. */
struct pl_percentiles pl_percentiles_of(uint64_t *v, uint64_t n);

void pl_validate(const struct pl_transactions *tx, const struct pl_ground_truth *gt,
		 struct pl_validation *out);
void pl_validation_free(struct pl_validation *v);

#endif /* PANLAB_VALIDATE_H */
