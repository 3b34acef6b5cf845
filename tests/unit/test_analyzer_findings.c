/* SPDX-License-Identifier: MIT */
/*
 * Section 6 findings (findings.c): the rules on constructed intervals, the
 * findings on constructed configurations whose effects are known, and the
 * round trip through a results database to findings.json and findings.md.
 */
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "panlab/export_sqlite.h"
#include "panlab/findings.h"
#include "test_analyzer.h"

#define NTAPS 600

static void test_rules(void)
{
	struct pl_ci ci = { .estimate = 100, .lo = 20, .hi = 180 };

	CU_ASSERT(pl_s6_rule_direction(&ci, 0));
	CU_ASSERT(pl_s6_rule_size(&ci, 0, 170));	/* 170 within 50..200 */
	CU_ASSERT(pl_s6_rule_size(&ci, 0, 50));
	CU_ASSERT(!pl_s6_rule_size(&ci, 0, 201));
	CU_ASSERT(!pl_s6_rule_size(&ci, 0, 49));
	ci.lo = -1;
	CU_ASSERT(!pl_s6_rule_direction(&ci, 0));
	/* A ratio: no effect is 1, and size compares the ratio less 1. */
	ci = (struct pl_ci){ .estimate = 1.5, .lo = 1.2, .hi = 1.9 };
	CU_ASSERT(pl_s6_rule_direction(&ci, 1));
	CU_ASSERT(pl_s6_rule_size(&ci, 1, 0.75));	/* 0.75 within 0.25..1.0 */
	CU_ASSERT(!pl_s6_rule_size(&ci, 1, 1.1));
	ci.lo = 0.99;
	CU_ASSERT(!pl_s6_rule_direction(&ci, 1));
	/* An effect of the wrong sign never has the paper's size. */
	ci = (struct pl_ci){ .estimate = -170, .lo = -200, .hi = -150 };
	CU_ASSERT(!pl_s6_rule_size(&ci, 0, 170));
	ci = (struct pl_ci){ .estimate = 1.0, .lo = 0.96, .hi = 1.04 };
	CU_ASSERT(pl_s6_rule_negligible(&ci));
	ci.hi = 1.051;
	CU_ASSERT(!pl_s6_rule_negligible(&ci));
	ci.hi = 1.0, ci.lo = 0.949;
	CU_ASSERT(!pl_s6_rule_negligible(&ci));
}

/*
 * The off configurations' taps: a third short (1-15 ms), a third medium
 * (20-200 ms), a third long (300-3000 ms), from a fixed splitmix64 sequence.
 * DVFS on stretches what lies above 60 ms by `stretch` (running time), and
 * leaves the rest; the long taps of c2-on wait for a CPU most of their time.
 */
static void make_run(struct pl_s6_run *r, const char *id, double stretch, int cpu_bound)
{
	struct pl_rng rng = { 25 };

	r->run_id = strdup(id);
	r->ntaps = NTAPS;
	r->taps = calloc(NTAPS, sizeof(*r->taps));
	for (int i = 0; i < NTAPS; i++) {
		struct pl_s6_tap *t = &r->taps[i];
		double u = (double)(pl_rng_next(&rng) >> 11) / 9007199254740992.0;
		double ms = i % 3 == 0 ? 1 + 14 * u : i % 3 == 1 ? 20 + 180 * u : 300 + 2700 * u;

		if (ms >= 60)
			ms *= stretch;
		t->input = (uint64_t)i;
		t->tx_id = i;
		t->has[PL_DEF_UPDATE] = t->has[PL_DEF_PIXEL] = true;
		t->latency_ms[PL_DEF_UPDATE] = ms;
		t->latency_ms[PL_DEF_PIXEL] = ms + 12;	/* the display pipeline */
		t->running_ms = ms * (cpu_bound ? 0.1 : 0.3);
		t->runnable_ms = ms * (cpu_bound ? 0.7 : 0.1);
		t->network_ms = ms * (cpu_bound ? 0.15 : 0.5);
		t->io_ms = ms * 0.05;
	}
}

static void make_data(struct pl_s6_data *d, double stretch)
{
	memset(d, 0, sizeof(*d));
	d->experiment = strdup("s6");
	d->workload = strdup("newsreader");
	make_run(&d->runs[PL_C1_ON], "s6/c1-on", stretch, 0);
	make_run(&d->runs[PL_C1_OFF], "s6/c1-off", 1, 0);
	make_run(&d->runs[PL_C2_ON], "s6/c2-on", stretch, 1);
	make_run(&d->runs[PL_C2_OFF], "s6/c2-off", 1, 0);
}

static void test_findings_known_effects(void)
{
	struct pl_s6_data d;
	struct pl_s6_findings f;
	struct pl_error err;

	make_data(&d, 1.5);
	CU_ASSERT_FATAL(pl_s6_compute(&d, 500, 7, &f, &err) == 0);
	const struct pl_s6_outcome *p96 = &f.f[0].def[PL_DEF_UPDATE];
	const struct pl_s6_outcome *p98 = &f.f[1].def[PL_DEF_UPDATE];

	/* The same taps, the long ones 1.5x: p96 and p98 of on are 1.5x those of off. */
	CU_ASSERT_STRING_EQUAL(f.f[0].id, "dvfs-p96-dual");
	CU_ASSERT(p96->computed && p96->direction);
	CU_ASSERT(p96->ci.estimate > 1000 && p96->ci.estimate < 1500);
	CU_ASSERT(!p96->size);			/* 170 ms is far below half of it */
	CU_ASSERT(p98->direction && !p98->size);
	/* Q-Q: the largest ratio above 60 ms is the stretch itself. */
	CU_ASSERT_DOUBLE_EQUAL(f.f[2].def[PL_DEF_UPDATE].ci.estimate, 1.5, 1e-9);
	CU_ASSERT(f.f[2].def[PL_DEF_UPDATE].reproduced);	/* 0.75 within 0.25..1.0 */
	/* Below 20 ms the taps are the same: ratio 1, interval within 0.95..1.05. */
	CU_ASSERT_DOUBLE_EQUAL(f.f[3].def[PL_DEF_UPDATE].ci.estimate, 1, 1e-9);
	CU_ASSERT(f.f[3].def[PL_DEF_UPDATE].reproduced);
	/* The two off configurations are the same taps: the second core changes nothing. */
	CU_ASSERT(f.f[4].def[PL_DEF_UPDATE].reproduced);
	/* c2-on's longest tenth waits for a CPU 70% of its time, network 15%. */
	CU_ASSERT_DOUBLE_EQUAL(f.f[5].def[PL_DEF_UPDATE].ci.estimate, 0.55, 1e-9);
	CU_ASSERT_EQUAL(f.f[5].def[PL_DEF_UPDATE].n, NTAPS / 10);
	CU_ASSERT(f.f[5].def[PL_DEF_UPDATE].reproduced);
	/* On the pixel definition (12 ms more) the short levels shift, and are still computed. */
	CU_ASSERT(f.f[3].def[PL_DEF_PIXEL].computed);
	CU_ASSERT_EQUAL(f.reproduced, 4);
	pl_s6_data_free(&d);

	/* No DVFS effect at all: the DVFS findings fail their direction, the negligible ones hold. */
	make_data(&d, 1.0);
	CU_ASSERT_FATAL(pl_s6_compute(&d, 500, 7, &f, &err) == 0);
	CU_ASSERT(!f.f[0].def[PL_DEF_UPDATE].direction);
	CU_ASSERT(!f.f[1].def[PL_DEF_UPDATE].direction);
	CU_ASSERT(!f.f[2].def[PL_DEF_UPDATE].direction);
	CU_ASSERT(f.f[3].def[PL_DEF_UPDATE].reproduced);
	pl_s6_data_free(&d);

	/* Short taps 8% slower with DVFS on: no longer negligible. */
	make_data(&d, 1.0);
	for (uint64_t i = 0; i < NTAPS; i++)
		if (d.runs[PL_C1_ON].taps[i].latency_ms[PL_DEF_UPDATE] < 20)
			d.runs[PL_C1_ON].taps[i].latency_ms[PL_DEF_UPDATE] *= 1.08;
	CU_ASSERT_FATAL(pl_s6_compute(&d, 500, 7, &f, &err) == 0);
	CU_ASSERT_DOUBLE_EQUAL(f.f[3].def[PL_DEF_UPDATE].ci.estimate, 1.08, 1e-9);
	CU_ASSERT(!f.f[3].def[PL_DEF_UPDATE].reproduced);
	pl_s6_data_free(&d);
}

static void test_findings_seeded(void)
{
	struct pl_s6_data d;
	struct pl_s6_findings a, b;
	struct pl_error err;

	make_data(&d, 1.2);
	CU_ASSERT_FATAL(pl_s6_compute(&d, 300, 11, &a, &err) == 0);
	CU_ASSERT_FATAL(pl_s6_compute(&d, 300, 11, &b, &err) == 0);
	for (int i = 0; i < PL_S6_FINDINGS; i++)
		for (int def = 0; def < PL_S6_DEFS; def++) {
			CU_ASSERT(memcmp(&a.f[i].def[def].ci.lo, &b.f[i].def[def].ci.lo, sizeof(double)) == 0);
			CU_ASSERT(memcmp(&a.f[i].def[def].ci.hi, &b.f[i].def[def].ci.hi, sizeof(double)) == 0);
		}
	pl_s6_data_free(&d);
}

static void test_findings_not_computable(void)
{
	struct pl_s6_data d;
	struct pl_s6_findings f;
	struct pl_error err;

	/* No c1-off tap below 20 ms on the paper's definition: an error naming the finding. */
	make_data(&d, 1.5);
	for (int c = 0; c < PL_S6_CONFIGS; c++)
		for (uint64_t i = 0; i < NTAPS; i++)
			if (d.runs[c].taps[i].latency_ms[PL_DEF_UPDATE] < 20)
				d.runs[c].taps[i].latency_ms[PL_DEF_UPDATE] += 20;
	CU_ASSERT(pl_s6_compute(&d, 100, 1, &f, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "dvfs-short-negligible"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "below 20 ms"));
	pl_s6_data_free(&d);

	/* On the pixel definition the same is recorded, with why, and the rest goes on. */
	make_data(&d, 1.5);
	for (int c = 0; c < PL_S6_CONFIGS; c++)
		for (uint64_t i = 0; i < NTAPS; i++)
			d.runs[c].taps[i].latency_ms[PL_DEF_PIXEL] += 20;
	CU_ASSERT_FATAL(pl_s6_compute(&d, 100, 1, &f, &err) == 0);
	CU_ASSERT(!f.f[3].def[PL_DEF_PIXEL].computed);
	CU_ASSERT_PTR_NOT_NULL(strstr(f.f[3].def[PL_DEF_PIXEL].why, "c1-off"));
	pl_s6_data_free(&d);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "sql: %s\n", msg);
		CU_FAIL("sql");
	}
	sqlite3_free(msg);
}

/* A results database holding four runs of make_data's taps, as experiment.sh leaves one. */
static void write_db(const char *path, const struct pl_s6_data *d)
{
	static const char *const machine[PL_S6_CONFIGS] = {
		"1, 'interactive', NULL", "1, NULL, 1200", "2, 'interactive', NULL", "2, NULL, 1200",
	};
	sqlite3 *db;
	char sql[640];

	CU_ASSERT_FATAL(sqlite3_open(path, &db) == SQLITE_OK);
	exec_sql(db, pl_sqlite_schema);
	exec_sql(db, "BEGIN");
	for (int c = 0; c < PL_S6_CONFIGS; c++) {
		const struct pl_s6_run *r = &d->runs[c];

		snprintf(sql, sizeof(sql), "INSERT INTO runs (run_id, experiment, workload, cores,"
			 " governor, freq_mhz, status) VALUES ('%s', 's6', 'newsreader', %s, 'ok');"
			 "INSERT INTO energy VALUES ('%s', NULL, 5000000, 9000000);"
			 "INSERT INTO freq_residency VALUES ('%s', NULL, 1200000, 4000000000);"
			 "INSERT INTO threads (run_id, tid, name) VALUES ('%s', 77, 'sdcardd');",
			 r->run_id, machine[c], r->run_id, r->run_id, r->run_id);
		exec_sql(db, sql);
		for (uint64_t i = 0; i < r->ntaps; i++) {
			const struct pl_s6_tap *t = &r->taps[i];

			snprintf(sql, sizeof(sql),
				 "INSERT INTO validation_rows (run_id, input, tx_id, truth_latency_ns,"
				 " input_kind) VALUES ('%s', %llu, %llu, %lld, 'tap');"
				 "INSERT INTO transactions (run_id, tx_id, input_id, latency_ns)"
				 " VALUES ('%s', %llu, %llu, %lld);"
				 "INSERT INTO breakdown (run_id, tx_id, category, ns) VALUES ('%s', %llu, 'runnable', %lld),"
				 " ('%s', %llu, 'network', %lld), ('%s', %llu, 'io', %lld);"
				 "INSERT INTO preemption VALUES ('%s', %llu, 77, %lld, 'sdcardd');",
				 r->run_id, (unsigned long long)i, (unsigned long long)i,
				 (long long)llround(t->latency_ms[PL_DEF_PIXEL] * 1e6),
				 r->run_id, (unsigned long long)i, (unsigned long long)i,
				 (long long)llround(t->latency_ms[PL_DEF_UPDATE] * 1e6),
				 r->run_id, (unsigned long long)i, (long long)llround(t->runnable_ms * 1e6),
				 r->run_id, (unsigned long long)i, (long long)llround(t->network_ms * 1e6),
				 r->run_id, (unsigned long long)i, (long long)llround(t->io_ms * 1e6),
				 r->run_id, (unsigned long long)i, (long long)llround(t->runnable_ms * 1e6));
			exec_sql(db, sql);
		}
	}
	/* A key is no tap; a failed run and another experiment's run are not read. */
	exec_sql(db, "INSERT INTO validation_rows (run_id, input, input_kind, truth_latency_ns)"
		     " VALUES ('s6/c1-on', 9999, 'key', 1);"
		     "INSERT INTO runs (run_id, experiment, workload, cores, governor, status)"
		     " VALUES ('s6/c1-on-failed', 's6', 'newsreader', 1, 'interactive', 'failed'),"
		     " ('other/x', 'other', 'timer', 1, 'interactive', 'ok');"
		     "COMMIT");
	sqlite3_close(db);
}

static void test_findings_database(void)
{
	struct pl_s6_data made, d;
	struct pl_s6_findings f;
	struct pl_s6_constants k = { 0 };
	struct pl_error err;
	char db[1024], dir[1024], path[1100], consts[1100];

	make_data(&made, 1.5);
	snprintf(db, sizeof(db), "%s/findings.sqlite", test_tmpdir());
	snprintf(dir, sizeof(dir), "%s/findings-out", test_tmpdir());
	remove(db);
	write_db(db, &made);
	CU_ASSERT_FATAL(pl_s6_read_db(db, "s6", &d, &err) == 0);
	CU_ASSERT_STRING_EQUAL(d.workload, "newsreader");
	CU_ASSERT_STRING_EQUAL(d.runs[PL_C2_OFF].run_id, "s6/c2-off");
	CU_ASSERT_EQUAL(d.runs[PL_C1_ON].ntaps, NTAPS);
	CU_ASSERT_DOUBLE_EQUAL(d.runs[PL_C2_ON].taps[5].runnable_ms,
			       made.runs[PL_C2_ON].taps[5].runnable_ms, 1e-6);
	CU_ASSERT_FATAL(pl_s6_compute(&d, 200, 3, &f, &err) == 0);

	/* Constants: the analyzer's own and a component's file. */
	snprintf(consts, sizeof(consts), "%s/net.tsv", test_tmpdir());
	write_text(consts, "# group\tname\tvalue\tsource\nnetwork\tWi-Fi RTT\t50 ms\ta cited paper\n");
	pl_s6_constants_analyzer(&k);
	CU_ASSERT_FATAL(pl_s6_constants_read(consts, &k, &err) == 0);
	CU_ASSERT_STRING_EQUAL(k.c[k.n - 1].value, "50 ms");
	CU_ASSERT_EQUAL(mkdir(dir, 0777), 0);
	CU_ASSERT_FATAL(pl_s6_write(db, &d, &f, &k, NULL, 200, 3, dir, &err) == 0);

	snprintf(path, sizeof(path), "%s/findings.json", dir);
	json_t *j = json_load_file(path, 0, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_PTR_NULL(json_object_get(j, "determinism"));
	/* The constants, and the groups no file provided yet, for machine readers too. */
	json_t *mc = json_object_get(j, "model_constants");

	CU_ASSERT_EQUAL(json_array_size(json_object_get(mc, "constants")), k.n);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(
		json_object_get(mc, "not_yet_emitted"), 1), "group")), "SD card timing");
	json_t *list = json_object_get(j, "findings");

	CU_ASSERT_EQUAL(json_array_size(list), PL_S6_FINDINGS);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "reproduced")), f.reproduced);
	/* No null anywhere in the findings. */
	char *text = json_dumps(j, 0);

	CU_ASSERT_PTR_NULL(strstr(text, "null"));
	free(text);
	json_decref(j);
	snprintf(path, sizeof(path), "%s/findings.md", dir);
	text = read_text(path);
	/* The constants table comes first, and a missing group says whose file it waits for. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "## Model constants"));
	CU_ASSERT(strstr(text, "## Model constants") < strstr(text, "## Findings"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "| network | Wi-Fi RTT | 50 ms | a cited paper |"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "| SD card timing | (none) | not yet emitted"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "| Table 5 power | power at 1200 MHz | CPU 1600 mW,"
					    " system 2260 mW |"));
	/* The two DVFS-size findings fail here, each explained with the breakdown's numbers. */
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "- **dvfs-p96-dual**: c2-on's taps at or above its p96"));
	free(text);
	snprintf(path, sizeof(path), "%s/breakdown.md", dir);
	text = read_text(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "sdcardd (77)"));
	free(text);
	snprintf(path, sizeof(path), "%s/energy.md", dir);
	text = read_text(path);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "| c1-on | 9000.0 | 5000.0 |"));
	free(text);

	/* The determinism repeat: identical files (summary.json but its run_id), then one differs. */
	static const char *const files[] = { "trace.bin", "ground_truth.txt", "cpu_time.txt",
					     "transactions.csv" };
	char rep_a[1100], rep_b[1100], file[1300];
	struct pl_s6_repeat repeat = { "c1-on", rep_a, rep_b };

	snprintf(rep_a, sizeof(rep_a), "%s/rep-a", test_tmpdir());
	snprintf(rep_b, sizeof(rep_b), "%s/rep-b", test_tmpdir());
	CU_ASSERT_EQUAL(mkdir(rep_a, 0777), 0);
	CU_ASSERT_EQUAL(mkdir(rep_b, 0777), 0);
	for (int i = 0; i < 4; i++) {
		snprintf(file, sizeof(file), "%s/%s", rep_a, files[i]);
		write_text(file, "same bytes\n");
		snprintf(file, sizeof(file), "%s/%s", rep_b, files[i]);
		write_text(file, "same bytes\n");
	}
	snprintf(file, sizeof(file), "%s/summary.json", rep_a);
	write_text(file, "{\"run_id\": \"a\", \"matched\": 3}");
	snprintf(file, sizeof(file), "%s/summary.json", rep_b);
	write_text(file, "{\"matched\": 3, \"run_id\": \"b\"}");
	CU_ASSERT_FATAL(pl_s6_write(db, &d, &f, &k, &repeat, 200, 3, dir, &err) == 0);
	snprintf(path, sizeof(path), "%s/findings.json", dir);
	j = json_load_file(path, 0, NULL);
	CU_ASSERT(json_is_true(json_object_get(json_object_get(j, "determinism"), "identical")));
	json_decref(j);
	snprintf(file, sizeof(file), "%s/transactions.csv", rep_b);
	write_text(file, "other bytes\n");
	CU_ASSERT(pl_s6_write(db, &d, &f, &k, &repeat, 200, 3, dir, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "c1-on run twice differs in transactions.csv"));

	/* The bench: host seconds per virtual second over the four runs' folders. */
	char runs[1100];

	snprintf(runs, sizeof(runs), "%s/out", test_tmpdir());
	CU_ASSERT_EQUAL(mkdir(runs, 0777), 0);
	snprintf(file, sizeof(file), "%s/s6", runs);
	CU_ASSERT_EQUAL(mkdir(file, 0777), 0);
	for (int c = 0; c < PL_S6_CONFIGS; c++) {
		snprintf(file, sizeof(file), "%s/%s", runs, d.runs[c].run_id);
		CU_ASSERT_EQUAL(mkdir(file, 0777), 0);
		snprintf(file, sizeof(file), "%s/%s/host-wall-s.txt", runs, d.runs[c].run_id);
		write_text(file, c == 0 ? "100.0\n" : "300\n");
		snprintf(file, sizeof(file), "%s/%s/ground_truth.txt", runs, d.runs[c].run_id);
		write_text(file, "panlab-ground-truth 1\nready 1000\nend 200000000000\n");
	}
	snprintf(path, sizeof(path), "%s/section6.json", test_tmpdir());
	CU_ASSERT_FATAL(pl_s6_write_bench(runs, &d, 1234, path, &err) == 0);
	j = json_load_file(path, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(j);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(j, "host_s_per_virtual_s")), 1.25, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(j, "wall_s")), 1234, 1e-9);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(j, "taps_per_configuration"),
							   "c2-on")), NTAPS);
	json_decref(j);
	snprintf(file, sizeof(file), "%s/%s/host-wall-s.txt", runs, d.runs[PL_C2_OFF].run_id);
	write_text(file, "soon\n");
	CU_ASSERT(pl_s6_write_bench(runs, &d, 1, path, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "host-wall-s.txt:1: expected the run's host seconds"));

	/* A configuration with two runs, or none, is an error naming it. */
	sqlite3 *h;

	CU_ASSERT_FATAL(sqlite3_open(db, &h) == SQLITE_OK);
	exec_sql(h, "UPDATE runs SET freq_mhz = NULL, governor = 'interactive'"
		    " WHERE run_id = 's6/c2-off'");
	sqlite3_close(h);
	pl_s6_data_free(&d);
	CU_ASSERT(pl_s6_read_db(db, "s6", &d, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "are both c2-on"));
	CU_ASSERT(pl_s6_read_db(db, "nothing", &d, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no ok run of c1-on"));
	pl_s6_constants_free(&k);
	pl_s6_data_free(&made);
}

static void test_constants_errors(void)
{
	struct pl_s6_constants k = { 0 };
	struct pl_error err;
	char path[1100];

	snprintf(path, sizeof(path), "%s/bad.tsv", test_tmpdir());
	write_text(path, "# a comment\n\nnetwork\tRTT\t50 ms\n");
	CU_ASSERT(pl_s6_constants_read(path, &k, &err) < 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad.tsv:3: expected 4 non-empty"));
	pl_s6_constants_free(&k);
}

void add_findings_tests(void)
{
	CU_pSuite s = CU_add_suite("findings", NULL, NULL);

	CU_add_test(s, "reproduction rules on constructed intervals", test_rules);
	CU_add_test(s, "six findings on configurations with known effects",
		    test_findings_known_effects);
	CU_add_test(s, "findings are seeded and deterministic", test_findings_seeded);
	CU_add_test(s, "a finding that cannot be computed", test_findings_not_computable);
	CU_add_test(s, "results database to findings.json, findings.md and the tables",
		    test_findings_database);
	CU_add_test(s, "model-constants file errors", test_constants_errors);
}
