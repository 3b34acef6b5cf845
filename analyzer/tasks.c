/* SPDX-License-Identifier: MIT */
/*
 * DiagDroid's task model (FSE 2016, section 4.1): each executor task and looper message with
 * its execution context, unit, pool capacity, queuing length, queuing and execution times and
 * execution dependency, from the submit events, their TASK_CONTEXT and UNIT_CAPACITY records
 * (trace version 2) and the graph's task and message edges.
 */
#include "panlab/tasks.h"

#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "idmap.h"

static uint32_t process_of(const struct pl_intervals *iv, uint64_t e)
{
	const struct pl_thread *th = &iv->threads[iv->intervals[iv->event_interval[e]].thread];

	return th->tgid ? th->tgid : th->tid;
}

static void read_context(const struct pl_event *ev, struct pl_context *c)
{
	uint32_t f[PL_CONTEXT_FRAMES] = { (uint32_t)ev->a0, (uint32_t)(ev->a0 >> 32), ev->a1,
					  ev->a2 };

	c->nframes = 0;
	while (c->nframes < PL_CONTEXT_FRAMES && f[c->nframes]) {
		c->frames[c->nframes] = f[c->nframes];
		c->nframes++;
	}
}

static int cmp_context(const struct pl_context *x, const struct pl_context *y)
{
	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	for (uint32_t i = 0; i < PL_CONTEXT_FRAMES; i++) {
		uint32_t a = i < x->nframes ? x->frames[i] : 0,
			 b = i < y->nframes ? y->frames[i] : 0;

		if (a != b)
			return a < b ? -1 : 1;
	}
	return 0;
}

struct keyed_context {
	struct pl_context c;
	uint64_t task;
};

static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed_context *x = a, *y = b;
	int r = cmp_context(&x->c, &y->c);

	return r ? r : (x->task > y->task) - (x->task < y->task);
}

/* Equal contexts share one entry; tasks point at theirs. */
static void number_contexts(struct pl_tasks *out, struct keyed_context *kc, uint64_t n)
{
	if (n)
		qsort(kc, n, sizeof(*kc), cmp_keyed);
	out->contexts = pl_xrealloc(NULL, n ? n : 1, sizeof(*out->contexts));
	for (uint64_t i = 0; i < n; i++) {
		if (i == 0 || cmp_context(&kc[i].c, &kc[i - 1].c) != 0)
			out->contexts[out->ncontexts++] = kc[i].c;
		out->tasks[kc[i].task].context = out->ncontexts - 1;
	}
}

/* A task's place in its unit's queue: by unit, then scheduled time, then submit order. */
struct unit_key {
	uint32_t tgid;
	int executor;
	uint32_t unit;
	uint64_t scheduled_ns, submit_event, task;
};

static int cmp_by_unit(const void *a, const void *b)
{
	const struct unit_key *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	if (x->executor != y->executor)
		return x->executor - y->executor;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	if (x->scheduled_ns != y->scheduled_ns)
		return x->scheduled_ns < y->scheduled_ns ? -1 : 1;
	return (x->submit_event > y->submit_event) - (x->submit_event < y->submit_event);
}

static int same_unit(const struct pl_task *x, const struct pl_task *y)
{
	return x->tgid == y->tgid && x->executor == y->executor && x->unit == y->unit;
}

/* A task that never started holds its place to the end of the trace. */
static uint64_t end_of(const struct pl_task *t)
{
	return t->start_event == PL_NONE ? UINT64_MAX : t->ended_ns;
}

static uint64_t start_of(const struct pl_task *t)
{
	return t->start_event == PL_NONE ? UINT64_MAX : t->started_ns;
}

static void add_dep(struct pl_tasks *out, uint64_t *cap, uint64_t task)
{
	if (out->ndeps == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		out->deps = pl_xrealloc(out->deps, *cap, sizeof(*out->deps));
	}
	out->deps[out->ndeps++] = task;
}

/*
 * One unit's tasks in scheduled order, [lo, hi) of order: queue lengths from the tasks still
 * unfinished when each was scheduled (kept in a list pruned as time passes), and the
 * dependency of each task that found its unit full and waited: those unfinished ones and the
 * later ones that started before it.
 */
static void unit_queue(struct pl_tasks *out, const uint64_t *order, uint64_t lo, uint64_t hi,
		       uint64_t **active, uint64_t *active_cap, uint64_t *deps_cap)
{
	uint64_t nactive = 0;

	for (uint64_t i = lo; i < hi; i++) {
		struct pl_task *t = &out->tasks[order[i]];
		uint64_t kept = 0;

		for (uint64_t k = 0; k < nactive; k++)
			if (end_of(&out->tasks[(*active)[k]]) > t->scheduled_ns)
				(*active)[kept++] = (*active)[k];
		nactive = kept;
		t->queue_length = (uint32_t)(nactive < UINT32_MAX ? nactive : UINT32_MAX);
		t->first_dep = out->ndeps;
		/* It waited for a place: the unit was full (at least its capacity ahead of it). */
		if ((t->queuing_ns > 0 || t->start_event == PL_NONE) &&
		    (t->capacity == 0 || t->queue_length >= t->capacity)) {
			for (uint64_t k = 0; k < nactive; k++)
				if (start_of(&out->tasks[(*active)[k]]) <= start_of(t))
					add_dep(out, deps_cap, (*active)[k]);
			for (uint64_t j = i + 1; j < hi; j++) {
				const struct pl_task *u = &out->tasks[order[j]];

				if (u->scheduled_ns >= start_of(t))
					break;
				if (start_of(u) < start_of(t))
					add_dep(out, deps_cap, order[j]);
			}
		}
		t->ndeps = out->ndeps - t->first_dep;
		if (nactive == *active_cap) {
			*active_cap = *active_cap ? *active_cap * 2 : 16;
			*active = pl_xrealloc(*active, *active_cap, sizeof(**active));
		}
		(*active)[nactive++] = order[i];
	}
}

static void queues(struct pl_tasks *out)
{
	struct unit_key *keys = pl_xcalloc(out->count ? out->count : 1, sizeof(*keys));
	uint64_t *order = pl_xcalloc(out->count ? out->count : 1, sizeof(*order));
	uint64_t *active = NULL, active_cap = 0, deps_cap = 0;

	for (uint64_t i = 0; i < out->count; i++) {
		const struct pl_task *t = &out->tasks[i];

		keys[i] = (struct unit_key){ .tgid = t->tgid,
					     .executor = t->executor,
					     .unit = t->unit,
					     .scheduled_ns = t->scheduled_ns,
					     .submit_event = t->submit_event,
					     .task = i };
	}
	if (out->count)
		qsort(keys, out->count, sizeof(*keys), cmp_by_unit);
	for (uint64_t i = 0; i < out->count; i++)
		order[i] = keys[i].task;
	for (uint64_t lo = 0, hi; lo < out->count; lo = hi) {
		for (hi = lo + 1;
		     hi < out->count && same_unit(&out->tasks[order[lo]], &out->tasks[order[hi]]);
		     hi++)
			;
		unit_queue(out, order, lo, hi, &active, &active_cap, &deps_cap);
	}
	free(active);
	free(order);
	free(keys);
}

void pl_tasks_build(const struct pl_trace *trace, const struct pl_intervals *iv,
		    const struct pl_graph *g, struct pl_tasks *out)
{
	struct pl_idmap capacity = { 0 }; /* (process, unit) -> capacity */
	struct keyed_context *kc = NULL;
	uint64_t cap = 0, nkc = 0, value;

	memset(out, 0, sizeof(*out));
	for (uint64_t e = 0; e < trace->nevents; e++) {
		const struct pl_event *ev = &trace->events[e];

		if (iv->event_interval[e] == PL_NONE)
			continue;
		if (ev->type == PL_EV_UNIT_CAPACITY) {
			pl_idmap_put(&capacity, process_of(iv, e), ev->a0, ev->a1);
			continue;
		}
		if (ev->type != PL_EV_SUBMIT_ASYNC_TASK && ev->type != PL_EV_ENQUEUE_MSG)
			continue;
		if (out->count == cap) {
			cap = cap ? cap * 2 : 64;
			out->tasks = pl_xrealloc(out->tasks, cap, sizeof(*out->tasks));
			kc = pl_xrealloc(kc, cap, sizeof(*kc));
		}
		int executor = ev->type == PL_EV_SUBMIT_ASYNC_TASK;
		struct pl_task *t = &out->tasks[out->count];

		*t = (struct pl_task){ .executor = executor,
				       .tgid = process_of(iv, e),
				       .unit = ev->a1,
				       .item = ev->a0,
				       .submit_event = e,
				       .start_event = PL_NONE,
				       .context = PL_NONE };
		/* A delayed message (ENQUEUE a2, in us) is not waiting until it is due. */
		t->scheduled_ns = ev->ts_ns + (executor ? 0 : (uint64_t)ev->a2 * 1000);
		if (pl_idmap_get(&capacity, t->tgid, t->unit, &value))
			t->capacity = (uint32_t)value;
		for (uint64_t k = g->out_first[e]; k < g->out_first[e + 1]; k++) {
			const struct pl_edge *edge = &g->edges[k];

			if (edge->kind != (executor ? PL_EDGE_TASK : PL_EDGE_MESSAGE))
				continue;
			const struct pl_interval *run =
				&iv->intervals[iv->event_interval[edge->to_event]];

			t->start_event = edge->to_event;
			t->started_ns = trace->events[edge->to_event].ts_ns;
			t->ended_ns = run->end_ns;
			t->execution_ns = run->end_ns - t->started_ns;
			t->queuing_ns = t->started_ns > t->scheduled_ns ?
						t->started_ns - t->scheduled_ns :
						0;
			break;
		}
		uint64_t next = pl_intervals_next_event(iv, e);

		if (next != PL_NONE && trace->events[next].type == PL_EV_TASK_CONTEXT) {
			kc[nkc].c.tgid = t->tgid;
			read_context(&trace->events[next], &kc[nkc].c);
			kc[nkc++].task = out->count;
		} else {
			out->without_context++;
		}
		out->count++;
	}
	number_contexts(out, kc, nkc);
	queues(out);
	free(kc);
	pl_idmap_free(&capacity);
}

void pl_tasks_free(struct pl_tasks *t)
{
	free(t->tasks);
	free(t->contexts);
	free(t->deps);
	memset(t, 0, sizeof(*t));
}
