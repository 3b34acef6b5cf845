/* SPDX-License-Identifier: MIT */
/*
 * The analysis model, built once from a struct pl_trace in stages
 * (Panappticon section 4.3), each in its own file:
 *
 *   intervals.c     events -> threads and per-thread execution intervals
 *   graph.c         intervals -> causal edges between events
 *   transactions.c  graph -> transactions (UI_INPUT ... last UI_UPDATE), animations
 *   display.c       transactions -> input to pixels: the kernel's delivery of the
 *                   input and the display flush that first showed the last update
 *   critical_path.c transaction -> its critical path
 *   breakdown.c     critical path -> time per resource category
 *   queueing.c      graph -> per queue and executor waits and runs
 *   aggregate.c     transactions -> groups of equal shape, outliers; top edges
 *
 * stream.c (panlab/stream.h) runs the same stages over windows of a trace
 * too large to hold.
 *
 * Nodes of the graph are the trace's events, by index into
 * struct pl_trace.events (time order). Temporal edges are implicit: the
 * successor of an event is the next event of its interval. Each stage
 * reads the ones before it, and the reports read them all; nothing re-parses.
 *
 * Ownership: each *_build / *_extract function fills a caller-provided struct, allocating
 * its arrays; the matching *_free releases them. The model refers to the
 * trace by event index only and does not keep a pointer to it, but the
 * trace must outlive any use of the indices. Out of memory aborts.
 * Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_MODEL_H
#define PANLAB_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/trace.h"

#define PL_NONE UINT64_MAX

/* ---- intervals.c ------------------------------------------------------ */

struct pl_thread {
	uint32_t tid;
	uint32_t parent_tid;	/* from FORK, 0 if the fork was not traced */
	uint32_t tgid;		/* from FORK, 0 if the fork was not traced */
	char name[17];		/* last THREAD_NAME, "" if none */
	uint64_t first_ns;	/* fork time, or first event */
	uint64_t last_ns;	/* last event */
};

enum pl_interval_kind {
	PL_IV_MESSAGE = 1,	/* DEQUEUE_MSG .. MSG_DONE on a looper */
	PL_IV_TASK,		/* CONSUME_ASYNC_TASK .. ASYNC_TASK_END on a worker */
	/*
	 * BINDER_CONSUME of a request .. the thread's BINDER_REPLY (two-way)
	 * or next boundary (one-way). The CONSUME of the reply to the
	 * thread's own two-way call is no boundary: its interval goes on.
	 */
	PL_IV_BINDER,
	PL_IV_INPUT,		/* UI_INPUT/UI_KEY outside a message .. next boundary */
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
};

void pl_intervals_build(const struct pl_trace *trace, struct pl_intervals *out);
void pl_intervals_free(struct pl_intervals *iv);
/* The event after / before e in e's interval, or PL_NONE: the temporal edges. */
uint64_t pl_intervals_next_event(const struct pl_intervals *iv, uint64_t e);
uint64_t pl_intervals_prev_event(const struct pl_intervals *iv, uint64_t e);

/* ---- graph.c ---------------------------------------------------------- */

enum pl_edge_kind {
	PL_EDGE_TEMPORAL = 0,	/* the next event of the same interval: implicit, never in edges[] */
	PL_EDGE_MESSAGE = 1,	/* ENQUEUE_MSG -> DEQUEUE_MSG, same (queue, message) */
	PL_EDGE_TASK,		/* SUBMIT_ASYNC_TASK -> CONSUME_ASYNC_TASK, same (executor, task) */
	PL_EDGE_BINDER,		/* BINDER_PRODUCE_* or BINDER_REPLY -> BINDER_CONSUME, same id */
	PL_EDGE_FORK,		/* FORK -> the child's first event */
	PL_EDGE_INVALIDATE,	/* UI_INVALIDATE -> the next UI_UPDATE on the same thread */
	/*
	 * <lock>_NOTIFY -> the first event of the native interval of the
	 * thread it woke (a1). Only into PL_IV_NATIVE: a notify that ends a
	 * lock wait inside a message, task or binder call is contention, not
	 * a hand-over of work, and would chain unrelated transactions.
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
	/* *_NOTIFY whose wakee went on inside other work (lock contention): no edge. */
	uint64_t notifies_without_interval;
};

void pl_graph_build(const struct pl_trace *trace, const struct pl_intervals *iv,
		    struct pl_graph *out);
void pl_graph_free(struct pl_graph *g);
const char *pl_edge_kind_name(enum pl_edge_kind kind);

/* ---- transactions.c --------------------------------------------------- */

/*
 * A transaction from input to pixels (display.c): from the kernel's delivery
 * of its input (inputd's INPUT_READ) to the display flush of the first
 * composed frame that holds its last update (the compositor's FRAME_LATCH of
 * that app frame, then DISPLAY_SUBMIT and DISPLAY_FLUSHED). The segments
 * before and after the critical path [input_ns, end_ns] tile the rest. Where
 * the trace lacks those events (traces from before them, an input or frame
 * they missed) that end stays at UI_INPUT or UI_UPDATE and its segments are 0.
 */
struct pl_pixels {
	uint64_t delivered_ns;		/* INPUT_READ time - its a1; input_ns if unknown */
	uint64_t shown_ns;		/* that DISPLAY_FLUSHED; end_ns if unknown */
	uint64_t latency_ns;		/* shown_ns - delivered_ns: the detected latency */
	uint64_t input_dispatch_ns;	/* delivered .. UI_INPUT: inputd, the socket, the main queue */
	uint64_t vsync_queue_ns;	/* last UI_UPDATE .. FRAME_LATCH: waiting for the vsync */
	uint64_t composition_ns;	/* FRAME_LATCH .. DISPLAY_SUBMIT: the compositor's copy */
	uint64_t flush_ns;		/* DISPLAY_SUBMIT .. DISPLAY_FLUSHED: transfer and flush */
	uint64_t read_event;		/* the INPUT_READ, or PL_NONE */
	uint64_t latch_event;		/* the FRAME_LATCH, or PL_NONE */
	uint64_t flushed_event;		/* the DISPLAY_FLUSHED, or PL_NONE */
	uint64_t display_frame;		/* its display frame number, or PL_NONE */
};

struct pl_transaction {
	uint64_t input_event;		/* the UI_INPUT or UI_KEY event */
	uint64_t input_id;		/* its a0: dispatcher sequence number */
	uint64_t input_ns;
	uint64_t last_update_event;	/* the UI_UPDATE that ends it */
	uint64_t end_ns;		/* its time */
	uint64_t latency_ns;		/* end_ns - input_ns */
	uint32_t nupdates;		/* UI_UPDATE events reached */
	uint64_t first_update_ns;	/* the earliest UI_UPDATE reached: the first response */
	/*
	 * Most intervals that invalidate the view on one causal chain of a
	 * looper's messages to itself and its frames (message and invalidate
	 * edges within one thread, temporal order) from the input: 1 for an
	 * ordinary transaction, whose work goes to another thread (a task,
	 * binder call, HandlerThread or renderer) before its result
	 * invalidates. 2 or more when an invalidating message posts the next
	 * one, as a frame callback re-posted on every vsync while a task runs,
	 * or when a drawn frame invalidates again: an animation, reported apart.
	 */
	uint32_t chained_frames;
	int animation;			/* chained_frames >= 2 */
	uint32_t nthreads;		/* threads with a reached event */
	uint64_t nintervals;		/* intervals with a reached event */
	uint64_t nevents;		/* events reached */
	uint64_t first_member;		/* they are members[first_member .. + nevents) */
	struct pl_pixels pixels;	/* input to pixels, filled by display.c */
};

struct pl_transactions {
	uint64_t count;
	struct pl_transaction *items;	/* in input time order */
	uint64_t *members;		/* event indices reached, per transaction, in event (time) order */
	/*
	 * Parallel to members: the chained frames behind each member (the
	 * count chained_frames is the largest of): 0 before any invalidate,
	 * 2 or more on an animation's own frame chain.
	 */
	uint32_t *member_frames;
	uint64_t inputs;		/* UI_INPUT + UI_KEY events */
	uint64_t inputs_without_update;	/* inputs that reached no UI_UPDATE: no transaction */
	uint64_t updates;		/* UI_UPDATE events */
	uint64_t unattributed_updates;	/* UI_UPDATE events no input reached */
	uint64_t animations;		/* transactions with animation set */
};

void pl_transactions_extract(const struct pl_trace *trace, const struct pl_intervals *iv,
			     const struct pl_graph *g, struct pl_transactions *out);
void pl_transactions_free(struct pl_transactions *tx);

/* ---- display.c -------------------------------------------------------- */

/*
 * Fills every transaction's pixels. Ends by app frames only: an update is a
 * UI_UPDATE (a0 frame number, a1 pid) that a FRAME_LATCH takes (same pid,
 * frame number at or above it); other kinds of updates (a native program's
 * DRM or fbdev writes) would add their own way of finding the frame that
 * shows them in display.c's frame_of_update().
 */
void pl_display_attach(const struct pl_trace *trace, struct pl_transactions *tx);

/* ---- critical_path.c -------------------------------------------------- */

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

/* ---- breakdown.c ------------------------------------------------------ */

/*
 * Where a transaction's time went, along its critical path (Panappticon
 * 4.4): each temporal step is split by its thread's scheduling state,
 * taken from CONTEXT_SWITCH and WAKEUP and refined by the blocking events;
 * each causal hop counts whole for what the consumer waited on.
 */
enum pl_category {
	PL_CAT_RUNNING,		/* on a cpu */
	PL_CAT_RUNNABLE,	/* preempted or woken, waiting for a cpu */
	PL_CAT_IO,		/* blocked on disk IO (IO_BLOCK, or uninterruptible sleep) */
	PL_CAT_NETWORK,		/* blocked on a socket (SOCK/DATAGRAM/STREAM_BLOCK) */
	PL_CAT_LOCK,		/* waiting for a contended lock (*_WAIT .. *_WAKE) */
	PL_CAT_SLEEPING,	/* any other sleep: polls, timers, condition waits */
	PL_CAT_UNKNOWN,		/* off cpu before the trace shows why, or no kernel trace */
	PL_CAT_QUEUE_MESSAGE,	/* a message waiting in its queue: ENQUEUE .. DEQUEUE */
	PL_CAT_QUEUE_TASK,	/* a task waiting for a worker: SUBMIT .. CONSUME */
	PL_CAT_BINDER,		/* a binder request or reply in flight */
	PL_CAT_THREAD_START,	/* FORK .. the child's first event */
	PL_CAT_FRAME_WAIT,	/* INVALIDATE .. the UPDATE that draws it: the next vsync */
	PL_CATEGORIES,
};

struct pl_breakdowns {
	uint64_t count;				/* = transactions */
	uint64_t (*ns)[PL_CATEGORIES];		/* per transaction; each row sums to its latency */
	uint64_t total_ns[PL_CATEGORIES];	/* over all transactions */
	/*
	 * total_ns[PL_CAT_RUNNING] by the frequency of the cpu it ran on
	 * (CPU_FREQUENCY), ascending; 0 kHz where no frequency was logged yet.
	 */
	uint32_t nfreqs;
	uint32_t *freq_khz;
	uint64_t *running_ns_by_freq;
	/*
	 * total_ns[PL_CAT_RUNNABLE] spent preempted (switched out while still
	 * runnable), by the thread that took the cpu (CONTEXT_SWITCH's next
	 * tid), most first; and per transaction the tid that took most, 0 if none.
	 */
	uint32_t npreempters;
	uint32_t *preempter_tid;
	uint64_t *preempted_ns;
	uint32_t *top_preempter_tid;
	/*
	 * Per transaction k, its running time by frequency, ascending:
	 * tx_freq_khz[i] and tx_running_ns[i] for i in [tx_freq_first[k],
	 * tx_freq_first[k + 1]); they sum to ns[k][PL_CAT_RUNNING].
	 */
	uint64_t *tx_freq_first;	/* count + 1 */
	uint32_t *tx_freq_khz;
	uint64_t *tx_running_ns;
};

void pl_breakdowns_build(const struct pl_trace *trace, const struct pl_intervals *iv,
			 const struct pl_critical_paths *cp, struct pl_breakdowns *out);
void pl_breakdowns_free(struct pl_breakdowns *b);
const char *pl_category_name(enum pl_category c);

/* ---- queueing.c ------------------------------------------------------- */

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

/* ---- aggregate.c ------------------------------------------------------ */

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

/* ---- model.c ---------------------------------------------------------- */

/* Every stage above over one trace, in data-flow order. */
struct pl_model {
	struct pl_intervals iv;
	struct pl_graph graph;
	struct pl_transactions tx;
	struct pl_critical_paths cp;
	struct pl_breakdowns bd;
	struct pl_queueing qs;
	struct pl_aggregates ag;
	struct pl_top_edges te;
};

/* Repairs the trace's cross-cpu clock skew first (pl_trace_repair_skew), then runs the stages. */
void pl_model_build(struct pl_trace *trace, struct pl_model *m);
/* Frees the stages' results, not the trace. */
void pl_model_free(struct pl_model *m);

#endif /* PANLAB_MODEL_H */
