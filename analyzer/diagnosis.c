/* SPDX-License-Identifier: MIT */
/*
 * DiagDroid's diagnosis (FSE 2016, sections 4.2-4.3 and the report of Fig. 5): contexts
 * clustered by single linkage on their edit distance, each group's M_q = max queuing time and
 * M_e = max execution time, the groups with either at or past tau = 500 ms ranked first, and
 * for each the runtime dependency of its long waits.
 */
#include "panlab/diagnosis.h"

#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"

uint32_t pl_context_distance(const struct pl_context *a, const struct pl_context *b)
{
	uint32_t row[PL_CONTEXT_FRAMES + 1];

	for (uint32_t j = 0; j <= b->nframes; j++)
		row[j] = j;
	for (uint32_t i = 1; i <= a->nframes; i++) {
		uint32_t diag = row[0];

		row[0] = i;
		for (uint32_t j = 1; j <= b->nframes; j++) {
			uint32_t up = row[j];
			uint32_t best = diag + (a->frames[i - 1] != b->frames[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[b->nframes];
}

static uint64_t find(uint64_t *parent, uint64_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/* Contexts are sorted by process, so each one's candidates are the run of its process. */
static void cluster(const struct pl_tasks *t, uint64_t *parent)
{
	for (uint64_t i = 0; i < t->ncontexts; i++)
		parent[i] = i;
	for (uint64_t i = 0; i < t->ncontexts; i++)
		for (uint64_t j = i + 1;
		     j < t->ncontexts && t->contexts[j].tgid == t->contexts[i].tgid; j++)
			if (pl_context_distance(&t->contexts[i], &t->contexts[j]) <=
			    PL_DIAG_MAX_DISTANCE) {
				uint64_t a = find(parent, i), b = find(parent, j);

				parent[a > b ? a : b] = a < b ? a : b;
			}
}

static uint64_t worst(const struct pl_diag_group *g)
{
	return g->max_queuing_ns > g->max_execution_ns ? g->max_queuing_ns : g->max_execution_ns;
}

static int cmp_rank(const void *a, const void *b)
{
	const struct pl_diag_group *x = a, *y = b;

	if (x->suspicious != y->suspicious)
		return y->suspicious - x->suspicious;
	if (worst(x) != worst(y))
		return worst(x) > worst(y) ? -1 : 1;
	if (x->max_queuing_ns != y->max_queuing_ns)
		return x->max_queuing_ns > y->max_queuing_ns ? -1 : 1;
	return (x->first_context > y->first_context) - (x->first_context < y->first_context);
}

/* Groups numbered by their lowest context, with their contexts and task maxima. */
static void make_groups(const struct pl_tasks *t, uint64_t *parent, struct pl_diagnosis *out)
{
	uint64_t *root_group = pl_xcalloc(t->ncontexts ? t->ncontexts : 1, sizeof(*root_group));
	uint64_t *uses = pl_xcalloc(t->ncontexts ? t->ncontexts : 1, sizeof(*uses));

	out->groups = pl_xcalloc(t->ncontexts ? t->ncontexts : 1, sizeof(*out->groups));
	for (uint64_t i = 0; i < t->ncontexts; i++) {
		uint64_t r = find(parent, i);

		if (r == i) {
			root_group[i] = out->ngroups;
			out->groups[out->ngroups++] =
				(struct pl_diag_group){ .first_context = i,
							.tgid = t->contexts[i].tgid,
							.worst_task = PL_NONE,
							.context = i };
		}
		out->context_group[i] = root_group[r];
	}
	for (uint64_t k = 0; k < t->count; k++) {
		const struct pl_task *task = &t->tasks[k];

		if (task->context == PL_NONE)
			continue;
		struct pl_diag_group *g = &out->groups[out->context_group[task->context]];

		g->tasks++;
		uses[task->context]++;
		if (task->start_event != PL_NONE &&
		    (g->worst_task == PL_NONE || task->queuing_ns > g->max_queuing_ns)) {
			g->max_queuing_ns = task->queuing_ns;
			g->worst_task = k;
			g->capacity = task->capacity;
		}
		if (task->execution_ns > g->max_execution_ns)
			g->max_execution_ns = task->execution_ns;
	}
	for (uint64_t i = 0; i < t->ncontexts; i++) {
		struct pl_diag_group *g = &out->groups[out->context_group[i]];

		if (uses[i] > uses[g->context])
			g->context = i;
	}
	for (uint64_t i = 0; i < out->ngroups; i++) {
		struct pl_diag_group *g = &out->groups[i];

		g->suspicious = g->max_queuing_ns >= PL_DIAG_THRESHOLD_NS ||
				g->max_execution_ns >= PL_DIAG_THRESHOLD_NS;
		out->suspicious += (uint64_t)g->suspicious;
	}
	free(uses);
	free(root_group);
}

/* Sorts the groups into their rank and renumbers the contexts' groups. */
static void rank(const struct pl_tasks *t, struct pl_diagnosis *out)
{
	/* A group's first_context is its lowest context: it names the group across the sort. */
	uint64_t *old_first = pl_xcalloc(out->ngroups ? out->ngroups : 1, sizeof(*old_first));
	uint64_t *by_first = pl_xcalloc(t->ncontexts ? t->ncontexts : 1, sizeof(*by_first));

	for (uint64_t i = 0; i < out->ngroups; i++)
		old_first[i] = out->groups[i].first_context;
	if (out->ngroups)
		qsort(out->groups, out->ngroups, sizeof(*out->groups), cmp_rank);
	for (uint64_t i = 0; i < out->ngroups; i++)
		by_first[out->groups[i].first_context] = i;
	for (uint64_t i = 0; i < t->ncontexts; i++)
		out->context_group[i] = by_first[old_first[out->context_group[i]]];
	free(by_first);
	free(old_first);
}

/* context_order: contexts by group, ascending within; each group's first_context into it. */
static void order_contexts(const struct pl_tasks *t, struct pl_diagnosis *out)
{
	uint64_t pos = 0;

	out->context_order =
		pl_xcalloc(t->ncontexts ? t->ncontexts : 1, sizeof(*out->context_order));
	for (uint64_t gi = 0; gi < out->ngroups; gi++) {
		struct pl_diag_group *g = &out->groups[gi];

		g->first_context = pos;
		for (uint64_t i = 0; i < t->ncontexts; i++)
			if (out->context_group[i] == gi)
				out->context_order[pos++] = i;
		g->ncontexts = pos - g->first_context;
	}
}

static int cmp_cause(const void *a, const void *b)
{
	const struct pl_diag_cause *x = a, *y = b;

	if (x->execution_ns != y->execution_ns)
		return x->execution_ns > y->execution_ns ? -1 : 1;
	return (x->group > y->group) - (x->group < y->group);
}

/* Over each group's long waits: queue lengths, the tasks waited for and their groups. */
static void causes(const struct pl_tasks *t, struct pl_diagnosis *out)
{
	struct pl_diag_cause *per = pl_xcalloc(out->ngroups ? out->ngroups : 1, sizeof(*per));
	uint64_t cap = 0;

	for (uint64_t gi = 0; gi < out->ngroups; gi++) {
		struct pl_diag_group *g = &out->groups[gi];

		memset(per, 0, out->ngroups * sizeof(*per));
		for (uint64_t k = 0; k < t->count; k++) {
			const struct pl_task *task = &t->tasks[k];

			if (task->context == PL_NONE || out->context_group[task->context] != gi ||
			    task->start_event == PL_NONE || task->queuing_ns < PL_DIAG_THRESHOLD_NS)
				continue;
			g->long_waits++;
			g->queue_length_sum += task->queue_length;
			for (uint64_t d = 0; d < task->ndeps; d++) {
				const struct pl_task *dep = &t->tasks[t->deps[task->first_dep + d]];

				g->in_queue_tasks++;
				g->in_queue_execution_ns += dep->execution_ns;
				if (dep->context == PL_NONE)
					continue;
				struct pl_diag_cause *c = &per[out->context_group[dep->context]];

				c->tasks++;
				c->execution_ns += dep->execution_ns;
			}
		}
		g->first_cause = out->ncauses;
		for (uint64_t o = 0; o < out->ngroups; o++) {
			if (!per[o].tasks)
				continue;
			if (out->ncauses == cap) {
				cap = cap ? cap * 2 : 16;
				out->causes = pl_xrealloc(out->causes, cap, sizeof(*out->causes));
			}
			out->causes[out->ncauses] = per[o];
			out->causes[out->ncauses++].group = o;
		}
		g->ncauses = out->ncauses - g->first_cause;
		if (g->ncauses)
			qsort(out->causes + g->first_cause, g->ncauses, sizeof(*out->causes),
			      cmp_cause);
	}
	free(per);
}

void pl_diagnosis_build(const struct pl_tasks *t, struct pl_diagnosis *out)
{
	uint64_t *parent = pl_xcalloc(t->ncontexts ? t->ncontexts : 1, sizeof(*parent));

	memset(out, 0, sizeof(*out));
	out->context_group =
		pl_xcalloc(t->ncontexts ? t->ncontexts : 1, sizeof(*out->context_group));
	cluster(t, parent);
	make_groups(t, parent, out);
	rank(t, out);
	order_contexts(t, out);
	causes(t, out);
	free(parent);
}

void pl_diagnosis_free(struct pl_diagnosis *d)
{
	free(d->groups);
	free(d->context_group);
	free(d->context_order);
	free(d->causes);
	memset(d, 0, sizeof(*d));
}
