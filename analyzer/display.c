/* SPDX-License-Identifier: MIT */
/* Stage 5: input to pixels, the pipeline before and after each critical path (panlab/display.h). */
#include "panlab/display.h"

#include <stdlib.h>

#include "panlab/error.h"
#include "idmap.h"

/* The compositor's events, indexed once per trace. */
struct display_index {
	struct pl_idmap read;		/* input id -> its INPUT_READ */
	struct pl_idmap frame;		/* (type, display frame) -> DISPLAY_SUBMIT / _FLUSHED */
	uint64_t nlatches;
	uint64_t *latches;		/* FRAME_LATCH events, time order */
};

static void index_build(const struct pl_trace *trace, struct display_index *ix)
{
	for (uint64_t e = 0; e < trace->nevents; e++) {
		const struct pl_event *ev = &trace->events[e];
		uint64_t found;

		switch (ev->type) {
		case PL_EV_INPUT_READ:
			/* An id read twice (a restarted inputd) keeps its first read. */
			if (!pl_idmap_get(&ix->read, ev->a0, 0, &found))
				pl_idmap_put(&ix->read, ev->a0, 0, e);
			break;
		case PL_EV_FRAME_LATCH:
			if ((ix->nlatches & (ix->nlatches - 1)) == 0)	/* doubles at powers of two */
				ix->latches = pl_xrealloc(ix->latches, ix->nlatches ? 2 * ix->nlatches : 1,
							  sizeof(uint64_t));
			ix->latches[ix->nlatches++] = e;
			break;
		case PL_EV_DISPLAY_SUBMIT:
		case PL_EV_DISPLAY_FLUSHED:
			if (!pl_idmap_get(&ix->frame, ev->type, ev->a0, &found))
				pl_idmap_put(&ix->frame, ev->type, ev->a0, e);
			break;
		}
	}
}

static void index_free(struct display_index *ix)
{
	pl_idmap_free(&ix->read);
	pl_idmap_free(&ix->frame);
	free(ix->latches);
}

/* Frames leave on a 60 Hz vsync: a latch logged this long before the update's own record (the
 * compositor ran between the app's post and its log call) still takes it. */
#define LATCH_LEAD_NS 16666667ull

/*
 * The FRAME_LATCH that first takes app frame `seq` of process `pid`, posted at about update_ns:
 * the first latch of that process at or past that frame number (an app may post twice between
 * vsyncs; the newer frame holds the older one's update). PL_NONE if none does.
 */
static uint64_t frame_of_update(const struct pl_trace *trace, const struct display_index *ix,
				const struct pl_event *update)
{
	uint64_t from = update->ts_ns > LATCH_LEAD_NS ? update->ts_ns - LATCH_LEAD_NS : 0;
	uint64_t lo = 0, hi = ix->nlatches;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (trace->events[ix->latches[mid]].ts_ns < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (uint64_t k = lo; k < ix->nlatches; k++) {
		const struct pl_event *l = &trace->events[ix->latches[k]];

		if (l->a1 == update->a1 && l->a0 >= update->a0)
			return ix->latches[k];
	}
	return PL_NONE;
}

static void attach_input(const struct pl_trace *trace, const struct display_index *ix,
			 struct pl_transaction *t)
{
	uint64_t e;

	if (!pl_idmap_get(&ix->read, t->input_id, 0, &e))
		return;
	const struct pl_event *r = &trace->events[e];
	uint64_t delivered = r->ts_ns >= r->a1 ? r->ts_ns - r->a1 : 0;

	/* A read after the app's UI_INPUT is another run's input of the same id. */
	if (delivered > t->input_ns || r->ts_ns > t->input_ns)
		return;
	t->pixels.read_event = e;
	t->pixels.delivered_ns = delivered;
	t->pixels.input_dispatch_ns = t->input_ns - delivered;
}

static void attach_display(const struct pl_trace *trace, const struct display_index *ix,
			   struct pl_transaction *t)
{
	const struct pl_event *update = &trace->events[t->last_update_event];
	uint64_t latch = frame_of_update(trace, ix, update), submit, flushed;

	if (latch == PL_NONE)
		return;
	uint64_t frame = trace->events[latch].a2;

	if (!pl_idmap_get(&ix->frame, PL_EV_DISPLAY_SUBMIT, frame, &submit) ||
	    !pl_idmap_get(&ix->frame, PL_EV_DISPLAY_FLUSHED, frame, &flushed))
		return;
	uint64_t latch_ns = trace->events[latch].ts_ns, submit_ns = trace->events[submit].ts_ns;
	uint64_t flushed_ns = trace->events[flushed].ts_ns;

	/* A latch logged just before the update record counts from the update: no negative wait. */
	if (latch_ns < t->end_ns)
		latch_ns = t->end_ns;
	if (submit_ns < latch_ns || flushed_ns < submit_ns)
		return;
	t->pixels.latch_event = latch;
	t->pixels.flushed_event = flushed;
	t->pixels.display_frame = frame;
	t->pixels.shown_ns = flushed_ns;
	t->pixels.vsync_queue_ns = latch_ns - t->end_ns;
	t->pixels.composition_ns = submit_ns - latch_ns;
	t->pixels.flush_ns = flushed_ns - submit_ns;
}

void pl_display_attach(const struct pl_trace *trace, struct pl_transactions *tx)
{
	struct display_index ix = { 0 };

	index_build(trace, &ix);
	for (uint64_t k = 0; k < tx->count; k++) {
		struct pl_transaction *t = &tx->items[k];

		t->pixels = (struct pl_pixels){
			.delivered_ns = t->input_ns, .shown_ns = t->end_ns, .read_event = PL_NONE,
			.latch_event = PL_NONE, .flushed_event = PL_NONE, .display_frame = PL_NONE,
		};
		attach_input(trace, &ix, t);
		attach_display(trace, &ix, t);
		t->pixels.latency_ns = t->pixels.shown_ns - t->pixels.delivered_ns;
	}
	index_free(&ix);
}
