/* inputd's evdev reading: frames to taps and keys, param, scaling, dropped frames. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "panlab/evdev_input.h"
#include "test_platform.h"

struct emitted {
	struct pl_wire in[8];
	int n;
};

static void collect(void *ctx, struct pl_wire *m)
{
	struct emitted *e = ctx;
	e->in[e->n++] = *m;
}

static void feed(struct pl_evdev_state *s, struct emitted *out, uint16_t type, uint16_t code, int32_t value)
{
	struct input_event e = { .type = type, .code = code, .value = value };
	pl_evdev_feed(s, &e, collect, out);
}

/* The injector's tap: position, MSC_RAW param and BTN_TOUCH in one frame, release in the next. */
static void tap(struct pl_evdev_state *s, struct emitted *out, int x, int y, int param)
{
	feed(s, out, EV_ABS, ABS_X, x);
	feed(s, out, EV_ABS, ABS_Y, y);
	feed(s, out, EV_MSC, MSC_RAW, param);
	feed(s, out, EV_KEY, BTN_TOUCH, 1);
	feed(s, out, EV_SYN, SYN_REPORT, 0);
	feed(s, out, EV_KEY, BTN_TOUCH, 0);
	feed(s, out, EV_SYN, SYN_REPORT, 0);
}

static void test_taps_and_keys(void)
{
	struct pl_evdev_state s = { .ax = { .maximum = 479 }, .ay = { .maximum = 799 } };
	struct emitted out = { .n = 0 };
	tap(&s, &out, 240, 400, 123);
	feed(&s, &out, EV_KEY, KEY_BACK, 1);
	feed(&s, &out, EV_SYN, SYN_REPORT, 0);
	feed(&s, &out, EV_KEY, KEY_BACK, 0);
	feed(&s, &out, EV_SYN, SYN_REPORT, 0);
	tap(&s, &out, 0, 799, 0);
	CU_ASSERT_EQUAL_FATAL(out.n, 3);
	CU_ASSERT_EQUAL(out.in[0].type, PL_WIRE_TAP);
	CU_ASSERT_EQUAL(out.in[0].x_px, 240);
	CU_ASSERT_EQUAL(out.in[0].y_px, 400);
	CU_ASSERT_EQUAL(out.in[0].param, 123);
	CU_ASSERT_EQUAL(out.in[1].type, PL_WIRE_KEY);
	CU_ASSERT_EQUAL(out.in[1].code, KEY_BACK);
	/* A tap without MSC_RAW has param 0: the previous frame's value does not leak. */
	CU_ASSERT_EQUAL(out.in[2].param, 0);
	CU_ASSERT_EQUAL(out.in[2].y_px, 799);
}

/* A replayed chord (CTRL+C): the modifier goes down in the key's frame and is one input with it;
 * a modifier pressed alone is a key of its own. */
static void test_modifier_chord(void)
{
	struct pl_evdev_state s = { .ax = { .maximum = 479 }, .ay = { .maximum = 799 } };
	struct emitted out = { .n = 0 };
	feed(&s, &out, EV_KEY, KEY_LEFTCTRL, 1);
	feed(&s, &out, EV_KEY, KEY_C, 1);
	feed(&s, &out, EV_SYN, SYN_REPORT, 0);
	feed(&s, &out, EV_KEY, KEY_C, 0);
	feed(&s, &out, EV_KEY, KEY_LEFTCTRL, 0);
	feed(&s, &out, EV_SYN, SYN_REPORT, 0);
	feed(&s, &out, EV_KEY, KEY_LEFTSHIFT, 1);
	feed(&s, &out, EV_SYN, SYN_REPORT, 0);
	CU_ASSERT_EQUAL_FATAL(out.n, 2);
	CU_ASSERT(out.in[0].type == PL_WIRE_KEY && out.in[0].code == KEY_C);
	CU_ASSERT(out.in[1].type == PL_WIRE_KEY && out.in[1].code == KEY_LEFTSHIFT);
}

static void test_scaling_and_dropped(void)
{
	/* A tablet-like range 0..32767 maps onto the 480x800 screen. */
	struct pl_evdev_state s = { .ax = { .maximum = 32767 }, .ay = { .maximum = 32767 } };
	struct emitted out = { .n = 0 };
	tap(&s, &out, 16384, 32767, 5);
	CU_ASSERT_EQUAL_FATAL(out.n, 1);
	CU_ASSERT_EQUAL(out.in[0].x_px, 240);
	CU_ASSERT_EQUAL(out.in[0].y_px, 799);

	/* SYN_DROPPED loses the frame's touch-down. */
	feed(&s, &out, EV_KEY, BTN_TOUCH, 1);
	feed(&s, &out, EV_SYN, SYN_DROPPED, 0);
	feed(&s, &out, EV_SYN, SYN_REPORT, 0);
	CU_ASSERT_EQUAL(out.n, 1);
}

void add_evdev_suite(void)
{
	CU_pSuite s = CU_add_suite("evdev", NULL, NULL);
	CU_add_test(s, "taps with param, keys", test_taps_and_keys);
	CU_add_test(s, "a modifier chord is one input", test_modifier_chord);
	CU_add_test(s, "ABS scaling, SYN_DROPPED", test_scaling_and_dropped);
}
