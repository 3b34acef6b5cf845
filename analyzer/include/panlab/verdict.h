/* SPDX-License-Identifier: MIT */
/*
 * The suite's verdict: whether each run of an experiment met its targets.
 * A run is `ok` when its summary.json has precision = recall = 1, the
 * transaction count its .expect declares (summary.json's
 * expect.transactions_declared) and its declared structure, and, on the
 * phone, |detected - ground truth| mean <= 100 us and max <= 1 ms, no causal
 * pair out of order and nothing moved by skew repair. A kernel-only app
 * (workloads/oss, summary.json's inference "kernel-only") is held to
 * P and R >= 0.95 and error mean <= 1 ms. Otherwise its status names each
 * target missed ("mismatch: recall 0.917 < 1; error max 1200 us > 1000 us"),
 * or what went wrong with the run ("run failed: REASON").
 *
 * Ownership: every json_t returned is a new reference the caller releases.
 */
#ifndef PANLAB_VERDICT_H
#define PANLAB_VERDICT_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "panlab/error.h"

/*
 * One run's verdict object from its summary.json: workload, run_id, backend,
 * transactions, expected_transactions, precision, recall,
 * latency_error_ns_mean, latency_error_ns_max, match_rule_counts,
 * unreadable_frames, shape_ok, causal_pairs (summed over kinds),
 * causal_pairs_out_of_order and _by_kind, skew_repaired, inference, status.
 */
json_t *pl_verdict_of_summary(const json_t *summary, const char *workload, const char *run_id);
/* The same fields, null, for a run without a summary; status says why. */
json_t *pl_verdict_of_failure(const char *workload, const char *run_id, const char *backend,
			      const char *status);
/* Whether a verdict object's status is ok. */
int pl_verdict_ok(const json_t *verdict);
/* The table's two header lines, and one line per verdict object. */
void pl_verdict_table_header(FILE *out);
void pl_verdict_table_line(FILE *out, const json_t *verdict);

/*
 * The verdicts of every run of `experiment` in the results database db, the
 * run's files in runs_dir/<run_id>/: the array into *out (ordered by workload
 * and run id), a table line each on table, and the count that missed a
 * target in *bad. 0, or -1 with err set (no such database, no run).
 */
int pl_verdict_experiment(const char *db, const char *experiment, const char *runs_dir, FILE *table,
			  json_t **out, uint64_t *bad, struct pl_error *err);

#endif /* PANLAB_VERDICT_H */
