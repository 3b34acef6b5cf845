/* SPDX-License-Identifier: MIT */
/* verdict.c: each run of an experiment against its targets (see panlab/verdict.h). */
#include "panlab/verdict.h"

#include <inttypes.h>
#include <math.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Targets: exact matching for the platform apps, Panappticon-like inference for kernel-only ones. */
#define EXACT_PR 1.0
#define NATIVE_PR 0.95
#define EXACT_ERROR_MEAN_NS 100000   /* 100 us */
#define NATIVE_ERROR_MEAN_NS 1000000 /* 1 ms */
#define ERROR_MAX_NS 1000000	     /* 1 ms, platform apps only */

static json_t *field(const json_t *o, const char *a, const char *b)
{
	json_t *v = json_object_get(o, a);

	return b ? json_object_get(v, b) : v;
}

/* A copy of the field, null when absent. */
static json_t *copy(const json_t *o, const char *a, const char *b)
{
	json_t *v = field(o, a, b);

	return v ? json_incref(v) : json_null();
}

static long long us(double ns)
{
	return llround(ns / 1e3);
}

/* Appends "; what" (or the first "what") to the status being built. */
__attribute__((format(printf, 3, 4))) static void missed(char *buf, size_t size, const char *fmt,
							 ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 2 >= size)
		return;
	if (n) {
		strcpy(buf + n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(buf + n, size - n, fmt, ap);
	va_end(ap);
}

json_t *pl_verdict_of_summary(const json_t *s, const char *workload, const char *run_id)
{
	json_t *pairs = field(s, "model", "causal_pairs"), *v;
	json_int_t npairs = 0;
	const char *key, *backend = json_string_value(field(s, "backend", NULL));
	const char *inference = json_string_value(field(s, "inference", NULL));
	int native = inference && !strcmp(inference, "kernel-only");
	double pr = native ? NATIVE_PR : EXACT_PR;
	double mean_lim = native ? NATIVE_ERROR_MEAN_NS : EXACT_ERROR_MEAN_NS;
	json_t *expect = field(s, "expect", "transactions_declared");
	json_t *o = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			      "workload", workload, "run_id", run_id, "backend",
			      copy(s, "backend", NULL), "transactions",
			      copy(s, "transactions", NULL), "expected_transactions",
			      expect ? json_incref(expect) : json_null(), "precision",
			      copy(s, "precision", NULL), "recall", copy(s, "recall", NULL),
			      "latency_error_ns_mean", copy(s, "latency_error_ns", "mean"),
			      "latency_error_ns_max", copy(s, "latency_error_ns", "max"),
			      "match_rule_counts", copy(s, "match_rule_counts", NULL),
			      "unreadable_frames", copy(s, "unreadable_frames", NULL), "shape_ok",
			      copy(s, "shape_ok", NULL));
	char status[512] = "";

	json_object_foreach(pairs, key, v) npairs += json_integer_value(v);
	json_object_set_new(o, "causal_pairs", pairs ? json_integer(npairs) : json_null());
	json_object_set_new(o, "causal_pairs_out_of_order",
			    copy(s, "model", "causal_pairs_out_of_order"));
	json_object_set_new(o, "causal_pairs_out_of_order_by_kind",
			    copy(s, "model", "causal_pairs_out_of_order_by_kind"));
	json_object_set_new(o, "skew_repaired", copy(s, "model", "skew_repaired"));
	if (inference)
		json_object_set_new(o, "inference", json_string(inference));

	double p = json_number_value(field(s, "precision", NULL));
	double r = json_number_value(field(s, "recall", NULL));
	json_int_t tx = json_integer_value(field(s, "transactions", NULL));
	json_t *mean = field(s, "latency_error_ns", "mean");
	double max = json_number_value(field(s, "latency_error_ns", "max"));
	json_int_t ooo = json_integer_value(field(s, "model", "causal_pairs_out_of_order"));
	json_int_t repaired = json_integer_value(field(s, "model", "skew_repaired"));

	if (p < pr)
		missed(status, sizeof(status), "precision %g < %g", p, pr);
	if (r < pr)
		missed(status, sizeof(status), "recall %g < %g", r, pr);
	if (expect && json_integer_value(expect) != tx)
		missed(status, sizeof(status), "%lld transactions, %lld declared", (long long)tx,
		       (long long)json_integer_value(expect));
	if (json_is_false(field(s, "shape_ok", NULL)))
		missed(status, sizeof(status), "structure not as declared");
	if (backend && !strcmp(backend, "phone")) {
		if (!json_is_number(mean))
			missed(status, sizeof(status), "no latency error measured");
		else if (json_number_value(mean) > mean_lim)
			missed(status, sizeof(status), "error mean %lld us > %lld us",
			       us(json_number_value(mean)), us(mean_lim));
		if (!native && max > ERROR_MAX_NS)
			missed(status, sizeof(status), "error max %lld us > %lld us", us(max),
			       us(ERROR_MAX_NS));
		if (ooo)
			missed(status, sizeof(status), "%lld causal pairs out of order",
			       (long long)ooo);
		if (repaired)
			missed(status, sizeof(status), "%lld skew repaired", (long long)repaired);
	}
	if (!*status) {
		json_object_set_new(o, "status", json_string("ok"));
	} else {
		char full[sizeof(status) + 16];

		snprintf(full, sizeof(full), "mismatch: %s", status);
		json_object_set_new(o, "status", json_string(full));
	}
	return o;
}

json_t *pl_verdict_of_failure(const char *workload, const char *run_id, const char *backend,
			      const char *status)
{
	static const char *const nulls[] = {
		"transactions",
		"expected_transactions",
		"precision",
		"recall",
		"latency_error_ns_mean",
		"latency_error_ns_max",
		"match_rule_counts",
		"unreadable_frames",
		"shape_ok",
		"causal_pairs",
		"causal_pairs_out_of_order",
		"causal_pairs_out_of_order_by_kind",
		"skew_repaired",
	};
	json_t *o = json_pack("{s:s, s:s, s:s}", "workload", workload, "run_id", run_id, "backend",
			      backend);

	for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
		json_object_set_new(o, nulls[i], json_null());
	json_object_set_new(o, "status", json_string(status));
	return o;
}

int pl_verdict_ok(const json_t *v)
{
	const char *s = json_string_value(json_object_get(v, "status"));

	return s && !strcmp(s, "ok");
}

#define TABLE_ROW "%-22s %7s %5s %5s %13s %8s %5s %7s  %s\n"

void pl_verdict_table_header(FILE *out)
{
	fprintf(out, TABLE_ROW, "workload", "tx", "P", "R", "err mean/max", "marker/w", "shape",
		"causal", "status");
	fprintf(out, "%-22s %7s %5s %5s %13s %8s %5s %7s\n", "", "", "", "", "us", "window", "",
		"ooo/rep");
}

/* A number as text, "-" when null: 3 decimals without trailing zeros, or whole us. */
static const char *n3(const json_t *v, char *buf, size_t size)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, size, "%.3f", json_number_value(v));
	char *e = buf + strlen(buf);

	while (e[-1] == '0')
		*--e = '\0';
	if (e[-1] == '.')
		e[-1] = '\0';
	return buf;
}

static const char *int_or(const json_t *v, const char *none, char *buf, size_t size)
{
	if (!json_is_number(v))
		return none;
	snprintf(buf, size, "%lld", (long long)llround(json_number_value(v)));
	return buf;
}

static const char *us_of(const json_t *v, char *buf, size_t size)
{
	if (!json_is_number(v))
		return "-";
	snprintf(buf, size, "%lld", us(json_number_value(v)));
	return buf;
}

void pl_verdict_table_line(FILE *out, const json_t *v)
{
	char a[32], b[32], c[32], d[32], tx[72], err[72], rule[72], causal[72];
	const json_t *rules = json_object_get(v, "match_rule_counts");
	const json_t *shape = json_object_get(v, "shape_ok");

	snprintf(tx, sizeof(tx), "%s/%s",
		 int_or(json_object_get(v, "transactions"), "-", a, sizeof(a)),
		 int_or(json_object_get(v, "expected_transactions"), "?", b, sizeof(b)));
	snprintf(err, sizeof(err), "%s/%s",
		 us_of(json_object_get(v, "latency_error_ns_mean"), a, sizeof(a)),
		 us_of(json_object_get(v, "latency_error_ns_max"), b, sizeof(b)));
	if (json_is_object(rules))
		snprintf(rule, sizeof(rule), "%s/%s",
			 int_or(json_object_get(rules, "marker"), "-", a, sizeof(a)),
			 int_or(json_object_get(rules, "window"), "-", b, sizeof(b)));
	else
		snprintf(rule, sizeof(rule), "-");
	snprintf(causal, sizeof(causal), "%s/%s",
		 int_or(json_object_get(v, "causal_pairs_out_of_order"), "-", a, sizeof(a)),
		 int_or(json_object_get(v, "skew_repaired"), "-", b, sizeof(b)));
	fprintf(out, TABLE_ROW, json_string_value(json_object_get(v, "workload")), tx,
		n3(json_object_get(v, "precision"), c, sizeof(c)),
		n3(json_object_get(v, "recall"), d, sizeof(d)), err, rule,
		json_is_boolean(shape) ? (json_is_true(shape) ? "ok" : "FAIL") : "-", causal,
		json_string_value(json_object_get(v, "status")));
}

static const char *col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return t ? (const char *)t : "";
}

/* One run's verdict: its summary when it finished ok, else why not. */
static json_t *verdict_of_run(sqlite3_stmt *st, const char *runs_dir, struct pl_error *err)
{
	const char *run_id = col(st, 0), *workload = col(st, 1), *backend = col(st, 2);
	const char *status = col(st, 3);
	char path[4096], why[1024];

	if (strcmp(status, "ok")) {
		if (!strcmp(status, "failed"))
			snprintf(why, sizeof(why), "run failed: %s",
				 sqlite3_column_type(st, 4) == SQLITE_NULL ? "?" : col(st, 4));
		else
			snprintf(why, sizeof(why), "not finished (%s)", status);
		return pl_verdict_of_failure(workload, run_id, backend, why);
	}
	snprintf(path, sizeof(path), "%s/%s/summary.json", runs_dir, run_id);
	FILE *f = fopen(path, "r");

	if (!f) {
		snprintf(why, sizeof(why), "run failed: no summary.json in %s", run_id);
		return pl_verdict_of_failure(workload, run_id, backend, why);
	}
	json_error_t jerr;
	json_t *s = json_loadf(f, 0, &jerr);

	fclose(f);
	if (!json_is_object(s)) {
		pl_error_at_line(err, path, (uint64_t)(jerr.line > 0 ? jerr.line : 1),
				 "not a panlab summary: %s", s ? "not an object" : jerr.text);
		json_decref(s);
		return NULL;
	}
	json_t *v = pl_verdict_of_summary(s, workload, run_id);

	json_decref(s);
	return v;
}

int pl_verdict_experiment(const char *db, const char *experiment, const char *runs_dir, FILE *table,
			  json_t **out, uint64_t *bad, struct pl_error *err)
{
	static const char sql[] = "SELECT run_id, workload, backend, status, reason FROM runs"
				  " WHERE experiment = ? ORDER BY workload, run_id";
	sqlite3 *h = NULL;
	sqlite3_stmt *st = NULL;
	json_t *all = json_array();
	int step, rc = -1;

	*bad = 0;
	*out = NULL;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(h, sql, -1, &st, NULL) != SQLITE_OK) {
		pl_error_file(err, db, "not a panlab results database: %s", sqlite3_errmsg(h));
		goto out;
	}
	sqlite3_bind_text(st, 1, experiment, -1, SQLITE_STATIC);
	pl_verdict_table_header(table);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		json_t *v = verdict_of_run(st, runs_dir, err);

		if (!v)
			goto out;
		*bad += !pl_verdict_ok(v);
		pl_verdict_table_line(table, v);
		json_array_append_new(all, v);
	}
	if (step != SQLITE_DONE) {
		pl_error_file(err, db, "sqlite: %s", sqlite3_errmsg(h));
		goto out;
	}
	if (json_array_size(all) == 0) {
		pl_error_file(err, db, "experiment %s has no runs, expected at least one",
			      experiment);
		goto out;
	}
	*out = json_incref(all);
	rc = 0;
out:
	json_decref(all);
	sqlite3_finalize(st);
	sqlite3_close(h);
	return rc;
}
