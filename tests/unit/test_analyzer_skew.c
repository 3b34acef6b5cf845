/* SPDX-License-Identifier: MIT */
/*
 * Clock skew between cpus (skew.c): a service thread on cpu 1, whose clock
 * is behind, logs BINDER_CONSUME before the client's BINDER_PRODUCE_TWOWAY
 * on cpu 0, as the phone's cores do within a quantum.
 */
#include "test_analyzer.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, RECEIVER = 103, VSYNC = 104, SERVER = 300 };
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

/* A consumer further ahead than any skew is no skew: it stays unmatched, nothing moves. */
static void test_consume_far_ahead_is_left(void)
{
	struct tb t;
	struct model m;

	service_call(&t, 1020 - PL_SKEW_MAX_NS / 1000 - 1);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.skew_repaired, 0);
	CU_ASSERT_EQUAL(m.s.graph.unmatched_binder_consumes, 1);
	model_free(&m);
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

void add_skew_tests(void)
{
	CU_pSuite s = CU_add_suite("clock skew", NULL, NULL);

	CU_add_test(s, "a consume logged before its produce on another cpu is moved after it",
		    test_consume_before_produce_is_moved);
	CU_add_test(s, "the late consumer's thread follows it", test_late_client_thread_follows);
	CU_add_test(s, "a consume far ahead of its produce is left alone", test_consume_far_ahead_is_left);
	CU_add_test(s, "events in causal order are left alone", test_in_order_is_unchanged);
}
