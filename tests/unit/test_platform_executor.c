/* Executors and AsyncTask: saturation policy, serial queueing, step threads and order. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "panlab/async_task.h"
#include "panlab/executor.h"
#include "panlab/looper.h"
#include "panlab/ulog.h"
#include "panlab/ulog_reader.h"
#include "test_platform.h"

struct gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
	int running, max_running, done;
	int order[256];
	int norder;
};

static struct gate gate = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static void gate_reset(bool open)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = open;
	gate.running = gate.max_running = gate.done = gate.norder = 0;
	pthread_mutex_unlock(&gate.lock);
}

static void gate_open(void)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = true;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

/* Wait until n tasks are running at once. */
static void wait_running(int n)
{
	pthread_mutex_lock(&gate.lock);
	while (gate.running < n)
		pthread_cond_wait(&gate.cond, &gate.lock);
	pthread_mutex_unlock(&gate.lock);
}

static void gated_task(void *arg)
{
	pthread_mutex_lock(&gate.lock);
	gate.order[gate.norder++] = (int)(intptr_t)arg;
	if (++gate.running > gate.max_running)
		gate.max_running = gate.running;
	pthread_cond_broadcast(&gate.cond);
	while (!gate.open)
		pthread_cond_wait(&gate.cond, &gate.lock);
	gate.running--;
	gate.done++;
	pthread_mutex_unlock(&gate.lock);
}

static void test_saturation(void)
{
	/* core 2, max 4, queue 2: two new workers, two queued, two more workers, then rejection. */
	struct pl_executor *e = pl_executor_create("t", 2, 4, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	gate_reset(false);
	for (int i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(pl_executor_submit(e, gated_task, (void *)(intptr_t)i), 0);
	CU_ASSERT_EQUAL(pl_executor_submit(e, gated_task, (void *)99), -EAGAIN);
	wait_running(4);
	pthread_mutex_lock(&gate.lock);
	/* Tasks 0, 1 (core workers) and 4, 5 (extra workers) run; 2 and 3 wait in the queue. */
	int started[4];
	memcpy(started, gate.order, sizeof(started));
	pthread_mutex_unlock(&gate.lock);
	int mask = 0;
	for (int i = 0; i < 4; i++)
		mask |= 1 << started[i];
	CU_ASSERT_EQUAL(mask, 0x33);
	gate_open();
	pl_executor_shutdown(e);
	CU_ASSERT_EQUAL(gate.done, 6);
	CU_ASSERT_EQUAL(gate.max_running, 4);
}

static void test_serial_queueing(void)
{
	struct pl_executor *e = pl_executor_create_serial();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	gate_reset(false);
	for (int i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(pl_executor_submit(e, gated_task, (void *)(intptr_t)i), 0);
	wait_running(1);
	gate_open();
	pl_executor_shutdown(e);
	CU_ASSERT_EQUAL(gate.done, 50);
	CU_ASSERT_EQUAL(gate.max_running, 1);
	for (int i = 0; i < 50; i++)
		CU_ASSERT_EQUAL(gate.order[i], i);
}

static void test_thread_pool_defaults(void)
{
	/* Android 4.1: 5 core + 10 queued + 123 extra workers = 138 accepted, then rejection. */
	struct pl_executor *e = pl_executor_create_thread_pool();
	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	gate_reset(false);
	int accepted = 0;
	while (pl_executor_submit(e, gated_task, NULL) == 0)
		accepted++;
	CU_ASSERT_EQUAL(accepted, 138);
	wait_running(128);
	gate_open();
	pl_executor_shutdown(e);
	CU_ASSERT_EQUAL(gate.max_running, 128);
}

/* AsyncTask: which thread runs each step, and in what order. */
struct task_log {
	pthread_t main;
	char steps[16];
	int n;
	bool wrong_thread;
	struct pl_looper *looper;
};

static void step(struct task_log *l, char c, bool on_main)
{
	l->steps[l->n++] = c;
	if (pthread_equal(pthread_self(), l->main) != on_main)
		l->wrong_thread = true;
}

static void pre(struct pl_async_task *t, void *ctx) { (void)t; step(ctx, 'p', true); }
static void progress(struct pl_async_task *t, void *ctx, int64_t v)
{
	(void)t;
	step(ctx, (char)('0' + v), true);
}
static void *background(struct pl_async_task *t, void *ctx)
{
	step(ctx, 'b', false);
	pl_async_task_publish_progress(t, 1);
	pl_async_task_publish_progress(t, 2);
	return (void *)42;
}
static void post(struct pl_async_task *t, void *ctx, void *result)
{
	struct task_log *l = ctx;
	(void)t;
	step(l, result == (void *)42 ? 'r' : 'X', true);
	pl_looper_quit(l->looper);
}

static void test_async_task(void)
{
	static const struct pl_async_task_ops ops = { pre, background, progress, post };
	struct task_log l = { .main = pthread_self() };
	char path[128];
	test_shm_path(path, sizeof(path), "asynctask");
	CU_ASSERT_FATAL(pl_ulog_open(path, 1 << 20, 4) == 0);
	l.looper = pl_looper_create();
	struct pl_executor *e = pl_executor_create_serial();
	struct pl_handler main;
	pl_handler_init(&main, l.looper, NULL, NULL);
	CU_ASSERT_EQUAL(pl_async_task_execute(&ops, &l, &main, e), 0);
	CU_ASSERT_EQUAL(pl_looper_loop(l.looper), 0);
	uint32_t exec_id = pl_executor_id(e);
	pl_executor_shutdown(e);
	pl_ulog_close();
	l.steps[l.n] = '\0';
	CU_ASSERT_STRING_EQUAL(l.steps, "pb12r");
	CU_ASSERT_FALSE(l.wrong_thread);

	/* The trace links the steps: SUBMIT on main, CONSUME/END on the worker with the same ids. */
	struct pl_ulog_reader r;
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);
	int submit = 0, consume = 0, end = 0;
	for (unsigned s = 0; s < pl_ulog_reader_slots(&r); s++) {
		struct pl_event ev[64];
		size_t n = pl_ulog_reader_drain(&r, s, ev, 64);
		for (size_t i = 0; i < n; i++) {
			bool ids = ev[i].a0 == 1 && ev[i].a1 == exec_id;
			submit += ev[i].type == PL_EV_SUBMIT_ASYNC_TASK && ids;
			consume += ev[i].type == PL_EV_CONSUME_ASYNC_TASK && ids;
			end += ev[i].type == PL_EV_ASYNC_TASK_END && ids;
		}
	}
	CU_ASSERT_EQUAL(submit, 1);
	CU_ASSERT_EQUAL(consume, 1);
	CU_ASSERT_EQUAL(end, 1);
	pl_ulog_reader_close(&r);
	unlink(path);
	pl_looper_destroy(l.looper);
}

void add_executor_suite(void)
{
	CU_pSuite s = CU_add_suite("executor", NULL, NULL);
	CU_add_test(s, "saturation: core, queue, max, reject", test_saturation);
	CU_add_test(s, "serial executor queues one at a time", test_serial_queueing);
	CU_add_test(s, "THREAD_POOL bounds", test_thread_pool_defaults);
	CU_add_test(s, "AsyncTask steps and trace", test_async_task);
}
