/* SPDX-License-Identifier: MIT */
/*
 * Animation transactions: frames chained by messages are labelled, one frame
 * is not, and the critical path of a spinner runs through the task that ends
 * it, not along the spinner's frames.
 */
#include "test_analyzer.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, RECEIVER = 103, VSYNC = 104, WORKER = 105 };
#define QUEUE (MAIN << 8 | 0)
#define EXECUTOR (MAIN << 8 | 2)

/*
 * A tap whose handler invalidates and posts a frame callback, which
 * invalidates and re-posts itself twice more: three chained frames, each
 * drawn by the next vsync message.
 */
static void test_frame_callbacks_are_an_animation(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_user(&t, RECEIVER, US(1000), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1100), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1110), PL_EV_UI_INPUT, 0, 0);
	tb_user(&t, MAIN, US(1120), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(&t, MAIN, US(1130), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1140), PL_EV_MSG_DONE, 1, QUEUE);
	for (uint64_t f = 0; f < 3; f++) {
		uint64_t at = 2000 + f * 1000, cb = 2 + 2 * f, vs = 3 + 2 * f;

		tb_user(&t, VSYNC, US(at - 50), PL_EV_ENQUEUE_MSG, vs, QUEUE);
		tb_user(&t, MAIN, US(at), PL_EV_DEQUEUE_MSG, vs, QUEUE);
		tb_user(&t, MAIN, US(at + 10), PL_EV_UI_UPDATE, f, 0);
		tb_user(&t, MAIN, US(at + 20), PL_EV_MSG_DONE, vs, QUEUE);
		tb_user(&t, MAIN, US(at + 100), PL_EV_DEQUEUE_MSG, cb, QUEUE);
		if (f < 2) {
			tb_user(&t, MAIN, US(at + 110), PL_EV_UI_INVALIDATE, 0, 0);
			tb_user(&t, MAIN, US(at + 120), PL_EV_ENQUEUE_MSG, cb + 2, QUEUE);
		}
		tb_user(&t, MAIN, US(at + 130), PL_EV_MSG_DONE, cb, QUEUE);
	}
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].nupdates, 3);
	CU_ASSERT_EQUAL(m.s.tx.items[0].chained_frames, 3);
	CU_ASSERT(m.s.tx.items[0].animation);
	CU_ASSERT_EQUAL(m.s.tx.animations, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].first_update_ns, US(2010));
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(4010 - 1110));
	model_free(&m);
}

/*
 * app-animation's pattern: a tap starts a task and a spinner whose frame
 * callback re-posts itself on every vsync while the task runs. The task's
 * result (3600 us) invalidates; the spinner's last callback (4000 us, which
 * sees the task done and posts no more) invalidates after it, and the 4100 us
 * frame draws both. The animation ends because the task completed, so the
 * critical path crosses the task, not the spinner's chain of frames that the
 * latest-predecessor rule alone would take.
 */
static void test_spinner_path_crosses_the_task(void)
{
	struct tb t;
	struct model m;
	char shape[128];

	tb_init(&t, 1);
	tb_user(&t, RECEIVER, US(1000), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1100), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1110), PL_EV_UI_INPUT, 0, 0);
	tb_user(&t, MAIN, US(1120), PL_EV_UI_INVALIDATE, 0, 0);
	tb_user(&t, MAIN, US(1130), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1140), PL_EV_SUBMIT_ASYNC_TASK, 1, EXECUTOR);
	tb_user(&t, MAIN, US(1150), PL_EV_MSG_DONE, 1, QUEUE);
	tb_user(&t, WORKER, US(1200), PL_EV_CONSUME_ASYNC_TASK, 1, EXECUTOR);
	tb_user(&t, WORKER, US(3500), PL_EV_ENQUEUE_MSG, 10, QUEUE);
	tb_user(&t, WORKER, US(3510), PL_EV_ASYNC_TASK_END, 1, EXECUTOR);
	for (uint64_t f = 0; f < 3; f++) {
		uint64_t at = 2000 + f * 1000, cb = 2 + f, vs = 5 + f;

		tb_user(&t, VSYNC, US(at - 50), PL_EV_ENQUEUE_MSG, vs, QUEUE);
		tb_user(&t, MAIN, US(at), PL_EV_DEQUEUE_MSG, cb, QUEUE);
		tb_user(&t, MAIN, US(at + 10), PL_EV_UI_INVALIDATE, 1, 0);
		if (f < 2)
			tb_user(&t, MAIN, US(at + 20), PL_EV_ENQUEUE_MSG, cb + 1, QUEUE);
		tb_user(&t, MAIN, US(at + 30), PL_EV_MSG_DONE, cb, QUEUE);
		tb_user(&t, MAIN, US(at + 100), PL_EV_DEQUEUE_MSG, vs, QUEUE);
		tb_user(&t, MAIN, US(at + 110), PL_EV_UI_UPDATE, f, 0);
		tb_user(&t, MAIN, US(at + 120), PL_EV_MSG_DONE, vs, QUEUE);
		if (f == 1) {	/* the task's result, between the last two frames */
			tb_user(&t, MAIN, US(3600), PL_EV_DEQUEUE_MSG, 10, QUEUE);
			tb_user(&t, MAIN, US(3610), PL_EV_UI_INVALIDATE, 0, 0);
			tb_user(&t, MAIN, US(3620), PL_EV_MSG_DONE, 10, QUEUE);
		}
	}
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT(m.s.tx.items[0].animation);
	CU_ASSERT_EQUAL(m.s.tx.items[0].chained_frames, 4);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(4110 - 1110));
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "task>message>invalidate");
	/* The task's 2.3 ms on the worker is on the path; the spinner's frames are not. */
	uint64_t worker_ns = 0;

	for (uint64_t i = m.s.cp.first_step[0]; i < m.s.cp.first_step[1]; i++) {
		const struct pl_step *st = &m.s.cp.steps[i];

		if (st->kind == PL_EDGE_TEMPORAL && m.trace.events[st->from_event].tid == WORKER)
			worker_ns += m.trace.events[st->to_event].ts_ns -
				     m.trace.events[st->from_event].ts_ns;
	}
	CU_ASSERT_EQUAL(worker_ns, US(3500 - 1200));
	model_free(&m);
}

/* Work through a task between the tap's frame and the result's: no animation. */
static void test_task_result_is_not_an_animation(void)
{
	struct tb t;
	struct model m;

	scenario_sequential(&t);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 2);
	for (uint64_t k = 0; k < m.s.tx.count; k++) {
		CU_ASSERT_EQUAL(m.s.tx.items[k].chained_frames, 1);
		CU_ASSERT_FALSE(m.s.tx.items[k].animation);
	}
	CU_ASSERT_EQUAL(m.s.tx.animations, 0);
	model_free(&m);
}

void add_animation_tests(void)
{
	CU_pSuite s = CU_add_suite("animation", NULL, NULL);

	CU_add_test(s, "frame callbacks chained by messages", test_frame_callbacks_are_an_animation);
	CU_add_test(s, "a task's result is one frame", test_task_result_is_not_an_animation);
	CU_add_test(s, "a spinner's critical path crosses the task that ends it",
		    test_spinner_path_crosses_the_task);
}
