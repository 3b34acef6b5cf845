/* The frame marker codec (include/panlab/marker.h): round trips, and corrupt, partial and absent
 * codes, which must never read as a matchable code. */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/marker.h"
#include "test_replay.h"

#define W 480
#define H 800
#define STRIDE (W * 4)

static uint8_t *frame(uint8_t fill)
{
	uint8_t *p = malloc((size_t)H * STRIDE);
	CU_ASSERT_FATAL(p != NULL);
	memset(p, fill, (size_t)H * STRIDE);
	return p;
}

static enum pl_marker_status read_back(const uint8_t *p, struct pl_marker *m, const char **why)
{
	return pl_marker_read(p, W, H, STRIDE, m, why);
}

static void test_round_trip(void)
{
	static const uint32_t counts[] = { 0, 1, 3, PL_MARKER_MAX_INPUTS };
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		uint8_t *p = frame(0x20);
		struct pl_marker m = { .count = counts[k], .pid = 4242, .frame = 0xfedcba98u }, back;
		for (uint32_t i = 0; i < m.count; i++)
			m.input_ids[i] = i * 0x01020304u + (i == 1 ? 0xffffffffu : 7);
		pl_marker_draw(p, W, H, STRIDE, &m);
		CU_ASSERT_EQUAL(read_back(p, &back, NULL), PL_MARKER_OK);
		CU_ASSERT_EQUAL(back.count, m.count);
		CU_ASSERT_EQUAL(back.pid, 4242);
		CU_ASSERT_EQUAL(back.frame, 0xfedcba98u);
		CU_ASSERT(memcmp(back.input_ids, m.input_ids, sizeof(m.input_ids)) == 0);
		/* Everything above the strip is untouched. */
		CU_ASSERT_EQUAL(p[(size_t)(H - PL_MARKER_HEIGHT_PX - 1) * STRIDE], 0x20);
		free(p);
	}
}

static void test_count_clamped(void)
{
	uint8_t *p = frame(0);
	struct pl_marker m = { .count = PL_MARKER_MAX_INPUTS + 5 }, back;
	pl_marker_draw(p, W, H, STRIDE, &m);
	CU_ASSERT_EQUAL(read_back(p, &back, NULL), PL_MARKER_OK);
	CU_ASSERT_EQUAL(back.count, PL_MARKER_MAX_INPUTS);
	free(p);
}

/* A program that draws no marker, and uniform strips, have none. */
static void test_absent(void)
{
	static const uint8_t fills[] = { 0x00, 0xff, 0x20, 0x80 };
	for (size_t k = 0; k < sizeof(fills); k++) {
		uint8_t *p = frame(fills[k]);
		struct pl_marker m;
		CU_ASSERT_EQUAL(read_back(p, &m, NULL), PL_MARKER_NONE);
		free(p);
	}
	/* Too small a frame for a strip. */
	uint8_t small[16 * 4 * 4] = { 0 };
	struct pl_marker m;
	CU_ASSERT_EQUAL(pl_marker_read(small, 16, 4, 16 * 4, &m, NULL), PL_MARKER_NONE);
}

static uint8_t *coded_frame(void)
{
	uint8_t *p = frame(0x20);
	struct pl_marker m = { .count = 2, .input_ids = { 41, 42 } };
	pl_marker_draw(p, W, H, STRIDE, &m);
	return p;
}

static uint8_t *pixel(uint8_t *p, unsigned bit, int dx, int dy)
{
	unsigned row = H - PL_MARKER_HEIGHT_PX + bit / PL_MARKER_COLS * PL_MARKER_CELL_PX + dy;
	unsigned col = bit % PL_MARKER_COLS * PL_MARKER_CELL_PX + dx;
	return p + (size_t)row * STRIDE + (size_t)col * 4;
}

static void expect_unreadable(uint8_t *p, const char *reason)
{
	struct pl_marker m = { .count = 99 };
	const char *why = NULL;
	CU_ASSERT_EQUAL(read_back(p, &m, &why), PL_MARKER_UNREADABLE);
	CU_ASSERT_PTR_NOT_NULL(why);
	if (why && reason)
		CU_ASSERT_STRING_EQUAL(why, reason);
	CU_ASSERT_EQUAL(m.count, 99);	/* left alone: nothing to match */
	free(p);
}

/* One pixel of one cell turned grey: the cell is neither colour. */
static void test_impure_cell(void)
{
	uint8_t *p = coded_frame();
	pixel(p, 40, 2, 3)[1] = 0x80;
	expect_unreadable(p, "a cell is neither black nor white");
}

/* A payload bit flipped, whole cell: the checksum catches it. */
static void test_flipped_bit(void)
{
	for (unsigned bit = 16; bit < 16 + 8 * 41 + 16; bit += 37) {
		uint8_t *p = coded_frame();
		uint8_t v = pixel(p, bit, 0, 0)[0] ? 0 : 0xff;
		for (int y = 0; y < PL_MARKER_CELL_PX; y++)
			for (int x = 0; x < PL_MARKER_CELL_PX; x++)
				memset(pixel(p, bit, x, y), v, 3);
		struct pl_marker m;
		CU_ASSERT_NOT_EQUAL(read_back(p, &m, NULL), PL_MARKER_OK);
		expect_unreadable(p, NULL);
	}
}

/* A start pattern with a few cells wrong is a damaged marker, not an absent one. */
static void test_damaged_start(void)
{
	uint8_t *p = coded_frame();
	for (unsigned bit = 0; bit < 2; bit++) {
		uint8_t v = pixel(p, bit, 0, 0)[0] ? 0 : 0xff;
		for (int y = 0; y < PL_MARKER_CELL_PX; y++)
			for (int x = 0; x < PL_MARKER_CELL_PX; x++)
				memset(pixel(p, bit, x, y), v, 3);
	}
	expect_unreadable(p, "damaged start pattern");
}

/* Half a frame: the lower rows of the strip still hold the previous frame's grey (a torn
 * scan-out, or an app view drawn over the strip). */
static void test_partial(void)
{
	uint8_t *p = coded_frame();
	for (unsigned row = H - PL_MARKER_HEIGHT_PX / 2; row < H; row++)
		memset(p + (size_t)row * STRIDE, 0x20, STRIDE);
	expect_unreadable(p, NULL);
	p = coded_frame();
	for (unsigned row = H - PL_MARKER_HEIGHT_PX + PL_MARKER_CELL_PX; row < H; row++)
		memset(p + (size_t)row * STRIDE + STRIDE / 2, 0x20, STRIDE / 2);
	expect_unreadable(p, "a cell is neither black nor white");
}

/* A count field above the maximum with a matching checksum is still rejected. */
static void test_count_too_large(void)
{
	uint8_t *p = coded_frame();
	/* Bits 16..23 are the count (2 = 00000010); set bit 20 (count 10) and fix nothing else:
	 * either the count or the checksum rejects it, never a match. */
	for (int y = 0; y < PL_MARKER_CELL_PX; y++)
		for (int x = 0; x < PL_MARKER_CELL_PX; x++)
			memset(pixel(p, 20, x, y), 0xff, 3);
	expect_unreadable(p, "input count above the maximum");
}

/* A raised surface re-shows its last frame: the same app frame again answers nothing new. */
static void test_seen(void)
{
	struct pl_marker_seen seen = { 0 };
	struct pl_marker a = { .pid = 10, .frame = 5 }, b = { .pid = 20, .frame = 1 };

	CU_ASSERT_EQUAL(pl_marker_seen_check(&seen, PL_MARKER_OK, &a), PL_MARKER_OK);
	CU_ASSERT_EQUAL(pl_marker_seen_check(&seen, PL_MARKER_OK, &b), PL_MARKER_OK);
	CU_ASSERT_EQUAL(pl_marker_seen_check(&seen, PL_MARKER_OK, &a), PL_MARKER_REPEAT);
	a.frame = 4;
	CU_ASSERT_EQUAL(pl_marker_seen_check(&seen, PL_MARKER_OK, &a), PL_MARKER_REPEAT);
	a.frame = 6;
	CU_ASSERT_EQUAL(pl_marker_seen_check(&seen, PL_MARKER_OK, &a), PL_MARKER_OK);
	CU_ASSERT_EQUAL(pl_marker_seen_check(&seen, PL_MARKER_UNREADABLE, &a), PL_MARKER_UNREADABLE);
	/* More processes than it holds: the oldest is forgotten, never a wrong repeat. */
	for (uint32_t pid = 100; pid < 100 + PL_MARKER_SEEN_PIDS; pid++) {
		struct pl_marker m = { .pid = pid, .frame = 0 };
		CU_ASSERT_EQUAL(pl_marker_seen_check(&seen, PL_MARKER_OK, &m), PL_MARKER_OK);
	}
	char buf[32];
	pl_marker_gt_frame(buf, sizeof(buf), 2, 9, PL_MARKER_REPEAT, &a);
	CU_ASSERT_STRING_EQUAL(buf, "frame 2 9 repeat\n");
}

static void test_format(void)
{
	char buf[64];
	struct pl_marker m = { .count = 3, .input_ids = { 0, 7, 4294967295u } };
	CU_ASSERT_EQUAL(pl_marker_gt_frame(buf, sizeof(buf), 5, 1000, PL_MARKER_OK, &m), 36);
	CU_ASSERT_STRING_EQUAL(buf, "frame 5 1000 answers 0 7 4294967295\n");
	m.count = 0;
	pl_marker_gt_frame(buf, sizeof(buf), 5, 1000, PL_MARKER_OK, &m);
	CU_ASSERT_STRING_EQUAL(buf, "frame 5 1000 answers\n");
	pl_marker_gt_frame(buf, sizeof(buf), 5, 1000, PL_MARKER_UNREADABLE, &m);
	CU_ASSERT_STRING_EQUAL(buf, "frame 5 1000 unreadable\n");
	pl_marker_gt_frame(buf, sizeof(buf), 5, 1000, PL_MARKER_NONE, NULL);
	CU_ASSERT_STRING_EQUAL(buf, "frame 5 1000 no-marker\n");
	m.count = 3;
	CU_ASSERT_EQUAL(pl_marker_gt_frame(buf, 24, 5, 1000, PL_MARKER_OK, &m), -1);
	CU_ASSERT_EQUAL(strlen(buf), 23);
}

int test_replay_add_marker_suite(void)
{
	CU_pSuite suite = CU_add_suite("replay_marker", NULL, NULL);
	if (!suite || !CU_add_test(suite, "round trip", test_round_trip) ||
	    !CU_add_test(suite, "count clamped", test_count_clamped) ||
	    !CU_add_test(suite, "absent", test_absent) ||
	    !CU_add_test(suite, "impure cell", test_impure_cell) ||
	    !CU_add_test(suite, "flipped bit", test_flipped_bit) ||
	    !CU_add_test(suite, "damaged start", test_damaged_start) ||
	    !CU_add_test(suite, "partial", test_partial) ||
	    !CU_add_test(suite, "count too large", test_count_too_large) ||
	    !CU_add_test(suite, "seen frames", test_seen) ||
	    !CU_add_test(suite, "format", test_format))
		return CU_get_error();
	return CUE_SUCCESS;
}
