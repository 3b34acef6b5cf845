/* SPDX-License-Identifier: MIT */
/*
 * Queueing per message queue and executor (DiagDroid's view): from
 * every message and task edge, the wait before the consumer started and the
 * run of the interval it started. A long wait behind a busy worker is the
 * bottleneck the critical path alone does not name.
 */
#include "panlab/queueing.h"

#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "idmap.h"

static int cmp_queue(const void *a, const void *b)
{
	const struct pl_queue_stats *x = a, *y = b;

	if (x->executor != y->executor)
		return x->executor - y->executor;
	return x->id < y->id ? -1 : x->id > y->id;
}

void pl_queueing_build(const struct pl_trace *trace, const struct pl_intervals *iv,
		       const struct pl_graph *g, struct pl_queueing *out)
{
	struct pl_idmap index = { 0 };		/* (executor, id) -> queues[] */
	struct pl_idmap served = { 0 };		/* (queue index, thread) seen */
	uint64_t cap = 0, k, seen;

	memset(out, 0, sizeof(*out));
	for (uint64_t i = 0; i < g->nedges; i++) {
		const struct pl_edge *e = &g->edges[i];

		if (e->kind != PL_EDGE_MESSAGE && e->kind != PL_EDGE_TASK)
			continue;
		const struct pl_event *from = &trace->events[e->from_event];
		const struct pl_event *to = &trace->events[e->to_event];
		int executor = e->kind == PL_EDGE_TASK;

		if (!pl_idmap_get(&index, (uint64_t)executor, to->a1, &k)) {
			if (out->count == cap) {
				cap = cap ? cap * 2 : 8;
				out->queues = pl_xrealloc(out->queues, cap, sizeof(*out->queues));
			}
			k = out->count++;
			out->queues[k] = (struct pl_queue_stats){ .executor = executor, .id = to->a1 };
			pl_idmap_put(&index, (uint64_t)executor, to->a1, k);
		}
		struct pl_queue_stats *q = &out->queues[k];
		/* A delayed message (ENQUEUE a2, in us) is not late until its time comes. */
		uint64_t delay_ns = executor ? 0 : (uint64_t)from->a2 * 1000;
		uint64_t gap_ns = to->ts_ns - from->ts_ns;
		uint64_t wait_ns = gap_ns > delay_ns ? gap_ns - delay_ns : 0;
		const struct pl_interval *run = &iv->intervals[iv->event_interval[e->to_event]];
		uint64_t run_ns = run->end_ns - run->start_ns;

		q->items++;
		q->total_wait_ns += wait_ns;
		q->total_run_ns += run_ns;
		if (wait_ns > q->max_wait_ns)
			q->max_wait_ns = wait_ns;
		if (run_ns > q->max_run_ns)
			q->max_run_ns = run_ns;
		if (!pl_idmap_get(&served, k, run->thread, &seen)) {
			pl_idmap_put(&served, k, run->thread, 1);
			q->threads++;
		}
	}
	/* The index map's values are positions before sorting; it is not used after this. */
	if (out->count)
		qsort(out->queues, out->count, sizeof(*out->queues), cmp_queue);
	for (uint64_t i = 0; i < out->count; i++) {
		struct pl_queue_stats *q = &out->queues[i];

		q->flagged = q->max_wait_ns >= PL_QUEUE_FLAG_NS || q->max_run_ns >= PL_QUEUE_FLAG_NS;
		out->flagged += (uint64_t)q->flagged;
	}
	pl_idmap_free(&index);
	pl_idmap_free(&served);
}

void pl_queueing_free(struct pl_queueing *q)
{
	free(q->queues);
	memset(q, 0, sizeof(*q));
}
