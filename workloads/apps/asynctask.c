/*
 * app-asynctask: Panappticon Table 2's AsyncTask benchmark. Tapping the
 * button starts an AsyncTask that computes for the tap's param milliseconds
 * (a CPU loop, not a sleep); its result is drawn when it finishes. The button
 * darkens while its task is pending, so each tap updates the display at least
 * twice and the last update ends the transaction.
 *
 * No logging here: every trace event comes from the platform.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "panlab/app.h"
#include "panlab/clock.h"

#define BUTTON_IDLE_XRGB 0x002e7d32u
#define BUTTON_BUSY_XRGB 0x00104010u
#define TEXT_XRGB 0x00f0f0f0u
#define RESULT_XRGB 0x001565c0u

struct state {
	struct pl_app *app;
	struct pl_view button;
	struct pl_view result;
	unsigned pending;	/* tasks started and not yet finished */
	uint64_t completed;
	uint64_t last_ms;
	uint64_t checksum;	/* last task's result, shown so the work cannot be optimised away */
};

struct job {
	struct state *st;
	uint64_t ms;
};

static void draw_button(struct pl_view *v, struct pl_canvas *c)
{
	const struct state *st = v->ctx;
	pl_canvas_fill_rect(c, v->x_px, v->y_px, v->w_px, v->h_px,
			    st->pending ? BUTTON_BUSY_XRGB : BUTTON_IDLE_XRGB);
	pl_canvas_draw_number(c, v->x_px + 20, v->y_px + 20, v->h_px - 40, st->pending, TEXT_XRGB);
}

static void draw_result(struct pl_view *v, struct pl_canvas *c)
{
	const struct state *st = v->ctx;
	pl_canvas_fill_rect(c, v->x_px, v->y_px, v->w_px, v->h_px, RESULT_XRGB);
	pl_canvas_draw_number(c, v->x_px + 20, v->y_px + 20, 80, st->completed, TEXT_XRGB);
	pl_canvas_draw_number(c, v->x_px + 20, v->y_px + 120, 60, st->last_ms, TEXT_XRGB);
	pl_canvas_draw_number(c, v->x_px + 20, v->y_px + 200, 40, st->checksum % 1000000, TEXT_XRGB);
}

static void on_pre_execute(struct pl_async_task *t, void *ctx)
{
	struct job *job = ctx;
	(void)t;
	job->st->pending++;
	pl_view_invalidate(&job->st->button);
}

/* Busy work for job->ms of CLOCK_MONOTONIC time. */
static void *do_in_background(struct pl_async_task *t, void *ctx)
{
	const struct job *job = ctx;
	uint64_t end = pl_now_ns() + job->ms * 1000000u;
	uint32_t x = 2463534242u;

	(void)t;
	do {
		for (int i = 0; i < 1000; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
		}
	} while (pl_now_ns() < end);
	return (void *)(uintptr_t)x;
}

static void on_post_execute(struct pl_async_task *t, void *ctx, void *result)
{
	struct job *job = ctx;
	struct state *st = job->st;

	(void)t;
	st->pending--;
	st->completed++;
	st->last_ms = job->ms;
	st->checksum = (uintptr_t)result;
	free(job);
	pl_view_invalidate(&st->button);
	pl_view_invalidate(&st->result);
}

static const struct pl_async_task_ops task_ops = {
	.on_pre_execute = on_pre_execute,
	.do_in_background = do_in_background,
	.on_post_execute = on_post_execute,
};

static void on_button_tap(struct pl_view *v, int x_px, int y_px, int32_t param)
{
	struct state *st = v->ctx;
	struct job *job = malloc(sizeof(*job));

	(void)x_px;
	(void)y_px;
	if (!job)
		return;
	*job = (struct job){ .st = st, .ms = param > 0 ? (uint64_t)param : 0 };
	/* AsyncTask.execute(): the serial executor, Android's default. */
	if (pl_async_task_execute(&task_ops, job, pl_app_main_handler(st->app),
				  pl_app_serial_executor(st->app)) != 0)
		free(job);
}

static int on_create(struct pl_app *app, void *ctx)
{
	struct state *st = ctx;

	st->app = app;
	/* The button covers the screen centre, where replay/scripts/asynctask.rply taps. */
	st->result = (struct pl_view){ .x_px = 40, .y_px = 20, .w_px = 400, .h_px = 260,
				       .draw = draw_result, .ctx = st };
	st->button = (struct pl_view){ .x_px = 60, .y_px = 300, .w_px = 360, .h_px = 200,
				       .draw = draw_button, .on_tap = on_button_tap, .ctx = st };
	int err = pl_window_add_view(pl_app_window(app), &st->result);
	return err ? err : pl_window_add_view(pl_app_window(app), &st->button);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create };
	static struct state st;

	return pl_app_main("asynctask", &ops, &st);
}
