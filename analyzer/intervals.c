/* SPDX-License-Identifier: MIT */
/*
 * Stage 2: events -> per-thread execution intervals (Panappticon 4.3,
 * "temporal ordering"). Task-based threads are split at the start and end of
 * each message and task; everything between those boundaries, and the whole
 * life of a thread that has none (a forked one-shot worker), is one implicit
 * interval. A UI_INPUT outside a message starts its own interval so that two
 * inputs are never temporally chained.
 *
 * Uninstrumented native threads (Panappticon 4.5: WebKit's renderer, here
 * the webview app's pool on a mutex and condition variable) have no
 * boundaries of their own. A lock or waitqueue *_WAIT in an implicit
 * stretch is where such a thread runs out of work, so it ends the stretch;
 * the thread's next event (its *_WAKE) starts a native interval, which
 * graph.c joins to the *_NOTIFY that woke it. Waits inside messages, tasks
 * and binder calls are contention and split nothing. A thread that exits
 * after a wait without waiting again is a one-shot worker that was held up
 * by a contended lock: its next interval is RESUMED, caused by its own wait.
 *
 * A FILE_WAIT (a sleep in select, poll, epoll_wait or a read of a file)
 * ends such a stretch too, but only if another thread's write wakes it
 * (pl_event_is_file_notify()). A wake-up from a timer, a device or a
 * kworker names no thread, so the thread goes on with the work it was
 * doing: a compositor waiting for its repaint timer still works for the
 * input that scheduled the repaint.
 */
#include "panlab/intervals.h"
#include "panlab/kernel_only.h"

#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "idmap.h"

/* Where a thread is in a wait on files. */
enum file_sleep {
	FILE_AWAKE,
	FILE_SWITCHING, /* FILE_WAIT logged; its CONTEXT_SWITCH follows */
	FILE_ASLEEP,	/* switched out: its next event is after the wake */
};

/* thread_of's direct-mapped cache before the map: an event of a recent thread needs no hash. */
#define THREAD_CACHE 256

struct builder {
	struct pl_intervals *out;
	struct pl_idmap tids;		/* tid -> thread index */
	uint32_t cache_tid[THREAD_CACHE];
	uint32_t cache_thread[THREAD_CACHE]; /* thread index + 1; 0 empty */
	uint64_t *open;			/* per thread: open interval or PL_NONE */
	uint8_t *awaiting_reply;	/* per thread: a two-way binder call is outstanding */
	uint8_t *waiting;		/* per thread: an implicit stretch ended in a *_WAIT */
	uint8_t *woken;			/* per thread: its next implicit interval is native */
	uint8_t *resumes;		/* per thread: ... and resumes the thread's own work */
	uint64_t *wait_event;		/* per thread: the wait that ended its last stretch */
	uint8_t *file_sleep;		/* per thread: enum file_sleep */
	uint64_t *file_notify;		/* per thread: the file notify that woke it, or PL_NONE */
	uint64_t file_wakes_cap;
	/* Per event: a lock wait after which its thread exits without waiting again. */
	uint8_t *last_wait;
	/* Counts kept here while building, copied to out at the end. */
	uint32_t nthreads;
	uint64_t nintervals;
	uint64_t threads_cap, intervals_cap;
};

static uint32_t thread_of(struct builder *b, uint32_t tid, uint64_t ts_ns)
{
	struct pl_intervals *o = b->out;
	uint32_t c = tid & (THREAD_CACHE - 1);
	uint64_t t;

	if (b->cache_thread[c] && b->cache_tid[c] == tid)
		return b->cache_thread[c] - 1;
	if (pl_idmap_get(&b->tids, tid, 0, &t)) {
		b->cache_tid[c] = tid;
		b->cache_thread[c] = (uint32_t)t + 1;
		return (uint32_t)t;
	}
	if (b->nthreads == b->threads_cap) {
		b->threads_cap = b->threads_cap ? b->threads_cap * 2 : 16;
		o->threads = pl_xrealloc(o->threads, b->threads_cap, sizeof(*o->threads));
		b->open = pl_xrealloc(b->open, b->threads_cap, sizeof(*b->open));
		b->awaiting_reply = pl_xrealloc(b->awaiting_reply, b->threads_cap, 1);
		b->waiting = pl_xrealloc(b->waiting, b->threads_cap, 1);
		b->woken = pl_xrealloc(b->woken, b->threads_cap, 1);
		b->resumes = pl_xrealloc(b->resumes, b->threads_cap, 1);
		b->wait_event = pl_xrealloc(b->wait_event, b->threads_cap, sizeof(uint64_t));
		b->file_sleep = pl_xrealloc(b->file_sleep, b->threads_cap, 1);
		b->file_notify = pl_xrealloc(b->file_notify, b->threads_cap, sizeof(uint64_t));
	}
	o->threads[b->nthreads] = (struct pl_thread){ .tid = tid, .first_ns = ts_ns,
						      .last_ns = ts_ns };
	b->open[b->nthreads] = PL_NONE;
	b->awaiting_reply[b->nthreads] = 0;
	b->waiting[b->nthreads] = 0;
	b->woken[b->nthreads] = 0;
	b->resumes[b->nthreads] = 0;
	b->wait_event[b->nthreads] = PL_NONE;
	b->file_sleep[b->nthreads] = FILE_AWAKE;
	b->file_notify[b->nthreads] = PL_NONE;
	pl_idmap_put(&b->tids, tid, 0, b->nthreads);
	b->cache_tid[c] = tid;
	b->cache_thread[c] = b->nthreads + 1;
	return b->nthreads++;
}

static void close_open(struct builder *b, uint32_t th, enum pl_interval_end why)
{
	uint64_t i = b->open[th];

	if (i == PL_NONE)
		return;
	struct pl_interval *iv = &b->out->intervals[i];

	iv->end = why;
	if (why == PL_END_NEXT && (iv->kind == PL_IV_MESSAGE || iv->kind == PL_IV_TASK))
		b->out->unterminated++;
	b->open[th] = PL_NONE;
}

static void open_new(struct builder *b, uint32_t th, enum pl_interval_kind kind,
		     const struct pl_event *ev)
{
	struct pl_intervals *o = b->out;

	close_open(b, th, PL_END_NEXT);
	if (b->nintervals == b->intervals_cap) {
		b->intervals_cap = b->intervals_cap ? b->intervals_cap * 2 : 64;
		o->intervals = pl_xrealloc(o->intervals, b->intervals_cap, sizeof(*o->intervals));
	}
	o->intervals[b->nintervals] = (struct pl_interval){
		.thread = th,
		.kind = kind,
		.end = PL_END_TRACE,
		.queue_id = kind == PL_IV_MESSAGE || kind == PL_IV_TASK ? ev->a1 : 0,
		.item_id = kind == PL_IV_IMPLICIT || kind == PL_IV_INPUT ? 0 : ev->a0,
		.start_ns = ev->ts_ns,
		.wait_event = kind == PL_IV_RESUMED ? b->wait_event[th] : PL_NONE,
	};
	b->open[th] = b->nintervals++;
	b->woken[th] = 0;
	b->resumes[th] = 0;
}

/* The interval of an event outside any boundary: native if the thread was woken from a wait. */
static void open_implicit(struct builder *b, uint32_t th, const struct pl_event *ev)
{
	open_new(b, th, b->resumes[th] ? PL_IV_RESUMED : b->woken[th] ? PL_IV_NATIVE : PL_IV_IMPLICIT,
		 ev);
}

static int is_lock_wait(uint16_t type)
{
	return type == PL_EV_FUTEX_WAIT || type == PL_EV_MUTEX_WAIT || type == PL_EV_SEM_WAIT ||
	       type == PL_EV_WAITQUEUE_WAIT;
}

/* Intervals with a start marker: work the thread took from a queue, executor or binder. */
static int is_explicit(const struct pl_interval *iv)
{
	return iv->kind == PL_IV_MESSAGE || iv->kind == PL_IV_TASK || iv->kind == PL_IV_BINDER;
}

/* Does ev end the interval it would be added to? */
static int ends(const struct pl_interval *iv, const struct pl_event *ev)
{
	if (ev->type == PL_EV_BINDER_REPLY)
		return iv->kind == PL_IV_BINDER;
	enum pl_interval_kind want = ev->type == PL_EV_MSG_DONE ? PL_IV_MESSAGE : PL_IV_TASK;

	return iv->kind == want && iv->queue_id == ev->a1 && iv->item_id == ev->a0;
}

/* How a thread's first event after a file notify woke it goes on. */
enum file_join {
	JOIN_NONE,
	JOIN_NATIVE, /* its stretch ended at the wait: a native interval begins */
	JOIN_INPUT,  /* it waited inside an input's handling, which goes on */
};

/* The first event of a thread asleep on files: whether it was file-notified, and how. */
static enum file_join file_woken(struct builder *b, uint32_t th)
{
	uint64_t cur = b->open[th];
	enum pl_interval_kind kind = cur == PL_NONE ? PL_IV_IMPLICIT : b->out->intervals[cur].kind;

	b->file_sleep[th] = FILE_AWAKE;
	if (b->file_notify[th] == PL_NONE)
		return JOIN_NONE;
	if (kind == PL_IV_IMPLICIT || kind == PL_IV_NATIVE || kind == PL_IV_RESUMED) {
		close_open(b, th, PL_END_WAIT);
		b->woken[th] = 1;
		return JOIN_NATIVE;
	}
	return kind == PL_IV_INPUT ? JOIN_INPUT : JOIN_NONE;
}

static void add_file_wake(struct builder *b, uint32_t th, uint64_t e)
{
	struct pl_intervals *o = b->out;

	if (o->nfile_wakes == b->file_wakes_cap) {
		b->file_wakes_cap = b->file_wakes_cap ? b->file_wakes_cap * 2 : 64;
		o->file_wakes =
			pl_xrealloc(o->file_wakes, b->file_wakes_cap, sizeof(*o->file_wakes));
	}
	o->file_wakes[o->nfile_wakes++] = (struct pl_file_wake){ b->file_notify[th], e };
	b->file_notify[th] = PL_NONE;
}

/* Decides which interval of its thread event e belongs to, opening/closing as needed. */
static uint64_t place(struct builder *b, uint32_t th, const struct pl_event *ev, uint64_t e)
{
	struct pl_intervals *o = b->out;
	uint64_t before = b->open[th];
	/* The SWITCH_COUNTS of the switch that put it to sleep comes just after it. */
	enum file_join join = b->file_sleep[th] == FILE_ASLEEP && ev->type != PL_EV_SWITCH_COUNTS ?
				      file_woken(b, th) :
				      JOIN_NONE;

	/*
	 * A thread that blocked in a wait is switched out (with its FILE_WAIT
	 * and SWITCH_COUNTS) and may exit in it; anything else it logs is after
	 * its wake.
	 */
	if (b->waiting[th] && !pl_event_goes_with_switch(ev->type) && ev->type != PL_EV_EXIT) {
		close_open(b, th, PL_END_WAIT);
		b->waiting[th] = 0;
		b->woken[th] = 1;
	}
	uint64_t cur = b->open[th];

	switch (ev->type) {
	case PL_EV_DEQUEUE_MSG:
		open_new(b, th, PL_IV_MESSAGE, ev);
		break;
	case PL_EV_CONSUME_ASYNC_TASK:
		open_new(b, th, PL_IV_TASK, ev);
		break;
	case PL_EV_UI_INPUT:
	case PL_EV_UI_KEY:
	case PL_EV_KEY_READ:	/* an input if kernel_only.c marked it */
		if (pl_event_is_input(ev, NULL) &&
		    (cur == PL_NONE || !is_explicit(&o->intervals[cur])))
			open_new(b, th, PL_IV_INPUT, ev);
		else if (cur == PL_NONE)
			open_implicit(b, th, ev);
		break;
	case PL_EV_BINDER_PRODUCE_TWOWAY:
		b->awaiting_reply[th] = 1;
		if (cur == PL_NONE)
			open_implicit(b, th, ev);
		break;
	case PL_EV_BINDER_CONSUME:
		/* The caller takes its reply and goes on; any other CONSUME is a new request. */
		if (!b->awaiting_reply[th])
			open_new(b, th, PL_IV_BINDER, ev);
		else if (cur == PL_NONE)
			open_implicit(b, th, ev);
		b->awaiting_reply[th] = 0;
		break;
	case PL_EV_BINDER_REPLY:
		/* A reply ends the request's interval; without one it is an ordinary event. */
		if (cur != PL_NONE && ends(&o->intervals[cur], ev)) {
			close_open(b, th, PL_END_MARKER);
			return cur;
		}
		if (cur == PL_NONE)
			open_implicit(b, th, ev);
		break;
	case PL_EV_MSG_DONE:
	case PL_EV_ASYNC_TASK_END:
		if (cur != PL_NONE && ends(&o->intervals[cur], ev)) {
			close_open(b, th, PL_END_MARKER);
			return cur;
		}
		/* An end without its start (lost events) stays an ordinary event. */
		o->orphan_ends++;
		/* fall through */
	default:
		if (cur == PL_NONE)
			open_implicit(b, th, ev);
		break;
	}
	uint64_t i = b->open[th];
	enum pl_interval_kind kind = o->intervals[i].kind;

	/* A native interval opened by the wake, or the input handling it waited in. */
	if ((join == JOIN_NATIVE && kind == PL_IV_NATIVE) || (join == JOIN_INPUT && i == before))
		add_file_wake(b, th, e);
	b->file_notify[th] = PL_NONE;
	if (ev->type == PL_EV_FILE_WAIT)
		b->file_sleep[th] = FILE_SWITCHING;
	else if (ev->type == PL_EV_CONTEXT_SWITCH && b->file_sleep[th] == FILE_SWITCHING)
		b->file_sleep[th] = FILE_ASLEEP;

	if (ev->type == PL_EV_EXIT) {
		close_open(b, th, PL_END_EXIT);
	} else if (pl_event_is_update(ev) && pl_event_is_kernel_only(ev)) {
		/* A kernel-only update ends its thread's stretch: what the kworker does next is not its cause's. */
		close_open(b, th, PL_END_MARKER);
		b->waiting[th] = 0;
	} else if (is_lock_wait(ev->type) &&
		   (kind == PL_IV_IMPLICIT || kind == PL_IV_NATIVE || kind == PL_IV_RESUMED)) {
		b->waiting[th] = 1;
		b->resumes[th] = b->last_wait[e];
		b->wait_event[th] = e;
		o->intervals[i].end = PL_END_WAIT;	/* even if the trace ends before the wake */
	}
	return i;
}

static void note_thread(struct builder *b, const struct pl_event *ev, uint32_t th)
{
	struct pl_thread *t = &b->out->threads[th];

	t->last_ns = ev->ts_ns;
	t->events++;
	if (ev->type == PL_EV_THREAD_NAME) {
		/* a0, a1, a2 hold the 16 bytes of comm, little-endian (trace_format.h). */
		for (int k = 0; k < 16; k++) {
			uint64_t word = k < 8 ? ev->a0 : k < 12 ? ev->a1 : ev->a2;
			int shift = 8 * (k < 8 ? k : k < 12 ? k - 8 : k - 12);

			t->name[k] = (char)(word >> shift);
		}
		t->name[16] = '\0';
	} else if (ev->type == PL_EV_FORK) {
		uint32_t child = thread_of(b, (uint32_t)ev->a0, ev->ts_ns);

		b->out->threads[child].parent_tid = ev->tid;
		b->out->threads[child].tgid = ev->a1;
	} else if (ev->type == PL_EV_SWITCH_COUNTS) {
		t->instructions += ev->a0;
	}
}

/*
 * Backwards over the trace: marks each lock wait after which its thread
 * exits without another lock wait (lookahead the forward pass needs).
 */
static uint8_t *find_last_waits(const struct pl_trace *trace)
{
	uint8_t *last = pl_xcalloc(trace->nevents ? trace->nevents : 1, 1);
	struct pl_idmap exits = { 0 };	/* tid -> 1 while only its EXIT is ahead */
	uint64_t v;

	for (uint64_t e = trace->nevents; e-- > 0;) {
		const struct pl_event *ev = &trace->events[e];

		if (ev->type == PL_EV_EXIT)
			pl_idmap_put(&exits, ev->tid, 0, 1);
		else if (is_lock_wait(ev->type) && pl_idmap_take(&exits, ev->tid, 0, &v))
			last[e] = 1;
	}
	pl_idmap_free(&exits);
	return last;
}

void pl_intervals_build(const struct pl_trace *trace, struct pl_intervals *out)
{
	struct builder b = { .out = out };

	memset(out, 0, sizeof(*out));
	b.last_wait = find_last_waits(trace);
	out->nevents = trace->nevents;
	/* Not zeroed: passes 1 and 2 write every event's entry. */
	out->event_interval = pl_xrealloc(NULL, trace->nevents, sizeof(uint64_t));
	out->event_slot = pl_xrealloc(NULL, trace->nevents, sizeof(uint64_t));
	out->slot_event = pl_xcalloc(trace->nevents, sizeof(uint64_t));

	/* Pass 1: assign each event to an interval and count interval sizes. */
	for (uint64_t e = 0; e < trace->nevents; e++) {
		const struct pl_event *ev = &trace->events[e];

		/* tid 0 is the per-cpu idle task (or interrupt context): no thread. */
		if (ev->tid == 0) {
			out->event_interval[e] = PL_NONE;
			continue;
		}
		uint32_t th = thread_of(&b, ev->tid, ev->ts_ns);
		uint64_t i = place(&b, th, ev, e);
		uint64_t wakee;

		/* The first notify is the one that woke it; later ones found it awake. */
		if (pl_event_is_file_notify(ev) && pl_idmap_get(&b.tids, ev->a0, 0, &wakee) &&
		    b.file_sleep[wakee] == FILE_ASLEEP && b.file_notify[wakee] == PL_NONE)
			b.file_notify[wakee] = e;

		note_thread(&b, ev, th);
		out->event_interval[e] = i;
		out->intervals[i].end_ns = ev->ts_ns;
		out->intervals[i].nevents++;
	}
	out->nthreads = b.nthreads;
	out->nintervals = b.nintervals;
	/* Pass 2: lay out each interval's events contiguously, in time order. */
	uint64_t slot = 0;

	for (uint64_t i = 0; i < out->nintervals; i++) {
		out->intervals[i].first_slot = slot;
		slot += out->intervals[i].nevents;
		out->intervals[i].nevents = 0;
	}
	for (uint64_t e = 0; e < trace->nevents; e++) {
		uint64_t i = out->event_interval[e];

		if (i == PL_NONE) {
			out->event_slot[e] = PL_NONE;
			continue;
		}
		struct pl_interval *iv = &out->intervals[i];

		out->event_slot[e] = iv->first_slot + iv->nevents++;
		out->slot_event[out->event_slot[e]] = e;
	}
	pl_idmap_free(&b.tids);
	free(b.open);
	free(b.awaiting_reply);
	free(b.waiting);
	free(b.woken);
	free(b.resumes);
	free(b.wait_event);
	free(b.file_sleep);
	free(b.file_notify);
	free(b.last_wait);
}

uint64_t pl_intervals_next_event(const struct pl_intervals *iv, uint64_t e)
{
	uint64_t i = iv->event_interval[e];

	if (i == PL_NONE)
		return PL_NONE;
	uint64_t next = iv->event_slot[e] + 1;

	if (next >= iv->intervals[i].first_slot + iv->intervals[i].nevents)
		return PL_NONE;
	return iv->slot_event[next];
}

uint64_t pl_intervals_prev_event(const struct pl_intervals *iv, uint64_t e)
{
	uint64_t i = iv->event_interval[e];

	if (i == PL_NONE || iv->event_slot[e] == iv->intervals[i].first_slot)
		return PL_NONE;
	return iv->slot_event[iv->event_slot[e] - 1];
}

void pl_intervals_free(struct pl_intervals *iv)
{
	free(iv->threads);
	free(iv->intervals);
	free(iv->slot_event);
	free(iv->event_interval);
	free(iv->event_slot);
	free(iv->file_wakes);
	memset(iv, 0, sizeof(*iv));
}
