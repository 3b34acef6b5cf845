/* SPDX-License-Identifier: MIT */
/*
 * The experiment report (experiment_report.c) of a made-up results
 * database: one workload traced and untraced, a failed run. The table's
 * quantiles are type 7 of the pooled ground-truth latencies, the page has
 * the CDF, Q-Q and breakdown plots inline, and an unwritable page is an
 * error naming it with no partial file.
 */
#include <CUnit/CUnit.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panlab/experiment_report.h"
#include "panlab/export_sqlite.h"
#include "test_analyzer.h"

static int count(const char *text, const char *what)
{
	int n = 0;

	for (const char *p = text; (p = strstr(p, what)); p++)
		n++;
	return n;
}

static void test_report(void)
{
	char db[256], html[300], bad[300];
	sqlite3 *h;
	struct pl_error err;

	snprintf(db, sizeof(db), "%s/report.sqlite", test_tmpdir());
	snprintf(html, sizeof(html), "%s/report.html", test_tmpdir());
	CU_ASSERT_FATAL(sqlite3_open(db, &h) == SQLITE_OK);
	test_exec_sql(h, pl_sqlite_schema);
	/* Traced latencies 10, 20, 30, 40 ms; untraced 10, 20, 30, 30 ms; errors 1 and 3 us. */
	test_exec_sql(
		h,
		"INSERT INTO runs (run_id, experiment, config, backend, workload, trace, status,"
		" reason) VALUES ('x/on', 'x', 'phone', 'phone', 'timer', 1, 'ok', NULL),"
		" ('x/off', 'x', 'phone', 'phone', 'timer', 0, 'ok', NULL),"
		" ('x/bad', 'x', 'phone', 'phone', 'timer', 1, 'failed', 'a <broken> run');"
		"INSERT INTO validation (run_id, transactions, precision, recall,"
		" latency_error_mean_ns) VALUES ('x/on', 4, 1, 0.75, 1000),"
		" ('x/off', 0, NULL, NULL, 3000);"
		"INSERT INTO validation_rows (run_id, input, truth_latency_ns) VALUES"
		" ('x/on', 0, 10000000), ('x/on', 1, 20000000), ('x/on', 2, 30000000),"
		" ('x/on', 3, 40000000), ('x/off', 0, 10000000), ('x/off', 1, 20000000),"
		" ('x/off', 2, 30000000), ('x/off', 3, 30000000);"
		"INSERT INTO transactions (run_id, tx_id) VALUES ('x/on', 0), ('x/on', 1);"
		"INSERT INTO breakdown (run_id, tx_id, category, ns) VALUES"
		" ('x/on', 0, 'input_dispatch', 1000000), ('x/on', 1, 'input_dispatch', 3000000),"
		" ('x/on', 0, 'running', 8000000);"
		/* A suspicious group whose root cause is another group. */
		"INSERT INTO contexts (run_id, context_id, frame0, frame1) VALUES"
		" ('x/on', 0, 'load_icons+0x10', 'on_tap+0x8'), ('x/on', 1, 'refresh_list+0x4', NULL);"
		"INSERT INTO groups (run_id, group_id, context_id, max_queuing_ns, max_execution_ns,"
		" capacity, suspicious, long_waits, avg_queue_length, avg_in_queue_execution_ns,"
		" root_cause) VALUES ('x/on', 1, 0, 600250000, 100050000, 1, 1, 8, 3.5, 157190000, 2),"
		" ('x/on', 2, 1, 0, 300000000, 1, 0, 0, NULL, NULL, NULL);");
	sqlite3_close(h);
	CU_ASSERT_EQUAL_FATAL(pl_experiment_report(db, html, &err), 0);
	char *text = read_text(html);

	CU_ASSERT_PTR_NOT_NULL(strstr(text, "<p>3 runs: 2 ok, 1 failed, 0 not run"));
	/* Type 7 of 10, 20, 30, 40: p50 25, p90 37, p99 39.7 (of 10, 20, 30, 30: 25, 30, 30). */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "<tr><td>timer phone trace on</td><td>1</td><td>1</td>"
					    "<td>4</td><td>1.000</td><td>0.750</td><td>25.0</td>"
					    "<td>37.0</td><td>39.7</td><td>0.00</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text,
				      "<tr><td>timer phone trace off</td><td>1</td><td>0</td>"
				      "<td>0</td><td>-</td><td>-</td><td>25.0</td><td>30.0</td>"
				      "<td>30.0</td><td>0.00</td></tr>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
		text, "<td>x/bad</td><td style=\"text-align:left\">a &lt;broken&gt; run</td>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(
		text,
		"<tr><td>x/on</td><td>1</td><td style=\"text-align:left\">load_icons+0x10 &lt;"
		" on_tap+0x8</td><td>600.25</td><td>100.05</td><td>1</td><td>8</td><td>3.50</td>"
		"<td>157.19</td><td style=\"text-align:left\">2: refresh_list+0x4</td></tr>"));
	CU_ASSERT_EQUAL(count(text, "<tr><td>x/on</td><td>"), 1); /* only the suspicious one */
	CU_ASSERT_EQUAL(count(text, "<svg"), 3);
	CU_ASSERT_EQUAL(count(text, "</svg>"), 3);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(text, "timer on phone: points above y = x are slower traced."));
	free(text);

	/* An unwritable page: one error naming it, no partial file. */
	snprintf(bad, sizeof(bad), "%s/report.html/inside.html", test_tmpdir());
	CU_ASSERT_EQUAL(pl_experiment_report(db, bad, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(
		strstr(err.msg, "/report.html/inside.html: cannot write the report:"));
	/* Not a results database. */
	CU_ASSERT_EQUAL(pl_experiment_report(html, bad, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a panlab results database (no runs table)"));
}

void add_report_tests(void)
{
	CU_pSuite s = CU_add_suite("experiment report", NULL, NULL);

	CU_add_test(s, "tables, quantiles, plots and failures of a results database", test_report);
}
