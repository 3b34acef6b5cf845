/* SPDX-License-Identifier: MIT */
/*
 * findings.c: Panappticon section 6's findings from an experiment's results
 * database (see panlab/findings.h). Reads the database, never writes it.
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/breakdown.h"
#include "panlab/energy.h"
#include "panlab/findings.h"
#include "panlab/ground_truth.h"
#include "panlab/read_file.h"

const char *const pl_s6_config_name[PL_S6_CONFIGS] = { "c1-on", "c1-off", "c2-on", "c2-off" };
const char *const pl_s6_def_name[PL_S6_DEFS] = { "update", "pixel" };

static const char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

static double col_ms(sqlite3_stmt *st, int i)
{
	return (double)sqlite3_column_int64(st, i) / 1e6;
}

/* ---- reading the database -------------------------------------------------------------- */

static int db_error(sqlite3 *h, const char *path, struct pl_error *err)
{
	pl_error_file(err, path, "sqlite: %s", sqlite3_errmsg(h));
	return -1;
}

static int read_taps(sqlite3 *h, const char *path, struct pl_s6_run *r, struct pl_error *err)
{
	static const char sql[] =
		"WITH top AS (SELECT coalesce(max(khz), 1) AS khz FROM freq_residency"
		" WHERE run_id = ?1 AND tx_id IS NULL)"
		" SELECT v.input, v.tx_id, t.latency_ns, v.truth_latency_ns,"
		" sum(CASE b.category WHEN 'running' THEN b.ns ELSE 0 END),"
		" sum(CASE b.category WHEN 'runnable' THEN b.ns ELSE 0 END),"
		" sum(CASE b.category WHEN 'network' THEN b.ns ELSE 0 END),"
		" sum(CASE b.category WHEN 'io' THEN b.ns ELSE 0 END),"
		/* Running below the run's top frequency, and that work's time at the top. */
		" (SELECT coalesce(sum(f.running_ns), 0) FROM freq_residency f, top"
		"  WHERE f.run_id = v.run_id AND f.tx_id = v.tx_id AND f.khz < top.khz),"
		" (SELECT coalesce(sum(f.running_ns * 1.0 * f.khz / top.khz), 0) FROM freq_residency f, top"
		"  WHERE f.run_id = v.run_id AND f.tx_id = v.tx_id AND f.khz < top.khz)"
		" FROM validation_rows v"
		" LEFT JOIN transactions t ON t.run_id = v.run_id AND t.tx_id = v.tx_id"
		" LEFT JOIN breakdown b ON b.run_id = v.run_id AND b.tx_id = v.tx_id"
		" WHERE v.run_id = ?1 AND v.input_kind = 'tap'"
		" GROUP BY v.input, v.tx_id ORDER BY v.input";
	sqlite3_stmt *st;
	uint64_t cap = 0;
	int rc;

	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK)
		return db_error(h, path, err);
	sqlite3_bind_text(st, 1, r->run_id, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (r->ntaps == cap) {
			cap = cap ? cap * 2 : 256;
			r->taps = pl_xrealloc(r->taps, cap, sizeof(*r->taps));
		}
		struct pl_s6_tap *t = &r->taps[r->ntaps++];

		memset(t, 0, sizeof(*t));
		t->input = (uint64_t)sqlite3_column_int64(st, 0);
		t->tx_id = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 1);
		t->has[PL_DEF_UPDATE] = sqlite3_column_type(st, 2) != SQLITE_NULL;
		t->latency_ms[PL_DEF_UPDATE] = col_ms(st, 2);
		t->has[PL_DEF_PIXEL] = sqlite3_column_type(st, 3) != SQLITE_NULL;
		t->latency_ms[PL_DEF_PIXEL] = col_ms(st, 3);
		t->running_ms = col_ms(st, 4);
		t->runnable_ms = col_ms(st, 5);
		t->network_ms = col_ms(st, 6);
		t->io_ms = col_ms(st, 7);
		t->slow_ms = col_ms(st, 8);
		t->slow_work_ms = col_ms(st, 9);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_error(h, path, err);
	if (r->ntaps == 0) {
		pl_error_file(err, path, "run %s has no tap in validation_rows, expected the replayed taps",
			      r->run_id);
		return -1;
	}
	return 0;
}

int pl_s6_read_db(const char *path, const char *experiment, struct pl_s6_data *d,
		  struct pl_error *err)
{
	static const char sql[] =
		"SELECT run_id, workload, cores, governor, freq_mhz FROM runs"
		" WHERE experiment = ? AND status = 'ok' ORDER BY run_id";
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	int rc = -1, step;

	memset(d, 0, sizeof(*d));
	if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		db_error(h, path, err);
		goto out;
	}
	if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		db_error(h, path, err);
		goto out;
	}
	sqlite3_bind_text(st, 1, experiment, -1, SQLITE_STATIC);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const char *run = col_text(st, 0), *workload = col_text(st, 1);
		int64_t cores = sqlite3_column_int64(st, 2);
		int on = !strcmp(col_text(st, 3), "interactive");
		int off = sqlite3_column_type(st, 3) == SQLITE_NULL &&
			  sqlite3_column_type(st, 4) != SQLITE_NULL;

		if ((cores != 1 && cores != 2) || on == off) {
			pl_error_file(err, path, "run %s is not a section 6 configuration, expected 1 or 2"
				      " cores with governor 'interactive' or a fixed freq_mhz", run);
			goto out;
		}
		enum pl_s6_config c = cores == 1 ? (on ? PL_C1_ON : PL_C1_OFF)
						 : (on ? PL_C2_ON : PL_C2_OFF);

		if (d->runs[c].run_id) {
			pl_error_file(err, path, "runs %s and %s are both %s, expected one run per"
				      " configuration", d->runs[c].run_id, run, pl_s6_config_name[c]);
			goto out;
		}
		if (d->workload && strcmp(d->workload, workload)) {
			pl_error_file(err, path, "experiment %s runs workloads %s and %s, expected one",
				      experiment, d->workload, workload);
			goto out;
		}
		if (!d->workload)
			d->workload = pl_xstrdup(workload);
		d->runs[c].run_id = pl_xstrdup(run);
	}
	if (step != SQLITE_DONE) {
		db_error(h, path, err);
		goto out;
	}
	for (int c = 0; c < PL_S6_CONFIGS; c++) {
		if (!d->runs[c].run_id) {
			pl_error_file(err, path, "experiment %s has no ok run of %s, expected one per"
				      " configuration (c1-on, c1-off, c2-on, c2-off)", experiment,
				      pl_s6_config_name[c]);
			goto out;
		}
		if (read_taps(h, path, &d->runs[c], err) < 0)
			goto out;
	}
	d->experiment = pl_xstrdup(experiment);
	rc = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(h);
	if (rc)
		pl_s6_data_free(d);
	return rc;
}

void pl_s6_data_free(struct pl_s6_data *d)
{
	for (int c = 0; c < PL_S6_CONFIGS; c++) {
		free(d->runs[c].run_id);
		free(d->runs[c].taps);
	}
	free(d->experiment);
	free(d->workload);
	memset(d, 0, sizeof(*d));
}

/* ---- statistics of the findings -------------------------------------------------------- */

/* Q_p(a) - Q_p(b). */
static int stat_quantile_difference(const double *a, size_t na, const double *b, size_t nb,
				    const void *ctx, double *out, struct pl_error *err)
{
	double p = *(const double *)ctx;

	(void)err;
	*out = pl_quantile(a, na, p) - pl_quantile(b, nb, p);
	return 0;
}

/* Q-Q levels [from, to] (1-based, of PL_S6_QQ_LEVELS): the mean or largest Q_a / Q_b. */
struct qq_ratio {
	size_t from, to;
	int largest;
};

static int stat_qq_ratio(const double *a, size_t na, const double *b, size_t nb, const void *ctx,
			 double *out, struct pl_error *err)
{
	const struct qq_ratio *q = ctx;
	double sum = 0, max = 0;

	for (size_t i = q->from; i <= q->to; i++) {
		double p = (double)i / PL_S6_QQ_LEVELS;
		double x = pl_quantile(b, nb, p), y = pl_quantile(a, na, p);

		if (x <= 0)
			return pl_fail(err, "a latency quantile of 0 ms at level %.2f, expected above 0", p);
		sum += y / x;
		if (y / x > max)
			max = y / x;
	}
	*out = q->largest ? max : sum / (double)(q->to - q->from + 1);
	return 0;
}

/*
 * Over a set of transactions (a holds their indices into taps): the share of
 * their time spent waiting for a CPU less the larger of network and IO.
 */
struct cpu_wait {
	const struct pl_s6_tap *taps;
	enum pl_s6_def def;
};

static int stat_cpu_wait(const double *a, size_t na, const double *b, size_t nb, const void *ctx,
			 double *out, struct pl_error *err)
{
	const struct cpu_wait *w = ctx;
	double total = 0, wait = 0, net = 0, io = 0;

	(void)b, (void)nb;
	for (size_t i = 0; i < na; i++) {
		const struct pl_s6_tap *t = &w->taps[(size_t)a[i]];

		total += t->latency_ms[w->def];
		wait += t->runnable_ms;
		net += t->network_ms;
		io += t->io_ms;
	}
	if (total <= 0)
		return pl_fail(err, "the longest taps last 0 ms in all, expected more");
	*out = (wait - (net > io ? net : io)) / total;
	return 0;
}

bool pl_s6_rule_direction(const struct pl_ci *ci, double zero)
{
	return ci->lo > zero;
}

bool pl_s6_rule_size(const struct pl_ci *ci, double zero, double paper_value)
{
	double effect = ci->estimate - zero;

	return effect > 0 && paper_value >= effect / 2 && paper_value <= effect * 2;
}

bool pl_s6_rule_negligible(const struct pl_ci *ci)
{
	return ci->lo >= 0.95 && ci->hi <= 1.05;
}

/* A configuration's latencies on a definition, unsorted; *n of them. Caller frees. */
static double *sample(const struct pl_s6_run *r, enum pl_s6_def def, size_t *n)
{
	double *v = pl_xcalloc(r->ntaps, sizeof(*v));

	*n = 0;
	for (uint64_t i = 0; i < r->ntaps; i++)
		if (r->taps[i].has[def])
			v[(*n)++] = r->taps[i].latency_ms[def];
	return v;
}

/*
 * The taps of a and b that have a latency on def in both, paired by input:
 * every configuration replays the same script, so input i is the same tap
 * in each. *n pairs; caller frees both.
 */
static void pairs(const struct pl_s6_run *a, const struct pl_s6_run *b, enum pl_s6_def def,
		  double **va, double **vb, size_t *n)
{
	uint64_t i = 0, j = 0;

	*va = pl_xcalloc(a->ntaps, sizeof(**va));
	*vb = pl_xcalloc(a->ntaps, sizeof(**vb));
	*n = 0;
	while (i < a->ntaps && j < b->ntaps) {
		const struct pl_s6_tap *x = &a->taps[i], *y = &b->taps[j];

		if (x->input < y->input) {
			i++;
		} else if (y->input < x->input) {
			j++;
		} else {
			if (x->has[def] && y->has[def]) {
				(*va)[*n] = x->latency_ms[def];
				(*vb)[(*n)++] = y->latency_ms[def];
			}
			i++;
			j++;
		}
	}
}

/* The Q-Q levels whose quantile of sorted x lies below (or at or above) limit_ms. */
static int qq_levels(const double *x, size_t n, double limit_ms, int below, struct qq_ratio *q)
{
	size_t k = 0;	/* levels below the limit: the first k (quantiles ascend) */

	while (k < PL_S6_QQ_LEVELS && pl_quantile(x, n, (double)(k + 1) / PL_S6_QQ_LEVELS) < limit_ms)
		k++;
	q->from = below ? 1 : k + 1;
	q->to = below ? k : PL_S6_QQ_LEVELS;
	return q->from <= q->to;
}

struct finding_spec {
	const char *id, *paper, *statistic, *rule;
	enum pl_s6_rule kind;
	double zero, paper_value;	/* NAN: the paper gives no figure */
	enum pl_s6_config a, b;
	double p;			/* quantile difference */
	double limit_ms;		/* Q-Q ratio: the levels below (below = 1) or above */
	int below, largest, qq;
	int cpu_wait;
};

static const struct finding_spec specs[PL_S6_FINDINGS] = {
	{ "dvfs-p96-dual", "DVFS on adds 170 ms at the 96th percentile on two cores (Fig. 9)",
	  "p96(c2-on) - p96(c2-off), ms", "direction and size", PL_RULE_DIRECTION, 0, 170,
	  PL_C2_ON, PL_C2_OFF, 0.96, 0, 0, 0, 0, 0 },
	{ "dvfs-p98-single", "DVFS on adds 517 ms at the 98th percentile on one core (Fig. 9)",
	  "p98(c1-on) - p98(c1-off), ms", "direction and size", PL_RULE_DIRECTION, 0, 517,
	  PL_C1_ON, PL_C1_OFF, 0.98, 0, 0, 0, 0, 0 },
	{ "qq-shape", "Q-Q, one core: DVFS on stretches transactions above 60 ms by up to 1.75x (Fig. 10)",
	  "largest Q(c1-on)/Q(c1-off) over the Q-Q levels whose c1-off quantile is at or above 60 ms",
	  "direction and size (of the ratio less 1: paper 0.75)", PL_RULE_DIRECTION, 1, 0.75,
	  PL_C1_ON, PL_C1_OFF, 0, 60, 0, 1, 1, 0 },
	{ "dvfs-short-negligible", "DVFS makes a negligible difference below 20 ms (Fig. 10)",
	  "mean Q(c1-on)/Q(c1-off) over the Q-Q levels whose c1-off quantile is below 20 ms",
	  "negligible", PL_RULE_NEGLIGIBLE, 1, NAN, PL_C1_ON, PL_C1_OFF, 0, 20, 1, 0, 1, 0 },
	{ "second-core-short-only", "a second core helps only transactions below about 2 ms",
	  "mean Q(c1-off)/Q(c2-off) over the Q-Q levels whose c2-off quantile is at or above 2 ms",
	  "negligible", PL_RULE_NEGLIGIBLE, 1, NAN, PL_C1_OFF, PL_C2_OFF, 0, 2, 0, 0, 1, 0 },
	{ "reddit-cpu-wait", "Reddit News: waiting for the CPU dominates the longest transactions (Table 4)",
	  "c2-on, the longest tenth of the taps: share of their time waiting for a CPU less the"
	  " larger of network and IO block", "direction", PL_RULE_DIRECTION, 0, NAN,
	  PL_C2_ON, PL_C2_ON, 0, 0, 0, 0, 0, 1 },
};

/* Indices of the detected taps of r with a latency on def, longest first. Caller frees. */
static size_t *longest(const struct pl_s6_run *r, enum pl_s6_def def, size_t *n)
{
	size_t *idx = pl_xcalloc(r->ntaps, sizeof(*idx));

	*n = 0;
	for (uint64_t i = 0; i < r->ntaps; i++)
		if (r->taps[i].has[def] && r->taps[i].tx_id >= 0)
			idx[(*n)++] = i;
	/* Insertion sort: stable, so ties keep input order; n is a few thousand at most. */
	for (size_t i = 1; i < *n; i++) {
		size_t v = idx[i], j = i;

		while (j > 0 && r->taps[idx[j - 1]].latency_ms[def] < r->taps[v].latency_ms[def]) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
	return idx;
}

/* The number of longest taps Table 4 and the CPU-wait finding look at: a tenth, at least one. */
static size_t longest_count(size_t n)
{
	size_t k = (size_t)ceil((double)n * PL_S6_LONGEST_SHARE);

	return k < 1 ? 1 : k;
}

/* One finding on one definition; -1 with err (why it cannot be computed). */
static int compute_one(const struct finding_spec *s, const struct pl_s6_data *d,
		       enum pl_s6_def def, unsigned replicates, uint64_t seed,
		       struct pl_s6_outcome *o, struct pl_error *err)
{
	size_t na, nb;
	double *a, *b;
	int rc = -1;

	memset(o, 0, sizeof(*o));
	if (s->cpu_wait) {
		a = sample(&d->runs[s->a], def, &na);
		b = NULL;
		nb = na;
	} else {
		pairs(&d->runs[s->a], &d->runs[s->b], def, &a, &b, &na);
		nb = na;
	}
	if (na == 0) {
		pl_fail(err, "no tap has a %s latency in %s%s%s, expected some",
			pl_s6_def_name[def], pl_s6_config_name[s->a], s->cpu_wait ? "" : " and ",
			s->cpu_wait ? "" : pl_s6_config_name[s->b]);
		goto out;
	}
	if (s->cpu_wait) {
		size_t n, *idx = longest(&d->runs[s->a], def, &n);
		struct cpu_wait w = { d->runs[s->a].taps, def };

		if (n == 0) {
			free(idx);
			pl_fail(err, "%s has no detected tap, expected some", pl_s6_config_name[s->a]);
			goto out;
		}
		n = longest_count(n);
		for (size_t i = 0; i < n; i++)
			a[i] = (double)idx[i];
		free(idx);
		o->n = n;
		rc = pl_bootstrap(a, n, NULL, 0, stat_cpu_wait, &w, replicates, seed, 0.95, &o->ci, err);
	} else if (s->qq) {
		struct qq_ratio q = { 0, 0, s->largest };
		double *sorted = pl_xcalloc(nb, sizeof(*sorted));

		memcpy(sorted, b, nb * sizeof(*b));
		pl_stats_sort(sorted, nb);
		if (!qq_levels(sorted, nb, s->limit_ms, s->below, &q)) {
			pl_fail(err, "no Q-Q level of %s %s %g ms (its taps run %.1f..%.1f ms), expected"
				" at least one", pl_s6_config_name[s->b],
				s->below ? "below" : "at or above", s->limit_ms, sorted[0],
				sorted[nb - 1]);
			free(sorted);
			goto out;
		}
		free(sorted);
		o->n = q.to - q.from + 1;
		rc = pl_bootstrap_paired(a, b, na, stat_qq_ratio, &q, replicates, seed, 0.95, &o->ci,
					 err);
	} else {
		o->n = na;
		rc = pl_bootstrap_paired(a, b, na, stat_quantile_difference, &s->p, replicates, seed,
					 0.95, &o->ci, err);
	}
	if (rc == 0) {
		o->computed = true;
		if (s->kind == PL_RULE_NEGLIGIBLE) {
			o->negligible = pl_s6_rule_negligible(&o->ci);
			o->reproduced = o->negligible;
		} else {
			o->direction = pl_s6_rule_direction(&o->ci, s->zero);
			o->size = isnan(s->paper_value) || pl_s6_rule_size(&o->ci, s->zero, s->paper_value);
			o->reproduced = o->direction && o->size;
		}
	}
out:
	free(a);
	free(b);
	return rc;
}

int pl_s6_compute(const struct pl_s6_data *d, unsigned replicates, uint64_t seed,
		  struct pl_s6_findings *out, struct pl_error *err)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < PL_S6_FINDINGS; i++) {
		const struct finding_spec *s = &specs[i];
		struct pl_s6_finding *f = &out->f[i];

		f->id = s->id;
		f->paper = s->paper;
		f->statistic = s->statistic;
		f->rule = s->rule;
		f->kind = s->kind;
		f->zero = s->zero;
		f->has_paper_value = !isnan(s->paper_value);
		f->paper_value = f->has_paper_value ? s->paper_value : 0;
		for (int def = 0; def < PL_S6_DEFS; def++) {
			struct pl_error why;

			if (compute_one(s, d, def, replicates, seed, &f->def[def], &why) == 0)
				continue;
			if (def == PL_DEF_UPDATE) {
				pl_error_set(err, "finding %s cannot be computed on the paper's definition"
					     " (input to last display update): %s", s->id, why.msg);
				return -1;
			}
			snprintf(f->def[def].why, sizeof(f->def[def].why), "%s", why.msg);
		}
		out->reproduced += f->def[PL_DEF_UPDATE].reproduced;
	}
	return 0;
}

/* ---- model constants ------------------------------------------------------------------- */

static void constant_add(struct pl_s6_constants *k, const char *group, const char *name,
			 const char *value, const char *source)
{
	k->c = pl_xrealloc(k->c, k->n + 1, sizeof(*k->c));
	k->c[k->n++] = (struct pl_s6_constant){ pl_xstrdup(group), pl_xstrdup(name),
						pl_xstrdup(value), pl_xstrdup(source) };
}

void pl_s6_constants_analyzer(struct pl_s6_constants *k)
{
	const struct pl_power_model *m = &pl_power_galaxy_nexus;
	char name[64], value[64];

	for (uint32_t i = 0; i < m->nopps; i++) {
		snprintf(name, sizeof(name), "operating point %u", i + 1);
		snprintf(value, sizeof(value), "%" PRIu32 " MHz", m->opps[i].khz / 1000);
		constant_add(k, "CPU operating points", name, value,
			     "OMAP4460 (Galaxy Nexus) OPPs, Panappticon Table 5 (analyzer/energy.c)");
		snprintf(name, sizeof(name), "power at %" PRIu32 " MHz", m->opps[i].khz / 1000);
		snprintf(value, sizeof(value), "CPU %" PRIu32 " mW, system %" PRIu32 " mW",
			 m->opps[i].cpu_mw, m->opps[i].total_mw);
		constant_add(k, "Table 5 power", name, value,
			     "Panappticon Table 5, 100% load (analyzer/energy.c)");
	}
	snprintf(value, sizeof(value), "%u per mille of busy power", m->wfi_permille);
	constant_add(k, "Table 5 power", "idle (WFI) core", value,
		     "assumption stated in analyzer/include/panlab/energy.h");
}

int pl_s6_constants_read(const char *path, struct pl_s6_constants *k, struct pl_error *err)
{
	FILE *f = fopen(path, "r");
	char line[1024];
	uint64_t n = 0;

	if (!f) {
		pl_error_file(err, path, "cannot open: %s", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *field[4], *p = line;
		size_t len = strlen(line);
		int nf = 0;

		n++;
		if (len && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(f)) {
			fclose(f);
			pl_error_at_line(err, path, n, "line longer than %zu bytes", sizeof(line) - 2);
			return -1;
		}
		if (!len || line[0] == '#')
			continue;
		while (nf < 4) {
			field[nf++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		if (nf != 4 || p || !*field[0] || !*field[1] || !*field[2] || !*field[3]) {
			fclose(f);
			pl_error_at_line(err, path, n, "expected 4 non-empty tab-separated fields: group,"
					 " name, value, source");
			return -1;
		}
		constant_add(k, field[0], field[1], field[2], field[3]);
	}
	fclose(f);
	return 0;
}

void pl_s6_constants_write(FILE *f, const struct pl_s6_constants *k)
{
	fprintf(f, "# group\tname\tvalue\tsource\n");
	for (uint64_t i = 0; i < k->n; i++)
		fprintf(f, "%s\t%s\t%s\t%s\n", k->c[i].group, k->c[i].name, k->c[i].value,
			k->c[i].source);
}

void pl_s6_constants_free(struct pl_s6_constants *k)
{
	for (uint64_t i = 0; i < k->n; i++) {
		free(k->c[i].group);
		free(k->c[i].name);
		free(k->c[i].value);
		free(k->c[i].source);
	}
	free(k->c);
	memset(k, 0, sizeof(*k));
}

/* ---- outputs --------------------------------------------------------------------------- */

/* Means over the detected taps of r whose latency on def lies in [lo_ms, hi_ms). */
struct parts {
	size_t n;
	double latency, running, runnable, network, io, slow, slow_work;
};

static struct parts mean_parts(const struct pl_s6_run *r, enum pl_s6_def def, double lo_ms,
			       double hi_ms)
{
	struct parts m = { 0 };

	for (uint64_t i = 0; i < r->ntaps; i++) {
		const struct pl_s6_tap *t = &r->taps[i];

		if (!t->has[def] || t->tx_id < 0 || t->latency_ms[def] < lo_ms ||
		    t->latency_ms[def] >= hi_ms)
			continue;
		m.n++;
		m.latency += t->latency_ms[def];
		m.running += t->running_ms;
		m.runnable += t->runnable_ms;
		m.network += t->network_ms;
		m.io += t->io_ms;
		m.slow += t->slow_ms;
		m.slow_work += t->slow_work_ms;
	}
	if (m.n) {
		m.latency /= (double)m.n;
		m.running /= (double)m.n;
		m.runnable /= (double)m.n;
		m.network /= (double)m.n;
		m.io /= (double)m.n;
		m.slow /= (double)m.n;
		m.slow_work /= (double)m.n;
	}
	return m;
}

static void print_parts(FILE *f, const char *what, struct parts m)
{
	fprintf(f, "%s, %zu taps, took %.1f ms on average: %.1f ms running, %.1f ms waiting for a"
		" CPU, %.1f ms on the network, %.1f ms on IO", what, m.n, m.latency, m.running,
		m.runnable, m.network, m.io);
	if (m.slow >= 0.05)
		fprintf(f,
			"; %.1f ms of the running was below the top frequency, work that takes"
			" %.1f ms at the top: DVFS added %.1f ms",
			m.slow, m.slow_work, m.slow - m.slow_work);
}

static double quantile_of(const struct pl_s6_run *r, enum pl_s6_def def, double p)
{
	size_t n;
	double *v = sample(r, def, &n), q;

	pl_stats_sort(v, n);
	q = n ? pl_quantile(v, n, p) : 0;
	free(v);
	return q;
}

/*
 * What held the cpu while the taps of r at or above cut_ms waited for one (the preemption
 * table), the three largest: "sdcardd 12.3 ms, idle cpu: softirq NET_RX 8.1 ms, ...". Each
 * name's time is its mean over those taps, as the other parts are.
 */
static void print_holders(FILE *f, sqlite3 *h, const struct pl_s6_run *r, double cut_ms)
{
	struct holder_ns {
		char name[64];
		double ms;
	} *hs = NULL, top;
	size_t nh = 0, ntaps = 0;
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(h, "SELECT name, ns FROM preemption WHERE run_id = ? AND tx_id = ?",
			       -1, &st, NULL) != SQLITE_OK) {
		fprintf(f, "; what held the CPU is unknown (%s)", sqlite3_errmsg(h));
		return;
	}
	for (uint64_t i = 0; i < r->ntaps; i++) {
		const struct pl_s6_tap *t = &r->taps[i];

		if (!t->has[PL_DEF_UPDATE] || t->tx_id < 0 || t->latency_ms[PL_DEF_UPDATE] < cut_ms)
			continue;
		ntaps++;
		sqlite3_bind_text(st, 1, r->run_id, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, t->tx_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *name = col_text(st, 0);
			size_t k;

			for (k = 0; k < nh && strcmp(hs[k].name, name); k++)
				;
			if (k == nh) {
				hs = pl_xrealloc(hs, ++nh, sizeof(*hs));
				snprintf(hs[k].name, sizeof(hs[k].name), "%s", name);
				hs[k].ms = 0;
			}
			hs[k].ms += (double)sqlite3_column_int64(st, 1) / 1e6;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	/* The three largest first, ties by name. */
	for (size_t a = 0; a < nh && a < 3; a++) {
		for (size_t b = a + 1; b < nh; b++)
			if (hs[b].ms > hs[a].ms ||
			    (hs[b].ms == hs[a].ms && strcmp(hs[b].name, hs[a].name) < 0)) {
				top = hs[a];
				hs[a] = hs[b];
				hs[b] = top;
			}
		fprintf(f, "%s%s %.1f ms", a ? ", " : "; the CPU was held by ", hs[a].name,
			hs[a].ms / (double)ntaps);
	}
	free(hs);
}

/* Why a finding did not reproduce, with the breakdown's numbers (update definition). */
static void explain(FILE *f, int i, const struct pl_s6_data *d, sqlite3 *h)
{
	const struct finding_spec *s = &specs[i];
	const struct pl_s6_run *a = &d->runs[s->a], *b = &d->runs[s->b];
	char what[128];

	fprintf(f, "- **%s**: ", s->id);
	if (s->cpu_wait) {
		size_t n, *idx = longest(a, PL_DEF_UPDATE, &n);
		/* The statistic's own taps: the longest tenth (ties at the cut come along). */
		double cut = n ? a->taps[idx[longest_count(n) - 1]].latency_ms[PL_DEF_UPDATE] : 0;

		free(idx);

		snprintf(what, sizeof(what), "the longest tenth of %s's taps (at or above %.1f ms)",
			 pl_s6_config_name[s->a], cut);
		print_parts(f, what, mean_parts(a, PL_DEF_UPDATE, cut, INFINITY));
		print_holders(f, h, a, cut);
		fprintf(f, ". Waiting for a CPU dominates only if the threads that preempt the app"
			" (breakdown.md) hold the CPU longer than the network and the card keep it"
			" blocked.\n");
	} else if (!s->qq) {
		double cut = quantile_of(a, PL_DEF_UPDATE, s->p);

		snprintf(what, sizeof(what), "%s's taps at or above its p%.0f (%.1f ms)",
			 pl_s6_config_name[s->a], s->p * 100, cut);
		print_parts(f, what, mean_parts(a, PL_DEF_UPDATE, cut, INFINITY));
		fprintf(f, ". DVFS stretches only the running part of a transaction.\n");
	} else {
		double lo = s->below ? 0 : s->limit_ms, hi = s->below ? s->limit_ms : INFINITY;

		snprintf(what, sizeof(what), "%s's taps %s %g ms", pl_s6_config_name[s->a],
			 s->below ? "below" : "at or above", s->limit_ms);
		print_parts(f, what, mean_parts(a, PL_DEF_UPDATE, lo, hi));
		snprintf(what, sizeof(what), "; %s's", pl_s6_config_name[s->b]);
		print_parts(f, what, mean_parts(b, PL_DEF_UPDATE, lo, hi));
		fprintf(f, ".\n");
	}
}

static json_t *outcome_json(const struct pl_s6_finding *fd, const struct pl_s6_outcome *o)
{
	if (!o->computed)
		return json_pack("{s:b, s:s}", "computed", 0, "why", o->why);
	json_t *j = json_pack("{s:b, s:f, s:[f, f], s:I, s:b}", "computed", 1,
			      "estimate", o->ci.estimate, "ci95", o->ci.lo, o->ci.hi,
			      "n", (json_int_t)o->n, "reproduced", o->reproduced);

	if (fd->kind == PL_RULE_NEGLIGIBLE) {
		json_object_set_new(j, "negligible", json_boolean(o->negligible));
	} else {
		json_object_set_new(j, "direction", json_boolean(o->direction));
		if (fd->has_paper_value)
			json_object_set_new(j, "size", json_boolean(o->size));
	}
	return j;
}

static const char *yes(bool b)
{
	return b ? "yes" : "no";
}

static void outcome_md(FILE *f, const struct pl_s6_finding *fd, const struct pl_s6_outcome *o)
{
	if (!o->computed) {
		fprintf(f, " not computed: %s | - |", o->why);
		return;
	}
	fprintf(f, " %.3f [%.3f, %.3f] (n %" PRIu64 ") |", o->ci.estimate, o->ci.lo, o->ci.hi, o->n);
	if (fd->kind == PL_RULE_NEGLIGIBLE)
		fprintf(f, " %s (within 0.95..1.05: %s) |", yes(o->reproduced), yes(o->negligible));
	else if (fd->has_paper_value)
		fprintf(f, " %s (direction %s, size %s) |", yes(o->reproduced), yes(o->direction),
			yes(o->size));
	else
		fprintf(f, " %s (direction %s) |", yes(o->reproduced), yes(o->direction));
}

/* The groups of constants section 6 depends on, each from its owner's model-constants file. */
static const char *const required_groups[][2] = {
	{ "CPU operating points", "analyzer (energy.c)" },
	{ "Table 5 power", "analyzer (energy.c)" },
	{ "governor tunables", "the guest's boot configuration (scripts/guest)" },
	{ "network", "the content server's link model" },
	{ "SD card timing", "emu (the card model)" },
	{ "writeback", "the guest's boot configuration (scripts/guest)" },
	{ "content corpus", "the corpus generator" },
};

/* Whether a group of required_groups has no constant in k. */
static bool group_missing(const struct pl_s6_constants *k, const char *group)
{
	for (uint64_t i = 0; i < k->n; i++)
		if (!strcmp(k->c[i].group, group))
			return false;
	return true;
}

static void constants_md(FILE *f, const struct pl_s6_constants *k)
{
	fprintf(f, "## Model constants\n\n| group | constant | value | source |\n|---|---|---|---|\n");
	for (uint64_t i = 0; i < k->n; i++)
		fprintf(f, "| %s | %s | %s | %s |\n", k->c[i].group, k->c[i].name, k->c[i].value,
			k->c[i].source);
	for (size_t g = 0; g < sizeof(required_groups) / sizeof(required_groups[0]); g++) {
		if (group_missing(k, required_groups[g][0]))
			fprintf(f, "| %s | (none) | not yet emitted | %s writes no model-constants"
				" file yet |\n", required_groups[g][0], required_groups[g][1]);
	}
	fprintf(f, "\n");
}

static json_t *constants_json(const struct pl_s6_constants *k)
{
	json_t *list = json_array(), *missing = json_array();

	for (uint64_t i = 0; i < k->n; i++)
		json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:s}", "group", k->c[i].group,
						      "name", k->c[i].name, "value", k->c[i].value,
						      "source", k->c[i].source));
	for (size_t g = 0; g < sizeof(required_groups) / sizeof(required_groups[0]); g++)
		if (group_missing(k, required_groups[g][0]))
			json_array_append_new(missing, json_pack("{s:s, s:s}", "group",
								 required_groups[g][0], "owner",
								 required_groups[g][1]));
	return json_pack("{s:o, s:o}", "constants", list, "not_yet_emitted", missing);
}

static int write_cdf_qq(const struct pl_s6_data *d, const char *dir, struct pl_error *err)
{
	char path[4096];
	FILE *cdf, *qq;

	snprintf(path, sizeof(path), "%s/cdf.tsv", dir);
	cdf = fopen(path, "w");
	if (!cdf) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/qq.tsv", dir);
	qq = fopen(path, "w");
	if (!qq) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		fclose(cdf);
		return -1;
	}
	fprintf(cdf, "# definition\tconfiguration\tlatency_ms\tshare (ECDF, Fig. 9)\n");
	fprintf(qq, "# definition\tlevel\tc1-off_ms\tc1-on_ms\tc2-off_ms\tc2-on_ms (type 7 quantiles,"
		" Fig. 10)\n");
	for (int def = 0; def < PL_S6_DEFS; def++) {
		double *v[PL_S6_CONFIGS];
		size_t n[PL_S6_CONFIGS];

		for (int c = 0; c < PL_S6_CONFIGS; c++) {
			v[c] = sample(&d->runs[c], def, &n[c]);
			pl_stats_sort(v[c], n[c]);
			for (size_t i = 0; i < n[c]; i++)
				if (i + 1 == n[c] || v[c][i + 1] != v[c][i])
					fprintf(cdf, "%s\t%s\t%.6f\t%.6f\n", pl_s6_def_name[def],
						pl_s6_config_name[c], v[c][i], pl_ecdf(v[c], n[c], v[c][i]));
		}
		if (n[0] && n[1] && n[2] && n[3]) {
			double q1x[PL_S6_QQ_LEVELS], q1y[PL_S6_QQ_LEVELS];
			double q2x[PL_S6_QQ_LEVELS], q2y[PL_S6_QQ_LEVELS];

			pl_qq(v[PL_C1_OFF], n[PL_C1_OFF], v[PL_C1_ON], n[PL_C1_ON], PL_S6_QQ_LEVELS,
			      q1x, q1y);
			pl_qq(v[PL_C2_OFF], n[PL_C2_OFF], v[PL_C2_ON], n[PL_C2_ON], PL_S6_QQ_LEVELS,
			      q2x, q2y);
			for (int i = 0; i < PL_S6_QQ_LEVELS; i++)
				fprintf(qq, "%s\t%.2f\t%.6f\t%.6f\t%.6f\t%.6f\n", pl_s6_def_name[def],
					(double)(i + 1) / PL_S6_QQ_LEVELS, q1x[i], q1y[i], q2x[i], q2y[i]);
		}
		for (int c = 0; c < PL_S6_CONFIGS; c++)
			free(v[c]);
	}
	int bad = ferror(cdf) | ferror(qq);

	bad |= fclose(cdf) != 0;
	bad |= fclose(qq) != 0;
	if (bad) {
		pl_error_file(err, dir, "cannot write cdf.tsv or qq.tsv (disk full?)");
		return -1;
	}
	return 0;
}

/* Table 5 and Table 4 from the database. */
static int write_tables(sqlite3 *h, const char *db, const struct pl_s6_data *d, FILE *energy,
			FILE *bd, struct pl_error *err)
{
	sqlite3_stmt *run_e = NULL, *tx_e = NULL, *freq = NULL, *pre = NULL;
	int rc = -1;

	if (sqlite3_prepare_v2(h, "SELECT cpu_uj, system_uj FROM energy WHERE run_id = ?"
			       " AND tx_id IS NULL", -1, &run_e, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT count(*), coalesce(avg(system_uj), 0) FROM energy"
			       " WHERE run_id = ? AND tx_id IS NOT NULL", -1, &tx_e, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT khz, running_ns FROM freq_residency WHERE run_id = ?"
			       " AND tx_id IS NULL ORDER BY khz", -1, &freq, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, "SELECT tid, name, ns FROM preemption"
			       " WHERE run_id = ? AND tx_id = ? ORDER BY ns DESC, tid LIMIT 3",
			       -1, &pre, NULL) != SQLITE_OK) {
		db_error(h, db, err);
		goto out;
	}
	fprintf(energy, "| configuration | energy (mJ) | CPU energy (mJ) | transactions | mean energy"
		" per transaction (mJ) | critical-path running time by frequency (ms) |\n"
		"|---|---|---|---|---|---|\n");
	fprintf(bd,
		"Each configuration's five longest taps (input to last display update), their"
		" critical-path breakdown and what held the cpu most while they waited for one"
		" (the thread that preempted them, or whatever ran on the cpu a woken thread went"
		" on to run on).\n\n");
	for (int c = 0; c < PL_S6_CONFIGS; c++) {
		const struct pl_s6_run *r = &d->runs[c];

		sqlite3_bind_text(run_e, 1, r->run_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(tx_e, 1, r->run_id, -1, SQLITE_STATIC);
		sqlite3_bind_text(freq, 1, r->run_id, -1, SQLITE_STATIC);
		if (sqlite3_step(run_e) != SQLITE_ROW || sqlite3_step(tx_e) != SQLITE_ROW) {
			pl_error_file(err, db, "run %s has no energy rows, expected the phone's energy"
				      " model (a run on another backend?)", r->run_id);
			goto out;
		}
		fprintf(energy, "| %s | %.1f | %.1f | %lld | %.2f | ", pl_s6_config_name[c],
			(double)sqlite3_column_int64(run_e, 1) / 1e3,
			(double)sqlite3_column_int64(run_e, 0) / 1e3,
			(long long)sqlite3_column_int64(tx_e, 0), sqlite3_column_double(tx_e, 1) / 1e3);
		int first = 1, step;

		while ((step = sqlite3_step(freq)) == SQLITE_ROW) {
			fprintf(energy, "%s%lld MHz: %.1f", first ? "" : ", ",
				(long long)sqlite3_column_int64(freq, 0) / 1000, col_ms(freq, 1));
			first = 0;
		}
		fprintf(energy, "%s |\n", first ? "-" : "");
		sqlite3_reset(run_e);
		sqlite3_reset(tx_e);
		sqlite3_reset(freq);
		if (step != SQLITE_DONE) {
			db_error(h, db, err);
			goto out;
		}

		size_t n, *idx = longest(r, PL_DEF_UPDATE, &n);

		fprintf(bd,
			"### %s (%s)\n\n| input | latency (ms) | input to pixel (ms) | running (ms)"
			" | waiting for CPU (ms) | network (ms) | IO (ms) | cpu held by (ms) |\n"
			"|---|---|---|---|---|---|---|---|\n",
			pl_s6_config_name[c], r->run_id);
		for (size_t i = 0; i < n && i < 5; i++) {
			const struct pl_s6_tap *t = &r->taps[idx[i]];

			fprintf(bd, "| %" PRIu64 " | %.1f | ", t->input, t->latency_ms[PL_DEF_UPDATE]);
			if (t->has[PL_DEF_PIXEL])
				fprintf(bd, "%.1f", t->latency_ms[PL_DEF_PIXEL]);
			else
				fprintf(bd, "-");
			fprintf(bd, " | %.1f | %.1f | %.1f | %.1f | ", t->running_ms, t->runnable_ms,
				t->network_ms, t->io_ms);
			sqlite3_bind_text(pre, 1, r->run_id, -1, SQLITE_STATIC);
			sqlite3_bind_int64(pre, 2, t->tx_id);
			first = 1;
			while ((step = sqlite3_step(pre)) == SQLITE_ROW) {
				sqlite3_int64 tid = sqlite3_column_int64(pre, 0);

				if (PL_TID_IS_HOLDER(tid))
					fprintf(bd, "%s%s %.2f", first ? "" : ", ", col_text(pre, 1),
						col_ms(pre, 2));
				else
					fprintf(bd, "%s%s (%lld) %.2f", first ? "" : ", ",
						col_text(pre, 1), (long long)tid, col_ms(pre, 2));
				first = 0;
			}
			sqlite3_reset(pre);
			fprintf(bd, "%s |\n", first ? "none" : "");
			if (step != SQLITE_DONE) {
				free(idx);
				db_error(h, db, err);
				goto out;
			}
		}
		free(idx);
		fprintf(bd, "\n");
	}
	rc = 0;
out:
	sqlite3_finalize(run_e);
	sqlite3_finalize(tx_e);
	sqlite3_finalize(freq);
	sqlite3_finalize(pre);
	return rc;
}

static const char *const repeat_files[] = {
	"trace.bin", "ground_truth.txt", "cpu_time.txt", "transactions.csv",
};

/* 0 identical, 1 differ (what names the file), -1 error. */
static int compare_runs(const struct pl_s6_repeat *r, const char **what, struct pl_error *err)
{
	char pa[4096], pb[4096];

	for (size_t i = 0; i < sizeof(repeat_files) / sizeof(repeat_files[0]); i++) {
		size_t na, nb;
		char *a = NULL, *b = NULL;

		snprintf(pa, sizeof(pa), "%s/%s", r->a, repeat_files[i]);
		snprintf(pb, sizeof(pb), "%s/%s", r->b, repeat_files[i]);
		if (pl_read_file(pa, PL_CAP_TRACE_BYTES, "a run file", &a, &na, err) < 0 ||
		    pl_read_file(pb, PL_CAP_TRACE_BYTES, "a run file", &b, &nb, err) < 0) {
			free(a);
			return -1;
		}
		int same = na == nb && !memcmp(a, b, na);

		free(a);
		free(b);
		if (!same) {
			*what = repeat_files[i];
			return 1;
		}
	}
	json_error_t je;
	json_t *ja, *jb;

	snprintf(pa, sizeof(pa), "%s/summary.json", r->a);
	snprintf(pb, sizeof(pb), "%s/summary.json", r->b);
	ja = json_load_file(pa, 0, &je);
	jb = ja ? json_load_file(pb, 0, &je) : NULL;
	if (!jb) {
		pl_error_at_line(err, je.source, (uint64_t)je.line, "%s", je.text);
		json_decref(ja);
		return -1;
	}
	json_object_del(ja, "run_id");
	json_object_del(jb, "run_id");
	int same = json_equal(ja, jb);

	json_decref(ja);
	json_decref(jb);
	*what = "summary.json";
	return !same;
}

static FILE *open_out(const char *dir, const char *name, char *path, size_t size,
		      struct pl_error *err)
{
	FILE *f;

	snprintf(path, size, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path, struct pl_error *err)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		pl_error_file(err, path, "cannot write (disk full?)");
		return -1;
	}
	return 0;
}

int pl_s6_write(const char *db, const struct pl_s6_data *d, const struct pl_s6_findings *f,
		const struct pl_s6_constants *k, const struct pl_s6_repeat *repeat,
		unsigned replicates, uint64_t seed, const char *dir, struct pl_error *err)
{
	char path[4096];
	const char *differs = NULL;
	int rc;

	if (repeat) {
		rc = compare_runs(repeat, &differs, err);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			pl_error_set(err, "%s run twice differs in %s (%s, %s), expected byte-identical"
				     " runs: the phone is not deterministic here", repeat->config,
				     differs, repeat->a, repeat->b);
			return -1;
		}
	}
	if (write_cdf_qq(d, dir, err) < 0)
		return -1;

	/* findings.json */
	json_t *doc = json_object(), *runs = json_object(), *taps = json_object();
	json_t *list = json_array();

	for (int c = 0; c < PL_S6_CONFIGS; c++) {
		size_t n = 0;

		for (uint64_t i = 0; i < d->runs[c].ntaps; i++)
			n += d->runs[c].taps[i].has[PL_DEF_UPDATE];
		json_object_set_new(runs, pl_s6_config_name[c], json_string(d->runs[c].run_id));
		json_object_set_new(taps, pl_s6_config_name[c],
				    json_pack("{s:I, s:I}", "replayed", (json_int_t)d->runs[c].ntaps,
					      "detected", (json_int_t)n));
	}
	for (int i = 0; i < PL_S6_FINDINGS; i++) {
		const struct pl_s6_finding *fd = &f->f[i];
		json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:f, s:b}", "id", fd->id, "paper",
				      fd->paper, "statistic", fd->statistic, "rule", fd->rule,
				      "no_effect", fd->zero, "reproduced",
				      fd->def[PL_DEF_UPDATE].reproduced);

		if (fd->has_paper_value)
			json_object_set_new(j, "paper_effect", json_real(fd->paper_value));
		for (int def = 0; def < PL_S6_DEFS; def++)
			json_object_set_new(j, pl_s6_def_name[def], outcome_json(fd, &fd->def[def]));
		json_array_append_new(list, j);
	}
	json_object_set_new(doc, "experiment", json_string(d->experiment));
	json_object_set_new(doc, "workload", json_string(d->workload));
	json_object_set_new(doc, "runs", runs);
	json_object_set_new(doc, "taps_per_configuration", taps);
	json_object_set_new(doc, "definitions", json_pack(
		"{s:s, s:s}", "update", "input to the app's last display update (the paper's;"
		" transactions.latency_ns)", "pixel", "input to the flush that shows it (ground truth;"
		" validation_rows.truth_latency_ns)"));
	json_object_set_new(doc, "method", json_pack(
		"{s:s, s:s, s:I, s:I, s:f}", "quantiles", "Hyndman-Fan type 7",
		"bootstrap", "percentile; replayed inputs drawn with replacement, each input's"
		" latencies in the two configurations kept together (paired); the CPU-wait finding"
		" draws its taps; splitmix64",
		"replicates", (json_int_t)replicates, "seed", (json_int_t)seed, "level", 0.95));
	if (repeat)
		json_object_set_new(doc, "determinism", json_pack(
			"{s:s, s:i, s:b, s:[s, s, s, s, s]}", "configuration", repeat->config, "runs", 2,
			"identical", 1, "compared", repeat_files[0], repeat_files[1], repeat_files[2],
			repeat_files[3], "summary.json but run_id"));
	json_object_set_new(doc, "findings", list);
	json_object_set_new(doc, "reproduced", json_integer(f->reproduced));
	json_object_set_new(doc, "model_constants", constants_json(k));
	snprintf(path, sizeof(path), "%s/findings.json", dir);
	rc = json_dump_file(doc, path, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	json_decref(doc);
	if (rc != 0) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}

	/* energy.md and breakdown.md */
	sqlite3 *h = NULL;
	FILE *energy, *bd;
	char epath[4096], bpath[4096];

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		db_error(h, db, err);
		sqlite3_close(h);
		return -1;
	}
	energy = open_out(dir, "energy.md", epath, sizeof(epath), err);
	bd = energy ? open_out(dir, "breakdown.md", bpath, sizeof(bpath), err) : NULL;
	rc = bd ? write_tables(h, db, d, energy, bd, err) : -1;
	/* The first error stays in err. */
	struct pl_error later;

	if (bd && close_out(bd, bpath, rc ? &later : err) < 0)
		rc = -1;
	if (energy && close_out(energy, epath, rc ? &later : err) < 0)
		rc = -1;
	if (rc) {
		sqlite3_close(h);
		return -1;
	}

	/* findings.md */
	FILE *md = open_out(dir, "findings.md", path, sizeof(path), err);

	if (!md) {
		sqlite3_close(h);
		return -1;
	}
	fprintf(md, "# Panappticon section 6 on the phone: %s\n\n", d->workload);
	constants_md(md, k);
	fprintf(md, "## Findings\n\n%u of %d reproduce on the paper's definition (input to the app's"
		" last display update). Each statistic has a %u-replicate percentile bootstrap 95%%"
		" interval (seed %" PRIu64 "; quantiles Hyndman-Fan type 7). Rules: direction, the"
		" interval excludes no effect on the paper's side; size, the paper's figure within a"
		" factor of 2 of panlab's estimate; negligible, the ratio's interval within"
		" 0.95..1.05.\n\n", f->reproduced, PL_S6_FINDINGS, replicates, seed);
	fprintf(md, "| finding | paper | statistic | update: estimate [95%% CI] | reproduced |"
		" pixel: estimate [95%% CI] | reproduced |\n|---|---|---|---|---|---|---|\n");
	for (int i = 0; i < PL_S6_FINDINGS; i++) {
		const struct pl_s6_finding *fd = &f->f[i];

		fprintf(md, "| %s | %s | %s |", fd->id, fd->paper, fd->statistic);
		outcome_md(md, fd, &fd->def[PL_DEF_UPDATE]);
		outcome_md(md, fd, &fd->def[PL_DEF_PIXEL]);
		fprintf(md, "\n");
	}
	fprintf(md, "\nTaps per configuration (replayed / detected):");
	for (int c = 0; c < PL_S6_CONFIGS; c++) {
		size_t n = 0;

		for (uint64_t i = 0; i < d->runs[c].ntaps; i++)
			n += d->runs[c].taps[i].has[PL_DEF_UPDATE];
		fprintf(md, " %s %" PRIu64 " / %zu%s", pl_s6_config_name[c], d->runs[c].ntaps, n,
			c + 1 < PL_S6_CONFIGS ? "," : ".\n");
	}
	if (f->reproduced < PL_S6_FINDINGS) {
		fprintf(md, "\n## Why a finding does not reproduce\n\n");
		for (int i = 0; i < PL_S6_FINDINGS; i++)
			if (!f->f[i].def[PL_DEF_UPDATE].reproduced)
				explain(md, i, d, h);
	}
	sqlite3_close(h);
	fprintf(md, "\n## Determinism\n\n");
	if (repeat)
		fprintf(md, "%s run twice: identical (trace.bin, ground_truth.txt, cpu_time.txt,"
			" transactions.csv, summary.json but run_id).\n", repeat->config);
	else
		fprintf(md, "Not checked in this invocation (no repeat run given).\n");
	fprintf(md, "\nData: cdf.tsv (Fig. 9), qq.tsv (Fig. 10); tables: energy.md (Table 5),"
		" breakdown.md (Table 4).\n");
	return close_out(md, path, err);
}

/* A run's host seconds (host-wall-s.txt, written by the backend) and virtual seconds. */
static int run_speed(const char *runs_dir, const char *run_id, double *host_s, double *virtual_s,
		     struct pl_error *err)
{
	char path[4096];
	struct pl_ground_truth gt;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s/host-wall-s.txt", runs_dir, run_id);
	f = fopen(path, "r");
	if (!f) {
		pl_error_file(err, path, "cannot open: %s", strerror(errno));
		return -1;
	}
	ok = fscanf(f, "%lf", host_s) == 1 && *host_s >= 0;
	fclose(f);
	if (!ok) {
		pl_error_at_line(err, path, 1, "expected the run's host seconds");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s/ground_truth.txt", runs_dir, run_id);
	if (pl_ground_truth_read_file(path, &gt, err) < 0)
		return -1;
	ok = gt.has_end && gt.end_ns > 0;
	/* The guest clock starts at power-on: `end` is the virtual time the run took to the script's end. */
	*virtual_s = (double)gt.end_ns / 1e9;
	pl_ground_truth_free(&gt);
	if (!ok) {
		pl_error_file(err, path, "no `end` line, expected the script's end time");
		return -1;
	}
	return 0;
}

int pl_s6_write_bench(const char *runs_dir, const struct pl_s6_data *d, double wall_s,
		      const char *path, struct pl_error *err)
{
	json_t *by = json_object(), *taps = json_object();
	double host_sum = 0, virtual_sum = 0;

	for (int c = 0; c < PL_S6_CONFIGS; c++) {
		double host_s, virtual_s;

		if (run_speed(runs_dir, d->runs[c].run_id, &host_s, &virtual_s, err) < 0) {
			json_decref(by);
			json_decref(taps);
			return -1;
		}
		host_sum += host_s;
		virtual_sum += virtual_s;
		json_object_set_new(by, pl_s6_config_name[c],
				    json_pack("{s:f, s:f, s:f}", "host_s", host_s, "virtual_s", virtual_s,
					      "host_s_per_virtual_s", host_s / virtual_s));
		json_object_set_new(taps, pl_s6_config_name[c], json_integer((json_int_t)d->runs[c].ntaps));
	}
	json_t *doc = json_pack(
		"{s:s, s:s, s:f, s:o, s:f, s:o, s:s}", "experiment", d->experiment,
		"workload", d->workload, "host_s_per_virtual_s", host_sum / virtual_sum,
		"by_configuration", by, "wall_s", wall_s, "taps_per_configuration", taps,
		"note", "host_s: the emulator's wall time (boot and replay, host-wall-s.txt); virtual_s:"
		" the guest clock at the script's end (ground truth `end`); wall_s: the whole"
		" `make section6` command, every run, the repeat and the findings");
	int rc = json_dump_file(doc, path, JSON_INDENT(2) | JSON_REAL_PRECISION(6));

	json_decref(doc);
	if (rc != 0) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}
