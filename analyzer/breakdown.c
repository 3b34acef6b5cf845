/* SPDX-License-Identifier: MIT */
/*
 * Stage 6: resource breakdown along each critical path (Panappticon 4.4).
 * A per-thread timeline of scheduling states is built once from the kernel
 * events; each temporal step of a path is cut along its thread's timeline,
 * and each causal hop is charged whole to what it waited for. The steps
 * tile the latency, so every transaction's parts sum to it exactly.
 */
#include "panlab/model.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "idmap.h"

struct transition {
	uint64_t ts_ns;
	enum pl_category cat;	/* the thread's state from ts_ns on */
};

struct timeline {
	struct transition *t;
	uint64_t n, cap;
	enum pl_category before;	/* state before the first transition */
	enum pl_category reason;	/* why the next sleep happens, from *_BLOCK / *_WAIT */
	int on_cpu;
};

/*
 * Adds a state change. `before` is what the change tells of the time before
 * it, used if it is the thread's first: a thread first seen leaving a cpu
 * was running, one first seen woken or arriving was off cpu for a reason
 * the trace does not show.
 */
static void push(struct timeline *tl, uint64_t ts_ns, enum pl_category cat,
		 enum pl_category before)
{
	if (tl->n == 0)
		tl->before = before;
	else if (tl->t[tl->n - 1].cat == cat)
		return;
	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 8;
		tl->t = pl_xrealloc(tl->t, tl->cap, sizeof(*tl->t));
	}
	tl->t[tl->n++] = (struct transition){ ts_ns, cat };
}

/* The blocking reason an event announces or ends for its thread, if any. */
static int reason_of(uint16_t type, enum pl_category *reason)
{
	switch (type) {
	case PL_EV_IO_BLOCK:
		*reason = PL_CAT_IO;
		return 1;
	case PL_EV_SOCK_BLOCK:
	case PL_EV_DATAGRAM_BLOCK:
	case PL_EV_STREAM_BLOCK:
		*reason = PL_CAT_NETWORK;
		return 1;
	case PL_EV_FUTEX_WAIT:
	case PL_EV_MUTEX_WAIT:
	case PL_EV_SEM_WAIT:
	case PL_EV_WAITQUEUE_WAIT:
		*reason = PL_CAT_LOCK;
		return 1;
	case PL_EV_IO_RESUME:
	case PL_EV_SOCK_RESUME:
	case PL_EV_DATAGRAM_RESUME:
	case PL_EV_STREAM_RESUME:
	case PL_EV_FUTEX_WAKE:
	case PL_EV_MUTEX_WAKE:
	case PL_EV_SEM_WAKE:
	case PL_EV_WAITQUEUE_WAKE:
		*reason = PL_CAT_SLEEPING;	/* no specific reason any more */
		return 1;
	default:
		return 0;
	}
}

static struct timeline *timeline_of(struct timeline *tls, const struct pl_idmap *tids, uint64_t tid)
{
	uint64_t th;

	return tid && pl_idmap_get(tids, tid, 0, &th) ? &tls[th] : NULL;
}

/* One pass over the kernel events: every thread's scheduling states in time order. */
static struct timeline *build_timelines(const struct pl_trace *trace, const struct pl_intervals *iv)
{
	struct timeline *tls = pl_xcalloc(iv->nthreads, sizeof(*tls));
	struct pl_idmap tids = { 0 };
	int kernel_traced = 0;

	for (uint32_t i = 0; i < trace->nsources; i++)
		kernel_traced |= trace->sources[i].kind == PL_SRC_KERNEL_CPU;
	for (uint32_t t = 0; t < iv->nthreads; t++) {
		pl_idmap_put(&tids, iv->threads[t].tid, 0, t);
		/* Without kernel events nothing says when a thread ran. */
		tls[t].before = kernel_traced ? PL_CAT_RUNNING : PL_CAT_UNKNOWN;
		tls[t].reason = PL_CAT_SLEEPING;
	}
	for (uint64_t e = 0; e < trace->nevents; e++) {
		const struct pl_event *ev = &trace->events[e];
		struct timeline *self = timeline_of(tls, &tids, ev->tid);
		struct timeline *other;
		enum pl_category reason;

		if (self && reason_of(ev->type, &reason))
			self->reason = reason;
		switch (ev->type) {
		case PL_EV_CONTEXT_SWITCH:
			if (self) {
				enum pl_category cat = ev->a1 == PL_STATE_RUNNABLE ? PL_CAT_RUNNABLE
					: self->reason != PL_CAT_SLEEPING ? self->reason
					: ev->a1 == PL_STATE_BLOCKED ? PL_CAT_IO : PL_CAT_SLEEPING;

				push(self, ev->ts_ns, cat, PL_CAT_RUNNING);
				self->on_cpu = 0;
			}
			other = timeline_of(tls, &tids, ev->a0);
			if (other) {
				push(other, ev->ts_ns, PL_CAT_RUNNING, PL_CAT_UNKNOWN);
				other->on_cpu = 1;
			}
			break;
		case PL_EV_WAKEUP:
			/* Woken (or just forked): from now on it waits for a cpu, not for its event. */
			other = timeline_of(tls, &tids, ev->a0);
			if (other && !other->on_cpu)
				push(other, ev->ts_ns, PL_CAT_RUNNABLE, PL_CAT_UNKNOWN);
			break;
		default:
			break;
		}
	}
	pl_idmap_free(&tids);
	return tls;
}

/* Adds the thread's states over [from_ns, to_ns] to ns[]. */
static void charge_thread(const struct timeline *tl, uint64_t from_ns, uint64_t to_ns, uint64_t *ns)
{
	/* The last transition at or before from_ns gives the state there. */
	uint64_t lo = 0, hi = tl->n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (tl->t[mid].ts_ns <= from_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	enum pl_category cat = lo ? tl->t[lo - 1].cat : tl->before;
	uint64_t at = from_ns;

	for (uint64_t i = lo; i < tl->n && tl->t[i].ts_ns < to_ns; i++) {
		ns[cat] += tl->t[i].ts_ns - at;
		at = tl->t[i].ts_ns;
		cat = tl->t[i].cat;
	}
	ns[cat] += to_ns - at;
}

static enum pl_category hop_category(enum pl_edge_kind kind)
{
	switch (kind) {
	case PL_EDGE_MESSAGE:
		return PL_CAT_QUEUE_MESSAGE;
	case PL_EDGE_TASK:
		return PL_CAT_QUEUE_TASK;
	case PL_EDGE_BINDER:
		return PL_CAT_BINDER;
	case PL_EDGE_FORK:
		return PL_CAT_THREAD_START;
	default:
		return PL_CAT_FRAME_WAIT;
	}
}

void pl_breakdowns_build(const struct pl_trace *trace, const struct pl_intervals *iv,
			 const struct pl_critical_paths *cp, struct pl_breakdowns *out)
{
	struct timeline *tls = build_timelines(trace, iv);

	memset(out, 0, sizeof(*out));
	out->count = cp->count;
	out->ns = pl_xcalloc(cp->count, sizeof(*out->ns));
	for (uint64_t k = 0; k < cp->count; k++) {
		for (uint64_t i = cp->first_step[k]; i < cp->first_step[k + 1]; i++) {
			const struct pl_step *s = &cp->steps[i];
			uint64_t from_ns = trace->events[s->from_event].ts_ns;
			uint64_t to_ns = trace->events[s->to_event].ts_ns;

			if (s->kind == PL_EDGE_TEMPORAL) {
				uint32_t th = iv->intervals[iv->event_interval[s->from_event]].thread;

				charge_thread(&tls[th], from_ns, to_ns, out->ns[k]);
			} else {
				out->ns[k][hop_category(s->kind)] += to_ns - from_ns;
			}
		}
		for (int c = 0; c < PL_CATEGORIES; c++)
			out->total_ns[c] += out->ns[k][c];
	}
	for (uint32_t t = 0; t < iv->nthreads; t++)
		free(tls[t].t);
	free(tls);
}

void pl_breakdowns_free(struct pl_breakdowns *b)
{
	free(b->ns);
	memset(b, 0, sizeof(*b));
}

const char *pl_category_name(enum pl_category c)
{
	static const char *const names[PL_CATEGORIES] = {
		[PL_CAT_RUNNING] = "running",
		[PL_CAT_RUNNABLE] = "runnable",
		[PL_CAT_IO] = "io",
		[PL_CAT_NETWORK] = "network",
		[PL_CAT_LOCK] = "lock",
		[PL_CAT_SLEEPING] = "sleeping",
		[PL_CAT_UNKNOWN] = "unknown",
		[PL_CAT_QUEUE_MESSAGE] = "queue_message",
		[PL_CAT_QUEUE_TASK] = "queue_task",
		[PL_CAT_BINDER] = "binder",
		[PL_CAT_THREAD_START] = "thread_start",
		[PL_CAT_FRAME_WAIT] = "frame_wait",
	};

	return (unsigned)c < PL_CATEGORIES ? names[c] : "?";
}
