/* SPDX-License-Identifier: MIT */
/* experiment_report.c: an experiment's report.html (see panlab/experiment_report.h). */
#include "panlab/experiment_report.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panlab/plot.h"
#include "panlab/stats.h"

/* A configuration's label: everything but the repetition. */
#define CONF \
	"r.workload || ' ' || r.config || ' trace ' || CASE r.trace WHEN 1 THEN 'on' ELSE 'off' END"

struct rep {
	sqlite3 *h;
	const char *db;
	FILE *out;
	char work[64]; /* the plots' scratch folder */
	int plots;     /* gnuplot is there: 1, not: 0 */
	unsigned nplot;
	struct pl_error *err;
};

static int db_fail(struct rep *r)
{
	pl_error_file(r->err, r->db, "sqlite: %s", sqlite3_errmsg(r->h));
	return -1;
}

/* A statement with up to three text parameters (NULL ends them). */
static sqlite3_stmt *prepare(struct rep *r, const char *sql, const char *a, const char *b,
			     const char *c)
{
	sqlite3_stmt *st;
	const char *p[3] = { a, b, c };

	if (sqlite3_prepare_v2(r->h, sql, -1, &st, NULL) != SQLITE_OK) {
		db_fail(r);
		return NULL;
	}
	for (int i = 0; i < 3 && p[i]; i++)
		sqlite3_bind_text(st, i + 1, p[i], -1, SQLITE_STATIC);
	return st;
}

/* The first column of every row, as doubles scaled by `scale`, sorted; -1 on error. */
static long doubles(struct rep *r, const char *sql, const char *a, const char *b, const char *c,
		    double scale, double **out)
{
	sqlite3_stmt *st = prepare(r, sql, a, b, c);
	size_t n = 0, cap = 64;
	int step;

	*out = NULL;
	if (!st)
		return -1;
	double *v = pl_xcalloc(cap, sizeof(*v));

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (n == cap)
			v = pl_xrealloc(v, cap *= 2, sizeof(*v));
		v[n++] = sqlite3_column_double(st, 0) * scale;
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		free(v);
		return db_fail(r);
	}
	pl_stats_sort(v, n);
	*out = v;
	return (long)n;
}

/* Every row's first column as text (the caller frees each and the array); -1 on error. */
static long strings(struct rep *r, const char *sql, const char *a, char ***out)
{
	sqlite3_stmt *st = prepare(r, sql, a, NULL, NULL);
	size_t n = 0, cap = 16;
	int step;

	*out = NULL;
	if (!st)
		return -1;
	char **v = pl_xcalloc(cap, sizeof(*v));

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *t = sqlite3_column_text(st, 0);

		if (n == cap)
			v = pl_xrealloc(v, cap *= 2, sizeof(*v));
		v[n++] = pl_xstrdup(t ? (const char *)t : "");
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE) {
		while (n)
			free(v[--n]);
		free(v);
		return db_fail(r);
	}
	*out = v;
	return (long)n;
}

static void strings_free(char **v, long n)
{
	for (long i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void esc(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '&')
			fputs("&amp;", out);
		else if (*s == '<')
			fputs("&lt;", out);
		else if (*s == '>')
			fputs("&gt;", out);
		else if (*s == '"')
			fputs("&quot;", out);
		else
			fputc(*s, out);
	}
}

/* The plot gnuplot wrote, from its <svg on, inlined in a figure with its caption. */
static int inline_svg(struct rep *r, const char *name, const char *caption)
{
	char path[128], buf[8192];
	FILE *f;
	size_t n;
	int started = 0;

	snprintf(path, sizeof(path), "%s/%s", r->work, name);
	f = fopen(path, "r");
	if (!f) {
		pl_error_file(r->err, path, "cannot open: %s", strerror(errno));
		return -1;
	}
	fputs("<figure>", r->out);
	while (fgets(buf, sizeof(buf), f)) {
		char *svg = started ? buf : strstr(buf, "<svg");

		if (!svg)
			continue;
		started = 1;
		n = strlen(svg);
		fwrite(svg, 1, n, r->out);
	}
	fclose(f);
	unlink(path);
	fputs("<figcaption>", r->out);
	esc(r->out, caption);
	fputs("</figcaption></figure>\n", r->out);
	return 0;
}

/* A plot's outcome: drawn and inlined, or (no gnuplot) left out. */
static int plotted(struct rep *r, int rc, const char *name, const char *caption)
{
	if (rc < 0)
		return -1;
	if (rc == 1) {
		r->plots = 0;
		return 0;
	}
	return inline_svg(r, name, caption);
}

static int header(struct rep *r)
{
	sqlite3_stmt *st = prepare(r,
				   "SELECT coalesce(group_concat(DISTINCT experiment), ''),"
				   " count(*), coalesce(sum(status = 'ok'), 0),"
				   " coalesce(sum(status = 'failed'), 0),"
				   " coalesce(sum(status NOT IN ('ok', 'failed')), 0) FROM runs",
				   NULL, NULL, NULL);

	if (!st)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(r);
	}
	const char *name = (const char *)sqlite3_column_text(st, 0);
	const char *base = strrchr(r->db, '/');

	fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>panlab experiment ",
	      r->out);
	esc(r->out, name);
	fputs("</title>\n<style>body{font-family:sans-serif;margin:2em;max-width:70em}"
	      "table{border-collapse:collapse;margin:1em 0}\ntd,th{border:1px solid #bbb;"
	      "padding:.2em .6em;text-align:right}th{background:#eee}td:first-child{text-align:left}"
	      "\nfigure{margin:1em 0}figcaption{font-size:90%;color:#444}.failed{color:#b00}"
	      "</style></head><body>\n<h1>Experiment ",
	      r->out);
	esc(r->out, name);
	fprintf(r->out, "</h1>\n<p>%lld runs: %lld ok, %lld failed, %lld not run (from ",
		(long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2),
		(long long)sqlite3_column_int64(st, 3), (long long)sqlite3_column_int64(st, 4));
	esc(r->out, base ? base + 1 : r->db);
	fputs(").\nLatencies are ground truth (input injected to frame flushed), in ms of guest"
	      " time.</p>\n",
	      r->out);
	sqlite3_finalize(st);
	return 0;
}

static void cell_or_dash(FILE *out, sqlite3_stmt *st, int col, const char *fmt, double scale)
{
	if (sqlite3_column_type(st, col) == SQLITE_NULL)
		fputs("<td>-</td>", out);
	else {
		fputs("<td>", out);
		fprintf(out, fmt, sqlite3_column_double(st, col) * scale);
		fputs("</td>", out);
	}
}

/* One configuration's row of the table. */
static int config_row(struct rep *r, const char *conf)
{
	static const double levels[] = { 0.50, 0.90, 0.99 };
	sqlite3_stmt *st =
		prepare(r,
			"SELECT sum(r.status = 'ok'), sum(r.status = 'failed'),"
			" coalesce(sum(v.transactions), 0), min(v.precision), min(v.recall)"
			" FROM runs r LEFT JOIN validation v USING (run_id) WHERE " CONF " = ?",
			conf, NULL, NULL);
	double *lat, *errs;
	long n, nerr;

	if (!st)
		return -1;
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return db_fail(r);
	}
	fputs("<tr><td>", r->out);
	esc(r->out, conf);
	fprintf(r->out, "</td><td>%lld</td><td>%lld</td><td>%lld</td>",
		(long long)sqlite3_column_int64(st, 0), (long long)sqlite3_column_int64(st, 1),
		(long long)sqlite3_column_int64(st, 2));
	cell_or_dash(r->out, st, 3, "%.3f", 1);
	cell_or_dash(r->out, st, 4, "%.3f", 1);
	sqlite3_finalize(st);
	n = doubles(r,
		    "SELECT w.truth_latency_ns FROM validation_rows w JOIN runs r USING (run_id)"
		    " WHERE " CONF " = ? AND w.truth_latency_ns IS NOT NULL",
		    conf, NULL, NULL, 1e-6, &lat);
	if (n < 0)
		return -1;
	for (size_t i = 0; i < 3; i++)
		if (n)
			fprintf(r->out, "<td>%.1f</td>", pl_quantile(lat, (size_t)n, levels[i]));
		else
			fputs("<td>-</td>", r->out);
	free(lat);
	nerr = doubles(r,
		       "SELECT v.latency_error_mean_ns FROM validation v JOIN runs r"
		       " USING (run_id) WHERE " CONF " = ? AND v.latency_error_mean_ns IS NOT NULL",
		       conf, NULL, NULL, 1e-6, &errs);
	if (nerr < 0)
		return -1;
	if (nerr)
		fprintf(r->out, "<td>%.2f</td></tr>\n", pl_mean(errs, (size_t)nerr));
	else
		fputs("<td>-</td></tr>\n", r->out);
	free(errs);
	return 0;
}

static int configurations(struct rep *r)
{
	char **confs;
	long n = strings(r, "SELECT DISTINCT " CONF " FROM runs r ORDER BY 1", NULL, &confs);
	int rc = 0;

	if (n < 0)
		return -1;
	fputs("<h2>Configurations</h2>\n<table><tr><th>configuration</th><th>runs ok</th>"
	      "<th>failed</th><th>transactions</th><th>precision</th>\n<th>recall</th><th>p50</th>"
	      "<th>p90</th><th>p99</th><th>mean |error|</th></tr>\n",
	      r->out);
	for (long i = 0; i < n && rc == 0; i++)
		rc = config_row(r, confs[i]);
	fputs("</table>\n", r->out);
	strings_free(confs, n);
	return rc;
}

/* Per workload, its configurations' ECDFs overlaid, repetitions pooled. */
static int cdfs(struct rep *r)
{
	char **works, **confs, name[64], title[512], caption[512];
	long nw = strings(r, "SELECT DISTINCT workload FROM runs WHERE status = 'ok' ORDER BY 1",
			  NULL, &works);
	int rc = 0;

	if (nw < 0)
		return -1;
	fputs("<h2>Latency CDFs</h2>\n", r->out);
	for (long w = 0; w < nw && rc == 0; w++) {
		long nc = strings(r,
				  "SELECT DISTINCT " CONF " FROM runs r WHERE r.workload = ?"
				  " AND r.status = 'ok' ORDER BY 1",
				  works[w], &confs);

		if (nc < 0) {
			rc = -1;
			break;
		}
		struct pl_plot_series *s = pl_xcalloc((size_t)nc + 1, sizeof(*s));
		double **ys = pl_xcalloc((size_t)nc + 1, sizeof(*ys));
		size_t ns = 0;

		for (long c = 0; c < nc && rc == 0; c++) {
			double *x;
			long n = doubles(
				r,
				"SELECT w.truth_latency_ns FROM validation_rows w JOIN runs r"
				" USING (run_id) WHERE " CONF " = ? AND r.status = 'ok'"
				" AND w.truth_latency_ns IS NOT NULL",
				confs[c], NULL, NULL, 1e-6, &x);

			if (n < 0) {
				rc = -1;
				break;
			}
			if (n == 0) {
				free(x);
				continue;
			}
			double *y = pl_xcalloc((size_t)n, sizeof(*y));

			for (long i = 0; i < n; i++)
				y[i] = pl_ecdf(x, (size_t)n, x[i]);
			/* The title drops the workload every curve shares. */
			s[ns] = (struct pl_plot_series){ confs[c] + strlen(works[w]) + 1, x, y,
							 (size_t)n };
			ys[ns++] = y;
		}
		if (rc == 0 && ns) {
			snprintf(name, sizeof(name), "plot-%u.svg", r->nplot++);
			snprintf(title, sizeof(title),
				 "%s: ground-truth latency CDF per configuration", works[w]);
			snprintf(caption, sizeof(caption),
				 "%s: one curve per configuration,"
				 " repetitions pooled.",
				 works[w]);
			rc = plotted(r, pl_plot_cdfs(r->work, name, title, s, ns, r->err), name,
				     caption);
		}
		for (size_t k = 0; k < ns; k++) {
			free((void *)s[k].x);
			free(ys[k]);
		}
		free(s);
		free(ys);
		strings_free(confs, nc);
	}
	strings_free(works, nw);
	return rc;
}

/* Per workload and configuration run both traced and untraced, their Q-Q plot. */
static int qqs(struct rep *r)
{
	sqlite3_stmt *st = prepare(r,
				   "SELECT workload, config FROM runs WHERE status = 'ok'"
				   " GROUP BY workload, config HAVING count(DISTINCT trace) = 2"
				   " ORDER BY 1, 2",
				   NULL, NULL, NULL);
	static const char sql[] =
		"SELECT w.truth_latency_ns FROM validation_rows w JOIN runs r"
		" USING (run_id) WHERE r.workload = ? AND r.config = ?"
		" AND r.trace = ? AND r.status = 'ok' AND w.truth_latency_ns IS NOT NULL";
	int rc = 0, drawn = 0, step;

	if (!st)
		return -1;
	fputs("<h2>Tracing overhead (Q-Q)</h2>\n", r->out);
	while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
		char *w = pl_xstrdup((const char *)sqlite3_column_text(st, 0));
		char *cfg = pl_xstrdup((const char *)sqlite3_column_text(st, 1));
		double *off, *on;
		long noff = doubles(r, sql, w, cfg, "0", 1e-6, &off);
		long non = noff < 0 ? -1 : doubles(r, sql, w, cfg, "1", 1e-6, &on);

		if (noff < 0 || non < 0) {
			rc = -1;
		} else if (noff && non) {
			size_t k = (size_t)(noff < non ? noff : non);
			double *qx = pl_xcalloc(k, sizeof(*qx)), *qy = pl_xcalloc(k, sizeof(*qy));
			char name[64], title[512], caption[512];

			pl_qq(off, (size_t)noff, on, (size_t)non, k, qx, qy);
			snprintf(name, sizeof(name), "plot-%u.svg", r->nplot++);
			snprintf(title, sizeof(title),
				 "%s %s: latency quantiles, tracing off vs on", w, cfg);
			snprintf(caption, sizeof(caption),
				 "%s on %s: points above y = x are slower"
				 " traced.",
				 w, cfg);
			struct pl_plot_series s = { "quantiles", qx, qy, k };

			rc = plotted(r, pl_plot_qq_points(r->work, name, title, &s, r->err), name,
				     caption);
			drawn++;
			free(qx);
			free(qy);
		}
		if (noff >= 0)
			free(off);
		if (non >= 0 && noff >= 0)
			free(on);
		free(w);
		free(cfg);
	}
	sqlite3_finalize(st);
	if (rc == 0 && step != SQLITE_DONE && step != SQLITE_ROW)
		return db_fail(r);
	if (rc == 0 && !drawn)
		fputs("<p>No configuration was run both with and without tracing.</p>\n", r->out);
	return rc;
}

/* The mean ms per transaction of each category, a stacked bar per configuration. */
static int breakdown(struct rep *r)
{
	char **cats, **confs;
	long ncat = strings(
		r,
		"SELECT DISTINCT category FROM breakdown ORDER BY"
		" category = 'input_dispatch' DESC, category = 'display_pipeline', category",
		NULL, &cats);
	int rc = 0;

	if (ncat <= 0)
		return (int)ncat;
	long nc = strings(r,
			  "SELECT DISTINCT " CONF " FROM runs r WHERE r.status = 'ok' ORDER BY 1",
			  NULL, &confs);

	if (nc < 0) {
		strings_free(cats, ncat);
		return -1;
	}
	double *v = pl_xcalloc((size_t)(nc * ncat) + 1, sizeof(*v));

	for (long c = 0; c < nc && rc == 0; c++)
		for (long k = 0; k < ncat && rc == 0; k++) {
			sqlite3_stmt *st = prepare(
				r,
				"SELECT coalesce(sum(b.ns), 0) * 1.0 / max(1,"
				" (SELECT count(*) FROM transactions t JOIN runs r USING (run_id)"
				" WHERE " CONF " = ?1)) / 1e6 FROM breakdown b JOIN runs r"
				" USING (run_id) WHERE " CONF " = ?1 AND b.category = ?2",
				confs[c], cats[k], NULL);

			if (!st || sqlite3_step(st) != SQLITE_ROW)
				rc = st ? db_fail(r) : -1;
			else
				v[c * ncat + k] = sqlite3_column_double(st, 0);
			sqlite3_finalize(st);
		}
	if (rc == 0 && nc) {
		char name[64];

		snprintf(name, sizeof(name), "plot-%u.svg", r->nplot++);
		fputs("<h2>Critical-path breakdown</h2>\n", r->out);
		rc = plotted(r,
			     pl_plot_stacked(r->work, name,
					     "mean time per transaction by category"
					     " (ms)",
					     (const char *const *)confs, (size_t)nc,
					     (const char *const *)cats, (size_t)ncat, v, r->err),
			     name,
			     "Critical-path categories plus the ground-truth input dispatch and"
			     " display pipeline: each bar is the mean ground-truth latency.");
	}
	free(v);
	strings_free(confs, nc);
	strings_free(cats, ncat);
	return rc;
}

/*
 * A table of st's rows, finalized here: head (the table's heading and header row) before the
 * first, ncols cells each, left-aligned where left_mask has the column's bit. Returns the rows
 * written or -1.
 */
static long table_rows(struct rep *r, sqlite3_stmt *st, const char *head, int ncols,
		       unsigned left_mask)
{
	long rows = 0;
	int step;

	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (!rows++)
			fputs(head, r->out);
		fputs("<tr>", r->out);
		for (int i = 0; i < ncols; i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);

			fputs(left_mask >> i & 1 ? "<td style=\"text-align:left\">" : "<td>",
			      r->out);
			esc(r->out, v ? v : "-");
			fputs("</td>", r->out);
		}
		fputs("</tr>\n", r->out);
	}
	sqlite3_finalize(st);
	if (step != SQLITE_DONE)
		return db_fail(r);
	if (rows)
		fputs("</table>\n", r->out);
	return rows;
}

/* DiagDroid's diagnosis (diagnosis.c): each run's suspicious groups of tasks, ranked. */
static int diagnosis(struct rep *r)
{
	sqlite3_stmt *st = prepare(
		r,
		"SELECT g.run_id, g.group_id, c.frame0 || coalesce(' < ' || c.frame1, ''),"
		" printf('%.2f', g.max_queuing_ns / 1e6), printf('%.2f', g.max_execution_ns / 1e6),"
		" coalesce(g.capacity, '-'), g.long_waits,"
		" coalesce(printf('%.2f', g.avg_queue_length), '-'),"
		" coalesce(printf('%.2f', g.avg_in_queue_execution_ns / 1e6), '-'),"
		" coalesce(rg.group_id || ': ' || rc.frame0 || coalesce(' < ' || rc.frame1, ''), '-')"
		" FROM groups g JOIN contexts c ON c.run_id = g.run_id AND c.context_id = g.context_id"
		" LEFT JOIN groups rg ON rg.run_id = g.run_id AND rg.group_id = g.root_cause"
		" LEFT JOIN contexts rc ON rc.run_id = rg.run_id AND rc.context_id = rg.context_id"
		" WHERE g.suspicious ORDER BY g.run_id, g.group_id",
		NULL, NULL, NULL);
	long rows = st ? table_rows(r, st,
				    "<h2>Diagnosis (DiagDroid)</h2><table><tr><th>run</th>"
				    "<th>rank</th><th>context</th><th>max queuing</th>"
				    "<th>max execution</th><th>pool capacity</th>"
				    "<th>waits &ge; 500 ms</th><th>avg. queue length</th>"
				    "<th>avg. execution of in-queue tasks</th>"
				    "<th>runtime dependency</th></tr>\n",
				    10, 1u << 2 | 1u << 9) :
			 -1;

	if (rows < 0)
		return -1;
	fputs(rows ? "<p>Times in ms; contexts are the first two frames where the task was"
		     " scheduled.</p>\n" :
		     "<h2>Diagnosis (DiagDroid)</h2><p>No group of tasks queued or ran 500 ms or"
		     " more.</p>\n",
	      r->out);
	return 0;
}

static int failed_runs(struct rep *r)
{
	sqlite3_stmt *st = prepare(r,
				   "SELECT run_id, coalesce(reason, '') FROM runs"
				   " WHERE status = 'failed' ORDER BY 1",
				   NULL, NULL, NULL);

	return st && table_rows(r, st,
				"<h2 class=\"failed\">Failed runs</h2><table><tr><th>run</th>"
				"<th>reason</th></tr>\n",
				2, 1u << 1) >= 0 ?
		       0 :
		       -1;
}

int pl_experiment_report(const char *db, const char *html, struct pl_error *err)
{
	struct rep r = { .db = db, .plots = 1, .err = err };
	char tmp[4096];
	int rc = -1;

	if (sqlite3_open_v2(db, &r.h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_exec(r.h, "SELECT count(*) FROM runs", NULL, NULL, NULL) != SQLITE_OK) {
		pl_error_file(err, db, "not a panlab results database (no runs table)");
		sqlite3_close(r.h);
		return -1;
	}
	snprintf(r.work, sizeof(r.work), "/tmp/panlab-report-XXXXXX");
	if (!mkdtemp(r.work)) {
		pl_error_file(err, "/tmp", "cannot create a folder for the plots: %s",
			      strerror(errno));
		sqlite3_close(r.h);
		return -1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", html);
	r.out = fopen(tmp, "w");
	if (!r.out) {
		pl_error_file(err, html, "cannot write the report: %s", strerror(errno));
		goto out;
	}
	if (header(&r) < 0 || configurations(&r) < 0 || cdfs(&r) < 0 || qqs(&r) < 0 ||
	    breakdown(&r) < 0 || diagnosis(&r) < 0 || failed_runs(&r) < 0)
		goto out;
	if (!r.plots)
		fputs("<p>gnuplot is not on PATH, so the report has no plots (install Debian's"
		      " gnuplot-nox).</p>\n",
		      r.out);
	fputs("</body></html>\n", r.out);
	if (ferror(r.out) | (fclose(r.out) != 0)) {
		r.out = NULL;
		pl_error_file(err, html, "cannot write the report (disk full?)");
		goto out;
	}
	r.out = NULL;
	if (rename(tmp, html) != 0) {
		pl_error_file(err, html, "cannot write the report: %s", strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (r.out)
		fclose(r.out);
	if (rc)
		unlink(tmp);
	rmdir(r.work);
	sqlite3_close(r.h);
	return rc;
}
