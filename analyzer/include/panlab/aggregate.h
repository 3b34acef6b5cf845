/* SPDX-License-Identifier: MIT */
/*
 * Stage 7 (aggregate.c): transactions -> groups of equal shape, outliers;
 * critical paths -> top edges.
 *
 * Ownership: each *_build / *_extract function fills a caller-provided struct, allocating
 * its arrays; the matching *_free releases them. Results refer to the trace by event index
 * only; the trace must outlive any use of the indices and is never changed. Out of memory
 * aborts. Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_AGGREGATE_H
#define PANLAB_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/critical_path.h"

/*
 * AppInsight-style grouping: transactions whose critical paths have the same
 * shape (pl_critical_path_shape) form a group; a transaction slower than its
 * group's mean + 3 standard deviations is an outlier.
 */
struct pl_shape_group {
	char shape[128];
	uint64_t transactions;
	uint64_t mean_latency_ns;
	uint64_t sd_latency_ns;		/* population standard deviation */
	uint64_t outliers;
};

struct pl_aggregates {
	uint64_t ngroups;
	struct pl_shape_group *groups;	/* in order of their first transaction */
	uint64_t *group_of;		/* per transaction: its group */
	uint8_t *outlier;		/* per transaction: 1 if an outlier of its group */
	uint64_t outliers;
};

void pl_aggregates_build(const struct pl_transactions *tx, const struct pl_critical_paths *cp,
			 struct pl_aggregates *out);
void pl_aggregates_free(struct pl_aggregates *ag);

/*
 * Top critical-path edges: every step of every critical path, summed by
 * what it is (edge kind and the threads at its two ends; a temporal step
 * has the same thread at both), so a report can say which hand-over or
 * which thread's work the latency went to most.
 */
struct pl_edge_total {
	enum pl_edge_kind kind;
	uint32_t from_tid, to_tid;
	uint64_t steps;
	uint64_t total_ns, max_ns;
};

struct pl_top_edges {
	uint64_t count;
	struct pl_edge_total *edges;	/* most total time first, then by kind and tids */
};

void pl_top_edges_build(const struct pl_trace *trace, const struct pl_intervals *iv,
			const struct pl_critical_paths *cp, struct pl_top_edges *out);
void pl_top_edges_free(struct pl_top_edges *te);

#endif /* PANLAB_AGGREGATE_H */
