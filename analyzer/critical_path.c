/* SPDX-License-Identifier: MIT */
/*
 * Stage 5: the critical path of each transaction, walked back from its last
 * update to its input. At a join (an event with several predecessors inside
 * the transaction) the latest predecessor is taken, as in Panappticon's
 * analysis: the work that finished last is what the update waited for.
 * An animation is the exception (see better() below).
 *
 * Every causal edge points forward in the merged event order (graph.c only
 * joins a consumer to a producer seen before it), and so does every temporal
 * edge, so each backward step lowers the event index: the walk terminates
 * and the steps tile [input, last update] in time.
 */
#include "panlab/critical_path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"

struct builder {
	struct pl_critical_paths *out;
	uint64_t cap;
	uint32_t *member;	/* per event: the stamp of the transaction it belongs to */
	uint32_t *frames;	/* per member event: the chained frames behind it */
};

/*
 * Whether predecessor a is taken over b (PL_NONE: none yet). The latest one
 * is what the event waited for, except in an animation: its frame chain
 * redraws on every vsync until the work that ends it completes, so the
 * chain's last frame always comes latest and says nothing of why the
 * animation lasted as long as it did. There the predecessor with the fewest
 * chained frames behind it wins (the completing task's result over the
 * spinner's last frame), the latest among equals.
 */
static int better(const struct builder *b, int animation, uint64_t a, uint64_t best)
{
	if (best == PL_NONE)
		return 1;
	if (animation && b->frames[a] != b->frames[best])
		return b->frames[a] < b->frames[best];
	return a > best;
}

static void push_step(struct builder *b, enum pl_edge_kind kind, uint64_t from, uint64_t to)
{
	struct pl_critical_paths *o = b->out;
	uint64_t n = o->first_step[o->count + 1];	/* the end of the path being built */

	if (n == b->cap) {
		b->cap = b->cap ? b->cap * 2 : 64;
		o->steps = pl_xrealloc(o->steps, b->cap, sizeof(*o->steps));
	}
	o->steps[n] = (struct pl_step){ kind, from, to };
	o->first_step[o->count + 1] = n + 1;
}

/*
 * The path of transaction k, built backwards into steps[] and then reversed;
 * consecutive temporal steps on one thread are merged.
 */
static void one_path(struct builder *b, const struct pl_intervals *iv, const struct pl_graph *g,
		     const struct pl_transaction *t, uint32_t stamp)
{
	const uint32_t *member = b->member;
	struct pl_critical_paths *o = b->out;
	uint64_t start = o->first_step[o->count];
	uint64_t e = t->last_update_event;

	while (e != t->input_event) {
		uint64_t best = PL_NONE;
		enum pl_edge_kind kind = PL_EDGE_TEMPORAL;
		uint64_t prev = pl_intervals_prev_event(iv, e);
		/*
		 * Predecessors in one interval are ordered by its temporal
		 * edges, so only predecessors from different intervals make a
		 * join where the rule decides.
		 */
		uint64_t first_iv = PL_NONE;
		int branches = 0;

		if (prev != PL_NONE && member[prev] == stamp) {
			best = prev;
			first_iv = iv->event_interval[prev];
			branches = 1;
		}
		for (uint64_t k = g->in_first[e]; k < g->in_first[e + 1]; k++) {
			const struct pl_edge *edge = &g->edges[g->in_edge[k]];
			uint64_t from_iv = iv->event_interval[edge->from_event];

			if (member[edge->from_event] != stamp)
				continue;
			if (branches == 0)
				first_iv = from_iv;
			branches = branches == 0 ? 1 : from_iv != first_iv ? 2 : branches;
			if (better(b, t->animation, edge->from_event, best)) {
				best = edge->from_event;
				kind = edge->kind;
			}
		}
		if (branches > 1)
			o->joins[o->count]++;
		/* Unreachable: every member but the input was reached from a member. */
		if (best == PL_NONE)
			break;
		uint64_t n = o->first_step[o->count + 1];

		if (kind == PL_EDGE_TEMPORAL && n > start && o->steps[n - 1].kind == PL_EDGE_TEMPORAL)
			o->steps[n - 1].from_event = best;	/* extend the previous temporal step back */
		else
			push_step(b, kind, best, e);
		e = best;
	}
	for (uint64_t i = start, j = o->first_step[o->count + 1]; i + 1 < j; i++, j--) {
		struct pl_step s = o->steps[i];

		o->steps[i] = o->steps[j - 1];
		o->steps[j - 1] = s;
	}
}

void pl_critical_paths_build(const struct pl_trace *trace, const struct pl_intervals *iv,
			     const struct pl_graph *g, const struct pl_transactions *tx,
			     struct pl_critical_paths *out)
{
	struct builder b = {
		.out = out,
		.member = pl_xcalloc(trace->nevents, sizeof(uint32_t)),
		.frames = pl_xcalloc(trace->nevents, sizeof(uint32_t)),
	};

	memset(out, 0, sizeof(*out));
	out->first_step = pl_xcalloc(tx->count + 1, sizeof(*out->first_step));
	out->joins = pl_xcalloc(tx->count, sizeof(*out->joins));
	for (uint64_t k = 0; k < tx->count; k++) {
		const struct pl_transaction *t = &tx->items[k];
		/* Stamps mark the members of transaction k without clearing between paths. */
		uint32_t stamp = (uint32_t)(k + 1);

		for (uint64_t m = 0; m < t->nevents; m++) {
			uint64_t e = tx->members[t->first_member + m];

			b.member[e] = stamp;
			b.frames[e] = tx->member_frames[t->first_member + m];
		}
		out->first_step[k + 1] = out->first_step[k];
		one_path(&b, iv, g, t, stamp);
		out->count++;
		if (out->joins[k])
			out->decided++;
	}
	free(b.member);
	free(b.frames);
}

void pl_critical_paths_free(struct pl_critical_paths *cp)
{
	free(cp->first_step);
	free(cp->steps);
	free(cp->joins);
	memset(cp, 0, sizeof(*cp));
}

char *pl_critical_path_shape(const struct pl_critical_paths *cp, uint64_t k, char *buf,
			     size_t size)
{
	size_t used = 0;

	if (size)
		buf[0] = '\0';
	for (uint64_t i = cp->first_step[k]; i < cp->first_step[k + 1] && used < size; i++) {
		if (cp->steps[i].kind == PL_EDGE_TEMPORAL)
			continue;
		int n = snprintf(buf + used, size - used, "%s%s", used ? ">" : "",
				 pl_edge_kind_name(cp->steps[i].kind));

		used += n > 0 ? (size_t)n : 0;
	}
	return buf;
}
