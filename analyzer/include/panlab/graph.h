/* SPDX-License-Identifier: MIT */
/*
 * Stage 3 (graph.c): intervals -> causal edges between events.
 *
 * Ownership: each *_build / *_extract function fills a caller-provided struct, allocating
 * its arrays; the matching *_free releases them. Results refer to the trace by event index
 * only; the trace must outlive any use of the indices and is never changed. Out of memory
 * aborts. Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_GRAPH_H
#define PANLAB_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/intervals.h"

enum pl_edge_kind {
	PL_EDGE_TEMPORAL = 0,	/* the next event of the same interval: implicit, never in edges[] */
	PL_EDGE_MESSAGE = 1,	/* ENQUEUE_MSG -> DEQUEUE_MSG, same (queue, message) */
	PL_EDGE_TASK,		/* SUBMIT_ASYNC_TASK -> CONSUME_ASYNC_TASK, same (executor, task) */
	PL_EDGE_BINDER,		/* BINDER_PRODUCE_* or BINDER_REPLY -> BINDER_CONSUME, same id */
	PL_EDGE_FORK,		/* FORK -> the child's first event */
	PL_EDGE_INVALIDATE,	/* UI_INVALIDATE -> the next UI_UPDATE on the same thread */
	/*
	 * <lock>_NOTIFY -> the first event of the thread it woke (a1) after
	 * it. Into a native interval's first event it hands work over (the
	 * renderer's next job). Into a wait inside a message, task, binder
	 * call or input handling it only joins: the notifier's work is what
	 * the waiter waited for (a condition variable's signal), so the
	 * critical path follows it when the notifier's work belongs to the
	 * same transaction; transactions are not extended along it, since a
	 * notify between two transactions' work is contention and would chain
	 * them (pl_edge_hands_over). A contended lock whose holder's work is
	 * not in the transaction stays `lock` time in the breakdown.
	 */
	PL_EDGE_NOTIFY,
	PL_EDGE_LOCK,		/* *_WAIT -> the first event of the RESUMED interval after it */
	PL_EDGE_KINDS,
};

struct pl_edge {
	enum pl_edge_kind kind;
	uint64_t from_event;
	uint64_t to_event;
};

struct pl_graph {
	uint64_t nedges;
	struct pl_edge *edges;		/* grouped by from_event, time order of to_event within */
	uint64_t *out_first;		/* nevents + 1: edges of e are [out_first[e], out_first[e + 1]) */
	/* Edges into e: edges[in_edge[k]] for k in [in_first[e], in_first[e + 1]). */
	uint64_t *in_first;		/* nevents + 1 */
	uint64_t *in_edge;		/* nedges */
	uint64_t by_kind[PL_EDGE_KINDS];
	/* Consumers whose producer is not in the trace (lost, or before tracing began). */
	uint64_t unmatched_dequeues;
	uint64_t unmatched_consumes;
	uint64_t unmatched_binder_consumes;
	/* *_NOTIFY whose wakee went on in no interval that can take an edge (a resumed one-shot worker's). */
	uint64_t notifies_without_interval;
};

void pl_graph_build(const struct pl_trace *trace, const struct pl_intervals *iv,
		    struct pl_graph *out);
void pl_graph_free(struct pl_graph *g);
/* Whether a transaction extends along edge: all but a notify into a wait inside work. */
int pl_edge_hands_over(const struct pl_intervals *iv, const struct pl_edge *edge);
const char *pl_edge_kind_name(enum pl_edge_kind kind);

#endif /* PANLAB_GRAPH_H */
