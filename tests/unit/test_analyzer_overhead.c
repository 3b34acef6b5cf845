/* SPDX-License-Identifier: MIT */
/* The tracer's overhead statistics (overhead.c): the vsync latency bound and per-tap CPU time. */
#include <CUnit/CUnit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/overhead.h"
#include "test_analyzer.h"

/*
 * Ten inputs whose frames left 1 us later traced (the grid's phase shift),
 * two of them a whole vsync later still, one a vsync earlier; untraced mean
 * 50 ms. k = 2 later: the bound is vsync (3 + 1.96 sqrt 3) / 10 / 50 ms = 21.32%.
 */
static void test_latency_bound(void)
{
	struct pl_overhead_row rows[10];
	struct pl_overhead o = { .nrows = 10, .rows = rows };
	struct pl_overhead_bound b;

	for (int i = 0; i < 10; i++)
		rows[i].overhead_ns = 1000;
	rows[3].overhead_ns += PL_VSYNC_NS;
	rows[7].overhead_ns += PL_VSYNC_NS;
	rows[8].overhead_ns -= PL_VSYNC_NS;
	o.mean = (struct pl_overhead_stat){ 51666667, 50000000, 1666667, 3.333334 };
	o.p95 = (struct pl_overhead_stat){ 0, 0, 0, 33.3349 };
	pl_overhead_latency_bound(&o, &b);
	CU_ASSERT_EQUAL(b.transactions, 10);
	CU_ASSERT_EQUAL(b.grid_shift_ns, 1000);
	CU_ASSERT_EQUAL(b.frames_later, 2);
	CU_ASSERT_EQUAL(b.frames_earlier, 1);
	CU_ASSERT_DOUBLE_EQUAL(b.mean_bound_pct, 21.32, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.mean_pct, 3.33, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(b.p95_pct, 33.33, 1e-9);

	/* No row: nothing to bound, all zero. */
	o.nrows = 0;
	pl_overhead_latency_bound(&o, &b);
	CU_ASSERT_EQUAL(b.transactions, 0);
	CU_ASSERT_EQUAL(b.mean_bound_pct, 0);
}

static const char *cpu_file(const char *name, const char *text)
{
	static char path[4][256];
	static int k;
	char *p = path[k++ % 4];

	snprintf(p, sizeof(path[0]), "%s/%s", test_tmpdir(), name);
	write_text(p, text);
	return p;
}

/*
 * Taps of 11, 22 and 36 ms against 10, 20 and 30 ms are 1, 2 and 6 ms more
 * (10, 10 and 20%): a mean of 3 ms over 20 ms, 15%; p95 of 10, 10, 20 by
 * type 7 is 19%; sd sqrt(7) ms, so the bound is (3 + 1.96 sqrt(7) / sqrt(3))
 * / 20 = 29.97%.
 */
static void test_cpu_overhead(void)
{
	struct pl_cpu_time on, off, shortr;
	struct pl_cpu_overhead c;
	struct pl_error err;

	CU_ASSERT_EQUAL_FATAL(
		pl_cpu_time_read_file(
			cpu_file("on.txt",
				 "panlab-cpu-time 1\ninput 1 5 0\ninput 2 6 11000000\ninput 3 7 33000000\n"
				 "end 8 69000000\n"),
			&on, &err),
		0);
	CU_ASSERT_EQUAL_FATAL(
		pl_cpu_time_read_file(
			cpu_file("off.txt",
				 "panlab-cpu-time 1\ninput 1 5 0\ninput 2 6 10000000\ninput 3 7 30000000\n"
				 "end 8 60000000\n"),
			&off, &err),
		0);
	CU_ASSERT_EQUAL(on.ntaps, 3);
	CU_ASSERT_EQUAL(on.tap_ns[2], 36000000);
	CU_ASSERT_EQUAL_FATAL(pl_cpu_overhead(&on, &off, &c, &err), 0);
	CU_ASSERT_EQUAL(c.taps, 3);
	CU_ASSERT_DOUBLE_EQUAL(c.mean_pct, 15, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.p95_pct, 19, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.mean_bound_pct, 29.97, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.ms_per_tap_on, 23, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(c.ms_per_tap_off, 20, 1e-9);

	/* Replays of different lengths are not one replay. */
	CU_ASSERT_EQUAL_FATAL(
		pl_cpu_time_read_file(
			cpu_file(
				"short.txt",
				"panlab-cpu-time 1\ninput 1 5 0\ninput 2 6 10000000\nend 8 60000000\n"),
			&shortr, &err),
		0);
	CU_ASSERT_EQUAL(pl_cpu_overhead(&on, &shortr, &c, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "the traced and untraced runs have 3 and 2 taps;"
					" expected the same replay of at least 2");
	pl_cpu_time_free(&shortr);
	pl_cpu_time_free(&on);
	pl_cpu_time_free(&off);
}

static void expect_cpu_error(const char *name, const char *text, const char *want)
{
	struct pl_cpu_time c;
	struct pl_error err;
	char msg[512];
	const char *path = cpu_file(name, text);

	CU_ASSERT_EQUAL(pl_cpu_time_read_file(path, &c, &err), -1);
	snprintf(msg, sizeof(msg), "%s:%s", path, want);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
}

static void test_cpu_time_errors(void)
{
	expect_cpu_error("nohead.txt", "input 1 5 0\nend 8 9\n",
			 "1: expected the format line 'panlab-cpu-time 1'");
	expect_cpu_error("noend.txt", "panlab-cpu-time 1\ninput 1 5 0\n",
			 "2: no 'end' line: the run did not finish its replay");
	expect_cpu_error("falls.txt", "panlab-cpu-time 1\ninput 1 5 10\nend 8 9\n",
			 "3: busy ns 9 below the line before's 10, expected a running total");
	expect_cpu_error("junk.txt", "panlab-cpu-time 1\ninput 1 5 0 7\nend 8 9\n",
			 "2: expected 'input SEQ T_NS BUSY_NS' or a last 'end T_NS BUSY_NS'");
	expect_cpu_error("after.txt", "panlab-cpu-time 1\nend 8 9\ninput 1 9 10\n",
			 "3: expected 'input SEQ T_NS BUSY_NS' or a last 'end T_NS BUSY_NS'");
}

void add_overhead_tests(void)
{
	CU_pSuite s = CU_add_suite("overhead", NULL, NULL);

	CU_add_test(s, "latency bound from frames moved past a vsync", test_latency_bound);
	CU_add_test(s, "CPU time per tap, traced against untraced", test_cpu_overhead);
	CU_add_test(s, "cpu_time.txt errors name the line", test_cpu_time_errors);
}
