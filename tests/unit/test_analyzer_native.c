/* SPDX-License-Identifier: MIT */
/*
 * Native-thread interval inference (Panappticon 4.5): an uninstrumented
 * renderer on a condition variable is split at its waits and joined to the
 * notify that woke it; a lock wait inside a message splits nothing, and
 * its notifier's unrelated work stays off the path (lock time).
 */
#include "test_analyzer.h"

#include <string.h>

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, VSYNC = 104, RENDER = 105, OTHER = 106 };
#define QUEUE (MAIN << 8 | 0)
#define WORK_LOCK 0x9e48	/* the job queue's condition variable (a user address) */
#define VIEW_LOCK 0x9e40

static void webview_scenario(struct tb *t)
{
	tb_init(t, 2);
	tb_kernel(t, 0, US(10), PL_EV_FORK, MAIN, RENDER, MAIN);
	/* The renderer starts, finds no job and waits. */
	tb_kernel(t, 1, US(500), PL_EV_FUTEX_WAIT, RENDER, WORK_LOCK, 0);
	tb_kernel(t, 1, US(501), PL_EV_CONTEXT_SWITCH, RENDER, 0, PL_STATE_SLEEPING);
	tb_user(t, OTHER, US(1000), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1100), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1110), PL_EV_UI_INPUT, 0, 0);
	tb_kernel(t, 0, US(1115), PL_EV_FUTEX_NOTIFY, MAIN, WORK_LOCK, RENDER);
	tb_user(t, MAIN, US(1120), PL_EV_MSG_DONE, 1, QUEUE);
	tb_kernel(t, 1, US(1125), PL_EV_CONTEXT_SWITCH, 0, RENDER, PL_STATE_RUNNABLE);
	tb_kernel(t, 1, US(1130), PL_EV_FUTEX_WAKE, RENDER, WORK_LOCK, 0);
	tb_user(t, RENDER, US(1500), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_kernel(t, 1, US(1510), PL_EV_FUTEX_WAIT, RENDER, WORK_LOCK, 0);
	tb_kernel(t, 1, US(1511), PL_EV_CONTEXT_SWITCH, RENDER, 0, PL_STATE_SLEEPING);
	/* The main thread contends for a lock inside message 2: no split; an edge that only joins. */
	tb_user(t, MAIN, US(1600), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_kernel(t, 0, US(1602), PL_EV_FUTEX_WAIT, MAIN, VIEW_LOCK, 0);
	tb_kernel(t, 0, US(1603), PL_EV_FUTEX_NOTIFY, OTHER, VIEW_LOCK, MAIN);
	tb_kernel(t, 0, US(1604), PL_EV_FUTEX_WAKE, MAIN, VIEW_LOCK, 0);
	tb_user(t, MAIN, US(1610), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(t, MAIN, US(1620), PL_EV_MSG_DONE, 2, QUEUE);
	tb_user(t, VSYNC, US(1650), PL_EV_ENQUEUE_MSG, 3, QUEUE);
	tb_user(t, MAIN, US(1700), PL_EV_DEQUEUE_MSG, 3, QUEUE);
	tb_user(t, MAIN, US(1710), PL_EV_UI_UPDATE, 0, 0);
	tb_user(t, MAIN, US(1720), PL_EV_MSG_DONE, 3, QUEUE);
}

static uint64_t find_event(const struct model *m, uint16_t type, uint32_t tid, uint64_t ts_ns)
{
	for (uint64_t e = 0; e < m->trace.nevents; e++)
		if (m->trace.events[e].type == type && m->trace.events[e].tid == tid &&
		    m->trace.events[e].ts_ns == ts_ns)
			return e;
	CU_FAIL("event not found");
	return 0;
}

static void test_native_renderer(void)
{
	struct tb t;
	struct model m;
	char shape[64];

	webview_scenario(&t);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_NOTIFY], 2);
	CU_ASSERT_EQUAL(m.s.graph.notifies_without_interval, 0);
	uint64_t wake = find_event(&m, PL_EV_FUTEX_WAKE, RENDER, US(1130));
	const struct pl_interval *job = &m.s.iv.intervals[m.s.iv.event_interval[wake]];

	CU_ASSERT_EQUAL(job->kind, PL_IV_NATIVE);
	CU_ASSERT_EQUAL(job->start_ns, US(1130));
	CU_ASSERT_EQUAL(job->end, PL_END_WAIT);
	/* The wait that ended the first stretch and its switch-out stay in it. */
	uint64_t first_wait = find_event(&m, PL_EV_FUTEX_WAIT, RENDER, US(500));
	const struct pl_interval *idle = &m.s.iv.intervals[m.s.iv.event_interval[first_wait]];

	CU_ASSERT_EQUAL(idle->kind, PL_IV_IMPLICIT);
	CU_ASSERT_EQUAL(idle->end_ns, US(501));
	/* The main thread's lock wait stays in its message. */
	uint64_t main_wake = find_event(&m, PL_EV_FUTEX_WAKE, MAIN, US(1604));

	CU_ASSERT_EQUAL(m.s.iv.intervals[m.s.iv.event_interval[main_wake]].kind, PL_IV_MESSAGE);

	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(600));
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "notify>message>invalidate");
	/* Notified at 1115, on a cpu at 1125: the hop is time waiting to run. */
	uint64_t sum_ns = 0;

	for (int c = 0; c < PL_CATEGORIES; c++)
		sum_ns += m.s.bd.ns[0][c];
	CU_ASSERT_EQUAL(sum_ns, m.s.tx.items[0].latency_ns);
	CU_ASSERT(m.s.bd.ns[0][PL_CAT_RUNNABLE] >= US(15));
	/* OTHER, which released the view lock, is no member: the path waits on MAIN. */
	CU_ASSERT_EQUAL(m.s.tx.items[0].nthreads, 2);
	for (uint64_t i = m.s.cp.first_step[0]; i < m.s.cp.first_step[1]; i++)
		CU_ASSERT_NOT_EQUAL(m.trace.events[m.s.cp.steps[i].from_event].tid, OTHER);
	CU_ASSERT_STRING_EQUAL(pl_edge_kind_name(PL_EDGE_NOTIFY), "notify");
	model_free(&m);
}

/*
 * A one-shot worker forked by the tap blocks on a lock that another
 * thread's unrelated work holds, then posts its result and exits: its rest
 * is its own (a lock hop from its wait), not the lock holder's.
 */
static void test_one_shot_worker_lock_wait(void)
{
	enum { WORKER = 107, HOLDER = 108 };
	struct tb t;
	struct model m;
	char shape[64];

	tb_init(&t, 2);
	tb_user(&t, OTHER, US(1000), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1100), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1110), PL_EV_UI_INPUT, 0, 0);
	tb_kernel(&t, 0, US(1115), PL_EV_FORK, MAIN, WORKER, MAIN);
	tb_user(&t, MAIN, US(1120), PL_EV_MSG_DONE, 1, QUEUE);
	tb_kernel(&t, 1, US(1130), PL_EV_CONTEXT_SWITCH, 0, WORKER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(1140), PL_EV_FUTEX_WAIT, WORKER, VIEW_LOCK, 0);
	tb_kernel(&t, 1, US(1141), PL_EV_CONTEXT_SWITCH, WORKER, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(1400), PL_EV_FUTEX_NOTIFY, HOLDER, VIEW_LOCK, WORKER);
	tb_kernel(&t, 1, US(1410), PL_EV_CONTEXT_SWITCH, 0, WORKER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(1420), PL_EV_FUTEX_WAKE, WORKER, VIEW_LOCK, 0);
	tb_user(&t, WORKER, US(1500), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_kernel(&t, 1, US(1510), PL_EV_EXIT, WORKER, 0, 0);
	tb_user(&t, MAIN, US(1600), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1610), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(&t, MAIN, US(1620), PL_EV_MSG_DONE, 2, QUEUE);
	tb_user(&t, VSYNC, US(1650), PL_EV_ENQUEUE_MSG, 3, QUEUE);
	tb_user(&t, MAIN, US(1700), PL_EV_DEQUEUE_MSG, 3, QUEUE);
	tb_user(&t, MAIN, US(1710), PL_EV_UI_UPDATE, 0, 0);
	tb_user(&t, MAIN, US(1720), PL_EV_MSG_DONE, 3, QUEUE);
	model_build(&t, &m);

	uint64_t wake = find_event(&m, PL_EV_FUTEX_WAKE, WORKER, US(1420));
	const struct pl_interval *rest = &m.s.iv.intervals[m.s.iv.event_interval[wake]];

	CU_ASSERT_EQUAL(rest->kind, PL_IV_RESUMED);
	CU_ASSERT_EQUAL(rest->wait_event, find_event(&m, PL_EV_FUTEX_WAIT, WORKER, US(1140)));
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_LOCK], 1);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_NOTIFY], 0);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(600));
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "fork>lock>message>invalidate");
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_LOCK], US(1420 - 1140));
	CU_ASSERT_STRING_EQUAL(pl_edge_kind_name(PL_EDGE_LOCK), "lock");
	model_free(&m);
}

/*
 * The main thread blocks on a lock inside the input's message: until the
 * NOTIFY it waits for the lock, from the NOTIFY to its switch-in for a cpu.
 */
static void test_lock_wait_then_runnable(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 2);
	tb_user(&t, OTHER, US(1000), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1100), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1110), PL_EV_UI_INPUT, 0, 0);
	tb_kernel(&t, 0, US(1120), PL_EV_WAITQUEUE_WAIT, MAIN, VIEW_LOCK, 0);
	tb_kernel(&t, 0, US(1121), PL_EV_CONTEXT_SWITCH, MAIN, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 1, US(1300), PL_EV_WAITQUEUE_NOTIFY, OTHER, VIEW_LOCK, MAIN);
	tb_kernel(&t, 0, US(1350), PL_EV_CONTEXT_SWITCH, 0, MAIN, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, US(1351), PL_EV_WAITQUEUE_WAKE, MAIN, VIEW_LOCK, 0);
	tb_user(&t, MAIN, US(1360), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(&t, MAIN, US(1370), PL_EV_MSG_DONE, 1, QUEUE);
	tb_user(&t, VSYNC, US(1400), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1500), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1510), PL_EV_UI_UPDATE, 0, 0);
	tb_user(&t, MAIN, US(1520), PL_EV_MSG_DONE, 2, QUEUE);
	model_build(&t, &m);

	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_LOCK], US(179));
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_RUNNABLE], US(50));
	model_free(&m);
}

/* app-condjoin's two pool workers and its executor. */
enum { WAITER = 110, SIGNALLER = 111, POOL = 7 };

/*
 * app-condjoin's tap: MAIN takes input 0's message and submits pool tasks 1 and 2; with
 * start_up, each submission forks a new worker (SIGNALLER for task 1, WAITER for task 2).
 */
static void condjoin_tap(struct tb *t, int start_up)
{
	tb_init(t, 2);
	tb_user(t, OTHER, US(1000), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1100), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1110), PL_EV_UI_INPUT, 0, 0);
	tb_user(t, MAIN, US(1112), PL_EV_SUBMIT_ASYNC_TASK, 1, POOL);
	if (start_up)
		tb_kernel(t, 0, US(1113), PL_EV_FORK, MAIN, SIGNALLER, MAIN);
	tb_user(t, MAIN, US(1114), PL_EV_SUBMIT_ASYNC_TASK, 2, POOL);
	if (start_up)
		tb_kernel(t, 0, US(1115), PL_EV_FORK, MAIN, WAITER, MAIN);
	tb_user(t, MAIN, US(1120), PL_EV_MSG_DONE, 1, QUEUE);
}

/*
 * app-condjoin's join, after the tap submitted pool tasks 1 and 2 and the waiter took
 * waiter_task: the waiter (cpu 1) waits on the condition variable inside its task at 1200 us
 * until the signaller (cpu 0) signals at 1500 us and ends signaller_task; the waiter posts the
 * result to MAIN and ends its task, and MAIN draws it. Then the model.
 */
static void condjoin_join(struct tb *t, uint64_t waiter_task, uint64_t signaller_task,
			  struct model *m)
{
	tb_kernel(t, 1, US(1200), PL_EV_FUTEX_WAIT, WAITER, WORK_LOCK, 0);
	tb_kernel(t, 1, US(1201), PL_EV_CONTEXT_SWITCH, WAITER, 0, PL_STATE_SLEEPING);
	tb_kernel(t, 0, US(1500), PL_EV_FUTEX_NOTIFY, SIGNALLER, WORK_LOCK, WAITER);
	tb_user(t, SIGNALLER, US(1502), PL_EV_ASYNC_TASK_END, signaller_task, POOL);
	tb_kernel(t, 1, US(1505), PL_EV_CONTEXT_SWITCH, 0, WAITER, PL_STATE_RUNNABLE);
	tb_kernel(t, 1, US(1506), PL_EV_FUTEX_WAKE, WAITER, WORK_LOCK, 0);
	tb_user(t, WAITER, US(1510), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(t, WAITER, US(1511), PL_EV_ASYNC_TASK_END, waiter_task, POOL);
	tb_result_drawn(t, MAIN, VSYNC, QUEUE, 2, 1600);
	model_build(t, m);
}

/*
 * A join through a condition variable (app-condjoin): the tap submits two
 * pool tasks; the waiter (WAITER, cpu 1) computes briefly, then waits on the
 * condition variable inside its task until the signaller (SIGNALLER, cpu 0)
 * finishes its longer work and signals; the waiter posts the result. The
 * waiter's wake has two predecessors, its own wait and the signal: the
 * signal is later, so the path crosses the signaller's work (a notify hop),
 * and the wait is not charged as lock.
 */
static void test_condition_variable_join(void)
{
	struct tb t;
	struct model m;
	char shape[64];

	condjoin_tap(&t, 0);
	tb_user(&t, WAITER, US(1130), PL_EV_CONSUME_ASYNC_TASK, 1, POOL);
	tb_user(&t, SIGNALLER, US(1131), PL_EV_CONSUME_ASYNC_TASK, 2, POOL);
	condjoin_join(&t, 1, 2, &m);

	uint64_t wake = find_event(&m, PL_EV_FUTEX_WAKE, WAITER, US(1506));

	CU_ASSERT_EQUAL(m.s.iv.intervals[m.s.iv.event_interval[wake]].kind, PL_IV_TASK);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_NOTIFY], 1);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(600));
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "task>notify>message>invalidate");
	/* The signaller's work is on the path: its consume to its notify. */
	int through_signaller = 0;

	for (uint64_t i = m.s.cp.first_step[0]; i < m.s.cp.first_step[1]; i++) {
		const struct pl_step *st = &m.s.cp.steps[i];

		through_signaller |= st->kind == PL_EDGE_TEMPORAL &&
				     m.trace.events[st->from_event].tid == SIGNALLER &&
				     m.trace.events[st->to_event].ts_ns == US(1500);
	}
	CU_ASSERT(through_signaller);
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_LOCK], 0);
	model_free(&m);
}

/*
 * Start-up contention (app-condjoin's first taps on the phone): each task
 * starts a new pool worker; the signaller (SIGNALLER, cpu 0) blocks inside
 * its task on a kernel semaphore (MM_SEM) that the other new worker
 * (WAITER, cpu 1, forked after the signaller's task was submitted) holds as
 * it starts. The signaller waited for that start-up, so the path takes the
 * fork and that notify into the signaller's task, not the task edge, and
 * the wait is not charged as lock.
 */
static void test_start_up_contention(void)
{
	enum { MM_SEM = 0x4000 };
	struct tb t;
	struct model m;
	char shape[64];

	condjoin_tap(&t, 1);
	tb_kernel(&t, 1, US(1121), PL_EV_THREAD_NAME, WAITER, 0, 0);
	tb_user(&t, SIGNALLER, US(1130), PL_EV_CONSUME_ASYNC_TASK, 1, POOL);
	tb_kernel(&t, 0, US(1131), PL_EV_SEM_WAIT, SIGNALLER, MM_SEM, 0);
	tb_kernel(&t, 0, US(1132), PL_EV_CONTEXT_SWITCH, SIGNALLER, 0, PL_STATE_BLOCKED);
	tb_kernel(&t, 1, US(1140), PL_EV_SEM_NOTIFY, WAITER, MM_SEM, SIGNALLER);
	tb_kernel(&t, 0, US(1142), PL_EV_CONTEXT_SWITCH, 0, SIGNALLER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, US(1143), PL_EV_SEM_WAKE, SIGNALLER, MM_SEM, 0);
	tb_user(&t, WAITER, US(1145), PL_EV_CONSUME_ASYNC_TASK, 2, POOL);
	condjoin_join(&t, 2, 1, &m);

	uint64_t sem_wake = find_event(&m, PL_EV_SEM_WAKE, SIGNALLER, US(1143));

	CU_ASSERT_EQUAL(m.s.iv.intervals[m.s.iv.event_interval[sem_wake]].kind, PL_IV_TASK);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_NOTIFY], 2);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "fork>notify>notify>message>invalidate");
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_LOCK], 0);
	model_free(&m);
}

void add_native_tests(void)
{
	CU_pSuite s = CU_add_suite("native", NULL, NULL);

	CU_add_test(s, "a native renderer's intervals from wait and notify", test_native_renderer);
	CU_add_test(s, "a one-shot worker's lock wait", test_one_shot_worker_lock_wait);
	CU_add_test(s, "runnable from a lock's notify to the switch-in", test_lock_wait_then_runnable);
	CU_add_test(s, "a condition-variable join: the path crosses the signaller",
		    test_condition_variable_join);
	CU_add_test(s, "start-up contention: the path crosses the holder's start-up",
		    test_start_up_contention);
}
