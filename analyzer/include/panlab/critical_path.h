/* SPDX-License-Identifier: MIT */
/*
 * Stage 5 (critical_path.c): transaction -> its critical path.
 *
 * Ownership: each *_build / *_extract function fills a caller-provided struct, allocating
 * its arrays; the matching *_free releases them. Results refer to the trace by event index
 * only; the trace must outlive any use of the indices and is never changed. Out of memory
 * aborts. Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_CRITICAL_PATH_H
#define PANLAB_CRITICAL_PATH_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/transactions.h"

/*
 * One step of a critical path: time spent on one thread between two of its
 * events (PL_EDGE_TEMPORAL), or the hop along a causal edge. Steps tile
 * [input_ns, end_ns] without gaps, so their durations sum to the latency.
 */
struct pl_step {
	enum pl_edge_kind kind;
	uint64_t from_event;
	uint64_t to_event;
};

struct pl_critical_paths {
	uint64_t count;			/* = transactions */
	uint64_t *first_step;		/* count + 1: path k is steps[first_step[k] .. first_step[k + 1]) */
	struct pl_step *steps;		/* each path from its input to its last update */
	/*
	 * Per transaction: joins on its path, events with predecessors in
	 * more than one interval of the transaction, where the latest one was
	 * taken (Panappticon's tie-break).
	 */
	uint64_t *joins;
	uint64_t decided;		/* transactions with at least one such join */
};

void pl_critical_paths_build(const struct pl_trace *trace, const struct pl_intervals *iv,
			     const struct pl_graph *g, const struct pl_transactions *tx,
			     struct pl_critical_paths *out);
void pl_critical_paths_free(struct pl_critical_paths *cp);
/*
 * The causal hops of path k joined by '>' ("task>message>invalidate"): the
 * shape of the transaction's critical path. Truncated to fit buf; returns buf.
 */
char *pl_critical_path_shape(const struct pl_critical_paths *cp, uint64_t k, char *buf,
			     size_t size);

#endif /* PANLAB_CRITICAL_PATH_H */
