/* SPDX-License-Identifier: MIT */
/* Trace building, hand-made scenarios and temp files for the analyzer tests. */
#include "test_analyzer.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panlab/error.h"
#include "panlab/read_file.h"

void tb_init(struct tb *t, uint32_t ncpus)
{
	memset(t, 0, sizeof(*t));
	t->ncpus = ncpus;
	pl_trace_builder_init(&t->b, ncpus);
	for (uint32_t c = 0; c < ncpus; c++)
		t->cpu_source[c] = pl_trace_builder_add_source(&t->b, PL_SRC_KERNEL_CPU, c, 0);
}

static uint32_t user_source(struct tb *t, uint32_t tid)
{
	for (uint32_t i = 0; i < t->ntids; i++)
		if (t->tids[i] == tid)
			return t->tid_source[i];
	CU_ASSERT_FATAL(t->ntids < 32);
	t->tids[t->ntids] = tid;
	t->tid_source[t->ntids] = pl_trace_builder_add_source(&t->b, PL_SRC_USER_THREAD, tid, 0);
	return t->tid_source[t->ntids++];
}

void tb_user(struct tb *t, uint32_t tid, uint64_t ts_ns, uint16_t type, uint64_t a0, uint32_t a1)
{
	tb_user3(t, tid, ts_ns, type, a0, a1, 0);
}

void tb_user3(struct tb *t, uint32_t tid, uint64_t ts_ns, uint16_t type, uint64_t a0, uint32_t a1,
	      uint32_t a2)
{
	struct pl_event ev = { .ts_ns = ts_ns, .type = type, .cpu = PL_CPU_NONE, .tid = tid,
			       .a0 = a0, .a1 = a1, .a2 = a2 };

	pl_trace_builder_add_event(&t->b, user_source(t, tid), &ev);
}

void tb_kernel3(struct tb *t, uint32_t cpu, uint64_t ts_ns, uint16_t type, uint32_t tid,
		uint64_t a0, uint32_t a1, uint32_t a2)
{
	struct pl_event ev = { .ts_ns = ts_ns,
			       .type = type,
			       .cpu = (uint16_t)cpu,
			       .tid = tid,
			       .a0 = a0,
			       .a1 = a1,
			       .a2 = a2 };

	pl_trace_builder_add_event(&t->b, t->cpu_source[cpu], &ev);
}

void tb_kernel(struct tb *t, uint32_t cpu, uint64_t ts_ns, uint16_t type, uint32_t tid, uint64_t a0,
	       uint32_t a1)
{
	tb_kernel3(t, cpu, ts_ns, type, tid, a0, a1, 0);
}

uint8_t *tb_bytes(struct tb *t, size_t *len)
{
	uint8_t *buf;

	pl_trace_builder_serialize(&t->b, &buf, len);
	return buf;
}

void tb_free(struct tb *t)
{
	pl_trace_builder_free(&t->b);
}

void model_build(struct tb *t, struct model *m)
{
	struct pl_error err = { "" };
	size_t len;
	uint8_t *buf = tb_bytes(t, &len);
	int rc = pl_trace_parse("test.bin", buf, len, &m->trace, &err);

	free(buf);
	tb_free(t);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	pl_model_build(&m->trace, &m->s);
}

void model_free(struct model *m)
{
	pl_model_free(&m->s);
	pl_trace_free(&m->trace);
}

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, WORKER1 = 101, WORKER2 = 102, RECEIVER = 103, VSYNC = 104 };
/* Queue and executor ids are pid << 8 | index on the platform. */
#define QUEUE (MAIN << 8 | 0)
#define EXECUTOR (MAIN << 8 | 1)

/* A message handled on the main looper: dequeue, one event, done. */
static void handle(struct tb *t, uint64_t us, uint64_t msg, uint16_t type, uint64_t a0, uint32_t a1)
{
	tb_user(t, MAIN, US(us), PL_EV_DEQUEUE_MSG, msg, QUEUE);
	tb_user(t, MAIN, US(us + 10), type, a0, a1);
	tb_user(t, MAIN, US(us + 20), PL_EV_MSG_DONE, msg, QUEUE);
}

/* An input message: dequeue, UI_INPUT, submit an async task, done. */
static void input(struct tb *t, uint64_t us, uint64_t msg, uint64_t input_id, uint64_t task)
{
	tb_user(t, MAIN, US(us), PL_EV_DEQUEUE_MSG, msg, QUEUE);
	tb_user(t, MAIN, US(us + 10), PL_EV_UI_INPUT, input_id, 0);
	tb_user(t, MAIN, US(us + 20), PL_EV_SUBMIT_ASYNC_TASK, task, EXECUTOR);
	tb_user(t, MAIN, US(us + 30), PL_EV_MSG_DONE, msg, QUEUE);
}

/* An async task that posts message msg back to the main looper at post_us. */
static void task(struct tb *t, uint32_t tid, uint64_t us, uint64_t task_id, uint64_t post_us,
		 uint64_t msg)
{
	tb_user(t, tid, US(us), PL_EV_CONSUME_ASYNC_TASK, task_id, EXECUTOR);
	tb_user(t, tid, US(post_us), PL_EV_ENQUEUE_MSG, msg, QUEUE);
	tb_user(t, tid, US(post_us + 10), PL_EV_ASYNC_TASK_END, task_id, EXECUTOR);
}

/*
 * Two taps whose work interleaves on the main thread: input 0's task is slow
 * (posts at 2500 us), input 1's fast (posts at 1500 us). Input 1's frame is
 * drawn first (UI_UPDATE at 1710 us), input 0's last (2710 us).
 */
void tb_result_drawn(struct tb *t, uint32_t main_tid, uint32_t vsync_tid, uint32_t queue,
		     uint64_t msg, uint64_t us)
{
	tb_user(t, main_tid, US(us), PL_EV_DEQUEUE_MSG, msg, queue);
	tb_user(t, main_tid, US(us + 10), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(t, main_tid, US(us + 20), PL_EV_MSG_DONE, msg, queue);
	tb_user(t, vsync_tid, US(us + 50), PL_EV_ENQUEUE_MSG, msg + 1, queue);
	tb_user(t, main_tid, US(us + 100), PL_EV_DEQUEUE_MSG, msg + 1, queue);
	tb_user(t, main_tid, US(us + 110), PL_EV_UI_UPDATE, 0, 0);
	tb_user(t, main_tid, US(us + 120), PL_EV_MSG_DONE, msg + 1, queue);
}

void scenario_overlap(struct tb *t)
{
	tb_init(t, 2);
	tb_kernel(t, 0, US(10), PL_EV_FORK, MAIN, WORKER1, MAIN);
	tb_kernel(t, 0, US(11), PL_EV_FORK, MAIN, WORKER2, MAIN);
	tb_kernel(t, 0, US(12), PL_EV_CONTEXT_SWITCH, 0, MAIN, PL_STATE_RUNNABLE);

	tb_user(t, RECEIVER, US(1000), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(t, RECEIVER, US(1200), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(t, VSYNC, US(1650), PL_EV_ENQUEUE_MSG, 5, QUEUE);
	tb_user(t, VSYNC, US(2650), PL_EV_ENQUEUE_MSG, 6, QUEUE);

	input(t, 1100, 1, 0, 1);
	input(t, 1300, 2, 1, 2);
	handle(t, 1600, 3, PL_EV_UI_INVALIDATE, 0, 0);
	handle(t, 1700, 5, PL_EV_UI_UPDATE, 0, 0);
	handle(t, 2600, 4, PL_EV_UI_INVALIDATE, 0, 0);
	handle(t, 2700, 6, PL_EV_UI_UPDATE, 1, 0);

	task(t, WORKER1, 1150, 1, 2500, 4);
	task(t, WORKER2, 1400, 2, 1500, 3);
}

/*
 * The app's first frame (no input), then two taps one after the other, each
 * through an async task to a frame. The main thread and the worker are
 * switched in once and never leave their cpus. cpu 1's buffer lost 3
 * events. 37 events.
 */
void scenario_sequential(struct tb *t)
{
	tb_init(t, 2);
	t->b.sources[t->cpu_source[1]].src.lost = 3;
	tb_kernel(t, 0, US(10), PL_EV_FORK, MAIN, WORKER1, MAIN);
	tb_kernel(t, 0, US(20), PL_EV_CONTEXT_SWITCH, 0, MAIN, PL_STATE_RUNNABLE);
	tb_kernel(t, 1, US(1195), PL_EV_CONTEXT_SWITCH, 0, WORKER1, PL_STATE_RUNNABLE);

	tb_user(t, VSYNC, US(600), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(t, VSYNC, US(1650), PL_EV_ENQUEUE_MSG, 4, QUEUE);
	tb_user(t, VSYNC, US(4150), PL_EV_ENQUEUE_MSG, 7, QUEUE);
	tb_user(t, RECEIVER, US(1000), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(t, RECEIVER, US(3000), PL_EV_ENQUEUE_MSG, 5, QUEUE);

	handle(t, 700, 1, PL_EV_UI_UPDATE, 0, 0);
	input(t, 1100, 2, 0, 1);
	handle(t, 1600, 3, PL_EV_UI_INVALIDATE, 0, 0);
	handle(t, 1700, 4, PL_EV_UI_UPDATE, 1, 0);
	input(t, 3100, 5, 1, 2);
	handle(t, 4100, 6, PL_EV_UI_INVALIDATE, 0, 0);
	handle(t, 4200, 7, PL_EV_UI_UPDATE, 2, 0);

	task(t, WORKER1, 1200, 1, 1500, 3);
	task(t, WORKER1, 3200, 2, 4000, 6);
}

static char tmpdir[64];

static void remove_tmpdir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
}

const char *test_tmpdir(void)
{
	if (!tmpdir[0]) {
		snprintf(tmpdir, sizeof(tmpdir), "/tmp/panlab-analyzer-test.XXXXXX");
		if (!mkdtemp(tmpdir)) {
			perror("mkdtemp");
			exit(1);
		}
		atexit(remove_tmpdir);
	}
	return tmpdir;
}

void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

char *read_text(const char *path)
{
	struct pl_error err;
	char *buf;
	size_t len;

	if (pl_read_file(path, PL_CAP_TEXT_BYTES, "a test output", &buf, &len, &err) < 0) {
		CU_FAIL(err.msg);
		return NULL;
	}
	return buf;
}

void test_exec_sql(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "sql: %s\n", msg);
		CU_FAIL("sql");
	}
	sqlite3_free(msg);
}
