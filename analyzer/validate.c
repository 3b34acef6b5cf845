/* SPDX-License-Identifier: MIT */
/* Validation against ground truth (issue 2 item 10, issue 6 item 4). */
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

void pl_validate(const struct pl_transactions *tx, const struct pl_ground_truth *gt,
		 struct pl_validation *out)
{
	uint64_t *input_tx = pl_xcalloc(gt->ninputs, sizeof(*input_tx));
	uint8_t *tx_matched = pl_xcalloc(tx->count, 1);
	struct acc error = { &out->error_ns, 0 }, diff = { &out->difference_ns, 0 };
	struct acc dispatch = { &out->input_dispatch_ns, 0 }, pipeline = { &out->display_pipeline_ns, 0 };

	memset(out, 0, sizeof(*out));
	out->inputs = gt->ninputs;
	out->transactions = tx->count;
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
		r->has_truth = pl_ground_truth_output(gt, i, &r->truth_out_ns);
		if (!r->has_truth) {
			out->inputs_without_frame++;
			continue;
		}
		r->truth_latency_ns = r->truth_out_ns - r->truth_in_ns;
		if (r->tx == PL_NONE)
			continue;
		const struct pl_transaction *t = &tx->items[r->tx];

		r->difference_ns = (int64_t)(t->latency_ns - r->truth_latency_ns);
		r->input_dispatch_ns = (int64_t)(t->input_ns - r->truth_in_ns);
		r->display_pipeline_ns = (int64_t)(r->truth_out_ns - t->end_ns);
		add(&error, r->difference_ns < 0 ? -r->difference_ns : r->difference_ns);
		add(&diff, r->difference_ns);
		add(&dispatch, r->input_dispatch_ns);
		add(&pipeline, r->display_pipeline_ns);
	}
	for (uint64_t k = 0; k < tx->count; k++)
		if (!tx_matched[k])
			out->rows[out->nrows++] = (struct pl_row){ .input = PL_NONE, .tx = k };
	out->has_precision = out->transactions > 0;
	out->has_recall = out->inputs > 0;
	if (out->has_precision)
		out->precision = (double)out->matched / (double)out->transactions;
	if (out->has_recall)
		out->recall = (double)out->matched / (double)out->inputs;
	uint64_t *lat = pl_xcalloc(tx->count + gt->ninputs, sizeof(*lat)), n = 0;

	for (uint64_t k = 0; k < tx->count; k++)
		lat[n++] = tx->items[k].latency_ns;
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
