/* SPDX-License-Identifier: MIT */
/*
 * The suite's verdict (verdict.c) on made-up summaries: a run that meets
 * every target is ok; one that misses the phone's latency and causality
 * targets is a mismatch naming each; the same summary from qemu is ok; a
 * failed run carries its reason; a kernel-only app is held to P, R >= 0.95
 * and error mean <= 1 ms; a corrupt summary is an error naming the file.
 */
#include <CUnit/CUnit.h>
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/export_sqlite.h"
#include "panlab/verdict.h"
#include "test_analyzer.h"

/* A summary.json in runs/<run_id>/ with the given backend, error mean/max and disorder. */
static void summary(const char *runs, const char *run_id, const char *backend, int mean, int max,
		    int ooo, const char *extra)
{
	char path[512], text[2048];

	snprintf(path, sizeof(path), "mkdir -p '%s/%s'", runs, run_id);
	CU_ASSERT_EQUAL_FATAL(system(path), 0);
	snprintf(path, sizeof(path), "%s/%s/summary.json", runs, run_id);
	snprintf(
		text, sizeof(text),
		"{\"schema\": \"panlab-summary 1\", \"backend\": \"%s\", \"transactions\": 24,"
		" \"precision\": %s, \"recall\": 1, \"latency_error_ns\": {\"mean\": %d, \"max\": %d},"
		" \"match_rule_counts\": {\"marker\": 24, \"window\": 0}, \"unreadable_frames\": 0,"
		" \"shape_ok\": true, \"inference\": \"%s\","
		" \"expect\": {\"checked\": 24, \"transactions_declared\": %s},"
		" \"model\": {\"causal_pairs\": {\"message\": 10, \"wakeup\": 90},"
		" \"causal_pairs_out_of_order\": %d, \"causal_pairs_out_of_order_by_kind\":"
		" {\"message\": 0, \"wakeup\": %d}, \"skew_repaired\": %d}}",
		backend, strstr(extra, "p0.9") ? (strstr(extra, "p0.96") ? "0.96" : "0.9") : "1",
		mean, max, strstr(extra, "native") ? "kernel-only" : "userspace",
		strstr(extra, "declared23") ? "23" : "24", ooo, ooo, ooo);
	write_text(path, text);
}

static const char *status_of(json_t *all, size_t i)
{
	return json_string_value(json_object_get(json_array_get(all, i), "status"));
}

static void test_verdicts(void)
{
	char runs[256], db[300];
	sqlite3 *h;
	json_t *all;
	uint64_t bad;
	struct pl_error err;
	FILE *table = tmpfile();

	snprintf(runs, sizeof(runs), "%s/verdict", test_tmpdir());
	snprintf(db, sizeof(db), "%s/verdict.sqlite", test_tmpdir());
	summary(runs, "s/a-good", "phone", 8000, 9000, 0, "native");
	summary(runs, "s/b-slow", "phone", 379000, 1200000, 2, "");
	summary(runs, "s/c-qemu", "qemu", 379000, 1200000, 2, "");
	summary(runs, "s/e-count", "qemu", 1, 1, 0, "declared23");
	summary(runs, "s/f-native-ok", "phone", 800000, 1500000, 0, "native p0.96");
	summary(runs, "s/g-native-bad", "phone", 1200000, 1500000, 0, "native p0.9");
	CU_ASSERT_FATAL(sqlite3_open(db, &h) == SQLITE_OK);
	test_exec_sql(h, pl_sqlite_schema);
	test_exec_sql(
		h, "INSERT INTO runs (run_id, experiment, backend, workload, status, reason) VALUES"
		   " ('s/a-good', 's', 'phone', 'a', 'ok', NULL),"
		   " ('s/b-slow', 's', 'phone', 'b', 'ok', NULL),"
		   " ('s/c-qemu', 's', 'qemu', 'c', 'ok', NULL),"
		   " ('s/d-failed', 's', 'phone', 'd', 'failed', 'no result'),"
		   " ('s/e-count', 's', 'qemu', 'e', 'ok', NULL),"
		   " ('s/f-native-ok', 's', 'phone', 'f', 'ok', NULL),"
		   " ('s/g-native-bad', 's', 'phone', 'g', 'ok', NULL),"
		   " ('s/h-pending', 's', 'phone', 'h', 'pending', NULL),"
		   " ('s/i-lost', 's', 'phone', 'i', 'ok', NULL),"
		   " ('t/other', 't', 'phone', 'a', 'failed', 'elsewhere')");
	CU_ASSERT_EQUAL_FATAL(pl_verdict_experiment(db, "s", runs, table, &all, &bad, &err), 0);
	CU_ASSERT_EQUAL(json_array_size(all), 9);
	CU_ASSERT_EQUAL(bad, 6);
	CU_ASSERT_STRING_EQUAL(status_of(all, 0), "ok");
	CU_ASSERT_STRING_EQUAL(status_of(all, 1),
			       "mismatch: error mean 379 us > 100 us;"
			       " error max 1200 us > 1000 us; 2 causal pairs out of order;"
			       " 2 skew repaired");
	CU_ASSERT_STRING_EQUAL(status_of(all, 2), "ok");
	CU_ASSERT_STRING_EQUAL(status_of(all, 3), "run failed: no result");
	CU_ASSERT_STRING_EQUAL(status_of(all, 4), "mismatch: 24 transactions, 23 declared");
	CU_ASSERT_STRING_EQUAL(status_of(all, 5), "ok");
	CU_ASSERT_STRING_EQUAL(status_of(all, 6), "mismatch: precision 0.9 < 0.95;"
						  " error mean 1200 us > 1000 us");
	CU_ASSERT_STRING_EQUAL(status_of(all, 7), "not finished (pending)");
	CU_ASSERT_STRING_EQUAL(status_of(all, 8), "run failed: no summary.json in s/i-lost");
	json_t *good = json_array_get(all, 0);

	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(good, "inference")),
			       "kernel-only");
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(good, "causal_pairs")), 100);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(good, "expected_transactions")), 24);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(good, "latency_error_ns_mean")), 8000);
	CU_ASSERT_TRUE(json_is_null(json_object_get(json_array_get(all, 3), "precision")));
	json_decref(all);

	/* The table: two header lines and one line per run, naming what was missed. */
	char text[8192];
	size_t n;

	rewind(table);
	n = fread(text, 1, sizeof(text) - 1, table);
	text[n] = '\0';
	fclose(table);
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
				      "\nb                        24/24     1     1      379/1200"
				      "     24/0    ok     2/2  mismatch: error mean 379 us"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
				      "\nd                          -/?     -     -           -/-"
				      "        -     -     -/-  run failed: no result\n"));

	/* A corrupt summary is an error naming it, never a verdict. */
	char path[512];

	snprintf(path, sizeof(path), "%s/s/a-good/summary.json", runs);
	write_text(path, "{\"precision\": ");
	table = tmpfile();
	CU_ASSERT_EQUAL(pl_verdict_experiment(db, "s", runs, table, &all, &bad, &err), -1);
	fclose(table);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/s/a-good/summary.json:1: not a panlab summary"));
	/* An experiment without runs is an error too. */
	table = tmpfile();
	CU_ASSERT_EQUAL(pl_verdict_experiment(db, "none", runs, table, &all, &bad, &err), -1);
	fclose(table);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "experiment none has no runs"));
	sqlite3_close(h);
}

void add_verdict_tests(void)
{
	CU_pSuite s = CU_add_suite("verdict", NULL, NULL);

	CU_add_test(s, "targets, fields, failures and table of an experiment's runs",
		    test_verdicts);
}
