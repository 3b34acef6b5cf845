/* SPDX-License-Identifier: MIT */
/* Queueing per looper and executor, on the overlapping-taps scenario and with delays and flags. */
#include "test_analyzer.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, WORKER1 = 101, WORKER2 = 102, VSYNC = 104 };
#define QUEUE (MAIN << 8 | 0)
#define EXECUTOR (MAIN << 8 | 1)

static void test_overlap_queues(void)
{
	struct tb t;
	struct model m;

	scenario_overlap(&t);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.qs.count, 2);
	const struct pl_queue_stats *looper = &m.s.qs.queues[0], *pool = &m.s.qs.queues[1];

	/* Six messages, each waiting 100 or 50 us and running 30 or 20 us. */
	CU_ASSERT_EQUAL(looper->executor, 0);
	CU_ASSERT_EQUAL(looper->id, QUEUE);
	CU_ASSERT_EQUAL(looper->items, 6);
	CU_ASSERT_EQUAL(looper->threads, 1);
	CU_ASSERT_EQUAL(looper->max_wait_ns, US(100));
	CU_ASSERT_EQUAL(looper->total_wait_ns, US(500));
	CU_ASSERT_EQUAL(looper->max_run_ns, US(30));
	CU_ASSERT_EQUAL(looper->total_run_ns, US(140));
	/* Two tasks on two workers: waits 30 and 80 us, runs 1360 and 110 us. */
	CU_ASSERT_EQUAL(pool->executor, 1);
	CU_ASSERT_EQUAL(pool->id, EXECUTOR);
	CU_ASSERT_EQUAL(pool->items, 2);
	CU_ASSERT_EQUAL(pool->threads, 2);
	CU_ASSERT_EQUAL(pool->max_wait_ns, US(80));
	CU_ASSERT_EQUAL(pool->max_run_ns, US(1360));
	CU_ASSERT_EQUAL(pool->total_run_ns, US(1470));
	CU_ASSERT_EQUAL(m.s.qs.flagged, 0);
	model_free(&m);
}

/*
 * A message posted with a 600 ms delay and run on time has waited nothing;
 * a task that ran 500 ms is flagged.
 */
static void test_delay_and_flag(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	struct pl_event delayed = { US(1000), PL_EV_ENQUEUE_MSG, PL_CPU_NONE, VSYNC, 1, QUEUE, 600000 };

	tb_user(&t, VSYNC, US(500), PL_EV_SUBMIT_ASYNC_TASK, 1, EXECUTOR);
	pl_trace_builder_add_event(&t.b, t.tid_source[0], &delayed);
	tb_user(&t, WORKER1, US(600), PL_EV_CONSUME_ASYNC_TASK, 1, EXECUTOR);
	tb_user(&t, WORKER1, US(500600), PL_EV_ASYNC_TASK_END, 1, EXECUTOR);
	tb_user(&t, MAIN, US(601010), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(601020), PL_EV_MSG_DONE, 1, QUEUE);
	model_build(&t, &m);

	CU_ASSERT_EQUAL_FATAL(m.s.qs.count, 2);
	CU_ASSERT_EQUAL(m.s.qs.queues[0].max_wait_ns, US(10));	/* 600.01 ms less the 600 ms delay */
	CU_ASSERT_FALSE(m.s.qs.queues[0].flagged);
	CU_ASSERT_EQUAL(m.s.qs.queues[1].max_run_ns, US(500000));
	CU_ASSERT(m.s.qs.queues[1].flagged);
	CU_ASSERT_EQUAL(m.s.qs.flagged, 1);
	model_free(&m);
}

void add_queueing_tests(void)
{
	CU_pSuite s = CU_add_suite("queueing", NULL, NULL);

	CU_add_test(s, "loopers and executors of two overlapping taps", test_overlap_queues);
	CU_add_test(s, "delayed messages and flags", test_delay_and_flag);
}
