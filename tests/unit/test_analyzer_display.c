/* SPDX-License-Identifier: MIT */
/* Input to pixels (display.c) on a hand-built trace with inputd's and the compositor's events. */
#include "test_analyzer.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { APP = 100, INPUTD = 50, COMPOSITOR = 60 };

/* An input handled outside a message: UI_INPUT, an invalidate, then the frame that draws it. */
static void input(struct tb *t, uint64_t id, uint64_t read_us, uint64_t in_us, uint64_t frame,
		  uint64_t update_us)
{
	/* Delivered by the kernel 20 us before inputd read it. */
	tb_user(t, INPUTD, US(read_us), PL_EV_INPUT_READ, id, 20000);
	tb_user(t, INPUTD, US(read_us + 5), PL_EV_INPUT_DISPATCH, id, APP);
	tb_user(t, APP, US(in_us), PL_EV_UI_INPUT, id, 0);
	tb_user(t, APP, US(in_us + 10), PL_EV_UI_INVALIDATE, 1, 0);
	tb_user(t, APP, US(update_us), PL_EV_UI_UPDATE, frame, APP);
}

static void compose(struct tb *t, uint64_t latch_us, uint64_t app_frame, uint32_t display_frame)
{
	tb_user3(t, COMPOSITOR, US(latch_us), PL_EV_FRAME_LATCH, app_frame, APP, display_frame);
	tb_user(t, COMPOSITOR, US(latch_us + 50), PL_EV_DISPLAY_SUBMIT, display_frame, 0);
	tb_user(t, COMPOSITOR, US(latch_us + 850), PL_EV_DISPLAY_FLUSHED, display_frame, 0);
}

static void test_pipeline(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	/* Input 0's frame 3 is overtaken by input 1's frame 4 before the vsync: one flush shows both. */
	input(&t, 0, 1000, 1100, 3, 1500);
	input(&t, 1, 1520, 1540, 4, 1580);
	compose(&t, 1600, 4, 7);
	/* Input 2's frame 5 is latched a vsync later; a latch of another app's frame comes first. */
	input(&t, 2, 2000, 2040, 5, 2300);
	tb_user3(&t, COMPOSITOR, US(2500), PL_EV_FRAME_LATCH, 9, APP + 1, 8);
	compose(&t, 3000, 5, 9);
	/* Input 3's frame is never composed: its end stays at the update. */
	input(&t, 3, 4000, 4040, 6, 4300);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 4);
	const struct pl_pixels *p = &m.s.tx.items[0].pixels;

	CU_ASSERT_EQUAL(p->delivered_ns, US(1000) - 20000);
	CU_ASSERT_EQUAL(p->input_dispatch_ns, US(1100) - (US(1000) - 20000));
	CU_ASSERT_EQUAL(p->display_frame, 7);
	CU_ASSERT_EQUAL(p->vsync_queue_ns, US(100));
	CU_ASSERT_EQUAL(p->composition_ns, US(50));
	CU_ASSERT_EQUAL(p->flush_ns, US(800));
	CU_ASSERT_EQUAL(p->shown_ns, US(2450));
	CU_ASSERT_EQUAL(p->latency_ns, US(2450) - US(980));
	/* The parts tile the detected latency: dispatch + critical path + display pipeline. */
	CU_ASSERT_EQUAL(p->input_dispatch_ns + m.s.tx.items[0].latency_ns + p->vsync_queue_ns +
			p->composition_ns + p->flush_ns, p->latency_ns);
	p = &m.s.tx.items[1].pixels;
	CU_ASSERT_EQUAL(p->display_frame, 7);
	CU_ASSERT_EQUAL(p->vsync_queue_ns, US(20));
	p = &m.s.tx.items[2].pixels;
	CU_ASSERT_EQUAL(p->display_frame, 9);
	CU_ASSERT_EQUAL(p->shown_ns, US(3850));
	p = &m.s.tx.items[3].pixels;
	CU_ASSERT_EQUAL(p->display_frame, PL_NONE);
	CU_ASSERT_EQUAL(p->latch_event, PL_NONE);
	CU_ASSERT_EQUAL(p->shown_ns, US(4300));
	CU_ASSERT_EQUAL(p->vsync_queue_ns + p->composition_ns + p->flush_ns, 0);
	CU_ASSERT_EQUAL(p->delivered_ns, US(4000) - 20000);
	model_free(&m);
}

/* Without inputd's and the compositor's events both ends stay at UI_INPUT and UI_UPDATE. */
static void test_without_pipeline_events(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_user(&t, APP, US(100), PL_EV_UI_INPUT, 0, 0);
	tb_user(&t, APP, US(110), PL_EV_UI_INVALIDATE, 1, 0);
	tb_user(&t, APP, US(300), PL_EV_UI_UPDATE, 0, 0);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	const struct pl_pixels *p = &m.s.tx.items[0].pixels;

	CU_ASSERT_EQUAL(p->delivered_ns, US(100));
	CU_ASSERT_EQUAL(p->shown_ns, US(300));
	CU_ASSERT_EQUAL(p->latency_ns, m.s.tx.items[0].latency_ns);
	CU_ASSERT_EQUAL(p->read_event, PL_NONE);
	model_free(&m);
}

void add_display_tests(void)
{
	CU_pSuite s = CU_add_suite("display", NULL, NULL);

	CU_add_test(s, "input to pixels", test_pipeline);
	CU_add_test(s, "no pipeline events", test_without_pipeline_events);
}
