/* SPDX-License-Identifier: MIT */
/* Matching, precision/recall, latency statistics and percentiles, on hand-made inputs. */
#include "panlab/validate.h"
#include "test_analyzer.h"

/* Ten taps 1000 ns apart, each with a frame 100 + 10 * i ns later; no frame for tap 9. */
static void ground_truth(struct pl_ground_truth *gt, struct pl_gt_input *in, uint64_t *frames)
{
	*gt = (struct pl_ground_truth){ .ninputs = 10, .inputs = in, .nframes = 9,
					.frames_ns = frames, .has_end = true, .end_ns = 20000 };
	for (uint64_t i = 0; i < 10; i++) {
		in[i] = (struct pl_gt_input){ .t_ns = 1000 * (i + 1), .kind = PL_INPUT_TAP };
		if (i < 9)
			frames[i] = 1000 * (i + 1) + 100 + 10 * i;
	}
}

static void test_matching(void)
{
	struct pl_gt_input in[10];
	uint64_t frames[9];
	struct pl_ground_truth gt;
	struct pl_transaction items[11];
	struct pl_validation v;

	ground_truth(&gt, in, frames);
	/* Detected: taps 0..8 with latency 50 + i, seen 20 ns after T_in; tap 5 twice; id 42 unknown. */
	for (uint64_t i = 0; i < 9; i++)
		items[i] = (struct pl_transaction){ .input_id = i, .input_ns = 1000 * (i + 1) + 20,
						    .latency_ns = 50 + i };
	/* Input to pixels: delivered 5 ns before UI_INPUT, shown 10 ns after the last update
	 * (vsync queue 7, composition 2, flush 1): detected latency 65 + i. */
	for (uint64_t i = 0; i < 9; i++) {
		struct pl_transaction *t = &items[i];

		t->end_ns = t->input_ns + t->latency_ns;
		t->pixels = (struct pl_pixels){ .delivered_ns = t->input_ns - 5, .shown_ns = t->end_ns + 10,
						.latency_ns = t->latency_ns + 15, .input_dispatch_ns = 5,
						.vsync_queue_ns = 7, .composition_ns = 2, .flush_ns = 1 };
	}
	items[9] = items[5];
	items[10] = (struct pl_transaction){ .input_id = 42, .input_ns = 1, .end_ns = 2, .latency_ns = 1,
					     .pixels = { .delivered_ns = 1, .shown_ns = 2, .latency_ns = 1 } };
	struct pl_transactions tx = { .count = 11, .items = items };

	pl_validate(&tx, &gt, &v);
	CU_ASSERT_EQUAL(v.inputs, 10);
	CU_ASSERT_EQUAL(v.transactions, 11);
	CU_ASSERT_EQUAL(v.matched, 9);
	CU_ASSERT(v.has_precision && v.precision == 9.0 / 11.0);
	/* Tap 9 got no frame and no transaction: a true negative, which recall does not count. */
	CU_ASSERT(v.has_recall && v.recall == 1.0);
	CU_ASSERT_EQUAL(v.inputs_without_frame, 1);
	CU_ASSERT_EQUAL(v.true_positives, 9);
	CU_ASSERT_EQUAL(v.true_negatives, 1);
	CU_ASSERT_EQUAL(v.false_negatives, 0);
	CU_ASSERT_EQUAL(v.nrows, 10 + 2);	/* every input, then the two unmatched transactions */
	CU_ASSERT_EQUAL(v.rows[10].tx, 9);
	CU_ASSERT_EQUAL(v.rows[11].tx, 10);
	CU_ASSERT_EQUAL(v.rows[9].tx, PL_NONE);
	/* Row i: truth 100 + 10i, detected 65 + i: difference -(35 + 9i); the trace's dispatch 5
	 * and pipeline 10 (the window rule: these frames carry no marker). */
	CU_ASSERT_EQUAL(v.rows[3].difference_ns, -62);
	CU_ASSERT_EQUAL(v.rows[3].input_dispatch_ns, 5);
	CU_ASSERT_EQUAL(v.rows[3].display_pipeline_ns, 10);
	CU_ASSERT_EQUAL(v.rows[3].rule, PL_GT_RULE_WINDOW);
	CU_ASSERT_EQUAL(v.rule_counts[PL_GT_RULE_WINDOW], 9);
	CU_ASSERT_EQUAL(v.rule_counts[PL_GT_RULE_MARKER], 0);
	CU_ASSERT_EQUAL(v.vsync_queue_ns.mean, 7);
	CU_ASSERT_EQUAL(v.flush_ns.n, 9);
	CU_ASSERT_EQUAL(v.error_ns.n, 9);
	CU_ASSERT_EQUAL(v.error_ns.max, 107);
	CU_ASSERT_EQUAL(v.error_ns.min, 35);
	CU_ASSERT_EQUAL(v.error_ns.mean, 71);
	CU_ASSERT_EQUAL(v.difference_ns.max, -35);
	CU_ASSERT_EQUAL(v.difference_ns.mean, -71);
	/* Nearest rank over 65..73, 70, 1: sorted 1 65 66 67 68 69 70 70 71 72 73. */
	CU_ASSERT_EQUAL(v.detected_latency_ns.n, 11);
	CU_ASSERT_EQUAL(v.detected_latency_ns.p50, 69);
	CU_ASSERT_EQUAL(v.detected_latency_ns.p90, 72);
	CU_ASSERT_EQUAL(v.detected_latency_ns.p99, 73);
	CU_ASSERT_EQUAL(v.detected_latency_ns.max, 73);
	CU_ASSERT_EQUAL(v.truth_latency_ns.n, 9);
	CU_ASSERT_EQUAL(v.truth_latency_ns.p50, 140);
	CU_ASSERT_EQUAL(v.truth_latency_ns.max, 180);
	pl_validation_free(&v);
}

/*
 * A tap without a frame in the middle: no transaction is right (recall 1), a
 * transaction for it is a false positive, and a tap whose frame came but
 * whose transaction did not is a miss.
 */
static void test_inputs_without_frame(void)
{
	struct pl_gt_input in[4];
	uint64_t frames[3] = { 1100, 3100, 4100 };
	struct pl_ground_truth gt = { .ninputs = 4, .inputs = in, .nframes = 3, .frames_ns = frames,
				      .has_end = true, .end_ns = 5000 };
	/* Transactions for taps 0 and 2, seen 10 ns after T_in, 50 ns long. */
	struct pl_transaction items[3] = {
		{ .input_id = 0, .input_ns = 1010, .end_ns = 1060, .latency_ns = 50 },
		{ .input_id = 2, .input_ns = 3010, .end_ns = 3060, .latency_ns = 50 },
		{ .input_id = 1, .input_ns = 2010, .end_ns = 2060, .latency_ns = 50 },
	};
	struct pl_transactions tx = { .count = 2, .items = items };
	struct pl_validation v;

	for (uint64_t i = 0; i < 4; i++)
		in[i] = (struct pl_gt_input){ .t_ns = 1000 * (i + 1), .kind = PL_INPUT_TAP };
	pl_validate(&tx, &gt, &v);
	CU_ASSERT_EQUAL(v.true_negatives, 1);
	CU_ASSERT_EQUAL(v.true_positives, 2);
	CU_ASSERT_EQUAL(v.false_negatives, 1);	/* tap 3 */
	CU_ASSERT(v.has_precision && v.precision == 1.0);
	CU_ASSERT(v.has_recall && v.recall == 2.0 / 3.0);
	pl_validation_free(&v);

	/* Now also one for tap 1, which the screen never showed. */
	tx.count = 3;
	pl_validate(&tx, &gt, &v);
	CU_ASSERT_EQUAL(v.true_negatives, 0);
	CU_ASSERT_EQUAL(v.true_positives, 2);
	CU_ASSERT(v.has_precision && v.precision == 2.0 / 3.0);
	CU_ASSERT(v.has_recall && v.recall == 2.0 / 3.0);
	pl_validation_free(&v);
}

static void test_empty(void)
{
	struct pl_ground_truth gt = { 0 };
	struct pl_transactions tx = { 0 };
	struct pl_validation v;

	pl_validate(&tx, &gt, &v);
	CU_ASSERT_FALSE(v.has_precision);
	CU_ASSERT_FALSE(v.has_recall);
	CU_ASSERT_EQUAL(v.nrows, 0);
	CU_ASSERT_EQUAL(v.error_ns.n, 0);
	CU_ASSERT_EQUAL(v.detected_latency_ns.n, 0);
	pl_validation_free(&v);
}

void add_validate_tests(void)
{
	CU_pSuite s = CU_add_suite("validate", NULL, NULL);

	CU_add_test(s, "matching, statistics, percentiles", test_matching);
	CU_add_test(s, "inputs without a frame are negatives", test_inputs_without_frame);
	CU_add_test(s, "nothing to match", test_empty);
}
