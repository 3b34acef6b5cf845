/* SPDX-License-Identifier: MIT */
/*
 * Stage 3: causal edges between events (Panappticon 4.3, "causal
 * relationship"). One pass in time order joins each consumer event to its
 * producer by id. Message and task ids are keyed with their queue or
 * executor id, which the platform makes globally unique, because records
 * carry no process id; binder ids are unique kernel-wide.
 */
#include "panlab/graph.h"
#include "panlab/kernel_only.h"

#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "idmap.h"

struct pending_invalidates {
	uint64_t *events;
	uint64_t n, cap;
};

struct builder {
	struct pl_graph *out;
	struct pl_edge *edges;	/* in discovery order, regrouped at the end */
	uint64_t n, cap;
};

static void add_edge(struct builder *b, enum pl_edge_kind kind, uint64_t from, uint64_t to)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		b->edges = pl_xrealloc(b->edges, b->cap, sizeof(*b->edges));
	}
	b->edges[b->n++] = (struct pl_edge){ kind, from, to };
	b->out->by_kind[kind]++;
}

/* Counting sort: first[e] .. first[e + 1] become the slots of the edges keyed e. */
static uint64_t *count_by(const struct pl_edge *edges, uint64_t nedges, uint64_t nevents,
			  int by_target, uint64_t **first)
{
	/* Not zeroed: a copy of first, below. */
	uint64_t *fill = pl_xrealloc(NULL, nevents + 1, sizeof(*fill));

	*first = pl_xcalloc(nevents + 1, sizeof(**first));
	for (uint64_t i = 0; i < nedges; i++)
		(*first)[(by_target ? edges[i].to_event : edges[i].from_event) + 1]++;
	for (uint64_t e = 0; e < nevents; e++)
		(*first)[e + 1] += (*first)[e];
	memcpy(fill, *first, (nevents + 1) * sizeof(*fill));
	return fill;
}

/* Groups edges by source (forward walks) and indexes them by target (backward walks). */
static void index_edges(struct builder *b, uint64_t nevents)
{
	struct pl_graph *g = b->out;
	uint64_t *fill = count_by(b->edges, g->nedges, nevents, 0, &g->out_first);

	g->edges = pl_xcalloc(g->nedges, sizeof(*g->edges));
	for (uint64_t i = 0; i < g->nedges; i++)
		g->edges[fill[b->edges[i].from_event]++] = b->edges[i];
	free(fill);
	fill = count_by(g->edges, g->nedges, nevents, 1, &g->in_first);
	g->in_edge = pl_xcalloc(g->nedges, sizeof(*g->in_edge));
	for (uint64_t i = 0; i < g->nedges; i++)
		g->in_edge[fill[g->edges[i].to_event]++] = i;
	free(fill);
}

/*
 * A wait inside a message, task, binder call or input handling that a
 * notify ended: the notifier's work is what the waiter waited for (a
 * condition variable's signal, a lock's release). The edge joins, but hands
 * nothing over (pl_edge_hands_over).
 */
static int waits_inside_work(const struct pl_interval *iv)
{
	return iv->kind == PL_IV_MESSAGE || iv->kind == PL_IV_TASK || iv->kind == PL_IV_BINDER ||
	       iv->kind == PL_IV_INPUT;
}

int pl_edge_hands_over(const struct pl_intervals *iv, const struct pl_edge *edge)
{
	const struct pl_interval *to = &iv->intervals[iv->event_interval[edge->to_event]];

	return edge->kind != PL_EDGE_NOTIFY || iv->event_slot[edge->to_event] == to->first_slot;
}

void pl_graph_build(const struct pl_trace *trace, const struct pl_intervals *iv,
		    struct pl_graph *out)
{
	struct builder b = { .out = out };
	struct pl_idmap messages = { 0 }, tasks = { 0 }, binders = { 0 }, forks = { 0 };
	struct pl_idmap notifies = { 0 };	/* woken tid -> the *_NOTIFY that woke it */
	struct pending_invalidates *inval = pl_xcalloc(iv->nthreads, sizeof(*inval));
	struct pending_invalidates damage = { 0 };
	uint64_t from;

	memset(out, 0, sizeof(*out));
	for (uint64_t e = 0; e < trace->nevents; e++) {
		const struct pl_event *ev = &trace->events[e];

		/* Idle and interrupt context (tid 0) run no thread's work, so they cause nothing. */
		if (iv->event_interval[e] == PL_NONE)
			continue;
		/* The child's first event after its FORK is its initial execution. */
		if (forks.count && pl_idmap_take(&forks, ev->tid, 0, &from))
			add_edge(&b, PL_EDGE_FORK, from, e);
		/*
		 * The wakee's first event after its NOTIFY (not one that goes with a
		 * switch-out: it may still be on its way into the wait) is where it
		 * resumed; intervals.c opened a native interval there if the
		 * wait ended a stretch of no other work.
		 */
		/* A one-shot worker goes on after its own wait (intervals.c). */
		const struct pl_interval *at = &iv->intervals[iv->event_interval[e]];

		if (at->kind == PL_IV_RESUMED && iv->event_slot[e] == at->first_slot)
			add_edge(&b, PL_EDGE_LOCK, at->wait_event, e);
		if (notifies.count && !pl_event_goes_with_switch(ev->type) &&
		    pl_idmap_take(&notifies, ev->tid, 0, &from)) {
			const struct pl_interval *to = &iv->intervals[iv->event_interval[e]];

			if ((to->kind == PL_IV_NATIVE && iv->event_slot[e] == to->first_slot) ||
			    waits_inside_work(to))
				add_edge(&b, PL_EDGE_NOTIFY, from, e);
			else
				out->notifies_without_interval++;
		}

		switch (ev->type) {
		case PL_EV_ENQUEUE_MSG:
			pl_idmap_put(&messages, ev->a1, ev->a0, e);
			break;
		case PL_EV_DEQUEUE_MSG:
			if (pl_idmap_take(&messages, ev->a1, ev->a0, &from))
				add_edge(&b, PL_EDGE_MESSAGE, from, e);
			else
				out->unmatched_dequeues++;
			break;
		case PL_EV_SUBMIT_ASYNC_TASK:
			pl_idmap_put(&tasks, ev->a1, ev->a0, e);
			break;
		case PL_EV_CONSUME_ASYNC_TASK:
			if (pl_idmap_take(&tasks, ev->a1, ev->a0, &from))
				add_edge(&b, PL_EDGE_TASK, from, e);
			else
				out->unmatched_consumes++;
			break;
		case PL_EV_BINDER_PRODUCE_ONEWAY:
		case PL_EV_BINDER_PRODUCE_TWOWAY:
		case PL_EV_BINDER_REPLY:
			/* The driver's debug ids are unique kernel-wide, requests and replies alike. */
			pl_idmap_put(&binders, ev->a0, 0, e);
			break;
		case PL_EV_BINDER_CONSUME:
			if (pl_idmap_take(&binders, ev->a0, 0, &from))
				add_edge(&b, PL_EDGE_BINDER, from, e);
			else
				out->unmatched_binder_consumes++;
			break;
		case PL_EV_FORK:
			pl_idmap_put(&forks, ev->a0, 0, e);
			break;
		case PL_EV_FUTEX_NOTIFY:
		case PL_EV_MUTEX_NOTIFY:
		case PL_EV_SEM_NOTIFY:
		case PL_EV_WAITQUEUE_NOTIFY:
			/* The first notify is the one that woke it; later ones found it awake. */
			if (ev->a1 != ev->tid && !pl_idmap_get(&notifies, ev->a1, 0, &from))
				pl_idmap_put(&notifies, ev->a1, 0, e);
			break;
		case PL_EV_KEY_READ:
			/*
			 * A flush after a kernel-only program read its next input shows
			 * that input's frame: damage written before the read (a timer's
			 * redraw, a cursor blink) is drawn by it too, but the display
			 * gives the frame to the newer input, as the app's frame
			 * overtaken by a newer one goes to the newer one's flush.
			 */
			if (pl_event_is_input(ev, NULL))
				damage.n = 0;
			break;
		case PL_EV_UI_INVALIDATE:
		case PL_EV_UI_UPDATE:
		case PL_EV_FB_DAMAGE:
		case PL_EV_GPU_FLUSH: {
			/*
			 * An app's frame is drawn by its own thread's next update; a
			 * kernel-only program's damage by the next kernel-only flush,
			 * on whichever thread (the fbdev emulation's kworker).
			 */
			struct pending_invalidates *p = pl_event_is_kernel_only(ev) ? &damage :
				&inval[iv->intervals[iv->event_interval[e]].thread];

			if (!pl_event_is_invalidate(ev) && !pl_event_is_update(ev))
				break;
			if (pl_event_is_update(ev)) {
				/* Every invalidate since the last update is drawn by this one. */
				for (uint64_t k = 0; k < p->n; k++)
					add_edge(&b, PL_EDGE_INVALIDATE, p->events[k], e);
				p->n = 0;
				break;
			}
			if (p->n == p->cap) {
				p->cap = p->cap ? p->cap * 2 : 4;
				p->events = pl_xrealloc(p->events, p->cap, sizeof(*p->events));
			}
			p->events[p->n++] = e;
			break;
		}
		default:
			break;
		}
	}
	for (uint64_t k = 0; k < iv->nfile_wakes; k++)
		add_edge(&b, PL_EDGE_NOTIFY, iv->file_wakes[k].notify_event,
			 iv->file_wakes[k].resumed_event);
	out->nedges = b.n;
	index_edges(&b, trace->nevents);
	for (uint32_t t = 0; t < iv->nthreads; t++)
		free(inval[t].events);
	free(inval);
	free(damage.events);
	free(b.edges);
	pl_idmap_free(&messages);
	pl_idmap_free(&tasks);
	pl_idmap_free(&binders);
	pl_idmap_free(&forks);
	pl_idmap_free(&notifies);
}

void pl_graph_free(struct pl_graph *g)
{
	free(g->edges);
	free(g->out_first);
	free(g->in_first);
	free(g->in_edge);
	memset(g, 0, sizeof(*g));
}

const char *pl_edge_kind_name(enum pl_edge_kind kind)
{
	switch (kind) {
	case PL_EDGE_TEMPORAL:
		return "temporal";
	case PL_EDGE_MESSAGE:
		return "message";
	case PL_EDGE_TASK:
		return "task";
	case PL_EDGE_BINDER:
		return "binder";
	case PL_EDGE_FORK:
		return "fork";
	case PL_EDGE_INVALIDATE:
		return "invalidate";
	case PL_EDGE_NOTIFY:
		return "notify";
	case PL_EDGE_LOCK:
		return "lock";
	default:
		return "?";
	}
}
