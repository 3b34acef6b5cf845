/* SPDX-License-Identifier: MIT */
/*
 * Stage 4: transactions. From each UI_INPUT (or UI_KEY) walk forward along
 * temporal edges (later events of the same interval) and causal edges; the
 * transaction is everything reached and ends at the last UI_UPDATE reached
 * (Panappticon 3.1). Attribution is by edges only, so two inputs whose work
 * interleaves in time on the main thread still get separate transactions, and
 * a frame both inputs invalidated counts for both.
 *
 * An animation (a frame callback that draws and re-posts itself on every
 * vsync while a task runs) would make one input's transaction last as long
 * as the animation; it is recognised by frames chained causally one after
 * another and labelled, so reports can keep it apart.
 */
#include "panlab/transactions.h"
#include "panlab/kernel_only.h"

#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"

struct walk {
	const struct pl_trace *trace;
	const struct pl_intervals *iv;
	const struct pl_graph *g;
	struct pl_transactions *out;
	uint64_t members_cap;
	/*
	 * Per event / interval / thread: the stamp of the last walk that
	 * reached it (0 = never). Stamps avoid clearing per input.
	 */
	uint32_t *event_stamp, *interval_stamp, *thread_stamp;
	uint32_t *frames;	/* per member event: chained_frames up to it */
	uint32_t *frame_stamp;	/* per interval: stamp of the walk that counted its invalidate */
	uint64_t *stack;
	uint64_t depth;
};

static void visit(struct walk *w, uint32_t stamp, uint64_t e)
{
	if (e == PL_NONE || w->event_stamp[e] == stamp)
		return;
	w->event_stamp[e] = stamp;
	w->stack[w->depth++] = e;	/* each event is pushed at most once per walk */
}

/* Appends e to the members of the transaction being walked. */
static void add_member(struct walk *w, uint64_t e)
{
	struct pl_transactions *o = w->out;
	uint64_t n = o->items[o->count].first_member + o->items[o->count].nevents;

	if (n == w->members_cap) {
		w->members_cap = w->members_cap ? w->members_cap * 2 : 256;
		o->members = pl_xrealloc(o->members, w->members_cap, sizeof(*o->members));
		o->member_frames = pl_xrealloc(o->member_frames, w->members_cap,
					       sizeof(*o->member_frames));
	}
	o->members[n] = e;
	o->items[o->count].nevents++;
}

static int by_index(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int same_thread(const struct pl_intervals *iv, uint64_t a, uint64_t b)
{
	return iv->intervals[iv->event_interval[a]].thread ==
	       iv->intervals[iv->event_interval[b]].thread;
}

/*
 * Every edge points forward in event order, so in index order each member
 * comes after its predecessors: one pass finds the longest chain of
 * invalidating intervals. Only a looper's messages to itself and its
 * invalidate-to-update edges carry the count on: work handed to another
 * thread (a task, binder call, fork, notify, or a message to a
 * HandlerThread) is the transaction's own work, not the next frame of an
 * animation, so the count starts again behind it. Sorting also leaves the
 * members in time order for the later stages.
 */
static void count_chained_frames(struct walk *w, uint32_t stamp, struct pl_transaction *t)
{
	uint64_t *m = w->out->members + t->first_member;

	qsort(m, t->nevents, sizeof(*m), by_index);
	t->first_update_ns = UINT64_MAX;
	for (uint64_t k = 0; k < t->nevents; k++) {
		uint64_t e = m[k], prev = pl_intervals_prev_event(w->iv, e);
		uint64_t i = w->iv->event_interval[e];
		uint32_t best = 0;
		const struct pl_event *ev = &w->trace->events[e];

		if (prev != PL_NONE && w->event_stamp[prev] == stamp)
			best = w->frames[prev];
		for (uint64_t j = w->g->in_first[e]; j < w->g->in_first[e + 1]; j++) {
			const struct pl_edge *edge = &w->g->edges[w->g->in_edge[j]];

			if ((edge->kind == PL_EDGE_MESSAGE || edge->kind == PL_EDGE_INVALIDATE) &&
			    same_thread(w->iv, edge->from_event, e) &&
			    w->event_stamp[edge->from_event] == stamp && w->frames[edge->from_event] > best)
				best = w->frames[edge->from_event];
		}
		if (pl_event_is_invalidate(ev) && w->frame_stamp[i] != stamp) {
			w->frame_stamp[i] = stamp;	/* one count per interval however many views */
			best++;
		}
		if (pl_event_is_update(ev) && ev->ts_ns < t->first_update_ns)
			t->first_update_ns = ev->ts_ns;
		w->frames[e] = best;
		w->out->member_frames[t->first_member + k] = best;
		if (best > t->chained_frames)
			t->chained_frames = best;
	}
	t->animation = t->chained_frames >= 2;
}

/*
 * Walks from the input event ev_in into out->items[out->count] (which the
 * caller has room for) and returns whether it reached an update.
 */
static int walk_from(struct walk *w, uint32_t stamp, uint64_t ev_in)
{
	const struct pl_event *events = w->trace->events;
	struct pl_transaction *t = &w->out->items[w->out->count];
	uint64_t first = w->out->count ? t[-1].first_member + t[-1].nevents : 0;

	*t = (struct pl_transaction){
		.input_event = ev_in,
		.input_id = PL_NONE,
		.input_ns = events[ev_in].ts_ns,
		.last_update_event = PL_NONE,
		.first_member = first,
	};
	pl_event_is_input(&events[ev_in], &t->input_id);
	visit(w, stamp, ev_in);
	while (w->depth) {
		uint64_t e = w->stack[--w->depth];
		uint64_t i = w->iv->event_interval[e];

		add_member(w, e);
		if (pl_event_is_update(&events[e])) {
			t->nupdates++;
			/* Events are in time order, so the larger index is the later update. */
			if (t->last_update_event == PL_NONE || e > t->last_update_event)
				t->last_update_event = e;
		}
		if (i != PL_NONE && w->interval_stamp[i] != stamp) {
			w->interval_stamp[i] = stamp;
			t->nintervals++;
			uint32_t th = w->iv->intervals[i].thread;

			if (w->thread_stamp[th] != stamp) {
				w->thread_stamp[th] = stamp;
				t->nthreads++;
			}
		}
		visit(w, stamp, pl_intervals_next_event(w->iv, e));
		for (uint64_t k = w->g->out_first[e]; k < w->g->out_first[e + 1]; k++)
			if (pl_edge_hands_over(w->iv, &w->g->edges[k]))
				visit(w, stamp, w->g->edges[k].to_event);
	}
	if (t->last_update_event == PL_NONE)
		return 0;
	t->end_ns = events[t->last_update_event].ts_ns;
	t->latency_ns = t->end_ns - t->input_ns;
	count_chained_frames(w, stamp, t);
	return 1;
}

void pl_transactions_extract(const struct pl_trace *trace, const struct pl_intervals *iv,
			     const struct pl_graph *g, struct pl_transactions *out)
{
	struct walk w = {
		.trace = trace,
		.iv = iv,
		.g = g,
		.out = out,
		.event_stamp = pl_xcalloc(trace->nevents, sizeof(uint32_t)),
		.interval_stamp = pl_xcalloc(iv->nintervals, sizeof(uint32_t)),
		.thread_stamp = pl_xcalloc(iv->nthreads, sizeof(uint32_t)),
		.stack = pl_xcalloc(trace->nevents, sizeof(uint64_t)),
		.frames = pl_xcalloc(trace->nevents, sizeof(uint32_t)),
		.frame_stamp = pl_xcalloc(iv->nintervals, sizeof(uint32_t)),
	};
	uint64_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (uint64_t e = 0; e < trace->nevents; e++) {
		if (pl_event_is_update(&trace->events[e]))
			out->updates++;
		if (!pl_event_is_input(&trace->events[e], NULL))
			continue;
		if (out->count == cap) {
			cap = cap ? cap * 2 : 16;
			out->items = pl_xrealloc(out->items, cap, sizeof(*out->items));
		}
		/*
		 * More than 2^32 - 1 inputs would wrap the stamps; no real trace
		 * comes close. An input without update leaves no item and its
		 * members are overwritten by the next walk.
		 */
		if (walk_from(&w, (uint32_t)++out->inputs, e))
			out->animations += out->items[out->count++].animation;
		else
			out->inputs_without_update++;
	}
	for (uint64_t e = 0; e < trace->nevents; e++)
		if (pl_event_is_update(&trace->events[e]) && w.event_stamp[e] == 0)
			out->unattributed_updates++;
	free(w.event_stamp);
	free(w.interval_stamp);
	free(w.thread_stamp);
	free(w.stack);
	free(w.frames);
	free(w.frame_stamp);
}

void pl_transactions_free(struct pl_transactions *tx)
{
	free(tx->items);
	free(tx->members);
	free(tx->member_frames);
	memset(tx, 0, sizeof(*tx));
}

const char *pl_transactions_inference(const struct pl_trace *trace,
				      const struct pl_transactions *tx)
{
	uint64_t user = 0, kernel = 0;

	for (uint64_t k = 0; k < tx->count; k++) {
		const struct pl_event *ev = &trace->events[tx->items[k].input_event];

		if (ev->type == PL_EV_KEY_READ && pl_event_is_input(ev, NULL))
			kernel++;
		else
			user++;
	}
	return kernel && user ? "mixed" : kernel ? "kernel-only" : user ? "userspace" : NULL;
}
