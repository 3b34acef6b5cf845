/* SPDX-License-Identifier: MIT */
/*
 * Stage 6c (tasks.c): graph -> DiagDroid's tasks (FSE 2016, section 4): every executor task
 * and looper message with where it was scheduled from (its execution context), its execution
 * unit, the unit's pool capacity, its queuing length, queuing and execution times, and the
 * tasks it waited for (its execution dependency).
 *
 * Ownership: pl_tasks_build fills a caller-provided struct, allocating its arrays;
 * pl_tasks_free releases them. Results refer to the trace by event index only. Out of memory
 * aborts. Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_TASKS_H
#define PANLAB_TASKS_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/graph.h"

/* One distinct execution context: the submitting process and its return addresses. */
struct pl_context {
	uint32_t tgid;	  /* the submitter's process (its tid if the fork was not traced) */
	uint32_t nframes; /* frames walked, up to PL_CONTEXT_FRAMES */
	uint32_t frames[PL_CONTEXT_FRAMES]; /* return addresses, innermost first */
};

struct pl_task {
	int executor;	       /* 1: an executor's task, 0: a looper's message */
	uint32_t tgid;	       /* the submitter's process, as its context's */
	uint32_t unit;	       /* executor or queue id (SUBMIT/ENQUEUE a1) */
	uint64_t item;	       /* task or message id (a0) */
	uint64_t submit_event; /* SUBMIT_ASYNC_TASK / ENQUEUE_MSG */
	uint64_t start_event;  /* CONSUME / DEQUEUE, PL_NONE if it never started */
	uint64_t context;      /* index into contexts, PL_NONE without a TASK_CONTEXT */
	/*
	 * Scheduled: the submit, or a delayed message's due time (ENQUEUE a2), before which it
	 * is not waiting. Queuing: scheduled to started. Execution: its interval.
	 */
	uint64_t scheduled_ns, started_ns, ended_ns;
	uint64_t queuing_ns, execution_ns;
	/*
	 * DiagDroid's definitions 4 and 5 (Fig. 4): the unit's capacity when it was scheduled
	 * (0: never logged), and the tasks of the unit scheduled before it and not yet ended
	 * then (running or waiting: task 2 behind a running task 1 on a serial unit has 1).
	 */
	uint32_t capacity;
	uint32_t queue_length;
	/* The execution dependency: deps[first_dep .. +ndeps), for a task that found its unit
	 * full (queue length at least the capacity) and waited, the tasks of the same unit that
	 * started before it and ran or waited during its queuing time. */
	uint64_t first_dep, ndeps;
};

struct pl_tasks {
	uint64_t count;
	struct pl_task *tasks; /* in order of their submit event */
	uint64_t ncontexts;
	struct pl_context *contexts; /* by (tgid, frames) */
	uint64_t ndeps;
	uint64_t *deps;		  /* task indices */
	uint64_t without_context; /* tasks whose submit has no TASK_CONTEXT (version 1) */
};

void pl_tasks_build(const struct pl_trace *trace, const struct pl_intervals *iv,
		    const struct pl_graph *g, struct pl_tasks *out);
void pl_tasks_free(struct pl_tasks *t);

#endif /* PANLAB_TASKS_H */
