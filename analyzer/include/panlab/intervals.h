/* SPDX-License-Identifier: MIT */
/*
 * Stage 2 (intervals.c): events -> threads and per-thread execution intervals
 * (Panappticon 4.3). Nodes of every later stage are the trace's events, by index into
 * struct pl_trace.events (time order); temporal edges are implicit: the successor of an
 * event is the next event of its interval.
 *
 * Ownership: each *_build / *_extract function fills a caller-provided struct, allocating
 * its arrays; the matching *_free releases them. Results refer to the trace by event index
 * only; the trace must outlive any use of the indices and is never changed. Out of memory
 * aborts. Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_INTERVALS_H
#define PANLAB_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/trace.h"

#define PL_NONE UINT64_MAX	/* "no event / no interval" in every stage */

/*
 * Records the kernel logs with a thread's switch-out (CONTEXT_SWITCH, and with
 * it FILE_WAIT and SWITCH_COUNTS, whose tid is the thread switching out): a
 * thread that logs one of them may still be on its way into a wait, so none of
 * them is where it resumed.
 */
static inline int pl_event_goes_with_switch(uint16_t type)
{
	return type == PL_EV_CONTEXT_SWITCH || type == PL_EV_FILE_WAIT ||
	       type == PL_EV_SWITCH_COUNTS;
}

struct pl_thread {
	uint32_t tid;
	uint32_t parent_tid;	/* from FORK, 0 if the fork was not traced */
	uint32_t tgid;		/* from FORK, 0 if the fork was not traced */
	char name[17];		/* last THREAD_NAME, "" if none */
	uint64_t first_ns;	/* fork time, or first event */
	uint64_t last_ns;	/* last event */
	/*
	 * Its SWITCH_COUNTS summed: every traced slice's instructions, whole
	 * (user mode from trace version 6), so the thread's work, exactly.
	 */
	uint64_t instructions;
	uint64_t events; /* records with its tid: what it logged, kernel and user */
};

enum pl_interval_kind {
	PL_IV_MESSAGE = 1, /* DEQUEUE_MSG .. MSG_DONE on a looper */
	PL_IV_TASK,	   /* CONSUME_ASYNC_TASK .. ASYNC_TASK_END on a worker */
	/*
	 * BINDER_CONSUME of a request .. the thread's BINDER_REPLY (two-way)
	 * or next boundary (one-way). The CONSUME of the reply to the
	 * thread's own two-way call is no boundary: its interval goes on.
	 */
	PL_IV_BINDER,
	PL_IV_INPUT, /* UI_INPUT/UI_KEY outside a message .. next boundary */
	/*
	 * Everything else: the stretch of a thread between boundaries. A
	 * one-shot thread forked for some work is one such interval, from
	 * its first event to EXIT.
	 */
	PL_IV_IMPLICIT,
	/*
	 * Inferred (Panappticon 4.5, WebKit's renderer): an uninstrumented
	 * thread's piece of work, from its first event after a lock or
	 * waitqueue *_WAIT that ended an implicit stretch (the wake) to its
	 * next such wait or boundary. The *_NOTIFY that woke it is its cause.
	 * Likewise from a FILE_WAIT that a file notify ended (struct
	 * pl_file_wake).
	 */
	PL_IV_NATIVE,
	/*
	 * The same split where the thread exits without waiting again: a
	 * one-shot worker (Panappticon 4.3, forked for one-time execution)
	 * that blocked on a contended lock goes on with its own work after
	 * the wait, whoever released the lock. Its cause is its own wait
	 * (a lock edge from wait_event), not the notify.
	 */
	PL_IV_RESUMED,
};

/* Why an interval ended. */
enum pl_interval_end {
	PL_END_MARKER = 1,	/* its MSG_DONE / ASYNC_TASK_END / BINDER_REPLY */
	PL_END_NEXT,		/* the next interval on the thread began */
	PL_END_EXIT,		/* the thread exited */
	PL_END_TRACE,		/* the trace ended */
	PL_END_WAIT,		/* an implicit or native stretch blocked in a *_WAIT */
};

struct pl_interval {
	uint32_t thread;	/* index into pl_intervals.threads */
	enum pl_interval_kind kind;
	enum pl_interval_end end;
	uint32_t queue_id;	/* MESSAGE/TASK: queue or executor id (a1) */
	uint64_t item_id;	/* MESSAGE/TASK/BINDER: message, task or binder transaction id (a0) */
	uint64_t start_ns;	/* first event */
	uint64_t end_ns;	/* last event */
	uint64_t first_slot;	/* events are slot_event[first_slot .. +nevents) */
	uint64_t nevents;
	uint64_t wait_event;	/* RESUMED: the *_WAIT it resumes after; else PL_NONE */
};

/*
 * A thread asleep on files (FILE_WAIT) that a file notify woke: its first
 * event after the wake (any, its switch out included: a run that logs
 * nothing else ends there), which opens a native interval if the wait ended
 * an implicit or native stretch, or lies in the input handling it waited
 * inside. graph.c joins the two with a notify edge.
 */
struct pl_file_wake {
	uint64_t notify_event; /* the WAKEUP */
	uint64_t resumed_event;
};

struct pl_intervals {
	uint32_t nthreads;
	struct pl_thread *threads;	/* in order of first appearance */
	uint64_t nintervals;
	struct pl_interval *intervals;	/* in order of their first event */
	uint64_t nevents;		/* = trace nevents */
	uint64_t *slot_event;		/* event indices grouped by interval, time order within */
	uint64_t *event_interval;	/* per event: interval, PL_NONE for tid 0 (idle, irq) */
	uint64_t *event_slot;		/* per event: index into slot_event, PL_NONE as above */
	/* MSG_DONE / ASYNC_TASK_END outside the matching interval (lost events). */
	uint64_t orphan_ends;
	/* MESSAGE/TASK intervals cut short by the next one: their end was lost. */
	uint64_t unterminated;
	struct pl_file_wake *file_wakes; /* in time order */
	uint64_t nfile_wakes;
};

void pl_intervals_build(const struct pl_trace *trace, struct pl_intervals *out);
void pl_intervals_free(struct pl_intervals *iv);
/* The event after / before e in e's interval, or PL_NONE: the temporal edges. */
uint64_t pl_intervals_next_event(const struct pl_intervals *iv, uint64_t e);
uint64_t pl_intervals_prev_event(const struct pl_intervals *iv, uint64_t e);

#endif /* PANLAB_INTERVALS_H */
