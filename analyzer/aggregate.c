/* SPDX-License-Identifier: MIT */
/*
 * Aggregates over transactions: groups of equal critical-path
 * shape and their outliers above mean + 3 SD, as AppInsight reports. The
 * shape stands in for AppInsight's "identical graph": the chain of causal
 * hops that decided the latency. And the critical-path steps summed by
 * kind and threads: the top edges.
 */
#include "panlab/aggregate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "idmap.h"

void pl_aggregates_build(const struct pl_transactions *tx, const struct pl_critical_paths *cp,
			 struct pl_aggregates *out)
{
	/* Per group: mean, then sum of squared deviations (two passes, for numerical stability). */
	double *mean = pl_xcalloc(tx->count, sizeof(*mean)), *dev2 = pl_xcalloc(tx->count, sizeof(*dev2));
	char shape[sizeof(out->groups[0].shape)];

	memset(out, 0, sizeof(*out));
	out->groups = pl_xcalloc(tx->count, sizeof(*out->groups));
	out->group_of = pl_xcalloc(tx->count, sizeof(*out->group_of));
	out->outlier = pl_xcalloc(tx->count, sizeof(*out->outlier));
	for (uint64_t k = 0; k < tx->count; k++) {
		uint64_t g;

		pl_critical_path_shape(cp, k, shape, sizeof(shape));
		/* Groups are few; a linear search keeps first-appearance order. */
		for (g = 0; g < out->ngroups && strcmp(out->groups[g].shape, shape) != 0; g++)
			;
		if (g == out->ngroups)
			memcpy(out->groups[out->ngroups++].shape, shape, sizeof(shape));
		out->group_of[k] = g;
		out->groups[g].transactions++;
		mean[g] += (double)tx->items[k].latency_ns;
	}
	for (uint64_t g = 0; g < out->ngroups; g++)
		mean[g] /= (double)out->groups[g].transactions;
	for (uint64_t k = 0; k < tx->count; k++) {
		double d = (double)tx->items[k].latency_ns - mean[out->group_of[k]];

		dev2[out->group_of[k]] += d * d;
	}
	for (uint64_t g = 0; g < out->ngroups; g++) {
		double sd = sqrt(dev2[g] / (double)out->groups[g].transactions);

		out->groups[g].mean_latency_ns = (uint64_t)llround(mean[g]);
		out->groups[g].sd_latency_ns = (uint64_t)llround(sd);
		dev2[g] = sd;	/* from here on dev2 holds each group's SD */
	}
	for (uint64_t k = 0; k < tx->count; k++) {
		uint64_t g = out->group_of[k];

		if ((double)tx->items[k].latency_ns > mean[g] + 3 * dev2[g]) {
			out->outlier[k] = 1;
			out->groups[g].outliers++;
			out->outliers++;
		}
	}
	free(mean);
	free(dev2);
}

void pl_aggregates_free(struct pl_aggregates *ag)
{
	free(ag->groups);
	free(ag->group_of);
	free(ag->outlier);
	memset(ag, 0, sizeof(*ag));
}

static int by_total(const void *a, const void *b)
{
	const struct pl_edge_total *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns > y->total_ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->from_tid != y->from_tid)
		return x->from_tid < y->from_tid ? -1 : 1;
	return x->to_tid < y->to_tid ? -1 : x->to_tid > y->to_tid;
}

void pl_top_edges_build(const struct pl_trace *trace, const struct pl_intervals *iv,
			const struct pl_critical_paths *cp, struct pl_top_edges *out)
{
	struct pl_idmap index = { 0 };
	uint64_t cap = 0, nsteps = cp->count ? cp->first_step[cp->count] : 0;

	memset(out, 0, sizeof(*out));
	for (uint64_t i = 0; i < nsteps; i++) {
		const struct pl_step *s = &cp->steps[i];
		uint32_t from = iv->threads[iv->intervals[iv->event_interval[s->from_event]].thread].tid;
		uint32_t to = iv->threads[iv->intervals[iv->event_interval[s->to_event]].thread].tid;
		uint64_t ns = trace->events[s->to_event].ts_ns - trace->events[s->from_event].ts_ns;
		uint64_t k;

		if (!pl_idmap_get(&index, (uint64_t)s->kind << 32 | from, to, &k)) {
			if (out->count == cap) {
				cap = cap ? cap * 2 : 16;
				out->edges = pl_xrealloc(out->edges, cap, sizeof(*out->edges));
			}
			k = out->count++;
			out->edges[k] = (struct pl_edge_total){ .kind = s->kind, .from_tid = from,
								.to_tid = to };
			pl_idmap_put(&index, (uint64_t)s->kind << 32 | from, to, k);
		}
		struct pl_edge_total *e = &out->edges[k];

		e->steps++;
		e->total_ns += ns;
		if (ns > e->max_ns)
			e->max_ns = ns;
	}
	if (out->count)
		qsort(out->edges, out->count, sizeof(*out->edges), by_total);
	pl_idmap_free(&index);
}

void pl_top_edges_free(struct pl_top_edges *te)
{
	free(te->edges);
	memset(te, 0, sizeof(*te));
}
