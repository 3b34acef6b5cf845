/* SPDX-License-Identifier: MIT */
/*
 * export_sqlite.c: the model of one run -> SQLite tables (see
 * panlab/export_sqlite.h). The last stage besides the JSON and CSV reports;
 * it reads the model and writes, nothing flows back.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "panlab/energy.h"
#include "panlab/export_sqlite.h"

const char pl_sqlite_schema[] =
	"-- panlab results database (analyzer/export_sqlite.c). Times are guest ns\n"
	"-- (CLOCK_MONOTONIC of the trace) unless named _s; tx_id is the transaction's\n"
	"-- index in the run (transactions.csv transaction_id).\n"
	"CREATE TABLE IF NOT EXISTS runs (       -- one row per run of an experiment (scripts/experiment.sh)\n"
	"  run_id TEXT PRIMARY KEY,\n"
	"  experiment TEXT,                       -- the spec's name\n"
	"  config TEXT,                           -- the configuration: every axis but the repetition\n"
	"  backend TEXT, workload TEXT,\n"
	"  cores INTEGER, governor TEXT, freq_mhz INTEGER, -- NULL: the backend's default\n"
	"  trace INTEGER,                         -- 1 traced, 0 tracer off\n"
	"  repetition INTEGER,                    -- 1..N\n"
	"  options TEXT,                          -- the workload's extra run-experiment.sh options\n"
	"  input_hash TEXT,                       -- sha256 of guest build, script, options: resume key\n"
	"  status TEXT,                           -- pending, running, ok, failed\n"
	"  reason TEXT,                           -- a failed run's last error line\n"
	"  wall_s REAL,                           -- host seconds of the run\n"
	"  finished_at TEXT);                     -- UTC\n"
	"CREATE TABLE IF NOT EXISTS validation ( -- one row per analysed run (summary.json)\n"
	"  run_id TEXT PRIMARY KEY, backend TEXT, workload TEXT,\n"
	"  inputs INTEGER, transactions INTEGER, matched INTEGER,\n"
	"  precision REAL, recall REAL,           -- NULL when the denominator is 0\n"
	"  latency_error_max_ns INTEGER, latency_error_mean_ns INTEGER,\n"
	"  events INTEGER, events_lost INTEGER, skew_repaired INTEGER,\n"
	"  shape_ok INTEGER);                     -- the declared structure held (NULL: not checked)\n"
	"CREATE TABLE IF NOT EXISTS threads (\n"
	"  run_id TEXT, tid INTEGER, parent_tid INTEGER, tgid INTEGER, name TEXT,\n"
	"  first_ns INTEGER, last_ns INTEGER,\n"
	"  instructions INTEGER,                  -- its traced slices' SWITCH_COUNTS summed, whole\n"
	"                                         -- (NULL: none in the trace)\n"
	"  events INTEGER,                        -- records with its tid (logged in its context)\n"
	"  PRIMARY KEY (run_id, tid));\n"
	"CREATE TABLE IF NOT EXISTS intervals (  -- per-thread execution intervals (intervals.c)\n"
	"  run_id TEXT, interval_id INTEGER, tid INTEGER,\n"
	"  kind TEXT,                             -- message task binder input implicit native resumed\n"
	"  end_reason TEXT,                       -- marker next exit trace wait\n"
	"  queue_id INTEGER, item_id INTEGER,     -- message/task: queue or executor, item; binder: id\n"
	"  start_ns INTEGER, end_ns INTEGER, events INTEGER,\n"
	"  instructions INTEGER, counted_ns INTEGER, -- what its running time executed, as in\n"
	"  cycles INTEGER,                        -- critical_path\n"
	"  PRIMARY KEY (run_id, interval_id));\n"
	"CREATE TABLE IF NOT EXISTS edges (      -- causal edges (graph.c), events by trace index\n"
	"  run_id TEXT, kind TEXT, from_event INTEGER, to_event INTEGER,\n"
	"  from_tid INTEGER, to_tid INTEGER, from_ns INTEGER, to_ns INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS transactions (\n"
	"  run_id TEXT, tx_id INTEGER, input_id INTEGER,\n"
	"  input_ns INTEGER, end_ns INTEGER, latency_ns INTEGER, first_update_ns INTEGER,\n"
	"  updates INTEGER, chained_frames INTEGER, animation INTEGER,\n"
	"  threads INTEGER, intervals INTEGER, events INTEGER,\n"
	"  critical_path TEXT,                    -- its shape, e.g. task>message>invalidate\n"
	"  outlier INTEGER, top_preempter_tid INTEGER,\n"
	"  PRIMARY KEY (run_id, tx_id));\n"
	"CREATE TABLE IF NOT EXISTS validation_rows ( -- ground truth x transactions (validate.c)\n"
	"  run_id TEXT, input INTEGER, tx_id INTEGER, -- either may be NULL: unmatched\n"
	"  truth_in_ns INTEGER, truth_out_ns INTEGER, truth_latency_ns INTEGER,\n"
	"  difference_ns INTEGER, input_dispatch_ns INTEGER, display_pipeline_ns INTEGER,\n"
	"  input_kind TEXT);                      -- tap or key (ground truth); NULL: no input\n"
	"CREATE TABLE IF NOT EXISTS critical_path ( -- steps tile input_ns..end_ns (critical_path.c)\n"
	"  run_id TEXT, tx_id INTEGER, step INTEGER,\n"
	"  kind TEXT,                             -- temporal (one thread's time) or the causal edge\n"
	"  from_tid INTEGER, to_tid INTEGER, from_ns INTEGER, to_ns INTEGER, duration_ns INTEGER,\n"
	"  instructions INTEGER, counted_ns INTEGER, -- what its running time executed (breakdown.h\n"
	"  cycles INTEGER,                        -- pl_counts); NULL: no SWITCH_COUNTS, no frequency\n"
	"  mhz REAL,                              -- effective frequency: cycles over clocked time\n"
	"  PRIMARY KEY (run_id, tx_id, step));\n"
	"CREATE TABLE IF NOT EXISTS breakdown (  -- per transaction and category (breakdown.c); with\n"
	"  run_id TEXT, tx_id INTEGER,            -- input_dispatch and display_pipeline (matched\n"
	"  category TEXT, ns INTEGER,             -- rows) they sum to the detected latency\n"
	"  instructions INTEGER, counted_ns INTEGER, -- running only: the critical path's counts,\n"
	"  cycles INTEGER, mhz REAL,              -- as in critical_path; NULL for other categories\n"
	"  PRIMARY KEY (run_id, tx_id, category));\n"
	"CREATE TABLE IF NOT EXISTS preemption ( -- critical-path wait for a cpu, by the thread that\n"
	"  run_id TEXT, tx_id INTEGER,            -- held it (breakdown.c); tid >= 4294901760: an\n"
	"  tid INTEGER, ns INTEGER,               -- idle cpu's handler or idle exit, by name:\n"
	"  name TEXT,                             -- pl_holder_name (a thread's: its last name)\n"
	"  PRIMARY KEY (run_id, tx_id, tid));\n"
	"CREATE TABLE IF NOT EXISTS freq_residency ( -- critical-path running time by cpu frequency\n"
	"  run_id TEXT, tx_id INTEGER,            -- NULL: the run's total\n"
	"  khz INTEGER, running_ns INTEGER);      -- 0 kHz: before any CPU_FREQUENCY event\n"
	"CREATE TABLE IF NOT EXISTS energy (     -- energy.c: the phone (Table 5 model), in uJ\n"
	"  run_id TEXT, tx_id INTEGER,            -- NULL: the run's total\n"
	"  cpu_uj INTEGER, system_uj INTEGER);    -- cpu_uj: the run's total only\n"
	"CREATE TABLE IF NOT EXISTS contexts (   -- DiagDroid's execution contexts (tasks.c, symbols.c)\n"
	"  run_id TEXT, context_id INTEGER, pid INTEGER,\n"
	"  frame0 TEXT, frame1 TEXT, frame2 TEXT, frame3 TEXT, -- innermost first: function+0xoffset\n"
	"  binary TEXT,                           -- the guest binary symbolised (NULL: addresses)\n"
	"  group_id INTEGER,                      -- its group's rank (groups)\n"
	"  PRIMARY KEY (run_id, context_id));\n"
	"CREATE TABLE IF NOT EXISTS tasks (      -- every executor task and looper message (tasks.c)\n"
	"  run_id TEXT, task_id INTEGER,\n"
	"  kind TEXT,                             -- task or message\n"
	"  pid INTEGER, unit_id INTEGER, item_id INTEGER, -- executor or queue id; task or message id\n"
	"  context_id INTEGER,                    -- NULL: no TASK_CONTEXT (trace version 1)\n"
	"  submit_event INTEGER, start_event INTEGER, -- trace indices; start NULL: never started\n"
	"  scheduled_ns INTEGER, started_ns INTEGER, ended_ns INTEGER,\n"
	"  queuing_ns INTEGER, execution_ns INTEGER,\n"
	"  queue_length INTEGER,                  -- unfinished tasks of the unit when scheduled\n"
	"  capacity INTEGER,                      -- the unit's pool capacity (NULL: not logged)\n"
	"  PRIMARY KEY (run_id, task_id));\n"
	"CREATE TABLE IF NOT EXISTS task_dependencies ( -- the tasks a task waited for (tasks.c)\n"
	"  run_id TEXT, task_id INTEGER, waited_for INTEGER);\n"
	"CREATE TABLE IF NOT EXISTS groups (     -- contexts clustered and ranked (diagnosis.c)\n"
	"  run_id TEXT, group_id INTEGER,         -- rank: suspicious first, by max(M_q, M_e)\n"
	"  pid INTEGER, context_id INTEGER,       -- its most frequent context\n"
	"  contexts INTEGER, tasks INTEGER,\n"
	"  max_queuing_ns INTEGER, max_execution_ns INTEGER, -- M_q, M_e\n"
	"  capacity INTEGER, suspicious INTEGER,  -- M_q or M_e >= 500 ms\n"
	"  long_waits INTEGER,                    -- its tasks with queuing time >= 500 ms\n"
	"  avg_queue_length REAL,                 -- over those (NULL: none)\n"
	"  in_queue_tasks INTEGER, avg_in_queue_execution_ns INTEGER, -- the tasks they waited for\n"
	"  root_cause INTEGER,                    -- the group those took the most time from\n"
	"  PRIMARY KEY (run_id, group_id));\n";

/* Tables of the model, cleared for a run before it is written again. */
static const char *const model_tables[] = {
	"validation",	"threads",	     "intervals",     "edges",
	"transactions", "validation_rows",   "critical_path", "breakdown",
	"preemption",	"freq_residency",    "energy",	      "contexts",
	"tasks",	"task_dependencies", "groups",
};

struct db {
	sqlite3 *h;
	const char *path;
	struct pl_error *err;
};

static int db_fail(struct db *d)
{
	pl_error_file(d->err, d->path, "sqlite: %s", sqlite3_errmsg(d->h));
	return -1;
}

static int db_exec(struct db *d, const char *sql)
{
	return sqlite3_exec(d->h, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : db_fail(d);
}

/*
 * Binds one row and runs the insert. types: 's' text, 'i' int64_t,
 * 'u' uint64_t (PL_NONE becomes NULL), 'd' double, 'n' NULL (no argument),
 * 'U' int present then uint64_t, 'I' int present then int64_t, 'D' int present
 * then double.
 */
static int db_row(struct db *d, sqlite3_stmt *st, const char *types, ...)
{
	va_list ap;
	int i = 1, rc = SQLITE_OK;

	va_start(ap, types);
	for (const char *t = types; *t && rc == SQLITE_OK; t++, i++) {
		int present = 1;
		uint64_t u;
		int64_t i64;
		double x;

		switch (*t) {
		case 's': rc = sqlite3_bind_text(st, i, va_arg(ap, const char *), -1, SQLITE_TRANSIENT); break;
		case 'i': rc = sqlite3_bind_int64(st, i, va_arg(ap, int64_t)); break;
		case 'U': present = va_arg(ap, int); /* fall through */
		case 'u':
			u = va_arg(ap, uint64_t);
			rc = present && u != PL_NONE ? sqlite3_bind_int64(st, i, (sqlite3_int64)u)
						     : sqlite3_bind_null(st, i);
			break;
		case 'I':
			present = va_arg(ap, int);
			i64 = va_arg(ap, int64_t);
			rc = present ? sqlite3_bind_int64(st, i, i64) : sqlite3_bind_null(st, i);
			break;
		case 'D': present = va_arg(ap, int); /* fall through */
		case 'd':
			x = va_arg(ap, double);
			rc = present ? sqlite3_bind_double(st, i, x) : sqlite3_bind_null(st, i);
			break;
		default: rc = sqlite3_bind_null(st, i); break;
		}
	}
	va_end(ap);
	if (rc == SQLITE_OK && sqlite3_step(st) != SQLITE_DONE)
		rc = SQLITE_ERROR;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_OK ? 0 : db_fail(d);
}

static sqlite3_stmt *db_prepare(struct db *d, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(d->h, sql, -1, &st, NULL) != SQLITE_OK)
		db_fail(d);
	return st;
}

static const char *interval_kind_name(enum pl_interval_kind k)
{
	switch (k) {
	case PL_IV_MESSAGE: return "message";
	case PL_IV_TASK: return "task";
	case PL_IV_BINDER: return "binder";
	case PL_IV_INPUT: return "input";
	case PL_IV_IMPLICIT: return "implicit";
	case PL_IV_NATIVE: return "native";
	case PL_IV_RESUMED: return "resumed";
	}
	return "unknown";
}

static const char *interval_end_name(enum pl_interval_end e)
{
	switch (e) {
	case PL_END_MARKER: return "marker";
	case PL_END_NEXT: return "next";
	case PL_END_EXIT: return "exit";
	case PL_END_TRACE: return "trace";
	case PL_END_WAIT: return "wait";
	}
	return "unknown";
}

static int write_validation(struct db *d, const struct pl_analysis *a)
{
	sqlite3_stmt *st = db_prepare(d, "INSERT INTO validation VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	const struct pl_validation *v = a->val;
	int rc;

	if (!st)
		return -1;
	rc = db_row(d, st, "sssuuuDDUUuuuU", a->run_id, a->backend, a->workload, v->inputs,
		    v->transactions, v->matched, (int)v->has_precision, v->precision,
		    (int)v->has_recall, v->recall, v->error_ns.n > 0, (uint64_t)v->error_ns.max,
		    v->error_ns.n > 0, (uint64_t)v->error_ns.mean, a->trace->nevents,
		    a->trace->events_lost, a->trace->skew_repaired, a->expect != NULL,
		    (uint64_t)(a->expect && a->expect->ok));
	sqlite3_finalize(st);
	return rc;
}

static int write_threads_intervals(struct db *d, const struct pl_analysis *a)
{
	sqlite3_stmt *th = db_prepare(d, "INSERT INTO threads VALUES (?,?,?,?,?,?,?,?,?)");
	sqlite3_stmt *in =
		db_prepare(d, "INSERT INTO intervals VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
	int rc = th && in ? 0 : -1;

	for (uint32_t i = 0; rc == 0 && i < a->iv->nthreads; i++) {
		const struct pl_thread *t = &a->iv->threads[i];

		rc = db_row(d, th, "suuusuuUu", a->run_id, (uint64_t)t->tid,
			    (uint64_t)t->parent_tid, (uint64_t)t->tgid, t->name, t->first_ns,
			    t->last_ns, a->bd->counted, t->instructions, t->events);
	}
	for (uint64_t i = 0; rc == 0 && i < a->iv->nintervals; i++) {
		const struct pl_interval *v = &a->iv->intervals[i];
		const struct pl_counts *n = &a->bd->interval_counts[i];
		int queued = v->kind == PL_IV_MESSAGE || v->kind == PL_IV_TASK;
		int c = a->bd->counted;

		rc = db_row(d, in, "suussUUuuuUUU", a->run_id, i,
			    (uint64_t)a->iv->threads[v->thread].tid, interval_kind_name(v->kind),
			    interval_end_name(v->end), queued, (uint64_t)v->queue_id,
			    queued || v->kind == PL_IV_BINDER, v->item_id, v->start_ns, v->end_ns,
			    v->nevents, c, n->instructions, c, n->counted_ns, n->clocked_ns != 0,
			    n->khz_ns / 1000000);
	}
	sqlite3_finalize(th);
	sqlite3_finalize(in);
	return rc;
}

static int write_edges(struct db *d, const struct pl_analysis *a)
{
	sqlite3_stmt *st = db_prepare(d, "INSERT INTO edges VALUES (?,?,?,?,?,?,?,?)");
	int rc = st ? 0 : -1;

	for (uint64_t i = 0; rc == 0 && i < a->graph->nedges; i++) {
		const struct pl_edge *e = &a->graph->edges[i];
		const struct pl_event *from = &a->trace->events[e->from_event];
		const struct pl_event *to = &a->trace->events[e->to_event];

		rc = db_row(d, st, "ssuuuuuu", a->run_id, pl_edge_kind_name(e->kind), e->from_event,
			    e->to_event, (uint64_t)from->tid, (uint64_t)to->tid, from->ts_ns, to->ts_ns);
	}
	sqlite3_finalize(st);
	return rc;
}

static int write_transactions(struct db *d, const struct pl_analysis *a)
{
	sqlite3_stmt *tx = db_prepare(d, "INSERT INTO transactions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	sqlite3_stmt *cp =
		db_prepare(d, "INSERT INTO critical_path VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)");
	sqlite3_stmt *bd = db_prepare(d, "INSERT INTO breakdown VALUES (?,?,?,?,?,?,?,?)");
	sqlite3_stmt *fr = db_prepare(d, "INSERT INTO freq_residency VALUES (?,?,?,?)");
	sqlite3_stmt *pr = db_prepare(d, "INSERT INTO preemption VALUES (?,?,?,?,?)");
	int rc = tx && cp && bd && fr && pr ? 0 : -1;

	for (uint64_t k = 0; rc == 0 && k < a->tx->count; k++) {
		const struct pl_transaction *t = &a->tx->items[k];
		char shape[256];

		pl_critical_path_shape(a->cp, k, shape, sizeof(shape));
		rc = db_row(d, tx, "suuuuuuuuuuuusuU", a->run_id, k, t->input_id, t->input_ns, t->end_ns,
			    t->latency_ns, t->first_update_ns, (uint64_t)t->nupdates,
			    (uint64_t)t->chained_frames, (uint64_t)t->animation, (uint64_t)t->nthreads,
			    t->nintervals, t->nevents, shape, (uint64_t)a->ag->outlier[k],
			    a->bd->top_preempter_tid[k] != 0, (uint64_t)a->bd->top_preempter_tid[k]);
		for (uint64_t s = a->cp->first_step[k]; rc == 0 && s < a->cp->first_step[k + 1]; s++) {
			const struct pl_step *p = &a->cp->steps[s];
			const struct pl_event *from = &a->trace->events[p->from_event];
			const struct pl_event *to = &a->trace->events[p->to_event];

			const struct pl_counts *n = &a->bd->step_counts[s];
			int c = a->bd->counted;

			rc = db_row(d, cp, "suusuuuuuUUUD", a->run_id, k, s - a->cp->first_step[k],
				    p->kind == PL_EDGE_TEMPORAL ? "temporal" :
								  pl_edge_kind_name(p->kind),
				    (uint64_t)from->tid, (uint64_t)to->tid, from->ts_ns, to->ts_ns,
				    to->ts_ns - from->ts_ns, c, n->instructions, c, n->counted_ns,
				    n->clocked_ns != 0, n->khz_ns / 1000000, n->clocked_ns != 0,
				    pl_counts_mhz(n));
		}
		for (int c = 0; rc == 0 && c < PL_CATEGORIES; c++) {
			const struct pl_counts *n = &a->bd->tx_counts[k];
			int run = c == PL_CAT_RUNNING, counted = run && a->bd->counted;

			rc = db_row(d, bd, "susuUUUD", a->run_id, k, pl_category_name(c),
				    a->bd->ns[k][c], counted, n->instructions, counted, n->counted_ns,
				    run && n->clocked_ns != 0, n->khz_ns / 1000000,
				    run && n->clocked_ns != 0, pl_counts_mhz(n));
		}
		for (uint64_t i = a->bd->tx_freq_first[k]; rc == 0 && i < a->bd->tx_freq_first[k + 1]; i++)
			rc = db_row(d, fr, "suuu", a->run_id, k, (uint64_t)a->bd->tx_freq_khz[i],
				    a->bd->tx_running_ns[i]);
		for (uint64_t i = a->bd->tx_preempt_first[k];
		     rc == 0 && i < a->bd->tx_preempt_first[k + 1]; i++) {
			char name[64];

			rc = db_row(d, pr, "suuus", a->run_id, k, (uint64_t)a->bd->tx_preempter_tid[i],
				    a->bd->tx_preempted_ns[i],
				    pl_holder_name(a->bd, a->iv, a->bd->tx_preempter_tid[i], name,
						   sizeof(name)));
		}
	}
	for (uint32_t i = 0; rc == 0 && i < a->bd->nfreqs; i++)
		rc = db_row(d, fr, "snuu", a->run_id, (uint64_t)a->bd->freq_khz[i],
			    a->bd->running_ns_by_freq[i]);
	/* The trace's segments around the critical path, so a row sums to input-to-pixels latency. */
	for (uint64_t i = 0; rc == 0 && i < a->val->nrows; i++) {
		const struct pl_row *r = &a->val->rows[i];

		if (r->tx == PL_NONE || !r->has_truth)
			continue;
		rc = db_row(d, bd, "susi", a->run_id, r->tx, "input_dispatch", r->input_dispatch_ns);
		if (rc == 0)
			rc = db_row(d, bd, "susi", a->run_id, r->tx, "display_pipeline",
				    r->display_pipeline_ns);
	}
	sqlite3_finalize(tx);
	sqlite3_finalize(cp);
	sqlite3_finalize(bd);
	sqlite3_finalize(fr);
	sqlite3_finalize(pr);
	return rc;
}

static int write_validation_rows(struct db *d, const struct pl_analysis *a)
{
	sqlite3_stmt *st = db_prepare(d, "INSERT INTO validation_rows VALUES (?,?,?,?,?,?,?,?,?,?)");
	int rc = st ? 0 : -1;

	for (uint64_t i = 0; rc == 0 && i < a->val->nrows; i++) {
		const struct pl_row *r = &a->val->rows[i];
		int both = r->tx != PL_NONE && r->has_truth;
		const char *kind = r->input == PL_NONE ? NULL
				   : a->gt->inputs[r->input].kind == PL_INPUT_KEY ? "key" : "tap";

		/* sqlite3_bind_text binds NULL for a NULL kind. */
		rc = db_row(d, st, "suuUUUIIIs", a->run_id, r->input, r->tx,
			    r->input != PL_NONE, r->truth_in_ns, r->has_truth, r->truth_out_ns,
			    r->has_truth, r->truth_latency_ns, both, r->difference_ns,
			    both, r->input_dispatch_ns, both, r->display_pipeline_ns, kind);
	}
	sqlite3_finalize(st);
	return rc;
}

static int write_energy(struct db *d, const struct pl_analysis *a)
{
	const struct pl_energy *e = a->energy;
	sqlite3_stmt *st;
	int rc;

	if (!e)
		return 0;
	st = db_prepare(d, "INSERT INTO energy VALUES (?,?,?,?)");
	rc = st ? db_row(d, st, "snuu", a->run_id, e->cpu_energy_pj / 1000000,
			 e->energy_pj / 1000000) : -1;
	for (uint64_t k = 0; rc == 0 && k < e->count; k++)
		rc = db_row(d, st, "suUu", a->run_id, k, 0, (uint64_t)0,
			    e->tx_energy_pj[k] / 1000000);
	sqlite3_finalize(st);
	return rc;
}

static int write_diagnosis(struct db *d, const struct pl_analysis *a)
{
	const struct pl_tasks *t = a->tasks;
	const struct pl_diagnosis *g = a->diag;
	sqlite3_stmt *cx, *tk, *dp, *gr;
	int rc;

	if (!g)
		return 0;
	cx = db_prepare(d, "INSERT INTO contexts VALUES (?,?,?,?,?,?,?,?,?)");
	tk = db_prepare(d, "INSERT INTO tasks VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	dp = db_prepare(d, "INSERT INTO task_dependencies VALUES (?,?,?)");
	gr = db_prepare(d, "INSERT INTO groups VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
	rc = cx && tk && dp && gr ? 0 : -1;
	for (uint64_t c = 0; rc == 0 && c < t->ncontexts; c++)
		rc = db_row(d, cx, "suusssssu", a->run_id, c, (uint64_t)t->contexts[c].tgid,
			    pl_symbols_frame(a->symbols, c, 0), pl_symbols_frame(a->symbols, c, 1),
			    pl_symbols_frame(a->symbols, c, 2), pl_symbols_frame(a->symbols, c, 3),
			    a->symbols->binaries[c], g->context_group[c] + 1);
	for (uint64_t k = 0; rc == 0 && k < t->count; k++) {
		const struct pl_task *x = &t->tasks[k];
		int started = x->start_event != PL_NONE;

		rc = db_row(d, tk, "susuuuuuuuUUUUuU", a->run_id, k,
			    x->executor ? "task" : "message", (uint64_t)x->tgid, (uint64_t)x->unit,
			    x->item, x->context, x->submit_event, x->start_event, x->scheduled_ns,
			    started, x->started_ns, started, x->ended_ns, started, x->queuing_ns,
			    started, x->execution_ns, (uint64_t)x->queue_length, x->capacity != 0,
			    (uint64_t)x->capacity);
		for (uint64_t i = 0; rc == 0 && i < x->ndeps; i++)
			rc = db_row(d, dp, "suu", a->run_id, k, t->deps[x->first_dep + i]);
	}
	for (uint64_t i = 0; rc == 0 && i < g->ngroups; i++) {
		const struct pl_diag_group *x = &g->groups[i];

		rc = db_row(d, gr, "suuuuuuuUuuDuUU", a->run_id, i + 1, (uint64_t)x->tgid,
			    x->context, x->ncontexts, x->tasks, x->max_queuing_ns,
			    x->max_execution_ns, x->capacity != 0, (uint64_t)x->capacity,
			    (uint64_t)x->suspicious, x->long_waits, x->long_waits != 0,
			    x->long_waits ? (double)x->queue_length_sum / (double)x->long_waits :
					    0.0,
			    x->in_queue_tasks, x->in_queue_tasks != 0,
			    x->in_queue_tasks ? x->in_queue_execution_ns / x->in_queue_tasks : 0,
			    x->ncauses != 0, x->ncauses ? g->causes[x->first_cause].group + 1 : 0);
	}
	sqlite3_finalize(cx);
	sqlite3_finalize(tk);
	sqlite3_finalize(dp);
	sqlite3_finalize(gr);
	return rc;
}

/*
 * The schema's version, kept in the file (PRAGMA user_version): bump it with
 * any change to pl_sqlite_schema, so that a file another build wrote is
 * refused in one line rather than failing at its first insert.
 */
#define SCHEMA_VERSION 3

/* An integer a one-row query answers, or -1 with d->err set. */
static int query_int(struct db *d, const char *sql, int *out)
{
	sqlite3_stmt *st = db_prepare(d, sql);
	int rc = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		rc = 0;
	} else if (st) {
		db_fail(d);
	}
	sqlite3_finalize(st);
	return rc;
}

/* Refuses a database (schema "main" or an attached one) of another version. */
static int check_version(struct db *d, const char *schema, const char *path)
{
	char sql[64];
	int version;

	snprintf(sql, sizeof(sql), "PRAGMA %s.user_version", schema);
	if (query_int(d, sql, &version) < 0)
		return -1;
	if (version != SCHEMA_VERSION) {
		pl_error_file(d->err, path,
			      "a results database of schema version %d, expected %d (written by"
			      " another panlab build): move it away or write to a new file",
			      version, SCHEMA_VERSION);
		return -1;
	}
	return 0;
}

/*
 * Opens path with the schema applied, waiting for another writer's lock; a
 * new file gets the version, in the same transaction as its tables.
 */
static int db_open(struct db *d)
{
	int tables;

	if (sqlite3_open(d->path, &d->h) != SQLITE_OK)
		return db_fail(d);
	/* Parallel runs of an experiment may write one file: wait for the lock. */
	sqlite3_busy_timeout(d->h, 60000);
	if (db_exec(d, "BEGIN IMMEDIATE") < 0 ||
	    query_int(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", &tables) < 0)
		return -1;
	if (tables == 0) {
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", SCHEMA_VERSION);
		if (db_exec(d, sql) < 0)
			return -1;
	} else if (check_version(d, "main", d->path) < 0) {
		return -1;
	}
	return db_exec(d, pl_sqlite_schema) < 0 ? -1 : db_exec(d, "COMMIT");
}

/* Deletes run_id's rows of every model table. */
static int clear_run(struct db *d, const char *run_id)
{
	char sql[256];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof(model_tables) / sizeof(model_tables[0]); i++) {
		sqlite3_stmt *st;

		snprintf(sql, sizeof(sql), "DELETE FROM main.%s WHERE run_id = ?", model_tables[i]);
		st = db_prepare(d, sql);
		rc = st ? db_row(d, st, "s", run_id) : -1;
		sqlite3_finalize(st);
	}
	return rc;
}

/* Ends the transaction (commit on success) and closes the database. */
static int db_finish(struct db *d, int rc)
{
	if (rc == 0)
		rc = db_exec(d, "COMMIT");
	else
		sqlite3_exec(d->h, "ROLLBACK", NULL, NULL, NULL);
	if (sqlite3_close(d->h) != SQLITE_OK && rc == 0)
		rc = db_fail(d);
	return rc;
}

int pl_sqlite_create(const char *path, struct pl_error *err)
{
	struct db d = { NULL, path, err };
	int rc = db_open(&d);

	if (sqlite3_close(d.h) != SQLITE_OK && rc == 0)
		rc = db_fail(&d);
	return rc;
}

int pl_export_write_sqlite(const struct pl_analysis *a, const char *path, struct pl_error *err)
{
	struct db d = { NULL, path, err };
	int rc = db_open(&d);

	if (rc == 0)
		rc = db_exec(&d, "BEGIN IMMEDIATE");
	if (rc == 0)
		rc = clear_run(&d, a->run_id);
	if (rc == 0)
		rc = write_validation(&d, a);
	if (rc == 0)
		rc = write_threads_intervals(&d, a);
	if (rc == 0)
		rc = write_edges(&d, a);
	if (rc == 0)
		rc = write_transactions(&d, a);
	if (rc == 0)
		rc = write_validation_rows(&d, a);
	if (rc == 0)
		rc = write_energy(&d, a);
	if (rc == 0)
		rc = write_diagnosis(&d, a);
	return db_finish(&d, rc);
}

int pl_run_status_valid(const char *status)
{
	static const char *const known[] = { "pending", "running", "ok", "failed" };

	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(status, known[i]))
			return 1;
	return 0;
}

/* Text or NULL. */
static int bind_text(sqlite3_stmt *st, int i, const char *s)
{
	return s ? sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT) : sqlite3_bind_null(st, i);
}

static int bind_u64(sqlite3_stmt *st, int i, int has, uint64_t v)
{
	return has ? sqlite3_bind_int64(st, i, (sqlite3_int64)v) : sqlite3_bind_null(st, i);
}

static int write_run_row(struct db *d, const struct pl_run_row *r)
{
	sqlite3_stmt *st = db_prepare(
		d,
		"INSERT OR REPLACE INTO runs (run_id, experiment, config,"
		" backend, workload, cores, governor, freq_mhz, trace, repetition, options, input_hash,"
		" status, reason, wall_s, finished_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		" ?11, ?12, ?13, ?14, ?15, ?16)");
	int rc;

	if (!st)
		return -1;
	rc = bind_text(st, 1, r->run_id) | bind_text(st, 2, r->experiment) |
	     bind_text(st, 3, r->config) | bind_text(st, 4, r->backend) |
	     bind_text(st, 5, r->workload) | bind_u64(st, 6, r->has_cores, r->cores) |
	     bind_text(st, 7, r->governor) | bind_u64(st, 8, r->has_freq_mhz, r->freq_mhz) |
	     bind_u64(st, 9, r->has_trace, (uint64_t)r->trace) |
	     bind_u64(st, 10, r->has_repetition, r->repetition) | bind_text(st, 11, r->options) |
	     bind_text(st, 12, r->input_hash) | bind_text(st, 13, r->status) |
	     bind_text(st, 14, r->reason) |
	     (r->has_wall_s ? sqlite3_bind_double(st, 15, r->wall_s) : sqlite3_bind_null(st, 15)) |
	     bind_text(st, 16, r->finished_at);
	if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_DONE)
		rc = 0;
	else
		rc = db_fail(d);
	sqlite3_finalize(st);
	return rc;
}

/* The model's rows of every model table, after clear_run. */
static int copy_model(struct db *d)
{
	char sql[256];
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < sizeof(model_tables) / sizeof(model_tables[0]); i++) {
		snprintf(sql, sizeof(sql), "INSERT INTO main.%s SELECT * FROM model.%s",
			 model_tables[i], model_tables[i]);
		rc = db_exec(d, sql);
	}
	return rc;
}

int pl_sqlite_record_run(const char *path, const struct pl_run_row *row, const char *model,
			 struct pl_error *err)
{
	struct db d = { NULL, path, err };
	int rc = db_open(&d);

	if (rc == 0 && model) {
		sqlite3_stmt *st = db_prepare(&d, "ATTACH ? AS model");

		rc = st ? 0 : -1;
		/* The model must be one: its tables are read by name below. */
		if (st && (sqlite3_bind_text(st, 1, model, -1, SQLITE_STATIC) != SQLITE_OK ||
			   sqlite3_step(st) != SQLITE_DONE ||
			   sqlite3_exec(d.h, "SELECT run_id FROM model.validation LIMIT 1", NULL,
					NULL, NULL) != SQLITE_OK)) {
			pl_error_file(err, model, "not a run's model (no validation table): %s",
				      sqlite3_errmsg(d.h));
			rc = -1;
		}
		sqlite3_finalize(st);
		if (rc == 0)
			rc = check_version(&d, "model", model);
	}
	if (rc == 0)
		rc = db_exec(&d, "BEGIN IMMEDIATE");
	if (rc == 0 && model)
		rc = clear_run(&d, row->run_id);
	if (rc == 0 && model)
		rc = copy_model(&d);
	if (rc == 0)
		rc = write_run_row(&d, row);
	return db_finish(&d, rc);
}
