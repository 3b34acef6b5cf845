/* Unit tests of the replay script parser (replay/README.md), and the runner for all replay
 * suites. */
#include "test_replay.h"
#include "cunit_run.h"

#include <CUnit/Basic.h>
#include <linux/input-event-codes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "panlab/error.h"
#include "panlab/ground_truth_format.h"
#include "panlab/read_file.h"

#define MS 1000000ull
#define S 1000000000ull

struct pl_script *test_replay_parse(const char *text)
{
	struct pl_error err = { "" };
	struct pl_script *s = NULL;
	int rc = pl_script_parse_buffer("t.rply", text, strlen(text), &s, &err);
	if (rc != 0)
		fprintf(stderr, "\nunexpected parse error: %s\n", err.msg);
	CU_ASSERT_EQUAL(rc, 0);
	return rc == 0 ? s : NULL;
}

char *test_replay_temp_file(const char *text)
{
	char *path = strdup("/tmp/test_replay_XXXXXX");
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	return path;
}

static void test_empty_and_comments(void)
{
	static const char *texts[] = {"", "\n\n", "# only a comment\n   # another\n\t\n", "#"};
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		struct pl_script *s = test_replay_parse(texts[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(pl_script_action_count(s), 0);
		CU_ASSERT_EQUAL(pl_script_duration_ns(s), 0);
		CU_ASSERT_PTR_NULL(pl_script_action(s, 0));
		pl_script_free(s);
	}
}

static void test_tap(void)
{
	struct pl_script *s = test_replay_parse("# header\n"
						"tap 240 400 param=150 # the button\n"
						"tap 0 799\n"
						"tap 479 0 param=2147483647\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 3);
	const struct pl_action *a = pl_script_action(s, 0);
	CU_ASSERT_EQUAL(a->kind, PL_ACTION_TAP);
	CU_ASSERT_EQUAL(a->at_ns, 0);
	CU_ASSERT_EQUAL(a->hold_ns, 50 * MS);
	CU_ASSERT_EQUAL(a->x_px, 240);
	CU_ASSERT_EQUAL(a->y_px, 400);
	CU_ASSERT_EQUAL(a->param, 150);
	CU_ASSERT_EQUAL(a->line, 2);
	/* A press occupies the timeline until its release, so taps follow each other. */
	a = pl_script_action(s, 1);
	CU_ASSERT_EQUAL(a->at_ns, 50 * MS);
	CU_ASSERT_EQUAL(a->x_px, 0);
	CU_ASSERT_EQUAL(a->y_px, 799);
	CU_ASSERT_EQUAL(a->param, 0);
	a = pl_script_action(s, 2);
	CU_ASSERT_EQUAL(a->at_ns, 100 * MS);
	CU_ASSERT_EQUAL(a->param, 2147483647);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 150 * MS);
	pl_script_free(s);
}

static void test_key(void)
{
	struct pl_script *s = test_replay_parse("key BACK\nkey home\nkey KEY_Enter\nkey 158\n"
						"key KEY_1\nkey 2\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	static const uint16_t want[] = {KEY_BACK, KEY_HOME, KEY_ENTER, KEY_BACK, KEY_1, KEY_1};
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 6);
	for (size_t i = 0; i < 6; i++) {
		const struct pl_action *a = pl_script_action(s, i);
		CU_ASSERT_EQUAL(a->kind, PL_ACTION_KEY);
		CU_ASSERT_EQUAL(a->key_code, want[i]);
		CU_ASSERT_EQUAL(a->at_ns, i * 50 * MS);
		CU_ASSERT_EQUAL(a->hold_ns, 50 * MS);
	}
	pl_script_free(s);
}

/* The key table is written out by number; check it against the Linux ABI. */
static void test_key_table(void)
{
	static const struct {
		const char *name;
		int code;
	} abi[] = {
		{"ESC", KEY_ESC},         {"KEY_1", KEY_1},           {"KEY_0", KEY_0},
		{"MINUS", KEY_MINUS},     {"EQUAL", KEY_EQUAL},       {"BACKSPACE", KEY_BACKSPACE},
		{"TAB", KEY_TAB},         {"Q", KEY_Q},               {"P", KEY_P},
		{"LEFTBRACE", KEY_LEFTBRACE}, {"RIGHTBRACE", KEY_RIGHTBRACE}, {"ENTER", KEY_ENTER},
		{"A", KEY_A},             {"L", KEY_L},               {"SEMICOLON", KEY_SEMICOLON},
		{"APOSTROPHE", KEY_APOSTROPHE}, {"GRAVE", KEY_GRAVE}, {"LEFTSHIFT", KEY_LEFTSHIFT},
		{"BACKSLASH", KEY_BACKSLASH}, {"Z", KEY_Z},           {"M", KEY_M},
		{"COMMA", KEY_COMMA},     {"DOT", KEY_DOT},           {"SLASH", KEY_SLASH},
		{"SPACE", KEY_SPACE},     {"HOME", KEY_HOME},         {"UP", KEY_UP},
		{"PAGEUP", KEY_PAGEUP},   {"LEFT", KEY_LEFT},         {"RIGHT", KEY_RIGHT},
		{"END", KEY_END},         {"DOWN", KEY_DOWN},         {"PAGEDOWN", KEY_PAGEDOWN},
		{"DELETE", KEY_DELETE},   {"VOLUMEDOWN", KEY_VOLUMEDOWN}, {"VOLUMEUP", KEY_VOLUMEUP},
		{"POWER", KEY_POWER},     {"MENU", KEY_MENU},         {"BACK", KEY_BACK},
		{"HOMEPAGE", KEY_HOMEPAGE}, {"CAMERA", KEY_CAMERA},   {"SEARCH", KEY_SEARCH},
	};
	/* The modifiers a chord holds, beside LEFTSHIFT above. */
	static const int modifier_codes[] = { KEY_LEFTCTRL, KEY_LEFTALT };
	CU_ASSERT_EQUAL(pl_key_code("LEFTCTRL", 8), KEY_LEFTCTRL);
	CU_ASSERT_EQUAL(pl_key_code("leftalt", 7), KEY_LEFTALT);
	for (size_t i = 0; i < sizeof abi / sizeof abi[0]; i++)
		CU_ASSERT_EQUAL(pl_key_code(abi[i].name, strlen(abi[i].name)), abi[i].code);
	static const char letters[] = "QWERTYUIOPASDFGHJKLZXCVBNM";
	static const int letter_codes[] = {KEY_Q, KEY_W, KEY_E, KEY_R, KEY_T, KEY_Y, KEY_U, KEY_I,
					   KEY_O, KEY_P, KEY_A, KEY_S, KEY_D, KEY_F, KEY_G, KEY_H,
					   KEY_J, KEY_K, KEY_L, KEY_Z, KEY_X, KEY_C, KEY_V, KEY_B,
					   KEY_N, KEY_M};
	for (size_t i = 0; i < 26; i++)
		CU_ASSERT_EQUAL(pl_key_code(&letters[i], 1), letter_codes[i]);
	static const int digit_codes[] = {KEY_0, KEY_1, KEY_2, KEY_3, KEY_4,
					  KEY_5, KEY_6, KEY_7, KEY_8, KEY_9};
	for (int d = 0; d < 10; d++) {
		char name[8];
		snprintf(name, sizeof name, "KEY_%d", d);
		CU_ASSERT_EQUAL(pl_key_code(name, strlen(name)), digit_codes[d]);
		CU_ASSERT_EQUAL(pl_key_code(name + 4, 1), -1); /* a bare digit is a code */
	}
	/* Every name parses back to its code, and codes are unique. */
	for (size_t i = 0; i < pl_key_count(); i++) {
		uint16_t code = pl_key_code_at(i);
		const char *name = pl_key_name(code);
		CU_ASSERT_PTR_NOT_NULL_FATAL(name);
		CU_ASSERT_EQUAL(pl_key_code(name, strlen(name)), code);
		for (size_t k = 0; k < i; k++)
			CU_ASSERT_NOT_EQUAL(pl_key_code_at(k), code);
	}
	/* ... and no entry escaped the comparison with the ABI above. */
	for (size_t i = 0; i < pl_key_count(); i++) {
		int code = pl_key_code_at(i);
		bool checked = false;
		for (size_t k = 0; k < sizeof abi / sizeof abi[0]; k++)
			checked |= abi[k].code == code;
		for (size_t k = 0; k < 26; k++)
			checked |= letter_codes[k] == code;
		for (size_t k = 0; k < 10; k++)
			checked |= digit_codes[k] == code;
		for (size_t k = 0; k < 2; k++)
			checked |= modifier_codes[k] == code;
		CU_ASSERT(checked);
	}
	CU_ASSERT_EQUAL(pl_key_code("NOPE", 4), -1);
	CU_ASSERT_PTR_NULL(pl_key_name(999));
}

static void test_times(void)
{
	static const struct {
		const char *text;
		uint64_t ns;
	} cases[] = {
		{"wait 7ns", 7},
		{"wait 3us", 3000},
		{"wait 500ms", 500 * MS},
		{"wait 2s", 2 * S},
		{"wait 1.5s", 1500 * MS},
		{"wait 0.25ms", 250000},
		{"wait 2.000000001s", 2 * S + 1},
		{"wait 1.0000000000s", S},
		{"wait 0s", 0},
		{"wait 007ms", 7 * MS},
		{"wait 1000000s", 1000000 * S},
		{"wait 1s\nwait 250ms", 1250 * MS},
		{"at 3s", 3 * S},
		{"wait 1s\nat 1s", S},
		{"wait 1s\nat 1.5s\nwait 1ms", 1501 * MS},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pl_script *s = test_replay_parse(cases[i].text);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(pl_script_action_count(s), 0);
		if (pl_script_duration_ns(s) != cases[i].ns)
			fprintf(stderr, "\n%s: %llu ns\n", cases[i].text,
				(unsigned long long)pl_script_duration_ns(s));
		CU_ASSERT_EQUAL(pl_script_duration_ns(s), cases[i].ns);
		pl_script_free(s);
	}
}

static void test_timeline(void)
{
	struct pl_script *s = test_replay_parse("wait 500ms\n"
						"tap 1 2 param=10\n"
						"wait 310ms\n"
						"at 2s\n"
						"key BACK\n"
						"wait 1s\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 2);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->at_ns, 500 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->at_ns, 2 * S);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->line, 5);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 3050 * MS);
	pl_script_free(s);
}

/* Control actions take no script time: the clock stops there and what follows is timed from
 * the moment each is done; the actions keep their lines and arguments. */
static void test_control(void)
{
	struct pl_script *s = test_replay_parse("launch asynctask\n"
						"wait 500ms\n"
						"tap 1 2\n"
						"wait display\n"
						"switch svc_2-b\n"
						"wait idle timeout=1.5s\n"
						"repeat 2 {\n"
						"  key BACK\n"
						"  wait display timeout=20ms\n"
						"}\n"
						"at 1s\n"
						"wait 100ms\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 9);
	const struct pl_action *a = pl_script_action(s, 0);
	CU_ASSERT_EQUAL(a->kind, PL_ACTION_LAUNCH);
	CU_ASSERT_STRING_EQUAL(a->app, "asynctask");
	CU_ASSERT_EQUAL(a->at_ns, 0);
	CU_ASSERT_EQUAL(a->hold_ns, 0);
	CU_ASSERT_FALSE(pl_action_is_input(a));
	CU_ASSERT_TRUE(pl_action_is_input(pl_script_action(s, 1)));
	a = pl_script_action(s, 2);
	CU_ASSERT_EQUAL(a->kind, PL_ACTION_WAIT_DISPLAY);
	CU_ASSERT_EQUAL(a->at_ns, 550 * MS);
	CU_ASSERT_EQUAL(a->timeout_ns, PL_WAIT_TIMEOUT_NS);
	CU_ASSERT_EQUAL(a->line, 4);
	a = pl_script_action(s, 3);
	CU_ASSERT_EQUAL(a->kind, PL_ACTION_SWITCH);
	CU_ASSERT_STRING_EQUAL(a->app, "svc_2-b");
	CU_ASSERT_EQUAL(a->at_ns, 550 * MS);
	a = pl_script_action(s, 4);
	CU_ASSERT_EQUAL(a->kind, PL_ACTION_WAIT_IDLE);
	CU_ASSERT_EQUAL(a->timeout_ns, 1500 * MS);
	static const enum pl_action_kind kinds[4] = {PL_ACTION_KEY, PL_ACTION_WAIT_DISPLAY,
						     PL_ACTION_KEY, PL_ACTION_WAIT_DISPLAY};
	static const uint64_t at[4] = {550 * MS, 600 * MS, 600 * MS, 650 * MS};
	for (size_t i = 0; i < 4; i++) {
		a = pl_script_action(s, 5 + i);
		CU_ASSERT_EQUAL(a->kind, kinds[i]);
		CU_ASSERT_EQUAL(a->at_ns, at[i]);
	}
	CU_ASSERT_EQUAL(pl_script_action(s, 6)->timeout_ns, 20 * MS);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 1100 * MS);
	pl_script_free(s);
}

static void test_repeat(void)
{
	struct pl_script *s = test_replay_parse("wait 100ms\n"
						"repeat 3 {   # three presses\n"
						"  tap 1 2 param=5\n"
						"  wait 1s\n"
						"}\n"
						"key BACK\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 4);
	for (size_t i = 0; i < 3; i++) {
		const struct pl_action *a = pl_script_action(s, i);
		CU_ASSERT_EQUAL(a->kind, PL_ACTION_TAP);
		CU_ASSERT_EQUAL(a->at_ns, 100 * MS + i * 1050 * MS);
		CU_ASSERT_EQUAL(a->param, 5);
		CU_ASSERT_EQUAL(a->line, 3);
	}
	CU_ASSERT_EQUAL(pl_script_action(s, 3)->at_ns, 3250 * MS);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 3300 * MS);
	pl_script_free(s);
}

static void test_repeat_nested(void)
{
	struct pl_script *s = test_replay_parse("repeat 2{\n"
						"\trepeat 3 {\n"
						"\t\ttap 7 8\n"
						"\t\twait 10ms\n"
						"\t}\n"
						"\twait 1s\n"
						"}\n"
						"repeat 4 {\n"
						"}\n"
						"repeat 5 {\n"
						"wait 1ms\n"
						"}");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 6);
	static const uint64_t want_ms[] = {0, 60, 120, 1180, 1240, 1300};
	for (size_t i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(pl_script_action(s, i)->at_ns, want_ms[i] * MS);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 2360 * MS + 5 * MS);
	pl_script_free(s);
}

static void test_line_endings(void)
{
	struct pl_script *s = test_replay_parse("wait 1s\r\n\ttap\t1\t2\tparam=3\r\n\r\nkey A");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 2);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->param, 3);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->line, 2);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->key_code, KEY_A);
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->line, 4);
	pl_script_free(s);
}

static void test_format_duration(void)
{
	static const struct {
		uint64_t ns;
		const char *text;
	} cases[] = {{0, "0s"}, {7, "7ns"}, {3000, "3us"}, {1500 * MS, "1500ms"}, {2 * S, "2s"},
		     {2 * S + 1, "2000000001ns"}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[32];
		pl_format_duration(buf, sizeof buf, cases[i].ns);
		CU_ASSERT_STRING_EQUAL(buf, cases[i].text);
	}
}

/* Each syntax error, with the exact one-line message: where, what is wrong, what was expected. */
static void test_errors(void)
{
	char nested[17 * 12 + 1] = "";
	for (int i = 0; i < 17; i++)
		strcat(nested, "repeat 1 {\n");
	static const char long_word[] = "tap 1 2 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx";
	const struct {
		const char *text;
		const char *err;
	} cases[] = {
		{ "foo 1 2",
		  "t.rply:1:1: unknown command 'foo', expected tap, longpress, swipe, key, "
		  "text, monkey, wait, at, repeat, launch or switch" },
		{ "# ok\nTAP 1 2",
		  "t.rply:2:1: unknown command 'TAP', expected tap, longpress, swipe, key, text, "
		  "monkey, wait, at, repeat, launch or switch" },
		{ "{",
		  "t.rply:1:1: unknown command '{', expected tap, longpress, swipe, key, text, "
		  "monkey, wait, at, repeat, launch or switch" },
		{ "tap", "t.rply:1:4: missing x coordinate, expected an integer from 0 to 479" },
		{ "tap 10   # no y",
		  "t.rply:1:7: missing y coordinate, expected an integer from 0 to 799" },
		{ "tap 1x 10",
		  "t.rply:1:5: bad x coordinate '1x', expected an integer from 0 to 479" },
		{ "tap -1 10",
		  "t.rply:1:5: bad x coordinate '-1', expected an integer from 0 to 479" },
		{ "tap 480 10",
		  "t.rply:1:5: x coordinate 480 is out of range, expected an integer from 0 to 479" },
		{ "tap 10 800",
		  "t.rply:1:8: y coordinate 800 is out of range, expected an integer from 0 to 799" },
		{ "tap 10 99999999999999999999999",
		  "t.rply:1:8: y coordinate 99999999999999999999999 is out of range, expected an "
		  "integer from 0 to 799" },
		{ "tap 1 2 3",
		  "t.rply:1:9: unexpected '3', expected param=N or the end of the line" },
		{ "tap 1 2 foo=3", "t.rply:1:9: unknown option 'foo', expected param=N" },
		{ "tap 1 2 =3", "t.rply:1:9: unknown option '', expected param=N" },
		{ "tap 1 2 param=",
		  "t.rply:1:15: missing param, expected an integer from 0 to 2147483647" },
		{ "tap 1 2 param=-1",
		  "t.rply:1:15: bad param '-1', expected an integer from 0 to 2147483647" },
		{ "tap 1 2 param=2147483648",
		  "t.rply:1:15: param 2147483648 is out of range, expected an integer from 0 to "
		  "2147483647" },
		{ "tap 1 2 param=1 param=2", "t.rply:1:17: param given twice, expected it once" },
		{ long_word, "t.rply:1:9: unexpected 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx', "
			     "expected param=N or the end of the line" },
		{ "key", "t.rply:1:4: missing key, expected a key name such as BACK or a code" },
		{ "key FOO", "t.rply:1:5: unknown key 'FOO', expected a key name listed in "
			     "replay/README.md (e.g. BACK, HOME, ENTER, A)" },
		{ "key 999", "t.rply:1:5: unknown key code 999, expected a code listed in "
			     "replay/README.md" },
		{ "key 70000", "t.rply:1:5: key code 70000 is out of range, expected an integer "
			       "from 0 to 65535" },
		{ "key 1a", "t.rply:1:5: bad key code '1a', expected an integer from 0 to 65535" },
		{ "key BACK HOME", "t.rply:1:10: unexpected 'HOME', expected the end of the line" },
		{ "wait",
		  "t.rply:1:5: missing duration, expected a number with a unit ns, us, ms or s "
		  "(e.g. 500ms or 1.5s)" },
		{ "wait 500",
		  "t.rply:1:6: bad duration '500', expected a number with a unit ns, us, "
		  "ms or s (e.g. 500ms or 1.5s)" },
		{ "wait 5 ms",
		  "t.rply:1:6: bad duration '5', expected a number with a unit ns, us, "
		  "ms or s (e.g. 500ms or 1.5s)" },
		{ "wait 5m", "t.rply:1:6: bad duration '5m', expected a number with a unit ns, us, "
			     "ms or s (e.g. 500ms or 1.5s)" },
		{ "wait .5s",
		  "t.rply:1:6: bad duration '.5s', expected a number with a unit ns, us, "
		  "ms or s (e.g. 500ms or 1.5s)" },
		{ "wait 1.s",
		  "t.rply:1:6: bad duration '1.s', expected a number with a unit ns, us, "
		  "ms or s (e.g. 500ms or 1.5s)" },
		{ "wait 1.5ns",
		  "t.rply:1:6: duration '1.5ns' is not a whole number of nanoseconds, "
		  "expected fewer decimals" },
		{ "wait 0.0000000001s",
		  "t.rply:1:6: duration '0.0000000001s' is not a whole number "
		  "of nanoseconds, expected fewer decimals" },
		{ "wait 1000000.000000001s", "t.rply:1:6: duration '1000000.000000001s' is too "
					     "large, expected at most 1000000s" },
		{ "wait 99999999999999999999ns", "t.rply:1:6: duration '99999999999999999999ns' is "
						 "too large, expected at most 1000000s" },
		{ "wait 1s 2s", "t.rply:1:9: unexpected '2s', expected the end of the line" },
		{ "wait 999999s\nwait 2s",
		  "t.rply:2:1: script time passes 1000000s, expected a shorter script" },
		{ "at", "t.rply:1:3: missing time, expected a number with a unit ns, us, ms or s "
			"(e.g. 500ms or 1.5s)" },
		{ "wait 2s\ntap 1 2\nat 2s", "t.rply:3:4: time 2s is before the script's current "
					     "time 2050ms, expected a time at or after it" },
		{ "repeat 2 {\n  at 1s\n}", "t.rply:2:3: 'at' inside a repeat block, expected wait "
					    "(an absolute time cannot repeat)" },
		{ "repeat",
		  "t.rply:1:7: missing repeat count, expected an integer from 1 to 1000000" },
		{ "repeat 0 {",
		  "t.rply:1:8: repeat count 0 is out of range, expected an integer from "
		  "1 to 1000000" },
		{ "repeat 2", "t.rply:1:9: missing '{', expected 'repeat N {'" },
		{ "repeat 2 (", "t.rply:1:10: unexpected '(', expected '{'" },
		{ "repeat 2 { tap 1 2\n}", "t.rply:1:12: unexpected 'tap', expected the end of the "
					   "line" },
		{ "\n\nrepeat 2 {\ntap 1 2\n",
		  "t.rply:3:1: repeat block is not closed, expected '}' "
		  "before the end of the file" },
		{ "}", "t.rply:1:1: unexpected '}', expected a command (no repeat block is open)" },
		{ "repeat 2 {\n} x", "t.rply:2:3: unexpected 'x', expected the end of the line" },
		{ nested,
		  "t.rply:17:1: repeat blocks nested more than 16 deep, expected fewer levels" },
		{ "repeat 1000000 {\nrepeat 2 {\ntap 1 2\n}\n}",
		  "t.rply:1:1: repeat makes more than 1000000 actions, expected a smaller count" },
		{ "repeat 2000 {\nwait 1000s\n}",
		  "t.rply:1:1: script time passes 1000000s, expected a smaller count" },
		{ "longpress 1 2", "t.rply:1:14: missing press duration, expected a number with a "
				   "unit ns, us, ms or s (e.g. 500ms or 1.5s)" },
		{ "longpress 1 2 0ms", "t.rply:1:15: press duration 0 is too short, expected at "
				       "least 1ns" },
		{ "longpress 1 2 1s foo=2", "t.rply:1:18: unknown option 'foo', expected param=N" },
		{ "swipe 1 2 3",
		  "t.rply:1:12: missing end y coordinate, expected an integer from 0 to "
		  "799" },
		{ "swipe 1 2 3 4",
		  "t.rply:1:14: missing swipe duration, expected a number with a unit "
		  "ns, us, ms or s (e.g. 500ms or 1.5s)" },
		{ "swipe 1 2 3 4 0s",
		  "t.rply:1:15: swipe duration 0 is too short, expected at least "
		  "1ns" },
		{ "swipe 1 2 3 4 1s steps=0", "t.rply:1:24: steps 0 is out of range, expected an "
					      "integer from 1 to 1000" },
		{ "swipe 1 2 3 4 1s up=1", "t.rply:1:18: unknown option 'up', expected steps=N or "
					   "param=N" },
		{ "text", "t.rply:1:5: missing text, expected a quoted string such as \"hello\"" },
		{ "text hello", "t.rply:1:6: bad text 'hello', expected a quoted string such as "
				"\"hello\"" },
		{ "text \"a b", "t.rply:1:6: bad text '\"a b', expected a quoted string such as "
				"\"hello\"" },
		{ "text \"a\" interval=10ms", "t.rply:1:23: interval 10ms is shorter than a press, "
					      "expected at least 50ms" },
		{ "text \"a\" interval=10",
		  "t.rply:1:19: bad interval '10', expected a number with a "
		  "unit ns, us, ms or s (e.g. 500ms or 1.5s)" },
		{ "text \"a\" 3", "t.rply:1:10: unexpected '3', expected interval=D or the end of "
				  "the line" },
		{ "monkey", "t.rply:1:7: missing seed, expected an integer from 0 to 4294967295" },
		{ "monkey 1", "t.rply:1:9: missing count, expected an integer from 1 to 1000000" },
		{ "monkey 1 0",
		  "t.rply:1:10: count 0 is out of range, expected an integer from 1 to "
		  "1000000" },
		{ "monkey 1 2 keys=101",
		  "t.rply:1:17: keys 101 is out of range, expected an integer "
		  "from 0 to 100" },
		{ "monkey 1 2 area=1,2,3", "t.rply:1:17: bad area '1,2,3', expected X1,Y1,X2,Y2" },
		{ "monkey 1 2 area=5,5,4,9", "t.rply:1:21: area x2 4 is out of range, expected an "
					     "integer from 5 to 479" },
		{ "monkey 1 2 area=0,0,9,800", "t.rply:1:23: area y2 800 is out of range, expected "
					       "an integer from 0 to 799" },
		{ "monkey 1 2 param=1 param=1",
		  "t.rply:1:20: param given twice, expected it once" },
		{ "monkey 1 2 foo=1", "t.rply:1:12: unknown option 'foo', expected interval=D, "
				      "area=X1,Y1,X2,Y2, param=N or keys=P" },
		{ "wait idle 5s",
		  "t.rply:1:11: unexpected '5s', expected timeout=D or the end of the "
		  "line" },
		{ "wait display timeout=0s",
		  "t.rply:1:14: timeout 0 is too short, expected at least "
		  "1ns" },
		{ "wait display timeout=5",
		  "t.rply:1:22: bad timeout '5', expected a number with a "
		  "unit ns, us, ms or s (e.g. 500ms or 1.5s)" },
		{ "wait idle timeout=1s timeout=2s",
		  "t.rply:1:22: timeout given twice, expected it "
		  "once" },
		{ "wait idel",
		  "t.rply:1:6: bad wait 'idel', expected a duration (e.g. 500ms), idle "
		  "or display" },
		{ "launch", "t.rply:1:7: missing app name, expected a name such as asynctask" },
		{ "switch Asynctask",
		  "t.rply:1:8: bad app name 'Asynctask', expected up to 31 "
		  "lower-case letters, digits, '_' or '-', starting with a letter" },
		{ "launch 1app", "t.rply:1:8: bad app name '1app', expected up to 31 lower-case "
				 "letters, digits, '_' or '-', starting with a letter" },
		{ "launch a/b",
		  "t.rply:1:8: bad app name 'a/b', expected up to 31 lower-case letters, "
		  "digits, '_' or '-', starting with a letter" },
		{ "launch abcdefghijabcdefghijabcdefghijab",
		  "t.rply:1:8: bad app name "
		  "'abcdefghijabcdefghijabcdefghijab', expected up to 31 lower-case letters, digits, "
		  "'_' or '-', starting with a letter" },
		{ "switch service now",
		  "t.rply:1:16: unexpected 'now', expected the end of the line" },
		{ "tap 1 2\x01", "t.rply:1:8: unexpected control byte 0x01, expected text" },
		{ "# \x7f", "t.rply:1:3: unexpected control byte 0x7f, expected text" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pl_error err = { "" };
		struct pl_script *s = (struct pl_script *)1;
		int rc = pl_script_parse_buffer("t.rply", cases[i].text, strlen(cases[i].text), &s,
						&err);
		CU_ASSERT_EQUAL(rc, -1);
		CU_ASSERT_PTR_NULL(s);
		if (strcmp(err.msg, cases[i].err) != 0)
			fprintf(stderr, "\ncase %zu\n got: %s\nwant: %s\n", i, err.msg, cases[i].err);
		CU_ASSERT_STRING_EQUAL(err.msg, cases[i].err);
	}
}

/* The errors of modifiers and of text's characters, as test_errors checks the others. */
static void test_errors_modifiers_text(void)
{
	static const struct {
		const char *text;
		const char *msg;
	} cases[] = {
		{ "text \"a\xc3\xa9\"",
		  "t.rply:1:8: cannot type byte 0xc3, expected printable ASCII "
		  "(space to '~'; write \\\" for a quote, \\\\ for a backslash)" },
		{ "text \"ab\\\"",
		  "t.rply:1:6: bad text '\"ab\\\"', expected a quoted string such as "
		  "\"hello\"" },
		{ "key CTL+C",
		  "t.rply:1:5: unknown modifier 'CTL', expected CTRL, SHIFT or ALT, each "
		  "once, joined to the key by '+' (e.g. CTRL+C)" },
		{ "key ctrl+CTRL+C",
		  "t.rply:1:10: repeated modifier 'CTRL', expected CTRL, SHIFT or "
		  "ALT, each once, joined to the key by '+' (e.g. CTRL+C)" },
		{ "key SHIFT+NOPE",
		  "t.rply:1:11: unknown key 'NOPE', expected a key name listed in "
		  "replay/README.md (e.g. BACK, HOME, ENTER, A)" },
		{ "key SHIFT+", "t.rply:1:11: unknown key '', expected a key name listed in "
				"replay/README.md (e.g. BACK, HOME, ENTER, A)" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pl_script *s = NULL;
		struct pl_error err;
		CU_ASSERT_EQUAL(pl_script_parse_buffer("t.rply", cases[i].text,
						       strlen(cases[i].text), &s, &err),
				-1);
		CU_ASSERT_PTR_NULL(s);
		CU_ASSERT_STRING_EQUAL(err.msg, cases[i].msg);
	}
}

static void test_longpress(void)
{
	struct pl_script *s = test_replay_parse("longpress 10 20 1.5s param=7\ntap 1 2\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 2);
	const struct pl_action *a = pl_script_action(s, 0);
	CU_ASSERT_EQUAL(a->kind, PL_ACTION_TAP);
	CU_ASSERT_EQUAL(a->at_ns, 0);
	CU_ASSERT_EQUAL(a->hold_ns, 1500 * MS);
	CU_ASSERT_EQUAL(a->x_px, 10);
	CU_ASSERT_EQUAL(a->y_px, 20);
	CU_ASSERT_EQUAL(a->param, 7);
	CU_ASSERT_EQUAL(a->line, 1);
	/* The press occupies the timeline for its whole duration. */
	CU_ASSERT_EQUAL(pl_script_action(s, 1)->at_ns, 1500 * MS);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 1550 * MS);
	pl_script_free(s);
}

static void test_swipe(void)
{
	struct pl_script *s = test_replay_parse("swipe 10 700 400 100 300ms param=9\n"
						"swipe 0 0 479 799 1s steps=4\n"
						"swipe 5 5 5 6 10ms\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 3);
	const struct pl_action *a = pl_script_action(s, 0);
	CU_ASSERT_EQUAL(a->kind, PL_ACTION_SWIPE);
	CU_ASSERT_EQUAL(a->at_ns, 0);
	CU_ASSERT_EQUAL(a->hold_ns, 300 * MS);
	CU_ASSERT_EQUAL(a->x_px, 10);
	CU_ASSERT_EQUAL(a->y_px, 700);
	CU_ASSERT_EQUAL(a->x2_px, 400);
	CU_ASSERT_EQUAL(a->y2_px, 100);
	CU_ASSERT_EQUAL(a->param, 9);
	CU_ASSERT_EQUAL(a->steps, 17);	/* one per 16.67 ms display frame by default */
	a = pl_script_action(s, 1);
	CU_ASSERT_EQUAL(a->at_ns, 300 * MS);
	CU_ASSERT_EQUAL(a->steps, 4);
	CU_ASSERT_EQUAL(a->param, 0);
	CU_ASSERT_EQUAL(pl_script_action(s, 2)->steps, 1);	/* at least one move */
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 1310 * MS);
	pl_script_free(s);
}

static void test_text(void)
{
	static const uint16_t want[] = {KEY_H, KEY_I, KEY_SPACE, KEY_2, KEY_DOT, KEY_COMMA,
					KEY_MINUS, KEY_EQUAL, KEY_SLASH, KEY_SEMICOLON,
					KEY_APOSTROPHE, KEY_Z, KEY_0};
	/* A comment may follow the closing quote. */
	struct pl_script *s = test_replay_parse("wait 1s\ntext \"hi 2.,-=/;'z0\" # typed\n"
						"text \"ab\" interval=1s\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	size_t n = sizeof want / sizeof want[0];
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), n + 2);
	for (size_t i = 0; i < n; i++) {
		const struct pl_action *a = pl_script_action(s, i);
		CU_ASSERT_EQUAL(a->kind, PL_ACTION_KEY);
		CU_ASSERT_EQUAL(a->key_code, want[i]);
		CU_ASSERT_EQUAL(a->at_ns, 1 * S + i * 150 * MS);
		CU_ASSERT_EQUAL(a->hold_ns, 50 * MS);
		CU_ASSERT_EQUAL(a->line, 2);
	}
	CU_ASSERT_EQUAL(pl_script_action(s, n)->at_ns, 1 * S + n * 150 * MS);
	CU_ASSERT_EQUAL(pl_script_action(s, n + 1)->at_ns, 2 * S + n * 150 * MS);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 3 * S + n * 150 * MS);
	pl_script_free(s);
	/* An empty string types nothing. */
	s = test_replay_parse("text \"\"\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(pl_script_action_count(s), 0);
	pl_script_free(s);
}

/* Modifiers: any order and case in the script, one action, held in the press order. */
static void test_key_modifiers(void)
{
	struct pl_script *s = test_replay_parse("key CTRL+C\nkey alt+shift+ctrl+KEY_1\n"
						"key Shift+46\nkey LEFTSHIFT\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 4);
	static const struct {
		uint16_t code;
		uint8_t mods;
		const char *written;
	} want[] = { { KEY_C, PL_MOD_CTRL, "CTRL+C" },
		     { KEY_1, PL_MOD_CTRL | PL_MOD_SHIFT | PL_MOD_ALT, "CTRL+SHIFT+ALT+KEY_1" },
		     { KEY_C, PL_MOD_SHIFT, "SHIFT+C" },
		     { KEY_LEFTSHIFT, 0, "LEFTSHIFT" } };
	for (size_t i = 0; i < 4; i++) {
		const struct pl_action *a = pl_script_action(s, i);
		char buf[64];
		CU_ASSERT_EQUAL(a->key_code, want[i].code);
		CU_ASSERT_EQUAL(a->mods, want[i].mods);
		CU_ASSERT_EQUAL(a->at_ns, i * 50 * MS);
		CU_ASSERT_EQUAL(pl_key_format(buf, sizeof buf, a->key_code, a->mods),
				(int)strlen(want[i].written));
		CU_ASSERT_STRING_EQUAL(buf, want[i].written);
	}
	/* A short buffer gets what fits and the full length, as snprintf. */
	char small[4];
	CU_ASSERT_EQUAL(pl_key_format(small, sizeof small, KEY_C, PL_MOD_CTRL), 6);
	CU_ASSERT_STRING_EQUAL(small, "CTR");
	for (size_t i = 0; i < PL_MOD_COUNT; i++) {
		CU_ASSERT(pl_gt_key_is_modifier(pl_mod_code(i)));
		CU_ASSERT_PTR_NOT_NULL(pl_key_name(pl_mod_code(i))); /* the device declares it */
	}
	CU_ASSERT(pl_gt_key_is_modifier(KEY_RIGHTCTRL) && pl_gt_key_is_modifier(KEY_RIGHTSHIFT) &&
		  pl_gt_key_is_modifier(KEY_RIGHTALT));
	CU_ASSERT(!pl_gt_key_is_modifier(KEY_A) && !pl_gt_key_is_modifier(KEY_CAPSLOCK));
	pl_script_free(s);
}

/* text types every printable ASCII character, with Shift where a US keyboard needs it. */
static void test_text_ascii(void)
{
	static const char typed[] = " !\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~";
	static const struct {
		char c;
		uint16_t code;
		uint8_t mods;
	} some[] = { { 'A', KEY_A, PL_MOD_SHIFT },	    { 'a', KEY_A, 0 },
		     { '+', KEY_EQUAL, PL_MOD_SHIFT },	    { ':', KEY_SEMICOLON, PL_MOD_SHIFT },
		     { '!', KEY_1, PL_MOD_SHIFT },	    { '?', KEY_SLASH, PL_MOD_SHIFT },
		     { '"', KEY_APOSTROPHE, PL_MOD_SHIFT }, { '\\', KEY_BACKSLASH, 0 },
		     { '|', KEY_BACKSLASH, PL_MOD_SHIFT },  { '~', KEY_GRAVE, PL_MOD_SHIFT },
		     { '_', KEY_MINUS, PL_MOD_SHIFT },	    { ' ', KEY_SPACE, 0 } };
	/* The script escapes the quote and the backslash. */
	char script[256] = "text \"";
	for (const char *c = typed; *c; c++) {
		size_t n = strlen(script);
		if (*c == '"' || *c == '\\')
			script[n++] = '\\';
		script[n++] = *c;
		script[n] = 0;
	}
	strcat(script, "\" interval=50ms\n");
	struct pl_script *s = test_replay_parse(script);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 95);
	for (size_t k = 0; k < sizeof some / sizeof some[0]; k++) {
		const struct pl_action *a =
			pl_script_action(s, (size_t)(strchr(typed, some[k].c) - typed));
		CU_ASSERT_EQUAL(a->key_code, some[k].code);
		CU_ASSERT_EQUAL(a->mods, some[k].mods);
	}
	/* Upper and lower case differ only by Shift. */
	for (size_t i = 0; i < 26; i++) {
		const struct pl_action *up = pl_script_action(s, (size_t)('A' - ' ') + i);
		const struct pl_action *low = pl_script_action(s, (size_t)('a' - ' ') + i);
		CU_ASSERT_EQUAL(up->key_code, low->key_code);
		CU_ASSERT_EQUAL(up->mods, PL_MOD_SHIFT);
		CU_ASSERT_EQUAL(low->mods, 0);
	}
	pl_script_free(s);
}

static void test_monkey(void)
{
	const char *text = "wait 1s\nmonkey 7 200 interval=100ms area=60,300,419,499 param=5 keys=25\n";
	struct pl_script *s = test_replay_parse(text), *again = test_replay_parse(text);
	struct pl_script *other = test_replay_parse("monkey 8 200 keys=25\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(s), 200);
	size_t keys = 0, same_as_other = 0;
	for (size_t i = 0; i < 200; i++) {
		const struct pl_action *a = pl_script_action(s, i), *b = pl_script_action(again, i);
		const struct pl_action *o = pl_script_action(other, i);
		/* The same seed gives the same inputs. */
		CU_ASSERT_EQUAL(memcmp(a, b, sizeof *a), 0);
		same_as_other += a->kind == o->kind && a->x_px == o->x_px && a->y_px == o->y_px &&
				 a->key_code == o->key_code;
		CU_ASSERT_EQUAL(a->at_ns, 1 * S + i * 100 * MS);
		CU_ASSERT_EQUAL(a->hold_ns, 50 * MS);
		if (a->kind == PL_ACTION_KEY) {
			keys++;
			CU_ASSERT(a->key_code == KEY_BACK || a->key_code == KEY_MENU ||
				  a->key_code == KEY_ENTER || a->key_code == KEY_SPACE);
		} else {
			CU_ASSERT_EQUAL(a->kind, PL_ACTION_TAP);
			CU_ASSERT(a->x_px >= 60 && a->x_px <= 419);
			CU_ASSERT(a->y_px >= 300 && a->y_px <= 499);
			CU_ASSERT_EQUAL(a->param, 5);
		}
	}
	/* About a quarter are keys; another seed gives other inputs. */
	CU_ASSERT(keys > 25 && keys < 75);
	CU_ASSERT(same_as_other < 50);
	CU_ASSERT_EQUAL(pl_script_duration_ns(s), 1 * S + 200 * 100 * MS);
	/* The sequence is fixed by the language, not by the host: the first inputs of seed 7. */
	const struct pl_action *first = pl_script_action(s, 0);
	CU_ASSERT_EQUAL(first->kind, PL_ACTION_TAP);
	CU_ASSERT_EQUAL(first->x_px, 224);
	CU_ASSERT_EQUAL(first->y_px, 475);
	pl_script_free(s);
	pl_script_free(again);
	pl_script_free(other);
}

/* A NUL inside the text is an error at its column, not the end of the script. */
static void test_error_nul(void)
{
	static const char text[] = "wait 1s\nta\0p 1 2\n";
	struct pl_error err;
	struct pl_script *s;
	CU_ASSERT_EQUAL(pl_script_parse_buffer("t.rply", text, sizeof text - 1, &s, &err),
			-1);
	CU_ASSERT_STRING_EQUAL(err.msg, "t.rply:2:3: unexpected control byte 0x00, expected text");
}

/* A message longer than struct pl_error holds is cut, never overruns it, and stays one line. */
static void test_error_truncated(void)
{
	struct pl_error err;
	struct pl_script *s;
	char name[PL_ERROR_MAX + 100];
	memset(name, 'a', sizeof name - 1);
	name[sizeof name - 1] = '\0';
	CU_ASSERT_EQUAL(pl_script_parse_buffer(name, "nope", 4, &s, &err), -1);
	CU_ASSERT_EQUAL(strlen(err.msg), PL_ERROR_MAX - 1);
	CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
}

static void test_parse_file(void)
{
	struct pl_error err;
	struct pl_script *s;
	char *path = test_replay_temp_file("wait 1s\ntap 1 2\n");
	CU_ASSERT_EQUAL(pl_script_parse_file(path, &s, &err), 0);
	CU_ASSERT_EQUAL(pl_script_action_count(s), 1);
	pl_script_free(s);
	unlink(path);
	CU_ASSERT_EQUAL(pl_script_parse_file(path, &s, &err), -1);
	char want[256];
	snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	free(path);
	pl_script_free(NULL);
}

/* A byte order mark at the start is skipped (columns count after it); anywhere else it is text. */
static void test_bom(void)
{
	struct pl_script *s = test_replay_parse("\xef\xbb\xbftap 1 2\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(pl_script_action_count(s), 1);
	pl_script_free(s);
	struct pl_error err;
	CU_ASSERT_EQUAL(pl_script_parse_buffer("t.rply", "\xef\xbb\xbftap 1 x\n", 11, &s, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t.rply:1:7: "));
	CU_ASSERT_EQUAL(pl_script_parse_buffer("t.rply", "tap 1 2\n\xef\xbb\xbftap 1 2\n", 19, &s,
					       &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t.rply:2:1: unknown command"));
}

/* Inputs that are not a script file: a directory, an endless device, a file over the cap. */
static void test_parse_file_not_a_script(void)
{
	struct pl_error err;
	struct pl_script *s;
	CU_ASSERT_EQUAL(pl_script_parse_file("/tmp", &s, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "/tmp: is a directory, expected a file");
	CU_ASSERT_EQUAL(pl_script_parse_file("/dev/zero", &s, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/dev/zero@16777216: more than the 16777216-byte "
					       "cap for a replay script"));
	char *path = test_replay_temp_file("tap 1 2\n");
	CU_ASSERT_FATAL(truncate(path, (off_t)PL_CAP_SCRIPT_BYTES + 1) == 0);
	CU_ASSERT_EQUAL(pl_script_parse_file(path, &s, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ": 16777217 bytes, more than the 16777216-byte cap"));
	unlink(path);
	free(path);
}

/* The default experiment's script: at least 20 taps on the centre button with
 * durations from 10 to 500 ms, each given its duration + 300 ms, under 20 s in all. */
static void test_asynctask_script(void)
{
	struct pl_error err;
	struct pl_script *s;
	CU_ASSERT_EQUAL_FATAL(pl_script_parse_file(PL_REPLAY_SCRIPTS "/asynctask.rply", &s, &err),
			      0);
	size_t n = pl_script_action_count(s);
	CU_ASSERT(n >= 24);
	CU_ASSERT_EQUAL(pl_script_action(s, 0)->at_ns, 500 * MS);
	unsigned seen = 0;
	static const int32_t spread[] = {10, 20, 50, 100, 150, 200, 300, 400, 500};
	for (size_t i = 0; i < n; i++) {
		const struct pl_action *a = pl_script_action(s, i);
		uint64_t next_ns = i + 1 < n ? pl_script_action(s, i + 1)->at_ns
					     : pl_script_duration_ns(s);
		CU_ASSERT_EQUAL(a->kind, PL_ACTION_TAP);
		CU_ASSERT_EQUAL(a->x_px, 240);
		CU_ASSERT_EQUAL(a->y_px, 400);
		CU_ASSERT(a->param >= 10 && a->param <= 500);
		CU_ASSERT(next_ns - a->at_ns >= a->hold_ns + ((uint64_t)a->param + 300) * MS);
		for (unsigned k = 0; k < sizeof spread / sizeof spread[0]; k++)
			if (a->param == spread[k])
				seen |= 1u << k;
	}
	CU_ASSERT_EQUAL(seen, (1u << (sizeof spread / sizeof spread[0])) - 1);
	/* Each tap leaves its task's time at QEMU icount's speed (x 4.8) + 300 ms. */
	CU_ASSERT(pl_script_duration_ns(s) < 35 * S);
	pl_script_free(s);
}

/* The one frame builder (pl_action_frame), exactly: a swipe's press, moves and release, and a
 * key's press and release, with their times. */
static void test_action_frames(void)
{
	struct pl_script *s = test_replay_parse("swipe 10 20 40 80 300ms steps=3 param=7\nkey BACK\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	const struct pl_action *sw = pl_script_action(s, 0), *key = pl_script_action(s, 1);
	struct pl_input_event ev[PL_FRAME_MAX_EVENTS];
	CU_ASSERT_EQUAL(pl_action_frame_count(sw), 5);
	CU_ASSERT_EQUAL(pl_action_frame(sw, 0, ev), 5);
	CU_ASSERT(ev[0].type == EV_ABS && ev[0].code == ABS_X && ev[0].value == 10);
	CU_ASSERT(ev[1].type == EV_ABS && ev[1].code == ABS_Y && ev[1].value == 20);
	CU_ASSERT(ev[2].type == EV_KEY && ev[2].code == BTN_TOUCH && ev[2].value == 1);
	CU_ASSERT(ev[3].type == EV_MSC && ev[3].code == MSC_RAW && ev[3].value == 7);
	CU_ASSERT(ev[4].type == EV_SYN && ev[4].code == SYN_REPORT);
	CU_ASSERT_EQUAL(pl_action_frame(sw, 2, ev), 3);
	CU_ASSERT(ev[0].code == ABS_X && ev[0].value == 30 && ev[1].code == ABS_Y && ev[1].value == 60);
	CU_ASSERT_EQUAL(pl_action_frame_at_ns(sw, 2), sw->at_ns + 200000000u);
	CU_ASSERT_EQUAL(pl_action_frame(sw, 4, ev), 2);
	CU_ASSERT(ev[0].code == BTN_TOUCH && ev[0].value == 0 && ev[1].type == EV_SYN);
	CU_ASSERT_EQUAL(pl_action_frame_at_ns(sw, 4), sw->at_ns + 300000000u);
	CU_ASSERT_EQUAL(pl_action_frame_count(key), 2);
	CU_ASSERT_EQUAL(pl_action_frame(key, 0, ev), 2);
	CU_ASSERT(ev[0].type == EV_KEY && ev[0].code == KEY_BACK && ev[0].value == 1);
	CU_ASSERT_EQUAL(pl_action_frame(key, 1, ev), 2);
	CU_ASSERT(ev[0].code == KEY_BACK && ev[0].value == 0);
	CU_ASSERT_EQUAL(pl_action_frame_at_ns(key, 1), key->at_ns + key->hold_ns);
	pl_script_free(s);
	/* A chord: modifiers down before the key in its press frame, up after it in the release,
	 * in reverse order; all three fit in a frame. */
	s = test_replay_parse("key ALT+SHIFT+CTRL+C\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	key = pl_script_action(s, 0);
	CU_ASSERT_EQUAL(pl_action_frame_count(key), 2);
	CU_ASSERT_EQUAL_FATAL(pl_action_frame(key, 0, ev), 5);
	static const uint16_t down[] = { KEY_LEFTCTRL, KEY_LEFTSHIFT, KEY_LEFTALT, KEY_C };
	for (size_t i = 0; i < 4; i++)
		CU_ASSERT(ev[i].type == EV_KEY && ev[i].code == down[i] && ev[i].value == 1);
	CU_ASSERT(ev[4].type == EV_SYN && ev[4].code == SYN_REPORT);
	CU_ASSERT_EQUAL_FATAL(pl_action_frame(key, 1, ev), 5);
	for (size_t i = 0; i < 4; i++)
		CU_ASSERT(ev[i].type == EV_KEY && ev[i].code == down[3 - i] && ev[i].value == 0);
	CU_ASSERT(ev[4].type == EV_SYN);
	pl_script_free(s);
}

/* pl_parse_u64 (panlab/error.h), the one reader of numeric options: digits only, up to max. */
static void test_parse_u64(void)
{
	static const struct {
		const char *s;
		uint64_t max;
		int rc;
		uint64_t v;
	} cases[] = {
		{"0", 9, 0, 0}, {"9", 9, 0, 9}, {"10", 9, -1, 0}, {"+5", 9, -1, 0}, {" 5", 9, -1, 0},
		{"5 ", 9, -1, 0}, {"", 9, -1, 0}, {"-1", 9, -1, 0}, {"0x5", 9, -1, 0},
		{"18446744073709551615", UINT64_MAX, 0, UINT64_MAX},
		{"18446744073709551616", UINT64_MAX, -1, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 0;
		CU_ASSERT_EQUAL(pl_parse_u64(cases[i].s, cases[i].max, &v), cases[i].rc);
		if (cases[i].rc == 0)
			CU_ASSERT_EQUAL(v, cases[i].v);
	}
}

int test_replay_add_parse_suite(void)
{
	CU_pSuite suite = CU_add_suite("replay_parse", NULL, NULL);
	if (!suite)
		return CU_get_error();
	static const struct {
		const char *name;
		CU_TestFunc fn;
	} tests[] = {
		{ "empty and comments", test_empty_and_comments },
		{ "tap", test_tap },
		{ "key", test_key },
		{ "key table", test_key_table },
		{ "times", test_times },
		{ "timeline", test_timeline },
		{ "control actions", test_control },
		{ "repeat", test_repeat },
		{ "repeat nested", test_repeat_nested },
		{ "line endings", test_line_endings },
		{ "format duration", test_format_duration },
		{ "longpress", test_longpress },
		{ "swipe", test_swipe },
		{ "action frames", test_action_frames },
		{ "numbers", test_parse_u64 },
		{ "text", test_text },
		{ "key modifiers", test_key_modifiers },
		{ "errors: modifiers and text", test_errors_modifiers_text },
		{ "text: printable ASCII", test_text_ascii },
		{ "monkey", test_monkey },
		{ "errors", test_errors },
		{ "error NUL", test_error_nul },
		{ "error truncated", test_error_truncated },
		{ "parse file", test_parse_file },
		{ "byte order mark", test_bom },
		{ "parse file: not a script", test_parse_file_not_a_script },
		{ "asynctask script", test_asynctask_script },
	};
	for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++)
		if (!CU_add_test(suite, tests[i].name, tests[i].fn))
			return CU_get_error();
	return CUE_SUCCESS;
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	if (test_replay_add_parse_suite() != CUE_SUCCESS ||
	    test_replay_add_play_suite() != CUE_SUCCESS ||
	    test_replay_add_record_suite() != CUE_SUCCESS ||
	    test_replay_add_cli_suite() != CUE_SUCCESS ||
	    test_replay_add_marker_suite() != CUE_SUCCESS) {
		CU_cleanup_registry();
		return 1;
	}
	return pl_cunit_run(CU_BRM_NORMAL);
}
