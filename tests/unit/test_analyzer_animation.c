/* SPDX-License-Identifier: MIT */
/* Animation transactions: frames chained by messages are labelled, one frame is not. */
#include "test_analyzer.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, RECEIVER = 103, VSYNC = 104 };
#define QUEUE (MAIN << 8 | 0)

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
}
