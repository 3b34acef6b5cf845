/*
 * The window's partial redraw (pl_views_redraw): over a run of frames drawn into two
 * alternating buffers, each with a pseudo-random set of views invalidated, every frame equals
 * the same views drawn from scratch. Copy-back that missed a region the last frame repainted
 * would leave a stale view behind, and this would see it.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

#include "../../workloads/lib/platform_internal.h"
#include "test_platform.h"

#define W 64
#define H 48
#define NVIEWS 5

/* A view fills its rectangle with its generation, bumped each time it is invalidated; the
 * last view overlaps two others, and one reaches past the screen's edge. */
static void fill_generation(struct pl_view *v, struct pl_canvas *c)
{
	pl_canvas_fill_rect(c, v->x_px, v->y_px, v->w_px, v->h_px, *(const uint32_t *)v->ctx);
}

static void test_partial_equals_full(void)
{
	static const int rects[NVIEWS][4] = {
		{ 0, 0, W, 8 },	   { 0, 8, 32, 20 },  { 32, 8, 32, 20 },
		{ 8, 30, 60, 30 }, { 24, 4, 16, 12 },
	};
	uint32_t gen[NVIEWS] = { 0 }, *bufs = calloc(3 * W * H, sizeof(uint32_t));
	struct pl_view views[NVIEWS], *order[NVIEWS];
	struct pl_damage last = { 0 }, scratch = { 0 };
	unsigned seed = 12345, bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(bufs);
	for (int i = 0; i < NVIEWS; i++) {
		views[i] = (struct pl_view){ .x_px = rects[i][0],
					     .y_px = rects[i][1],
					     .w_px = rects[i][2],
					     .h_px = rects[i][3],
					     .draw = fill_generation,
					     .ctx = &gen[i] };
		order[i] = &views[i];
	}
	for (int frame = 0; frame < 200; frame++) {
		uint32_t *back = bufs + (size_t)(frame % 2) * W * H,
			 *front = bufs + (size_t)((frame + 1) % 2) * W * H;
		struct pl_canvas c = { .pixels = back,
				       .width_px = W,
				       .height_px = H,
				       .stride_px = W };
		struct pl_canvas ref = { .pixels = bufs + 2 * W * H,
					 .width_px = W,
					 .height_px = H,
					 .stride_px = W };

		for (int i = 0; i < NVIEWS; i++) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 3 == 0) {
				gen[i]++;
				views[i].dirty = true;
			}
		}
		/* Every 50th frame is full, as after the surface is raised again. */
		pl_views_redraw(order, NVIEWS, frame % 50 == 0, &last, front, &c);
		pl_views_redraw(order, NVIEWS, true, &scratch, NULL, &ref);
		bad += memcmp(back, ref.pixels, (size_t)W * H * sizeof(uint32_t)) != 0;
	}
	CU_ASSERT_EQUAL(bad, 0);
	free(bufs);
}

void add_redraw_suite(void)
{
	CU_pSuite s = CU_add_suite("redraw", NULL, NULL);
	CU_add_test(s, "partial redraw with copy-back equals a full redraw, frame after frame",
		    test_partial_equals_full);
}
