/* SPDX-License-Identifier: MIT */
/* Shared helpers of the analyzer unit tests (test_analyzer*.c, test_trace*.c). */
#ifndef TEST_ANALYZER_H
#define TEST_ANALYZER_H

#include <CUnit/CUnit.h>
#include <stdint.h>

#include "panlab/model.h"
#include "panlab/trace.h"

/* A trace under construction: kernel sources per cpu, user sources per tid. */
struct tb {
	struct pl_trace_builder b;
	uint32_t ncpus;
	uint32_t cpu_source[4];
	uint32_t ntids;
	uint32_t tids[32], tid_source[32];
};

void tb_init(struct tb *t, uint32_t ncpus);
/* A userspace event of thread tid (its own buffer, created on first use). */
void tb_user(struct tb *t, uint32_t tid, uint64_t ts_ns, uint16_t type, uint64_t a0, uint32_t a1);
void tb_user3(struct tb *t, uint32_t tid, uint64_t ts_ns, uint16_t type, uint64_t a0, uint32_t a1,
	      uint32_t a2);
/* A kernel event logged on cpu, about thread tid. */
void tb_kernel(struct tb *t, uint32_t cpu, uint64_t ts_ns, uint16_t type, uint32_t tid,
	       uint64_t a0, uint32_t a1);
void tb_kernel3(struct tb *t, uint32_t cpu, uint64_t ts_ns, uint16_t type, uint32_t tid,
		uint64_t a0, uint32_t a1, uint32_t a2);
/* Serialized bytes (caller frees). */
uint8_t *tb_bytes(struct tb *t, size_t *len);
void tb_free(struct tb *t);

/* The whole model of a built trace; the builder is consumed. */
struct model {
	struct pl_trace trace;
	struct pl_model s;
};

void model_build(struct tb *t, struct model *m);
void model_free(struct model *m);

/*
 * The end of a tap's transaction on a looper: main_tid dequeues the result
 * message msg at `us` microseconds and invalidates; vsync_tid posts the frame
 * message msg + 1, which main_tid handles at us + 100 and draws (UI_UPDATE at
 * us + 110).
 */
void tb_result_drawn(struct tb *t, uint32_t main_tid, uint32_t vsync_tid, uint32_t queue,
		     uint64_t msg, uint64_t us);

/* Hand-built scenarios shared by the extraction and command-line tests. */
void scenario_overlap(struct tb *t);
void scenario_sequential(struct tb *t);

/* A fresh temporary directory for this test binary (removed at exit). */
const char *test_tmpdir(void);
/* Runs sql on db; a failure fails the test with SQLite's message on stderr. */
struct sqlite3;
void test_exec_sql(struct sqlite3 *db, const char *sql);
void write_text(const char *path, const char *text);
char *read_text(const char *path);	/* caller frees */

void add_trace_io_tests(void);
void add_overhead_tests(void);
void add_verdict_tests(void);
void add_report_tests(void);
void add_findings_tests(void);
void add_ground_truth_tests(void);
void add_transaction_tests(void);
void add_cli_tests(void);
void add_idmap_tests(void);
void add_export_tests(void);
void add_critical_path_tests(void);
void add_validate_tests(void);
void add_queueing_tests(void);
void add_diagnosis_tests(void);
void add_aggregate_tests(void);
void add_native_tests(void);
void add_kernel_only_tests(void);
void add_animation_tests(void);
void add_display_tests(void);
void add_skew_tests(void);
void add_fixture_tests(void);
void add_stream_tests(void);
void add_sqlite_tests(void);
void add_energy_tests(void);

#endif /* TEST_ANALYZER_H */
