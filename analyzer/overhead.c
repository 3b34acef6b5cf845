/* SPDX-License-Identifier: MIT */
/*
 * Overhead mode (issue 6 item 5): a traced and an untraced run of one
 * replay, compared input by input on ground-truth latency, and overall on
 * mean, p50 and p95, with the sorted latencies of both for a Q-Q plot.
 */
#include "panlab/overhead.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"

static struct pl_overhead_stat stat_of(uint64_t on_ns, uint64_t off_ns)
{
	struct pl_overhead_stat s = { on_ns, off_ns, (int64_t)(on_ns - off_ns), 0 };

	if (off_ns)
		s.overhead_pct = 100.0 * (double)s.overhead_ns / (double)off_ns;
	return s;
}

void pl_overhead_compare(const struct pl_ground_truth *on, const struct pl_ground_truth *off,
			 struct pl_overhead *out)
{
	uint64_t n = on->ninputs < off->ninputs ? on->ninputs : off->ninputs;
	uint64_t sum_on = 0, sum_off = 0;

	memset(out, 0, sizeof(*out));
	out->inputs_on = on->ninputs;
	out->inputs_off = off->ninputs;
	out->rows = pl_xcalloc(n, sizeof(*out->rows));
	out->quantile_on_ns = pl_xcalloc(n, sizeof(uint64_t));
	out->quantile_off_ns = pl_xcalloc(n, sizeof(uint64_t));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t t_on, t_off;

		/* An input without its frame in either run has no latency to compare. */
		if (!pl_ground_truth_output(on, i, &t_on) || !pl_ground_truth_output(off, i, &t_off))
			continue;
		struct pl_overhead_row *r = &out->rows[out->nrows];

		r->input = i;
		r->on_ns = t_on - on->inputs[i].t_ns;
		r->off_ns = t_off - off->inputs[i].t_ns;
		r->overhead_ns = (int64_t)(r->on_ns - r->off_ns);
		out->quantile_on_ns[out->nrows] = r->on_ns;
		out->quantile_off_ns[out->nrows] = r->off_ns;
		sum_on += r->on_ns;
		sum_off += r->off_ns;
		out->nrows++;
	}
	if (out->nrows == 0)
		return;
	struct pl_percentiles p_on = pl_percentiles_of(out->quantile_on_ns, out->nrows);
	struct pl_percentiles p_off = pl_percentiles_of(out->quantile_off_ns, out->nrows);

	out->mean = stat_of(sum_on / out->nrows, sum_off / out->nrows);
	out->p50 = stat_of(p_on.p50, p_off.p50);
	out->p95 = stat_of(p_on.p95, p_off.p95);
}

void pl_overhead_free(struct pl_overhead *o)
{
	free(o->rows);
	free(o->quantile_on_ns);
	free(o->quantile_off_ns);
	memset(o, 0, sizeof(*o));
}

static json_t *stat_json(const struct pl_overhead *o, const struct pl_overhead_stat *s)
{
	if (o->nrows == 0)
		return json_null();
	return json_pack("{s:I, s:I, s:I, s:f}", "on_ns", (json_int_t)s->on_ns,
			 "off_ns", (json_int_t)s->off_ns, "overhead_ns", (json_int_t)s->overhead_ns,
			 "overhead_pct", s->overhead_pct);
}

int pl_overhead_write_json(const struct pl_overhead *o, const char *on_name,
			   const char *off_name, const char *path, struct pl_error *err)
{
	json_t *rows = json_array(), *qq = json_array();

	for (uint64_t i = 0; i < o->nrows; i++) {
		const struct pl_overhead_row *r = &o->rows[i];

		json_array_append_new(rows, json_pack("{s:I, s:I, s:I, s:I}",
			"input", (json_int_t)r->input, "on_ns", (json_int_t)r->on_ns,
			"off_ns", (json_int_t)r->off_ns, "overhead_ns", (json_int_t)r->overhead_ns));
		json_array_append_new(qq, json_pack("[I, I]", (json_int_t)o->quantile_off_ns[i],
						    (json_int_t)o->quantile_on_ns[i]));
	}
	json_t *doc = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:o, s:o}",
		"schema", "panlab-overhead 1", "traced_run", on_name, "untraced_run", off_name,
		"inputs_traced", (json_int_t)o->inputs_on, "inputs_untraced", (json_int_t)o->inputs_off,
		"compared", (json_int_t)o->nrows,
		"mean", stat_json(o, &o->mean), "p50", stat_json(o, &o->p50),
		"p95", stat_json(o, &o->p95), "transactions", rows, "qq_off_on_ns", qq);
	int rc = json_dump_file(doc, path, JSON_INDENT(2) | JSON_REAL_PRECISION(12));

	json_decref(doc);
	if (rc != 0) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}
