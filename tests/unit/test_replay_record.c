/* Tests of the recorder: evdev events, fed through a pipe, become a script that replays them. */
#include "test_replay.h"

#include <CUnit/Basic.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "panlab/error.h"

#define MS 1000000ull
#define START_NS 1000000000000ull /* 1000 s: any start will do, events are relative to it */

static struct input_event event_at(uint64_t t_ns, uint16_t type, uint16_t code, int32_t value)
{
	struct input_event ev = {.type = type, .code = code, .value = value};
	ev.input_event_sec = (time_t)(t_ns / 1000000000u);
	ev.input_event_usec = (long)(t_ns % 1000000000u / 1000u);
	return ev;
}

/* Records events through a pipe; returns the script text, which the caller frees. */
static char *record(const struct input_event *ev, size_t n)
{
	int p[2];
	CU_ASSERT_FATAL(pipe(p) == 0);
	CU_ASSERT_FATAL(write(p[1], ev, n * sizeof ev[0]) == (ssize_t)(n * sizeof ev[0]));
	close(p[1]);
	char *text = NULL;
	struct pl_error err;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	CU_ASSERT_FATAL(out != NULL);
	CU_ASSERT_EQUAL(pl_record(p[0], out, START_NS, &err), 0);
	fclose(out);
	close(p[0]);
	return text;
}

static void test_record(void)
{
	const struct input_event ev[] = {
		/* A tap at 500.5 ms rounds to 501 ms. */
		event_at(START_NS + 500500 * 1000, EV_ABS, ABS_X, 10),
		event_at(START_NS + 500500 * 1000, EV_ABS, ABS_Y, 20),
		event_at(START_NS + 500500 * 1000, EV_KEY, BTN_TOUCH, 1),
		event_at(START_NS + 500500 * 1000, EV_MSC, MSC_RAW, 7),
		event_at(START_NS + 500500 * 1000, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 560 * MS, EV_KEY, BTN_TOUCH, 0),
		event_at(START_NS + 560 * MS, EV_SYN, SYN_REPORT, 0),
		/* A key, with autorepeat and release, which add nothing. */
		event_at(START_NS + 1200 * MS, EV_KEY, KEY_BACK, 1),
		event_at(START_NS + 1200 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 1220 * MS, EV_KEY, KEY_BACK, 2),
		event_at(START_NS + 1220 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 1300 * MS, EV_KEY, KEY_BACK, 0),
		event_at(START_NS + 1300 * MS, EV_SYN, SYN_REPORT, 0),
		/* The same pixel again: evdev sends no ABS events, the position carries over. */
		event_at(START_NS + 2000 * MS, EV_KEY, BTN_TOUCH, 1),
		event_at(START_NS + 2000 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 2050 * MS, EV_KEY, BTN_TOUCH, 0),
		event_at(START_NS + 2050 * MS, EV_SYN, SYN_REPORT, 0),
		/* An unknown key is left out; the script lasts to the last event. */
		event_at(START_NS + 2500 * MS, EV_KEY, KEY_F24, 1),
		event_at(START_NS + 2600 * MS, EV_SYN, SYN_REPORT, 0),
	};
	char *text = record(ev, sizeof ev / sizeof ev[0]);
	CU_ASSERT_STRING_EQUAL(text, "# recorded by panlab-replay record\n"
				     "wait 501ms\n"
				     "tap 10 20 param=7\n"
				     "wait 649ms\n"
				     "key BACK\n"
				     "wait 750ms\n"
				     "tap 10 20\n"
				     "wait 550ms\n");
	struct pl_script *s = test_replay_parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 3);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->at_ns, 501 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->at_ns, 1200 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, 2)->at_ns, 2000 * MS);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 2600 * MS);
	pl_script_free(s);
	free(text);
}

/* Presses closer together than the fixed hold are kept, in order, back to back. */
static void test_record_fast_presses(void)
{
	const struct input_event ev[] = {
		event_at(START_NS + 100 * MS, EV_KEY, KEY_A, 1),
		event_at(START_NS + 100 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 110 * MS, EV_KEY, KEY_B, 1),
		event_at(START_NS + 110 * MS, EV_SYN, SYN_REPORT, 0),
	};
	char *text = record(ev, sizeof ev / sizeof ev[0]);
	CU_ASSERT_STRING_EQUAL(text, "# recorded by panlab-replay record\n"
				     "wait 100ms\n"
				     "key A\n"
				     "key B\n");
	free(text);
}

/* A chord is recorded as the language writes it, modifiers first; a modifier pressed alone is a
 * key of its own. Replayed, the chord's frames are the ones recorded. */
static void test_record_chord(void)
{
	const struct input_event ev[] = {
		event_at(START_NS + 100 * MS, EV_KEY, KEY_LEFTSHIFT, 1),
		event_at(START_NS + 100 * MS, EV_KEY, KEY_LEFTCTRL, 1),
		event_at(START_NS + 100 * MS, EV_KEY, KEY_C, 1),
		event_at(START_NS + 100 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 150 * MS, EV_KEY, KEY_C, 0),
		event_at(START_NS + 150 * MS, EV_KEY, KEY_LEFTCTRL, 0),
		event_at(START_NS + 150 * MS, EV_KEY, KEY_LEFTSHIFT, 0),
		event_at(START_NS + 150 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 300 * MS, EV_KEY, KEY_LEFTALT, 1),
		event_at(START_NS + 300 * MS, EV_SYN, SYN_REPORT, 0),
	};
	char *text = record(ev, sizeof ev / sizeof ev[0]);
	CU_ASSERT_STRING_EQUAL(text, "# recorded by panlab-replay record\n"
				     "wait 100ms\n"
				     "key CTRL+SHIFT+C\n"
				     "wait 150ms\n"
				     "key LEFTALT\n");
	struct pl_script *s = test_replay_parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 2);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->key_code, KEY_C);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->mods, PL_MOD_CTRL | PL_MOD_SHIFT);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->key_code, KEY_LEFTALT);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->mods, 0);
	pl_script_free(s);
	free(text);
}

/* A touch held 500 ms or more is a long press of the held length; one still down when the
 * recording ends lasts until then. A key press ends a touch that is down. */
static void test_record_long_press(void)
{
	const struct input_event ev[] = {
		event_at(START_NS + 100 * MS, EV_ABS, ABS_X, 10),
		event_at(START_NS + 100 * MS, EV_ABS, ABS_Y, 20),
		event_at(START_NS + 100 * MS, EV_KEY, BTN_TOUCH, 1),
		event_at(START_NS + 100 * MS, EV_MSC, MSC_RAW, 3),
		event_at(START_NS + 100 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 900 * MS, EV_KEY, BTN_TOUCH, 0),
		event_at(START_NS + 900 * MS, EV_SYN, SYN_REPORT, 0),
		/* Held 499 ms: a tap. */
		event_at(START_NS + 1000 * MS, EV_KEY, BTN_TOUCH, 1),
		event_at(START_NS + 1000 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 1499 * MS, EV_KEY, BTN_TOUCH, 0),
		event_at(START_NS + 1499 * MS, EV_SYN, SYN_REPORT, 0),
		/* Down, then a key 700 ms later ends it. */
		event_at(START_NS + 2000 * MS, EV_KEY, BTN_LEFT, 1),
		event_at(START_NS + 2000 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 2700 * MS, EV_KEY, KEY_HOME, 1),
		event_at(START_NS + 2700 * MS, EV_SYN, SYN_REPORT, 0),
		/* Down until the end. */
		event_at(START_NS + 3000 * MS, EV_KEY, BTN_TOUCH, 1),
		event_at(START_NS + 3000 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 4000 * MS, EV_MSC, MSC_RAW, 0),
		event_at(START_NS + 4000 * MS, EV_SYN, SYN_REPORT, 0),
	};
	char *text = record(ev, sizeof ev / sizeof ev[0]);
	CU_ASSERT_STRING_EQUAL(text, "# recorded by panlab-replay record\n"
				     "wait 100ms\n"
				     "longpress 10 20 800ms param=3\n"
				     "wait 100ms\n"
				     "tap 10 20\n"
				     "wait 950ms\n"
				     "longpress 10 20 700ms\n"
				     "key HOME\n"
				     "wait 250ms\n"
				     "longpress 10 20 1s\n");
	struct pl_script *s = test_replay_parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 5);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->hold_ns, 800 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->at_ns, 1000 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, 2)->at_ns, 2000 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, 3)->at_ns, 2700 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, 4)->hold_ns, 1000 * MS);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 4000 * MS);
	pl_script_free(s);
	free(text);
}

/* A touch that moves becomes a swipe from its press to its release position, with one step
 * per frame that moved it; a wiggle of a few pixels stays a tap. Its script replays the same
 * ends and timing. */
static void test_record_swipe(void)
{
	const struct input_event ev[] = {
		event_at(START_NS + 100 * MS, EV_ABS, ABS_X, 100),
		event_at(START_NS + 100 * MS, EV_ABS, ABS_Y, 700),
		event_at(START_NS + 100 * MS, EV_KEY, BTN_TOUCH, 1),
		event_at(START_NS + 100 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 117 * MS, EV_ABS, ABS_Y, 500),
		event_at(START_NS + 117 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 133 * MS, EV_ABS, ABS_X, 120),
		event_at(START_NS + 133 * MS, EV_ABS, ABS_Y, 300),
		event_at(START_NS + 133 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 150 * MS, EV_KEY, BTN_TOUCH, 0),
		event_at(START_NS + 150 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 400 * MS, EV_KEY, BTN_TOUCH, 1),
		event_at(START_NS + 400 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 420 * MS, EV_ABS, ABS_X, 124),
		event_at(START_NS + 420 * MS, EV_SYN, SYN_REPORT, 0),
		event_at(START_NS + 440 * MS, EV_KEY, BTN_TOUCH, 0),
		event_at(START_NS + 440 * MS, EV_SYN, SYN_REPORT, 0),
	};
	char *text = record(ev, sizeof ev / sizeof ev[0]);
	CU_ASSERT_STRING_EQUAL(text, "# recorded by panlab-replay record\n"
				     "wait 100ms\n"
				     "swipe 100 700 120 300 50ms steps=2\n"
				     "wait 250ms\n"
				     "tap 120 300\n");
	struct pl_script *s = test_replay_parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 2);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->kind, PL_ACTION_SWIPE);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->hold_ns, 50 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->at_ns, 400 * MS);
	pl_script_free(s);
	free(text);
}

int test_replay_add_record_suite(void)
{
	CU_pSuite suite = CU_add_suite("replay_record", NULL, NULL);
	if (!suite || !CU_add_test(suite, "record", test_record) ||
	    !CU_add_test(suite, "fast presses", test_record_fast_presses) ||
	    !CU_add_test(suite, "a chord and a lone modifier", test_record_chord) ||
	    !CU_add_test(suite, "long press", test_record_long_press) ||
	    !CU_add_test(suite, "swipe", test_record_swipe))
		return CU_get_error();
	return CUE_SUCCESS;
}
