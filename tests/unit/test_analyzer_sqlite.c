/* SPDX-License-Identifier: MIT */
/*
 * export_sqlite.c: a real run's model written to SQLite and read back with
 * SQL: every table holds what the model holds, critical-path steps sum to
 * each latency, the breakdown with the ground-truth segments sums to the
 * ground-truth latency, a second write of the run replaces its rows, two
 * runs share one file, and an unwritable path is one error naming it.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "panlab/energy.h"
#include "panlab/export_sqlite.h"
#include "panlab/ground_truth.h"
#include "panlab/validate.h"
#include "test_analyzer.h"

/* The first column of the first row of sql, as an integer (-1 on error). */
static long long query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

struct run {
	struct model m;
	struct pl_ground_truth gt;
	struct pl_validation v;
	struct pl_energy e;
	struct pl_symbols sym;
	struct pl_analysis a;
};

static void run_load(struct run *r, const char *fixture, const char *run_id)
{
	char path[512];
	struct pl_error err;

	snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.trace.bin", fixture);
	CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(path, &r->m.trace, &err), 0);
	snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.gt", fixture);
	CU_ASSERT_EQUAL_FATAL(pl_ground_truth_read_file(path, &r->gt, &err), 0);
	pl_model_build(&r->m.trace, &r->m.s);
	pl_validate(&r->m.s.tx, &r->gt, &r->v);
	pl_energy_build(&r->m.trace, &r->m.s.tx, &pl_power_galaxy_nexus, &r->e);
	/* No guest binaries in the unit tests: frames stay addresses. */
	CU_ASSERT_EQUAL_FATAL(pl_symbols_build(&r->m.s.tasks, &r->m.s.iv, NULL, &r->sym, &err), 0);
	r->a = (struct pl_analysis){
		.backend = "qemu",
		.workload = fixture,
		.run_id = run_id,
		.trace = &r->m.trace,
		.gt = &r->gt,
		.iv = &r->m.s.iv,
		.graph = &r->m.s.graph,
		.tx = &r->m.s.tx,
		.cp = &r->m.s.cp,
		.bd = &r->m.s.bd,
		.qs = &r->m.s.qs,
		.ag = &r->m.s.ag,
		.te = &r->m.s.te,
		.val = &r->v,
		.energy = &r->e,
		.tasks = &r->m.s.tasks,
		.diag = &r->m.s.diag,
		.symbols = &r->sym,
	};
}

static void run_free(struct run *r)
{
	pl_validation_free(&r->v);
	pl_energy_free(&r->e);
	pl_symbols_free(&r->sym);
	pl_ground_truth_free(&r->gt);
	model_free(&r->m);
}

static void test_sqlite_model(void)
{
	char path[512], sql[512];
	struct pl_error err;
	struct run r, s;
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/model.sqlite", test_tmpdir());
	remove(path);
	run_load(&r, "qemu-service", "svc");
	run_load(&s, "qemu-asynctask", "atk");
	CU_ASSERT_EQUAL(pl_export_write_sqlite(&r.a, path, &err), 0);
	CU_ASSERT_EQUAL(pl_export_write_sqlite(&s.a, path, &err), 0);
	CU_ASSERT_EQUAL(pl_export_write_sqlite(&r.a, path, &err), 0);	/* replaces, not appends */
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);

	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM threads WHERE run_id = 'svc'"),
			(long long)r.m.s.iv.nthreads);
	/* Every record with a tid is one of its thread's events. */
	uint64_t with_tid = 0;

	for (uint64_t e = 0; e < r.m.trace.nevents; e++)
		with_tid += r.m.trace.events[e].tid != 0;
	CU_ASSERT_EQUAL(query_int(db, "SELECT sum(events) FROM threads WHERE run_id = 'svc'"),
			(long long)with_tid);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM intervals WHERE run_id = 'svc'"),
			(long long)r.m.s.iv.nintervals);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM edges WHERE run_id = 'svc'"),
			(long long)r.m.s.graph.nedges);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM transactions WHERE run_id = 'svc'"),
			(long long)r.m.s.tx.count);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM transactions WHERE run_id = 'atk'"),
			(long long)s.m.s.tx.count);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM critical_path WHERE run_id = 'svc'"),
			(long long)r.m.s.cp.first_step[r.m.s.cp.count]);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM validation"), 2);
	/* Energy: the run's total and one row per transaction, which the run's total bounds. */
	CU_ASSERT_EQUAL(query_int(db, "SELECT system_uj FROM energy WHERE run_id = 'svc' AND tx_id IS NULL"),
			(long long)(r.e.energy_pj / 1000000));
	CU_ASSERT(r.e.energy_pj > 0);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM energy WHERE run_id = 'svc' AND tx_id IS NOT NULL"),
			(long long)r.m.s.tx.count);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM energy e JOIN energy t ON t.run_id = e.run_id"
				      " WHERE e.run_id = 'svc' AND e.tx_id IS NULL AND t.tx_id IS NOT NULL"
				      " AND t.system_uj > e.system_uj"), 0);
	snprintf(sql, sizeof(sql), "SELECT matched FROM validation WHERE run_id = 'svc'");
	CU_ASSERT_EQUAL(query_int(db, sql), (long long)r.v.matched);
	/* Each path's steps tile its latency; no transaction's sum differs. */
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM (SELECT t.latency_ns - sum(c.duration_ns) AS d"
				      " FROM transactions t JOIN critical_path c USING (run_id, tx_id)"
				      " GROUP BY run_id, tx_id) WHERE d != 0"), 0);
	/* Breakdown plus the pipeline segments = detected latency, input to pixels, per matched row. */
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM (SELECT v.truth_latency_ns + v.difference_ns - sum(b.ns) AS d"
				      " FROM validation_rows v JOIN breakdown b USING (run_id, tx_id)"
				      " GROUP BY v.run_id, v.tx_id) WHERE d != 0"), 0);
	CU_ASSERT(query_int(db, "SELECT count(*) FROM validation_rows WHERE tx_id IS NOT NULL") > 0);
	/* Preemption by thread sums to the run's preempted time; every input has its kind. */
	uint64_t preempted = 0;

	for (uint32_t i = 0; i < r.m.s.bd.npreempters; i++)
		preempted += r.m.s.bd.preempted_ns[i];
	CU_ASSERT_EQUAL(query_int(db, "SELECT coalesce(sum(ns), 0) FROM preemption WHERE run_id = 'svc'"),
			(long long)preempted);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM (SELECT 1 FROM preemption p JOIN breakdown b"
				      " USING (run_id, tx_id) WHERE b.category = 'runnable'"
				      " GROUP BY run_id, tx_id HAVING sum(p.ns) > max(b.ns))"), 0);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM validation_rows WHERE input IS NOT NULL"
				      " AND input_kind NOT IN ('tap', 'key')"), 0);
	CU_ASSERT(query_int(db, "SELECT count(*) FROM validation_rows WHERE input_kind = 'tap'") > 0);
	/* The run total of frequency residency is the breakdown's running time. */
	CU_ASSERT_EQUAL(query_int(db, "SELECT sum(running_ns) FROM freq_residency"
				      " WHERE run_id = 'svc' AND tx_id IS NULL"),
			(long long)r.m.s.bd.total_ns[PL_CAT_RUNNING]);
	/* Counts: a qemu trace has no SWITCH_COUNTS and no frequency, so all are NULL; only the
	 * running row of a breakdown would carry them. */
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(instructions) + count(cycles) FROM intervals"), 0);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(instructions) FROM threads"), 0);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(instructions) + count(cycles) + count(mhz)"
				      " FROM breakdown"), 0);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(mhz) FROM critical_path"), 0);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM intervals WHERE run_id = 'svc'"
				      " AND kind = 'binder'"),
			query_int(db, "SELECT count(*) FROM intervals WHERE run_id = 'svc'"
				      " AND kind = 'binder' AND item_id IS NOT NULL"));
	sqlite3_close(db);

	/* A database that cannot be created: one line naming the file. */
	snprintf(path, sizeof(path), "%s/no-such-dir/model.sqlite", test_tmpdir());
	CU_ASSERT_EQUAL(pl_export_write_sqlite(&r.a, path, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, path));
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	run_free(&r);
	run_free(&s);
}

/*
 * The runs row by column name: pending, then ok with the run's model merged
 * in one step; a second record replaces both; a file that is no model is
 * refused and the row is left as it was.
 */
static void test_record_run(void)
{
	char db_path[512], model[512];
	struct pl_error err;
	struct run r;
	sqlite3 *db, *other;
	struct pl_run_row row = {
		.run_id = "x/svc-phone-r1",
		.experiment = "x",
		.config = "phone",
		.backend = "phone",
		.workload = "service",
		.has_cores = 1,
		.cores = 1,
		.governor = "interactive",
		.has_trace = 1,
		.trace = 1,
		.has_repetition = 1,
		.repetition = 1,
		.input_hash = "abc",
		.status = "pending",
	};

	snprintf(db_path, sizeof(db_path), "%s/results-record.sqlite", test_tmpdir());
	snprintf(model, sizeof(model), "%s/record-model.sqlite", test_tmpdir());
	remove(db_path);
	remove(model);
	run_load(&r, "qemu-service", "x/svc-phone-r1");
	CU_ASSERT_EQUAL_FATAL(pl_export_write_sqlite(&r.a, model, &err), 0);
	CU_ASSERT_EQUAL_FATAL(pl_sqlite_record_run(db_path, &row, NULL, &err), 0);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(db_path, &db), SQLITE_OK);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM runs WHERE status = 'pending' AND"
				      " cores = 1 AND governor = 'interactive' AND freq_mhz IS NULL"
				      " AND trace = 1 AND wall_s IS NULL"),
			1);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM threads"), 0);
	row.status = "ok";
	row.has_wall_s = 1;
	row.wall_s = 12.5;
	row.finished_at = "2026-01-01T00:00:00Z";
	for (int i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(pl_sqlite_record_run(db_path, &row, model, &err), 0);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM runs"), 1);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM runs WHERE status = 'ok' AND"
				      " wall_s = 12.5 AND finished_at = '2026-01-01T00:00:00Z'"),
			1);
	CU_ASSERT_EQUAL(query_int(db,
				  "SELECT count(*) FROM threads WHERE run_id = 'x/svc-phone-r1'"),
			(long long)r.m.s.iv.nthreads);
	CU_ASSERT_EQUAL(query_int(db, "SELECT transactions FROM validation"),
			(long long)r.v.transactions);
	row.status = "failed";
	snprintf(model, sizeof(model), "%s/record-not-a-model.txt", test_tmpdir());
	write_text(model, "not a database\n");
	CU_ASSERT_EQUAL(pl_sqlite_record_run(db_path, &row, model, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a run's model (no validation table)"));
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'"), 1);
	/* Another build's files, by their schema version: one line each, nothing written. */
	snprintf(model, sizeof(model), "%s/record-model.sqlite", test_tmpdir());
	CU_ASSERT_EQUAL(query_int(db, "PRAGMA user_version"), 3);
	CU_ASSERT_EQUAL(sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
	CU_ASSERT_EQUAL(pl_export_write_sqlite(&r.a, db_path, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ": a results database of schema version 1,"
					       " expected 3 (written by another panlab build)"));
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
	CU_ASSERT_EQUAL(sqlite3_exec(db, "PRAGMA user_version = 3", NULL, NULL, NULL), SQLITE_OK);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(model, &other), SQLITE_OK);
	CU_ASSERT_EQUAL(sqlite3_exec(other, "PRAGMA user_version = 4", NULL, NULL, NULL),
			SQLITE_OK);
	sqlite3_close(other);
	CU_ASSERT_EQUAL(pl_sqlite_record_run(db_path, &row, model, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "record-model.sqlite: a results database of schema"
					       " version 4, expected 3"));
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM runs WHERE status = 'ok'"), 1);
	CU_ASSERT_TRUE(pl_run_status_valid("running"));
	CU_ASSERT_FALSE(pl_run_status_valid("done"));
	sqlite3_close(db);
	run_free(&r);
}

/*
 * DiagDroid's tables from a phone run of app-iconlist (trace version 2, two taps): every task
 * and context, the dependency sets, and the groups ranked as diagnosis.c ranks them: the icon
 * loads first (capacity 1, waits behind the list), the list downloads their root cause.
 */
static void test_sqlite_diagnosis(void)
{
	char path[512];
	struct pl_error err;
	struct run r;
	sqlite3 *db;

	snprintf(path, sizeof(path), "%s/diagnosis.sqlite", test_tmpdir());
	remove(path);
	run_load(&r, "phone-iconlist", "icons");
	CU_ASSERT_EQUAL(r.m.trace.version, 2);
	CU_ASSERT_EQUAL(pl_export_write_sqlite(&r.a, path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
	const struct pl_tasks *t = &r.m.s.tasks;
	uint64_t deps = 0;

	for (uint64_t k = 0; k < t->count; k++)
		deps += t->tasks[k].ndeps;
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM tasks"), (long long)t->count);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM contexts"), (long long)t->ncontexts);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM task_dependencies"), (long long)deps);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM groups"),
			(long long)r.m.s.diag.ngroups);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM tasks WHERE context_id IS NULL"), 0);
	/* 2 taps x 4 icon loads on the serial executor; the last two of each wait 500 ms or more. */
	CU_ASSERT_EQUAL(query_int(db, "SELECT suspicious + 10 * capacity + 100 * long_waits"
				      " FROM groups WHERE group_id = 1"),
			1 + 10 + 400);
	CU_ASSERT_EQUAL(query_int(db,
				  "SELECT count(*) FROM tasks t JOIN contexts c USING"
				  " (run_id, context_id) WHERE c.group_id = 1 AND t.kind = 'task'"),
			8);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM groups WHERE suspicious"), 1);
	CU_ASSERT_EQUAL(query_int(db, "SELECT root_cause FROM groups WHERE group_id = 1"), 2);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM tasks t JOIN contexts c USING"
				      " (run_id, context_id) WHERE c.group_id = 2"),
			2);
	/* Each long wait's dependency holds its list download, on the same unit, started first. */
	CU_ASSERT_EQUAL(
		query_int(db, "SELECT count(*) FROM tasks w JOIN contexts c USING"
			      " (run_id, context_id) WHERE c.group_id = 1 AND w.queuing_ns >="
			      " 500000000 AND NOT EXISTS (SELECT 1 FROM task_dependencies d"
			      " JOIN tasks l ON l.run_id = d.run_id AND l.task_id = d.waited_for"
			      " JOIN contexts lc ON lc.run_id = l.run_id AND lc.context_id ="
			      " l.context_id WHERE d.run_id = w.run_id AND d.task_id = w.task_id"
			      " AND lc.group_id = 2 AND l.unit_id = w.unit_id"
			      " AND l.started_ns < w.started_ns)"),
		0);
	CU_ASSERT_EQUAL(query_int(db, "SELECT count(*) FROM contexts WHERE frame0 NOT LIKE '0x%'"),
			0);
	sqlite3_close(db);
	run_free(&r);
}

void add_sqlite_tests(void)
{
	CU_pSuite s = CU_add_suite("export_sqlite", NULL, NULL);

	CU_add_test(s, "a real run's model in SQL, checked by queries", test_sqlite_model);
	CU_add_test(s, "a runs row by column name, with the run's model", test_record_run);
	CU_add_test(s, "DiagDroid's tasks, contexts and groups in SQL", test_sqlite_diagnosis);
}
