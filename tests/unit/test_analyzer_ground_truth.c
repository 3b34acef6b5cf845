/* SPDX-License-Identifier: MIT */
/* Ground-truth reader: records, transaction windows, and each syntax error's exact message. */
#include <stdio.h>
#include <string.h>

#include "panlab/ground_truth.h"
#include "panlab/ground_truth_format.h"
#include "test_analyzer.h"

static void test_parse(void)
{
	static const char text[] =
		"# comment\n"
		"\n"
		"panlab-ground-truth 1\n"
		"ready 5\n"
		"input 0 100 tap 10 20\n"
		"frame 0 50\n"
		"input 1 200 key 116\n"
		"frame 1 150\n"
		"frame 2 160\n"
		"frame 3 250\n"
		"input 2 300 tap 0 4294967295\n"
		"frame 4 350\n"
		"end 380\n"
		"frame 5 400";	/* no final newline */
	struct pl_ground_truth gt;
	struct pl_error err = { "" };
	uint64_t t;

	CU_ASSERT_EQUAL_FATAL(pl_ground_truth_parse("g.txt", text, strlen(text), &gt, &err), 0);
	CU_ASSERT(gt.has_ready && gt.ready_ns == 5);
	CU_ASSERT(gt.has_end && gt.end_ns == 380);
	CU_ASSERT_EQUAL_FATAL(gt.ninputs, 3);
	CU_ASSERT_EQUAL(gt.inputs[0].kind, PL_INPUT_TAP);
	CU_ASSERT_EQUAL(gt.inputs[0].x, 10);
	CU_ASSERT_EQUAL(gt.inputs[0].y, 20);
	CU_ASSERT_EQUAL(gt.inputs[1].kind, PL_INPUT_KEY);
	CU_ASSERT_EQUAL(gt.inputs[1].code, 116);
	CU_ASSERT_EQUAL(gt.inputs[2].y, 4294967295u);
	CU_ASSERT_EQUAL(gt.nframes, 6);
	/* Input i's transaction: last frame in [T_in(i), T_in(i+1)), the last one before end. */
	CU_ASSERT(pl_ground_truth_output(&gt, 0, &t) && t == 160);
	CU_ASSERT(pl_ground_truth_output(&gt, 1, &t) && t == 250);
	CU_ASSERT(pl_ground_truth_output(&gt, 2, &t) && t == 350);
	gt.has_end = false;	/* without end the last window is open */
	CU_ASSERT(pl_ground_truth_output(&gt, 2, &t) && t == 400);
	pl_ground_truth_free(&gt);

	static const char none[] = "panlab-ground-truth 1\ninput 0 100 tap 1 1\ninput 1 120 tap 1 1\n"
				   "frame 0 150\nend 200\n";

	CU_ASSERT_EQUAL_FATAL(pl_ground_truth_parse("g.txt", none, strlen(none), &gt, &err), 0);
	CU_ASSERT_FALSE(pl_ground_truth_output(&gt, 0, &t));
	CU_ASSERT(pl_ground_truth_output(&gt, 1, &t) && t == 150);
	pl_ground_truth_free(&gt);
}

static void expect_error(const char *text, size_t len, const char *msg)
{
	struct pl_ground_truth gt;
	struct pl_error err = { "" };

	CU_ASSERT_EQUAL(pl_ground_truth_parse("g.txt", text, len, &gt, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	if (strcmp(err.msg, msg) != 0)
		fprintf(stderr, "\n  got:      %s\n  expected: %s\n", err.msg, msg);
	CU_ASSERT_PTR_NULL(gt.inputs);
	CU_ASSERT_PTR_NULL(gt.frames_ns);
}

#define H "panlab-ground-truth 1\n"
#define BAD(text, msg) expect_error(text, sizeof(text) - 1, msg)

/* Every line the one writer (panlab/ground_truth_format.h) makes is what the reader takes. */
static void test_writer_round_trip(void)
{
	static const uint32_t ids[] = { 0, 1 };
	char text[1024];
	size_t n = 0;
	int len;
	struct pl_ground_truth gt;
	struct pl_error err = { "" };
	uint64_t t;

#define PUT(call)                                                           \
	do {                                                                \
		len = call;                                                 \
		CU_ASSERT_FATAL(len > 0 && n + (size_t)len < sizeof(text)); \
		n += (size_t)len;                                           \
	} while (0)
	PUT(pl_gt_header(text + n, sizeof(text) - n));
	PUT(pl_gt_ready(text + n, sizeof(text) - n, 10));
	PUT(pl_gt_input_tap(text + n, sizeof(text) - n, 0, 100, 240, 799));
	PUT(pl_gt_frame(text + n, sizeof(text) - n, 0, 120, PL_GT_WORD_NO_MARKER, NULL, 0));
	PUT(pl_gt_input_key(text + n, sizeof(text) - n, 1, 200, 116));
	PUT(pl_gt_frame(text + n, sizeof(text) - n, 1, 210, PL_GT_WORD_UNREADABLE, ids, 2));
	PUT(pl_gt_frame(text + n, sizeof(text) - n, 2, 230, PL_GT_WORD_ANSWERS, ids, 2));
	PUT(pl_gt_frame(text + n, sizeof(text) - n, 3, 240, PL_GT_WORD_REPEAT, ids, 2));
	PUT(pl_gt_end(text + n, sizeof(text) - n, 300));
#undef PUT
	CU_ASSERT_EQUAL_FATAL(pl_ground_truth_parse("g.txt", text, n, &gt, &err), 0);
	CU_ASSERT(gt.has_ready && gt.ready_ns == 10 && gt.has_end && gt.end_ns == 300);
	CU_ASSERT_EQUAL_FATAL(gt.ninputs, 2);
	CU_ASSERT(gt.inputs[0].kind == PL_INPUT_TAP && gt.inputs[0].x == 240 &&
		  gt.inputs[0].y == 799);
	CU_ASSERT(gt.inputs[1].kind == PL_INPUT_KEY && gt.inputs[1].code == 116);
	CU_ASSERT_EQUAL_FATAL(gt.nframes, 4);
	CU_ASSERT_EQUAL(gt.frame_marker[0], PL_GT_MARKER_ABSENT);
	CU_ASSERT_EQUAL(gt.frame_marker[1], PL_GT_MARKER_UNREADABLE);
	CU_ASSERT_EQUAL(gt.frame_marker[2], PL_GT_MARKER_ANSWERS);
	CU_ASSERT_EQUAL(gt.frame_marker[3], PL_GT_MARKER_REPEAT);
	CU_ASSERT_EQUAL(gt.nanswers, 2);
	CU_ASSERT(pl_ground_truth_output(&gt, 0, &t) == PL_GT_RULE_MARKER && t == 230);
	CU_ASSERT(pl_ground_truth_output(&gt, 1, &t) == PL_GT_RULE_MARKER && t == 230);
	pl_ground_truth_free(&gt);
	volatile size_t small = 8; /* not known at compile time: no truncation warning */
	CU_ASSERT_EQUAL(pl_gt_ready(text, small, 12345678), -1);
	CU_ASSERT_STRING_EQUAL(text, "ready 1");
}

static void test_syntax_errors(void)
{
	BAD("", "g.txt:1: end of file, expected header \"panlab-ground-truth 1\"");
	BAD("# only\n\n", "g.txt:3: end of file, expected header \"panlab-ground-truth 1\"");
	BAD("# c\nhello\n",
	    "g.txt:2: \"hello\" is not a ground-truth header, expected \"panlab-ground-truth 1\"");
	BAD("panlab-ground-truth 2\n", "g.txt:1: unsupported version 2, expected 1");
	BAD("panlab-ground-truth 1\r\n",
	    "g.txt:1: version is \"1\\x0d\", expected a decimal integer up to 4294967295");
	BAD(H "input 0 100 tap 1\n", "g.txt:2: 5 fields, expected 6: input <seq> <t_ns> tap <x> <y>");
	BAD(H "input 0 100\n", "g.txt:2: 3 fields, expected 6: input <seq> <t_ns> tap <x> <y>");
	BAD(H "input 0 1x0 tap 1 2\n",
	    "g.txt:2: input time is \"1x0\", expected a decimal integer up to 9223372036854775807");
	BAD(H "input 0 18446744073709551616 tap 1 2\n",
	    "g.txt:2: input time is \"18446744073709551616\", expected a decimal integer up to 9223372036854775807");
	BAD(H "input 0 -1 tap 1 2\n",
	    "g.txt:2: input time is \"-1\", expected a decimal integer up to 9223372036854775807");
	BAD(H "input 0 100 tap 4294967296 2\n",
	    "g.txt:2: tap x is \"4294967296\", expected a decimal integer up to 4294967295");
	BAD(H "input 1 100 tap 1 2\n",
	    "g.txt:2: input seq 1, expected 0 (inputs count from 0 in file order)");
	BAD(H "input 0 100 swipe 1 2\n", "g.txt:2: input kind \"swipe\", expected tap or key");
	BAD(H "input 0 100 key 1 2\n", "g.txt:2: 6 fields, expected 5: input <seq> <t_ns> key <code>");
	BAD(H "input 0 100 tap 1 2\ninput 1 99 tap 1 2\n",
	    "g.txt:3: input time 99 ns is before the previous input's 100 ns, expected non-decreasing times");
	BAD(H "frame 0 100\nframe 1 50\n",
	    "g.txt:3: frame time 50 ns is before the previous frame's 100 ns, expected non-decreasing times");
	BAD(H "frame 0 100 7\n",
	    "g.txt:2: frame marker \"7\", expected no-marker, unreadable, repeat or answers");
	BAD(H "frame 0 100 unreadable 3\n", "g.txt:2: 5 fields, expected 4: frame <seq> <t_ns> "
	    "[no-marker | unreadable | repeat | answers <input>...]");
	BAD(H "frame 0 100 answers 1 x\n",
	    "g.txt:2: answered input is \"x\", expected a decimal integer up to 4294967295");
	BAD(H "frame 0 100 answers 4294967296\n", "g.txt:2: answered input is \"4294967296\", "
	    "expected a decimal integer up to 4294967295");
	BAD(H "flush 0 100\n",
	    "g.txt:2: unknown record \"flush\", expected ready, input, frame or end");
	BAD(H "input 0 100  tap 1 2\n",
	    "g.txt:2: empty field at column 13, expected fields separated by one space");
	BAD(H "end 5 \n", "g.txt:2: empty field at column 7, expected fields separated by one space");
	BAD(H " \n", "g.txt:2: empty field at column 1, expected fields separated by one space");
	BAD(H "end 5\nend 6\n", "g.txt:3: second 'end' record, expected one");
	BAD(H "ready 1\nready 2\n", "g.txt:3: second 'ready' record, expected one");
	BAD(H "ready 01\n",
	    "g.txt:2: ready time is \"01\", expected a decimal integer up to 9223372036854775807");
	BAD(H "ready 1\0\n", "g.txt:2: NUL byte at column 8, expected text");
	BAD(H "input 0 1 tap 1 2 3 4\n", "g.txt:2: 8 fields, expected 6: input <seq> <t_ns> tap <x> <y>");
	/* A file cut short has no end marker; times beyond JSON's integers; inputs outside the run. */
	BAD(H "ready 5\ninput 0 100 tap 1 2\nframe 0 150\n",
	    "g.txt:5: end of file without an \"end\" record, expected the writer's end marker (a truncated file?)");
	BAD(H "input 0 9223372036854775808 tap 1 2\n",
	    "g.txt:2: input time is \"9223372036854775808\", expected a decimal integer up to 9223372036854775807");
	BAD(H "ready 50\ninput 0 10 tap 1 2\nend 100\n",
	    "g.txt: input 0 at 10 ns is before ready at 50 ns, expected inputs after ready");
	BAD(H "ready 5\ninput 0 200 tap 1 2\nend 100\n",
	    "g.txt: input 0 at 200 ns is after end at 100 ns, expected inputs before end");
	/* A marker naming an input that does not exist, or one injected after the frame. */
	BAD(H "input 0 100 tap 1 2\nframe 0 150 answers 0 1\nend 200\n",
	    "g.txt: frame 0 answers input 1, which does not exist, expected an input seq below 1");
	BAD(H "input 0 100 tap 1 2\nframe 0 150 answers 1\ninput 1 160 tap 1 2\nend 200\n",
	    "g.txt: frame 0 at 150 ns answers input 1 injected later, at 160 ns, expected inputs "
	    "injected before the frame");
	char many[400] = H "frame 0 1 answers";

	for (int i = 0; i < 66; i++)
		strcat(many, " 1");
	strcat(many, "\n");
	BAD(many, "g.txt:2: more than 68 fields, expected at most 68");
}

static void test_read_file(void)
{
	struct pl_ground_truth gt;
	struct pl_error err = { "" };
	char expect[512];

	CU_ASSERT_EQUAL_FATAL(pl_ground_truth_read_file(PANLAB_TEST_DATA "/sequential.gt", &gt, &err), 0);
	CU_ASSERT_EQUAL(gt.ninputs, 2);
	CU_ASSERT_EQUAL(gt.nframes, 3);
	pl_ground_truth_free(&gt);
	CU_ASSERT_EQUAL(pl_ground_truth_read_file(PANLAB_TEST_DATA "/bad_syntax.gt", &gt, &err), -1);
	snprintf(expect, sizeof(expect),
		 "%s/bad_syntax.gt:4: tap y is \"two\", expected a decimal integer up to 4294967295",
		 PANLAB_TEST_DATA);
	CU_ASSERT_STRING_EQUAL(err.msg, expect);
}

/*
 * Markers: overlapping inputs are matched by identity; a frame whose marker names no input, or
 * could not be read, is never taken by the time window; frames without a marker still are.
 */
static void test_markers(void)
{
	static const char text[] =
		"panlab-ground-truth 1\n"
		"input 0 100 tap 1 1\n"
		"input 1 110 tap 1 1\n"	/* a second tap while the first still runs */
		"frame 0 120 answers 1\n"
		"frame 1 130 answers\n"	/* an animation frame: answers no input */
		"frame 2 140 answers 0 1\n"	/* both inputs' updates in one frame */
		"frame 3 150 answers 0\n"
		"frame 4 160 repeat\n"		/* frame 3 shown again (a raised surface): no match */
		"input 2 200 key 1\n"
		"frame 5 210 unreadable\n"	/* never matched: input 2 has no ground truth */
		"input 3 300 key 1\n"
		"frame 6 310 no-marker\n"	/* a program without a marker: the window rule */
		"frame 7 320 answers\n"
		"input 4 400 tap 1 1\n"
		"frame 8 410\n"		/* a display that reads no marker: the window rule */
		"end 500\n";
	struct pl_ground_truth gt;
	struct pl_error err = { "" };
	uint64_t t = 0;

	CU_ASSERT_EQUAL_FATAL(pl_ground_truth_parse("g.txt", text, strlen(text), &gt, &err), 0);
	CU_ASSERT_EQUAL(gt.unreadable_frames, 1);
	CU_ASSERT_EQUAL(gt.frame_marker[4], PL_GT_MARKER_REPEAT);
	CU_ASSERT_EQUAL(gt.frame_marker[5], PL_GT_MARKER_UNREADABLE);
	CU_ASSERT_EQUAL(gt.answer_first[2], 1);
	CU_ASSERT_EQUAL(gt.answer_first[3], 3);
	CU_ASSERT_EQUAL(pl_ground_truth_output(&gt, 0, &t), PL_GT_RULE_MARKER);
	CU_ASSERT_EQUAL(t, 150);
	CU_ASSERT_EQUAL(pl_ground_truth_output(&gt, 1, &t), PL_GT_RULE_MARKER);
	CU_ASSERT_EQUAL(t, 140);
	t = 0;
	CU_ASSERT_EQUAL(pl_ground_truth_output(&gt, 2, &t), PL_GT_RULE_NONE);
	CU_ASSERT_EQUAL(t, 0);
	CU_ASSERT_EQUAL(pl_ground_truth_output(&gt, 3, &t), PL_GT_RULE_WINDOW);
	CU_ASSERT_EQUAL(t, 310);
	CU_ASSERT_EQUAL(pl_ground_truth_output(&gt, 4, &t), PL_GT_RULE_WINDOW);
	CU_ASSERT_EQUAL(t, 410);
	CU_ASSERT_STRING_EQUAL(pl_gt_rule_name(PL_GT_RULE_MARKER), "marker");
	pl_ground_truth_free(&gt);
}

void add_ground_truth_tests(void)
{
	CU_pSuite s = CU_add_suite("ground_truth", NULL, NULL);

	CU_add_test(s, "records and transaction windows", test_parse);
	CU_add_test(s, "the writer's lines read back", test_writer_round_trip);
	CU_add_test(s, "syntax errors", test_syntax_errors);
	CU_add_test(s, "files", test_read_file);
	CU_add_test(s, "frame markers", test_markers);
}
