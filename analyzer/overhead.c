/* SPDX-License-Identifier: MIT */
/*
 * Overhead mode: a traced and an untraced run of one
 * replay, compared input by input on ground-truth latency, and overall on
 * mean, p50 and p95, with the sorted latencies of both for a Q-Q plot.
 */
#include "panlab/overhead.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "panlab/stats.h"

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

int pl_overhead_write_json(const struct pl_overhead *o, const struct pl_cpu_overhead *cpu,
			   const char *on_name, const char *off_name, const char *path,
			   struct pl_error *err)
{
	struct pl_overhead_bound bound;

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

	pl_overhead_latency_bound(o, &bound);
	json_object_set_new(doc, "latency_bound",
			    o->nrows ? pl_overhead_bound_json(&bound) : json_null());
	json_object_set_new(doc, "cpu_time", cpu ? pl_cpu_overhead_json(cpu) : json_null());
	int rc = json_dump_file(doc, path, JSON_INDENT(2) | JSON_REAL_PRECISION(12));

	json_decref(doc);
	if (rc != 0) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Rounded to hundredths, as overhead.json reports shares; -0 becomes 0. */
static double cents(double x)
{
	double r = round(x * 100) / 100;

	return r == 0 ? 0 : r;
}

void pl_overhead_latency_bound(const struct pl_overhead *o, struct pl_overhead_bound *out)
{
	memset(out, 0, sizeof(*out));
	if (o->nrows == 0)
		return;
	double *d = pl_xcalloc(o->nrows, sizeof(*d));

	for (uint64_t i = 0; i < o->nrows; i++)
		d[i] = (double)o->rows[i].overhead_ns;
	pl_stats_sort(d, o->nrows);
	double shift = pl_quantile(d, o->nrows, 0.5);

	for (uint64_t i = 0; i < o->nrows; i++) {
		out->frames_later += d[i] - shift > PL_VSYNC_NS / 2.0;
		out->frames_earlier += shift - d[i] > PL_VSYNC_NS / 2.0;
	}
	double k = (double)out->frames_later + 1;

	out->transactions = o->nrows;
	out->grid_shift_ns = (int64_t)llround(shift);
	out->mean_pct = cents(o->mean.overhead_pct);
	out->p95_pct = cents(o->p95.overhead_pct);
	if (o->mean.off_ns)
		out->mean_bound_pct = cents((double)PL_VSYNC_NS * (k + 1.96 * sqrt(k)) /
					    (double)o->nrows * 100 / (double)o->mean.off_ns);
	free(d);
}

int pl_cpu_time_read_file(const char *path, struct pl_cpu_time *out, struct pl_error *err)
{
	FILE *f = fopen(path, "r");
	char line[256];
	uint64_t lineno = 0, nbusy = 0, cap = 64, prev = 0;
	int ended = 0;

	memset(out, 0, sizeof(*out));
	if (!f) {
		pl_error_file(err, path, "cannot open: %s", strerror(errno));
		return -1;
	}
	out->tap_ns = pl_xcalloc(cap, sizeof(*out->tap_ns));
	while (fgets(line, sizeof(line), f)) {
		uint64_t seq, t_ns, busy;
		int used = 0;

		lineno++;
		if (lineno == 1) {
			if (strcmp(line, "panlab-cpu-time 1\n")) {
				pl_error_at_line(err, path, 1,
						 "expected the format line 'panlab-cpu-time 1'");
				goto fail;
			}
			continue;
		}
		if (ended ||
		    !((sscanf(line, "input %" SCNu64 " %" SCNu64 " %" SCNu64 "%n", &seq, &t_ns,
			      &busy, &used) == 3 ||
		       (sscanf(line, "end %" SCNu64 " %" SCNu64 "%n", &t_ns, &busy, &used) == 2 &&
			(ended = 1))) &&
		      line[used] == '\n')) {
			pl_error_at_line(err, path, lineno,
					 "expected 'input SEQ T_NS BUSY_NS' or a last"
					 " 'end T_NS BUSY_NS'");
			goto fail;
		}
		if (nbusy && busy < prev) {
			pl_error_at_line(err, path, lineno,
					 "busy ns %" PRIu64 " below the line before's"
					 " %" PRIu64 ", expected a running total",
					 busy, prev);
			goto fail;
		}
		if (nbusy) {
			if (out->ntaps == cap)
				out->tap_ns =
					pl_xrealloc(out->tap_ns, cap *= 2, sizeof(*out->tap_ns));
			out->tap_ns[out->ntaps++] = busy - prev;
		}
		prev = busy;
		nbusy++;
	}
	if (!ended) {
		pl_error_at_line(err, path, lineno,
				 "no 'end' line: the run did not finish its replay");
		goto fail;
	}
	fclose(f);
	return 0;
fail:
	fclose(f);
	pl_cpu_time_free(out);
	return -1;
}

void pl_cpu_time_free(struct pl_cpu_time *c)
{
	free(c->tap_ns);
	memset(c, 0, sizeof(*c));
}

int pl_cpu_overhead(const struct pl_cpu_time *on, const struct pl_cpu_time *off,
		    struct pl_cpu_overhead *out, struct pl_error *err)
{
	uint64_t n = on->ntaps;

	memset(out, 0, sizeof(*out));
	if (n != off->ntaps || n < 2)
		return pl_fail(err,
			       "the traced and untraced runs have %" PRIu64 " and %" PRIu64
			       " taps; expected the same replay of at least 2",
			       n, off->ntaps);
	double *a = pl_xcalloc(n, sizeof(*a)), *b = pl_xcalloc(n, sizeof(*b));
	double *d = pl_xcalloc(n, sizeof(*d)), *pct = pl_xcalloc(n, sizeof(*pct));
	int rc = 0;

	for (uint64_t i = 0; i < n && rc == 0; i++) {
		a[i] = (double)on->tap_ns[i];
		b[i] = (double)off->tap_ns[i];
		d[i] = a[i] - b[i];
		if (off->tap_ns[i] == 0)
			rc = pl_fail(err,
				     "untraced tap %" PRIu64 " spent no CPU time, expected some",
				     i);
		else
			pct[i] = 100 * d[i] / b[i];
	}
	if (rc == 0) {
		double off_mean = pl_mean(b, n), d_mean = pl_mean(d, n);

		pl_stats_sort(pct, n);
		out->taps = n;
		out->mean_pct = cents(100 * d_mean / off_mean);
		out->p95_pct = cents(pl_quantile(pct, n, 0.95));
		out->mean_bound_pct =
			cents(100 * (d_mean + 1.96 * pl_sd(d, n) / sqrt((double)n)) / off_mean);
		out->ms_per_tap_on = cents(pl_mean(a, n) / 1e6);
		out->ms_per_tap_off = cents(off_mean / 1e6);
	}
	free(a);
	free(b);
	free(d);
	free(pct);
	return rc;
}

json_t *pl_overhead_bound_json(const struct pl_overhead_bound *b)
{
	return json_pack("{s:f, s:f, s:f, s:I, s:I, s:I, s:I}", "overhead_mean_pct", b->mean_pct,
			 "overhead_p95_pct", b->p95_pct, "overhead_mean_bound_pct",
			 b->mean_bound_pct, "frames_moved_later", (json_int_t)b->frames_later,
			 "frames_moved_earlier", (json_int_t)b->frames_earlier,
			 "vsync_grid_shift_ns", (json_int_t)b->grid_shift_ns, "transactions",
			 (json_int_t)b->transactions);
}

json_t *pl_cpu_overhead_json(const struct pl_cpu_overhead *c)
{
	return json_pack("{s:f, s:f, s:f, s:f, s:f, s:I}", "overhead_mean_pct", c->mean_pct,
			 "overhead_p95_pct", c->p95_pct, "overhead_mean_bound_pct",
			 c->mean_bound_pct, "cpu_ms_per_tap_on", c->ms_per_tap_on,
			 "cpu_ms_per_tap_off", c->ms_per_tap_off, "taps", (json_int_t)c->taps);
}
