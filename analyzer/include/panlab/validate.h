/* SPDX-License-Identifier: MIT */
/*
 * Validation: detected transactions x ground truth. A transaction matches
 * the ground-truth input whose seq equals its input id (the dispatcher and
 * the injector number inputs the same way), each input at most once.
 *
 * Detected latency (UI_UPDATE - UI_INPUT) is shorter than the ground-truth
 * latency (T_out - T_in) by two pipelines the tracer does not see: input
 * dispatch before UI_INPUT and the compositor/display after UI_UPDATE. Both
 * are measured per row so the difference is explained, not just reported.
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
	bool has_truth;			/* the ground-truth window holds a frame */
	uint64_t truth_in_ns, truth_out_ns;	/* T_in, T_out (if has_truth) */
	uint64_t truth_latency_ns;	/* T_out - T_in (if has_truth) */
	/* Valid if tx != PL_NONE && has_truth: */
	int64_t difference_ns;		/* detected - ground truth */
	int64_t input_dispatch_ns;	/* UI_INPUT - T_in */
	int64_t display_pipeline_ns;	/* T_out - last UI_UPDATE */
};

/* Nearest-rank percentiles of a set of latencies (0 everywhere when n == 0). */
struct pl_percentiles {
	uint64_t n;
	uint64_t p50, p90, p95, p99, max;
};

struct pl_validation {
	uint64_t inputs;		/* ground-truth inputs */
	uint64_t transactions;		/* detected */
	uint64_t matched;
	bool has_precision, has_recall;	/* false when the denominator is 0 */
	double precision;		/* matched / transactions */
	double recall;			/* matched / inputs */
	uint64_t inputs_without_frame;	/* ground-truth inputs whose window has no frame */
	uint64_t nrows;
	struct pl_row *rows;
	struct pl_stat error_ns;	/* |difference_ns| */
	struct pl_stat difference_ns;
	struct pl_stat input_dispatch_ns;
	struct pl_stat display_pipeline_ns;
	struct pl_percentiles detected_latency_ns;	/* over detected transactions */
	struct pl_percentiles truth_latency_ns;		/* over inputs whose window has a frame */
};

/* Sorts v[0..n) in place and reads the nearest-rank percentiles off it. */
struct pl_percentiles pl_percentiles_of(uint64_t *v, uint64_t n);

void pl_validate(const struct pl_transactions *tx, const struct pl_ground_truth *gt,
		 struct pl_validation *out);
void pl_validation_free(struct pl_validation *v);

#endif /* PANLAB_VALIDATE_H */
