/* SPDX-License-Identifier: MIT */
/*
 * Clock skew between cpus (skew.c): a service thread on cpu 1, whose clock
 * is behind, logs BINDER_CONSUME before the client's BINDER_PRODUCE_TWOWAY
 * on cpu 0, as the phone's cores do within a quantum.
 */
#include "test_analyzer.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, RECEIVER = 103, VSYNC = 104, WORKER = 105, SERVER = 300 };
#define QUEUE (MAIN << 8 | 0)

/*
 * A tap's handler calls the service (request 5, reply 6) and invalidates.
 * The service's consume is logged consume_us, a wakeup it does next on
 * cpu 1 consume_us + 2; the client's produce at 1020 us.
 */
static void service_call(struct tb *t, uint64_t consume_us)
{
	tb_init(t, 2);
	tb_user(t, RECEIVER, US(900), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1000), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1010), PL_EV_UI_INPUT, 0, 0);
	tb_kernel(t, 0, US(1020), PL_EV_BINDER_PRODUCE_TWOWAY, MAIN, 5, SERVER);
	tb_kernel(t, 1, US(consume_us), PL_EV_BINDER_CONSUME, SERVER, 5, 0);
	tb_kernel(t, 1, US(consume_us + 2), PL_EV_WAKEUP, SERVER, RECEIVER, 1);
	tb_kernel(t, 1, US(1040), PL_EV_BINDER_REPLY, SERVER, 6, MAIN);
	tb_kernel(t, 0, US(1045), PL_EV_BINDER_CONSUME, MAIN, 6, 0);
	tb_user(t, MAIN, US(1050), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(t, MAIN, US(1060), PL_EV_MSG_DONE, 1, QUEUE);
	tb_user(t, VSYNC, US(1150), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(t, MAIN, US(1200), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_user(t, MAIN, US(1210), PL_EV_UI_UPDATE, 0, 0);
	tb_user(t, MAIN, US(1220), PL_EV_MSG_DONE, 2, QUEUE);
}

static void test_consume_before_produce_is_moved(void)
{
	struct tb t;
	struct model m;
	char shape[128];

	service_call(&t, 1015);	/* 5 us before its producer */
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.skew_repaired, 1);
	CU_ASSERT_EQUAL(m.s.graph.unmatched_binder_consumes, 0);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_BINDER], 2);
	/* The timeline is in time order, and cpu 1 keeps its own order. */
	uint64_t produce_ns = 0, consume_ns = 0, wakeup_ns = 0;

	for (uint64_t e = 0; e < m.trace.nevents; e++) {
		const struct pl_event *ev = &m.trace.events[e];

		if (e)
			CU_ASSERT(m.trace.events[e - 1].ts_ns <= ev->ts_ns);
		if (ev->type == PL_EV_BINDER_PRODUCE_TWOWAY)
			produce_ns = ev->ts_ns;
		if (ev->type == PL_EV_BINDER_CONSUME && ev->a0 == 5) {
			CU_ASSERT(produce_ns != 0);	/* after its producer */
			consume_ns = ev->ts_ns;
		}
		if (ev->type == PL_EV_WAKEUP)
			wakeup_ns = ev->ts_ns;
	}
	CU_ASSERT_EQUAL(consume_ns, US(1020) + 1);
	CU_ASSERT_EQUAL(wakeup_ns, US(1020) + 1);	/* raised with its cpu, not reordered */
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(200));
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "binder>binder>invalidate");
	model_free(&m);
}

/*
 * The client runs on the late cpu: it logs the reply's BINDER_CONSUME
 * (kernel, cpu 1) 6 us before the service's BINDER_REPLY on cpu 0, and its
 * own invalidate (its user buffer, the same clock) 2 us after that. Both
 * follow the reply once repaired, so the path crosses the service.
 */
static void test_late_client_thread_follows(void)
{
	struct tb t;
	struct model m;
	char shape[128];

	tb_init(&t, 2);
	tb_user(&t, RECEIVER, US(900), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1000), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1010), PL_EV_UI_INPUT, 0, 0);
	tb_kernel(&t, 1, US(1020), PL_EV_BINDER_PRODUCE_TWOWAY, MAIN, 5, SERVER);
	tb_kernel(&t, 0, US(1025), PL_EV_BINDER_CONSUME, SERVER, 5, 0);
	tb_kernel(&t, 0, US(1040), PL_EV_BINDER_REPLY, SERVER, 6, MAIN);
	tb_kernel(&t, 1, US(1034), PL_EV_BINDER_CONSUME, MAIN, 6, 0);
	tb_user(&t, MAIN, US(1036), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(&t, MAIN, US(1060), PL_EV_MSG_DONE, 1, QUEUE);
	tb_user(&t, VSYNC, US(1150), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1200), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1210), PL_EV_UI_UPDATE, 0, 0);
	tb_user(&t, MAIN, US(1220), PL_EV_MSG_DONE, 2, QUEUE);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.skew_repaired, 1);
	CU_ASSERT_EQUAL(m.s.graph.unmatched_binder_consumes, 0);
	for (uint64_t e = 0; e < m.trace.nevents; e++)
		if (m.trace.events[e].type == PL_EV_UI_INVALIDATE)
			CU_ASSERT_EQUAL(m.trace.events[e].ts_ns, US(1040) + 1);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "binder>binder>invalidate");
	model_free(&m);
}

/*
 * A consumer further ahead than any skew is no skew but clocks that disagree: the trace is
 * refused in one line, unless a lost event explains the pair (a lost producer leaves its
 * consumer to a later one of the same key); then it stays unmatched and nothing moves.
 */
static void test_consume_far_ahead(void)
{
	struct tb t;
	struct model m;
	struct pl_trace trace;
	struct pl_error err = { "" };
	size_t len;

	service_call(&t, 1020 - PL_SKEW_MAX_NS / 1000 - 1);
	uint8_t *buf = tb_bytes(&t, &len);

	CU_ASSERT_EQUAL(pl_trace_parse("test.bin", buf, len, &trace, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "test.bin: 1 of 4 causal pairs have their consumer logged "
			       "more than 100 us before its producer, the furthest a binder pair "
			       "0.000101 s apart (producer at 1020000 ns on cpu 0, consumer at "
			       "919000 ns on cpu 1), more than the 0 lost events explain; expected "
			       "the sources on one clock");
	free(buf);
	t.b.sources[t.cpu_source[1]].src.lost = 1;
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.skew_repaired, 0);
	CU_ASSERT_EQUAL(m.s.graph.unmatched_binder_consumes, 1);
	model_free(&m);
}

/* One thread's buffer on a clock seconds late: every message it enqueues is consumed "before"
 * it was sent, and the trace is refused. */
static void test_source_shifted_by_seconds(void)
{
	struct tb t;
	struct pl_trace trace;
	struct pl_error err = { "" };
	size_t len;

	tb_init(&t, 1);
	for (uint64_t i = 0; i < 4; i++) {
		tb_user(&t, RECEIVER, US(1000 * i) + 2000000000u, PL_EV_ENQUEUE_MSG, i + 1, QUEUE);
		tb_user(&t, MAIN, US(1000 * i + 100), PL_EV_DEQUEUE_MSG, i + 1, QUEUE);
		tb_user(&t, MAIN, US(1000 * i + 200), PL_EV_MSG_DONE, i + 1, QUEUE);
	}
	uint8_t *buf = tb_bytes(&t, &len);

	tb_free(&t);
	CU_ASSERT_EQUAL(pl_trace_parse("shifted.bin", buf, len, &trace, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "shifted.bin: 4 of "));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a message pair 1.999900 s apart (producer at "
					       "2000000000 ns on thread 103's buffer, consumer at "
					       "100000 ns on thread 100's buffer)"));
	free(buf);
}

/* In order, nothing moves. */
static void test_in_order_is_unchanged(void)
{
	struct tb t;
	struct model m;

	service_call(&t, 1025);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.skew_repaired, 0);
	CU_ASSERT_EQUAL(m.s.graph.unmatched_binder_consumes, 0);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	model_free(&m);
}

/*
 * A pool worker forked by the main thread on cpu 0 at 1020 us logs its first
 * events on cpu 1, whose clock is behind, from fork_child_us: its wakeup
 * into the cpu, its THREAD_NAME and (user) its task.
 */
static void pool_fork(struct tb *t, uint64_t fork_child_us)
{
	uint64_t c = fork_child_us;

	tb_init(t, 2);
	tb_user(t, RECEIVER, US(900), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1000), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1010), PL_EV_UI_INPUT, 0, 0);
	tb_user(t, MAIN, US(1015), PL_EV_SUBMIT_ASYNC_TASK, 7, 9);
	tb_kernel(t, 0, US(1020), PL_EV_FORK, MAIN, WORKER, MAIN);
	tb_kernel(t, 0, US(1021), PL_EV_WAKEUP, MAIN, WORKER, 1);
	tb_user(t, MAIN, US(1030), PL_EV_MSG_DONE, 1, QUEUE);
	tb_kernel(t, 1, US(c), PL_EV_CONTEXT_SWITCH, 0, WORKER, PL_STATE_RUNNABLE);
	tb_kernel(t, 1, US(c), PL_EV_THREAD_NAME, WORKER, 0x72656b726f77ull, 0);	/* "worker" */
	tb_user(t, WORKER, US(c + 1), PL_EV_CONSUME_ASYNC_TASK, 7, 9);
	tb_user(t, WORKER, US(1100), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(t, WORKER, US(1101), PL_EV_ASYNC_TASK_END, 7, 9);
	tb_result_drawn(t, MAIN, VSYNC, QUEUE, 2, 1150);
}

/*
 * The worker's first events 3 us before its FORK: counted as out
 * of order (fork, and the wakeup that put it on cpu 1), moved after the
 * FORK, so the path takes the task edge and the worker keeps its own name.
 */
static void test_child_before_fork_is_moved(void)
{
	struct tb t;
	struct model m;
	char shape[128];

	pool_fork(&t, 1017);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.causal.out_of_order[PL_CAUSAL_FORK], 1);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_FORK], 1);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_TASK], 1);
	CU_ASSERT_EQUAL(m.trace.causal.out_of_order[PL_CAUSAL_TASK], 0);
	CU_ASSERT_EQUAL(m.trace.skew_repaired_by_kind[PL_CAUSAL_FORK], 1);
	CU_ASSERT(m.trace.skew_repaired >= 1);
	for (uint64_t e = 0; e < m.trace.nevents; e++) {
		const struct pl_event *ev = &m.trace.events[e];

		if (ev->tid == WORKER || (ev->type == PL_EV_CONTEXT_SWITCH && ev->a0 == WORKER))
			CU_ASSERT(ev->ts_ns > US(1020));
	}
	for (uint32_t i = 0; i < m.s.iv.nthreads; i++)
		if (m.s.iv.threads[i].tid == WORKER)
			CU_ASSERT_STRING_EQUAL(m.s.iv.threads[i].name, "worker");
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "task>message>invalidate");
	model_free(&m);
}

/* The same worker after its FORK and wakeup: every pair counted, none out of order. */
static void test_pairs_in_order_are_counted(void)
{
	struct tb t;
	struct model m;

	pool_fork(&t, 1023);
	model_build(&t, &m);
	for (int k = 0; k < PL_CAUSAL_KINDS; k++)
		CU_ASSERT_EQUAL(m.trace.causal.out_of_order[k], 0);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_FORK], 1);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_MESSAGE], 3);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_TASK], 1);
	CU_ASSERT_EQUAL(m.trace.skew_repaired, 0);
	model_free(&m);
}

/*
 * A futex hand-off: the waiter on cpu 1 logs its FUTEX_WAKE 2 us before the
 * FUTEX_NOTIFY that woke it on cpu 0, and is switched in before the WAKEUP
 * that the notifier's cpu logs. A switch-in after preemption is no consumer,
 * and a wake that a new wait follows is spent.
 */
static void test_notify_and_wakeup_are_checked(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 2);
	tb_kernel(&t, 1, US(900), PL_EV_FUTEX_WAIT, WORKER, 0x1000, 0);
	tb_kernel(&t, 1, US(901), PL_EV_CONTEXT_SWITCH, WORKER, 0, PL_STATE_SLEEPING);
	/* Preempted and back: no wakeup involved. */
	tb_kernel(&t, 0, US(950), PL_EV_CONTEXT_SWITCH, MAIN, RECEIVER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, US(960), PL_EV_CONTEXT_SWITCH, RECEIVER, MAIN, PL_STATE_SLEEPING);
	/* A wake that timed out, then a new wait: spent, not the next notify's consumer. */
	tb_kernel(&t, 0, US(970), PL_EV_FUTEX_WAKE, RECEIVER, 0x2000, 0);
	tb_kernel(&t, 0, US(975), PL_EV_FUTEX_WAIT, RECEIVER, 0x2000, 0);
	tb_kernel(&t, 1, US(1018), PL_EV_CONTEXT_SWITCH, 0, WORKER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(1018), PL_EV_FUTEX_WAKE, WORKER, 0x1000, 0);
	tb_kernel(&t, 0, US(1020), PL_EV_FUTEX_NOTIFY, MAIN, 0x1000, WORKER);
	tb_kernel(&t, 0, US(1020), PL_EV_WAKEUP, MAIN, WORKER, 1);
	tb_kernel(&t, 0, US(1030), PL_EV_FUTEX_NOTIFY, MAIN, 0x2000, RECEIVER);
	tb_kernel(&t, 0, US(1031), PL_EV_FUTEX_WAKE, RECEIVER, 0x2000, 0);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_NOTIFY], 2);
	CU_ASSERT_EQUAL(m.trace.causal.out_of_order[PL_CAUSAL_NOTIFY], 1);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_WAKEUP], 1);
	CU_ASSERT_EQUAL(m.trace.causal.out_of_order[PL_CAUSAL_WAKEUP], 1);
	CU_ASSERT_EQUAL(m.trace.skew_repaired_by_kind[PL_CAUSAL_NOTIFY] +
			m.trace.skew_repaired_by_kind[PL_CAUSAL_WAKEUP], m.trace.skew_repaired);
	CU_ASSERT(m.trace.skew_repaired >= 1);
	for (uint64_t e = 0; e < m.trace.nevents; e++)
		if (m.trace.events[e].tid == WORKER && m.trace.events[e].ts_ns > US(1000))
			CU_ASSERT(m.trace.events[e].ts_ns > US(1020));
	model_free(&m);
}

/*
 * A wakeup that races with the wakee's sleep (Linux: try_to_wake_up() finds
 * it inside __schedule() and queues it on its cpu): cpu 0 logs the WAKEUP
 * while WORKER is still on cpu 1, then WORKER switches out asleep and runs
 * again. That wakeup is the run's cause, in order; so is a lock's NOTIFY,
 * which the kernel logs instead of a WAKEUP. With ran_on, WORKER logs an
 * event of its own after the first wakeup (it found WORKER still queued and
 * WORKER ran on), so its next sleep's run is joined to the next wakeup,
 * which cpu 0 logs after the run: out of order.
 */
static void wake_during_sleep(struct model *m, int ran_on)
{
	struct tb t;

	tb_init(&t, 2);
	tb_kernel(&t, 1, US(900), PL_EV_CONTEXT_SWITCH, 0, WORKER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, US(1000), PL_EV_WAKEUP, MAIN, WORKER, 1);
	if (ran_on)
		tb_kernel(&t, 1, US(1001), PL_EV_WAKEUP, WORKER, RECEIVER, 1);
	tb_kernel(&t, 1, US(1002), PL_EV_IO_BLOCK, WORKER, 0, 0);
	tb_kernel(&t, 1, US(1002), PL_EV_CONTEXT_SWITCH, WORKER, 0, PL_STATE_BLOCKED);
	tb_kernel(&t, 1, US(1004), PL_EV_CONTEXT_SWITCH, 0, WORKER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, US(1005), PL_EV_WAKEUP, MAIN, WORKER, 1);
	/* Asleep on a wait queue; woken through it (no WAKEUP logged). */
	tb_kernel(&t, 1, US(1010), PL_EV_WAITQUEUE_WAIT, WORKER, 0x3000, 0);
	tb_kernel(&t, 1, US(1010), PL_EV_CONTEXT_SWITCH, WORKER, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(1020), PL_EV_WAITQUEUE_NOTIFY, 0, 0x3000, WORKER);
	tb_kernel(&t, 1, US(1022), PL_EV_CONTEXT_SWITCH, 0, WORKER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(1022), PL_EV_WAITQUEUE_WAKE, WORKER, 0x3000, 0);
	/* Woken again while still on cpu 1, as it goes to sleep. */
	tb_kernel(&t, 0, US(1030), PL_EV_WAKEUP, 0, WORKER, 1);
	tb_kernel(&t, 1, US(1031), PL_EV_CONTEXT_SWITCH, WORKER, 0, PL_STATE_BLOCKED);
	tb_kernel(&t, 1, US(1033), PL_EV_CONTEXT_SWITCH, 0, WORKER, PL_STATE_RUNNABLE);
	model_build(&t, m);
}

static void test_wake_during_sleep_causes_the_run(void)
{
	struct model m;

	wake_during_sleep(&m, 0);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_WAKEUP], 3);
	CU_ASSERT_EQUAL(m.trace.causal.out_of_order[PL_CAUSAL_WAKEUP], 0);
	CU_ASSERT_EQUAL(m.trace.causal.pairs[PL_CAUSAL_NOTIFY], 1);
	CU_ASSERT_EQUAL(m.trace.causal.out_of_order[PL_CAUSAL_NOTIFY], 0);
	CU_ASSERT_EQUAL(m.trace.skew_repaired, 0);
	model_free(&m);
	wake_during_sleep(&m, 1);
	CU_ASSERT_EQUAL(m.trace.causal.out_of_order[PL_CAUSAL_WAKEUP], 1);
	model_free(&m);
}

void add_skew_tests(void)
{
	CU_pSuite s = CU_add_suite("clock skew", NULL, NULL);

	CU_add_test(s, "a consume logged before its produce on another cpu is moved after it",
		    test_consume_before_produce_is_moved);
	CU_add_test(s, "the late consumer's thread follows it", test_late_client_thread_follows);
	CU_add_test(s, "a consume far ahead of its produce: refused unless a lost event explains it",
		    test_consume_far_ahead);
	CU_add_test(s, "a source shifted by seconds is refused", test_source_shifted_by_seconds);
	CU_add_test(s, "events in causal order are left alone", test_in_order_is_unchanged);
	CU_add_test(s, "a child's first events before its FORK are moved after it",
		    test_child_before_fork_is_moved);
	CU_add_test(s, "causal pairs in order are counted, none out of order",
		    test_pairs_in_order_are_counted);
	CU_add_test(s, "notify -> wake and wakeup -> run are checked", test_notify_and_wakeup_are_checked);
	CU_add_test(s, "a wakeup racing with the wakee's sleep causes its next run",
		    test_wake_during_sleep_causes_the_run);
}
