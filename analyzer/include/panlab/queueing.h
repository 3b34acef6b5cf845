/* SPDX-License-Identifier: MIT */
/*
 * Stage 6b (queueing.c): graph -> per queue and executor waits and runs.
 *
 * Ownership: each *_build / *_extract function fills a caller-provided struct, allocating
 * its arrays; the matching *_free releases them. Results refer to the trace by event index
 * only; the trace must outlive any use of the indices and is never changed. Out of memory
 * aborts. Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_QUEUEING_H
#define PANLAB_QUEUEING_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/graph.h"

/*
 * DiagDroid-style queueing report: per message queue and executor, over
 * all their work (not only critical paths), how long items waited to start
 * and how long they ran, and how many threads served them.
 */
#define PL_QUEUE_FLAG_NS 500000000ull	/* a wait or a run this long is flagged */

struct pl_queue_stats {
	int executor;			/* 1: an executor's tasks, 0: a looper's messages */
	uint32_t id;			/* queue or executor id */
	uint64_t items;			/* messages or tasks started, with their producer traced */
	uint32_t threads;		/* threads that ran them: the pool in use */
	/* Wait: producer to start, less a message's requested delay. Run: its interval. */
	uint64_t max_wait_ns, total_wait_ns;
	uint64_t max_run_ns, total_run_ns;
	int flagged;			/* max wait or max run >= PL_QUEUE_FLAG_NS */
};

struct pl_queueing {
	uint64_t count;
	struct pl_queue_stats *queues;	/* loopers first, then executors, each by id */
	uint64_t flagged;
};

void pl_queueing_build(const struct pl_trace *trace, const struct pl_intervals *iv,
		       const struct pl_graph *g, struct pl_queueing *out);
void pl_queueing_free(struct pl_queueing *q);

#endif /* PANLAB_QUEUEING_H */
