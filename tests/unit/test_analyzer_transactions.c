/* SPDX-License-Identifier: MIT */
/* Transaction extraction on hand-built traces, with exact expected values. */
#include "test_analyzer.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, CHILD = 200, RECEIVER = 103, VSYNC = 104, TIMER = 105, SERVER = 300,
       OTHER = 400 };
#define QUEUE (MAIN << 8 | 0)

static void message(struct tb *t, uint32_t tid, uint64_t us, uint64_t msg)
{
	tb_user(t, tid, US(us), PL_EV_ENQUEUE_MSG, msg, QUEUE);
}

/* A main-looper message whose handler logs the given events 10 us apart. */
static void handle(struct tb *t, uint64_t us, uint64_t msg, int n, const uint16_t *types,
		   const uint64_t *a0)
{
	tb_user(t, MAIN, US(us), PL_EV_DEQUEUE_MSG, msg, QUEUE);
	for (int i = 0; i < n; i++)
		tb_user(t, MAIN, US(us + 10 * (i + 1)), types[i], a0 ? a0[i] : 0, 0);
	tb_user(t, MAIN, US(us + 10 * (n + 1)), PL_EV_MSG_DONE, msg, QUEUE);
}

static void draw(struct tb *t, uint64_t us, uint64_t msg, uint64_t frame)
{
	static const uint16_t update[] = { PL_EV_UI_UPDATE };

	message(t, VSYNC, us - 50, msg);
	handle(t, us, msg, 1, update, &frame);
}

static void invalidate(struct tb *t, uint64_t us, uint64_t msg)
{
	static const uint16_t inval[] = { PL_EV_UI_INVALIDATE };

	handle(t, us, msg, 1, inval, NULL);
}

static void test_overlapping(void)
{
	struct tb t;
	struct model m;

	scenario_overlap(&t);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.nevents, 33);
	CU_ASSERT_EQUAL(m.s.iv.nthreads, 5);
	CU_ASSERT_EQUAL(m.s.iv.nintervals, 11);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_MESSAGE], 6);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_TASK], 2);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_FORK], 2);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_INVALIDATE], 2);
	CU_ASSERT_EQUAL(m.s.graph.unmatched_dequeues, 0);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 2);
	/* Input 0 came first but its slow task draws last; attribution follows edges. */
	CU_ASSERT_EQUAL(m.s.tx.items[0].input_id, 0);
	CU_ASSERT_EQUAL(m.s.tx.items[0].input_ns, US(1110));
	CU_ASSERT_EQUAL(m.s.tx.items[0].end_ns, US(2710));
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(1600));
	CU_ASSERT_EQUAL(m.s.tx.items[1].input_id, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[1].input_ns, US(1310));
	CU_ASSERT_EQUAL(m.s.tx.items[1].end_ns, US(1710));
	CU_ASSERT_EQUAL(m.s.tx.items[1].latency_ns, US(400));
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(m.s.tx.items[i].nupdates, 1);
		CU_ASSERT_EQUAL(m.s.tx.items[i].nintervals, 4);
		CU_ASSERT_EQUAL(m.s.tx.items[i].nthreads, 2);
	}
	CU_ASSERT_EQUAL(m.s.tx.updates, 2);
	CU_ASSERT_EQUAL(m.s.tx.unattributed_updates, 0);
	CU_ASSERT_EQUAL(m.s.tx.inputs_without_update, 0);
	model_free(&m);
}

/*
 * One tap; its handler invalidates (first frame), forks a one-shot worker
 * that posts a progress message (second frame) and a final one (third frame)
 * and exits. The transaction ends at the third frame.
 */
static void test_several_updates(void)
{
	static const uint16_t tap[] = { PL_EV_UI_INPUT, PL_EV_UI_INVALIDATE };
	static const uint64_t tap_a0[] = { 0, 0 };
	struct tb t;
	struct model m;

	tb_init(&t, 2);
	message(&t, RECEIVER, 900, 1);
	handle(&t, 1000, 1, 2, tap, tap_a0);	/* UI_INPUT at 1010 */
	/* As the kernel logger does: FORK, then the child's name under the child's tid. */
	tb_kernel(&t, 1, US(1025), PL_EV_FORK, MAIN, CHILD, MAIN);
	tb_kernel(&t, 1, US(1025), PL_EV_THREAD_NAME, CHILD, 0x72656b726f77ull /* "worker" */, 0);
	draw(&t, 1200, 2, 0);
	message(&t, CHILD, 1300, 3);
	message(&t, CHILD, 1600, 5);
	tb_kernel(&t, 1, US(1650), PL_EV_EXIT, CHILD, 0, 0);
	invalidate(&t, 1400, 3);
	draw(&t, 1500, 4, 1);
	invalidate(&t, 1700, 5);
	draw(&t, 1800, 6, 2);	/* UI_UPDATE at 1810 */
	model_build(&t, &m);

	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].input_ns, US(1010));
	CU_ASSERT_EQUAL(m.s.tx.items[0].nupdates, 3);
	CU_ASSERT_EQUAL(m.s.tx.items[0].end_ns, US(1810));
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(800));
	CU_ASSERT_EQUAL(m.s.tx.items[0].nthreads, 2);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_FORK], 1);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_INVALIDATE], 3);
	CU_ASSERT_EQUAL(m.s.tx.unattributed_updates, 0);

	/* The one-shot worker is a single interval from its fork (THREAD_NAME) to EXIT. */
	int found = 0;

	for (uint64_t i = 0; i < m.s.iv.nintervals; i++) {
		const struct pl_interval *iv = &m.s.iv.intervals[i];

		if (m.s.iv.threads[iv->thread].tid != CHILD)
			continue;
		found++;
		CU_ASSERT_EQUAL(iv->kind, PL_IV_IMPLICIT);
		CU_ASSERT_EQUAL(iv->end, PL_END_EXIT);
		CU_ASSERT_EQUAL(iv->nevents, 4);
		CU_ASSERT_EQUAL(iv->start_ns, US(1025));
		CU_ASSERT_EQUAL(iv->end_ns, US(1650));
	}
	CU_ASSERT_EQUAL(found, 1);
	/* Threads in order of appearance: receiver, main, then the child at its fork. */
	const struct pl_thread *child = &m.s.iv.threads[2];

	CU_ASSERT_EQUAL(child->tid, CHILD);
	CU_ASSERT_STRING_EQUAL(child->name, "worker");
	CU_ASSERT_EQUAL(child->parent_tid, MAIN);
	CU_ASSERT_EQUAL(child->tgid, MAIN);
	CU_ASSERT_EQUAL(child->first_ns, US(1025));
	CU_ASSERT_EQUAL(child->last_ns, US(1650));
	model_free(&m);
}

/*
 * A timer redraws the screen before any input: that frame is no transaction.
 * A later tap draws; a last tap draws nothing.
 */
static void test_unattributed_update(void)
{
	static const uint16_t tap_draw[] = { PL_EV_UI_INPUT, PL_EV_UI_INVALIDATE };
	static const uint16_t tap_only[] = { PL_EV_UI_INPUT };
	static const uint64_t ids[] = { 0, 0 }, id1[] = { 1 };
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	message(&t, TIMER, 500, 1);
	invalidate(&t, 600, 1);
	draw(&t, 700, 2, 0);
	message(&t, RECEIVER, 1000, 3);
	handle(&t, 1100, 3, 2, tap_draw, ids);	/* UI_INPUT at 1110 */
	draw(&t, 1200, 4, 1);			/* UI_UPDATE at 1210 */
	message(&t, RECEIVER, 2000, 5);
	handle(&t, 2100, 5, 1, tap_only, id1);
	model_build(&t, &m);

	CU_ASSERT_EQUAL(m.s.tx.inputs, 2);
	CU_ASSERT_EQUAL(m.s.tx.updates, 2);
	CU_ASSERT_EQUAL(m.s.tx.unattributed_updates, 1);
	CU_ASSERT_EQUAL(m.s.tx.inputs_without_update, 1);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].input_id, 0);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(100));
	CU_ASSERT_EQUAL(m.s.tx.items[0].nupdates, 1);
	model_free(&m);
}

/* UI_INPUT logged outside any message starts its own interval: no temporal chaining of inputs. */
static void test_input_outside_message(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_user(&t, MAIN, US(1000), PL_EV_UI_INPUT, 0, 0);
	tb_user(&t, MAIN, US(1010), PL_EV_UI_INPUT, 1, 0);
	tb_user(&t, MAIN, US(1020), PL_EV_UI_INVALIDATE, 0, 0);
	draw(&t, 1100, 1, 0);
	model_build(&t, &m);

	CU_ASSERT_EQUAL_FATAL(m.s.iv.nintervals, 4);	/* input, input, vsync thread, draw */
	CU_ASSERT_EQUAL(m.s.iv.intervals[0].kind, PL_IV_INPUT);
	CU_ASSERT_EQUAL(m.s.iv.intervals[0].nevents, 1);
	CU_ASSERT_EQUAL(m.s.iv.intervals[1].kind, PL_IV_INPUT);
	CU_ASSERT_EQUAL(m.s.iv.intervals[1].nevents, 2);
	CU_ASSERT_EQUAL(m.s.iv.intervals[1].end, PL_END_NEXT);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].input_id, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(100));
	CU_ASSERT_EQUAL(m.s.tx.inputs_without_update, 1);
	model_free(&m);
}

/*
 * A tap's handler makes a two-way binder call (request 5, reply 6) to a
 * service thread, then invalidates; the service thread served a one-way
 * request 7 from another process just before. The reply continues the
 * handler's interval, request 5's interval ends at its reply, and request 7
 * is no part of the transaction.
 */
static void test_binder(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_kernel(&t, 0, US(900), PL_EV_BINDER_PRODUCE_ONEWAY, OTHER, 7, SERVER);
	tb_kernel(&t, 0, US(950), PL_EV_BINDER_CONSUME, SERVER, 7, 0);
	tb_kernel(&t, 0, US(1020), PL_EV_BINDER_PRODUCE_TWOWAY, MAIN, 5, SERVER);
	tb_kernel(&t, 0, US(1030), PL_EV_BINDER_CONSUME, SERVER, 5, 0);
	tb_kernel(&t, 0, US(1040), PL_EV_BINDER_REPLY, SERVER, 6, MAIN);
	tb_kernel(&t, 0, US(1045), PL_EV_BINDER_CONSUME, MAIN, 6, 0);
	tb_user(&t, SERVER, US(1100), PL_EV_ENQUEUE_MSG, 99, SERVER << 8);
	message(&t, RECEIVER, 900, 1);
	tb_user(&t, MAIN, US(1000), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1010), PL_EV_UI_INPUT, 0, 0);
	tb_user(&t, MAIN, US(1050), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(&t, MAIN, US(1060), PL_EV_MSG_DONE, 1, QUEUE);
	draw(&t, 1200, 2, 0);	/* UI_UPDATE at 1210 */
	model_build(&t, &m);

	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_BINDER], 3);
	CU_ASSERT_EQUAL(m.s.graph.unmatched_binder_consumes, 0);
	int server_intervals = 0;

	for (uint64_t i = 0; i < m.s.iv.nintervals; i++) {
		const struct pl_interval *iv = &m.s.iv.intervals[i];

		if (m.s.iv.threads[iv->thread].tid == MAIN && iv->item_id == 1)
			CU_ASSERT_EQUAL(iv->nevents, 6);	/* the reply did not split it */
		if (m.s.iv.threads[iv->thread].tid != SERVER)
			continue;
		server_intervals++;
		if (iv->start_ns == US(1030)) {
			CU_ASSERT_EQUAL(iv->kind, PL_IV_BINDER);
			CU_ASSERT_EQUAL(iv->item_id, 5);
			CU_ASSERT_EQUAL(iv->end, PL_END_MARKER);
			CU_ASSERT_EQUAL(iv->nevents, 2);
		}
	}
	CU_ASSERT_EQUAL(server_intervals, 3);	/* request 7, request 5, what follows the reply */
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(200));
	CU_ASSERT_EQUAL(m.s.tx.items[0].nthreads, 2);
	CU_ASSERT_EQUAL(m.s.tx.items[0].nintervals, 3);	/* message 1, request 5, the draw */
	model_free(&m);
}

/* Lost events: an end without start, a start without end, a dequeue without enqueue. */
static void test_lost_events(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_user(&t, MAIN, US(100), PL_EV_MSG_DONE, 9, QUEUE);
	tb_user(&t, MAIN, US(200), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(300), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(310), PL_EV_MSG_DONE, 2, QUEUE);
	model_build(&t, &m);

	CU_ASSERT_EQUAL(m.s.iv.orphan_ends, 1);
	CU_ASSERT_EQUAL(m.s.iv.unterminated, 1);
	CU_ASSERT_EQUAL(m.s.graph.unmatched_dequeues, 2);
	CU_ASSERT_EQUAL_FATAL(m.s.iv.nintervals, 3);
	CU_ASSERT_EQUAL(m.s.iv.intervals[0].kind, PL_IV_IMPLICIT);
	CU_ASSERT_EQUAL(m.s.iv.intervals[1].end, PL_END_NEXT);
	CU_ASSERT_EQUAL(m.s.iv.intervals[2].end, PL_END_MARKER);
	CU_ASSERT_EQUAL(m.s.tx.count, 0);
	model_free(&m);
}

void add_transaction_tests(void)
{
	CU_pSuite s = CU_add_suite("transactions", NULL, NULL);

	CU_add_test(s, "two overlapping transactions", test_overlapping);
	CU_add_test(s, "several display updates, the last ends it", test_several_updates);
	CU_add_test(s, "display update no input caused", test_unattributed_update);
	CU_add_test(s, "input outside a message", test_input_outside_message);
	CU_add_test(s, "binder calls", test_binder);
	CU_add_test(s, "lost events", test_lost_events);
}
