/* SPDX-License-Identifier: MIT */
/* Validation against ground truth. */
#include "panlab/validate.h"

#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"

struct acc {
	struct pl_stat *s;
	int64_t sum;
};

static void add(struct acc *a, int64_t v)
{
	struct pl_stat *s = a->s;

	if (s->n == 0 || v < s->min)
		s->min = v;
	if (s->n == 0 || v > s->max)
		s->max = v;
	s->n++;
	a->sum += v;
	s->mean = a->sum / (int64_t)s->n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct pl_percentiles pl_percentiles_of(uint64_t *v, uint64_t n)
{
	struct pl_percentiles p = { .n = n };

	if (n == 0)
		return p;
	qsort(v, n, sizeof(*v), cmp_u64);
	/* Nearest rank: the smallest value with at least q% of the values at or below it. */
#define RANK(q) v[((q) * n + 99) / 100 - 1]
	p.p50 = RANK(50);
	p.p90 = RANK(90);
	p.p95 = RANK(95);
	p.p99 = RANK(99);
#undef RANK
	p.max = v[n - 1];
	return p;
}

/*
 * Classification against the ground truth's own view of each input: an input
 * whose window holds a frame should have a transaction (true positive, or a
 * miss); one whose window holds none changed nothing on screen, so no
 * transaction is right (a true negative) and one is a false positive. Every
 * transaction that matched no such input is a false positive too.
 */
static void score(struct pl_validation *v)
{
	for (uint64_t r = 0; r < v->nrows; r++) {
		const struct pl_row *row = &v->rows[r];

		if (row->input == PL_NONE)
			continue;
		if (row->has_truth && row->tx != PL_NONE)
			v->true_positives++;
		else if (row->has_truth)
			v->false_negatives++;
		else if (row->tx == PL_NONE)
			v->true_negatives++;
	}
	v->has_precision = v->transactions > 0;
	v->has_recall = v->true_positives + v->false_negatives > 0;
	if (v->has_precision)
		v->precision = (double)v->true_positives / (double)v->transactions;
	if (v->has_recall)
		v->recall = (double)v->true_positives /
			    (double)(v->true_positives + v->false_negatives);
}

/* The trace's own segments around the critical path (struct pl_pixels). */
static void pipeline_segments(const struct pl_transaction *t, struct pl_row *r)
{
	r->input_dispatch_ns = (int64_t)t->pixels.input_dispatch_ns;
	r->display_pipeline_ns = (int64_t)(t->pixels.vsync_queue_ns + t->pixels.composition_ns +
					   t->pixels.flush_ns);
}

void pl_validate(const struct pl_transactions *tx, const struct pl_ground_truth *gt,
		 struct pl_validation *out)
{
	uint64_t *input_tx = pl_xcalloc(gt->ninputs, sizeof(*input_tx));
	uint8_t *tx_matched = pl_xcalloc(tx->count, 1);
	struct acc error = { &out->error_ns, 0 }, diff = { &out->difference_ns, 0 };
	struct acc dispatch = { &out->input_dispatch_ns, 0 }, pipeline = { &out->display_pipeline_ns, 0 };
	struct acc vsync = { &out->vsync_queue_ns, 0 }, compose = { &out->composition_ns, 0 };
	struct acc flush = { &out->flush_ns, 0 };

	memset(out, 0, sizeof(*out));
	out->inputs = gt->ninputs;
	out->transactions = tx->count;
	out->unreadable_frames = gt->unreadable_frames;
	for (uint64_t i = 0; i < gt->ninputs; i++)
		input_tx[i] = PL_NONE;
	for (uint64_t k = 0; k < tx->count; k++) {
		uint64_t id = tx->items[k].input_id;

		/* A repeated input id matches once: the first (earliest) transaction. */
		if (id < gt->ninputs && input_tx[id] == PL_NONE) {
			input_tx[id] = k;
			tx_matched[k] = 1;
			out->matched++;
		}
	}
	out->rows = pl_xcalloc(gt->ninputs + tx->count - out->matched, sizeof(*out->rows));
	for (uint64_t i = 0; i < gt->ninputs; i++) {
		struct pl_row *r = &out->rows[out->nrows++];

		*r = (struct pl_row){ .input = i, .tx = input_tx[i], .truth_in_ns = gt->inputs[i].t_ns };
		if (r->tx != PL_NONE)
			pipeline_segments(&tx->items[r->tx], r);
		r->rule = pl_ground_truth_output(gt, i, &r->truth_out_ns);
		r->has_truth = r->rule != PL_GT_RULE_NONE;
		if (!r->has_truth) {
			out->inputs_without_frame++;
			continue;
		}
		r->truth_latency_ns = r->truth_out_ns - r->truth_in_ns;
		if (r->tx == PL_NONE)
			continue;
		const struct pl_pixels *p = &tx->items[r->tx].pixels;

		out->rule_counts[r->rule]++;
		r->difference_ns = (int64_t)(p->latency_ns - r->truth_latency_ns);
		add(&error, r->difference_ns < 0 ? -r->difference_ns : r->difference_ns);
		add(&diff, r->difference_ns);
		add(&dispatch, r->input_dispatch_ns);
		add(&pipeline, r->display_pipeline_ns);
		add(&vsync, (int64_t)p->vsync_queue_ns);
		add(&compose, (int64_t)p->composition_ns);
		add(&flush, (int64_t)p->flush_ns);
	}
	for (uint64_t k = 0; k < tx->count; k++) {
		if (tx_matched[k])
			continue;
		struct pl_row *r = &out->rows[out->nrows++];

		*r = (struct pl_row){ .input = PL_NONE, .tx = k };
		pipeline_segments(&tx->items[k], r);
	}
	score(out);
	uint64_t *lat = pl_xcalloc(tx->count + gt->ninputs, sizeof(*lat)), n = 0;

	for (uint64_t k = 0; k < tx->count; k++)
		lat[n++] = tx->items[k].pixels.latency_ns;
	out->detected_latency_ns = pl_percentiles_of(lat, n);
	n = 0;
	for (uint64_t r = 0; r < out->nrows; r++)
		if (out->rows[r].has_truth)
			lat[n++] = out->rows[r].truth_latency_ns;
	out->truth_latency_ns = pl_percentiles_of(lat, n);
	free(lat);
	free(input_tx);
	free(tx_matched);
}

void pl_validation_free(struct pl_validation *v)
{
	free(v->rows);
	memset(v, 0, sizeof(*v));
}
