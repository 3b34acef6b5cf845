/*
 * app-animation: a loading animation (issue 5). A tap starts an AsyncTask
 * that computes for the tap's param milliseconds; while it runs, a spinner is
 * redrawn on every vsync through a Choreographer frame callback, and it stops
 * when the task completes. Every frame of the animation is a display update
 * the tap caused: the analyzer labels the transaction an animation.
 *
 * No logging here: every trace event comes from the platform.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "bench_ui.h"

#define SPINNER_XRGB 0x00ffb300u
#define SPINNER_BG_XRGB 0x00303030u
#define SPINNER_STEPS 8

struct animation {
	struct bench_ui ui;	/* first: bench_ui callbacks get this pointer */
	struct pl_view spinner;
	unsigned step;		/* advances once per frame while a task runs */
	bool animating;		/* a frame callback is posted */
};

struct job {
	struct animation *a;
	uint64_t ms;
};

static void draw_spinner(struct pl_view *v, struct pl_canvas *c)
{
	const struct animation *a = v->ctx;
	int cell = v->w_px / SPINNER_STEPS;
	pl_canvas_fill_rect(c, v->x_px, v->y_px, v->w_px, v->h_px, SPINNER_BG_XRGB);
	if (a->ui.pending)
		pl_canvas_fill_rect(c, v->x_px + (int)(a->step % SPINNER_STEPS) * cell, v->y_px, cell,
				    v->h_px, SPINNER_XRGB);
}

/* One animation step per vsync, for as long as a task is pending. */
static void animate(void *ctx, uint64_t vsync_ns)
{
	struct animation *a = ctx;
	(void)vsync_ns;
	a->step++;
	pl_view_invalidate(&a->spinner);
	a->animating = a->ui.pending &&
		       pl_window_post_frame_callback(pl_app_window(a->ui.app), animate, a) == 0;
}

static void on_pre_execute(struct pl_async_task *t, void *ctx)
{
	struct job *job = ctx;
	(void)t;
	bench_ui_job_started(&job->a->ui);
	if (!job->a->animating)
		job->a->animating =
			pl_window_post_frame_callback(pl_app_window(job->a->ui.app), animate, job->a) == 0;
}

static void *do_in_background(struct pl_async_task *t, void *ctx)
{
	const struct job *job = ctx;
	(void)t;
	return (void *)(uintptr_t)bench_compute(job->ms);
}

static void on_post_execute(struct pl_async_task *t, void *ctx, void *result)
{
	struct job *job = ctx;
	(void)t;
	bench_ui_job_finished(&job->a->ui, job->ms, (uintptr_t)result);
	/* The frame that clears the spinner. */
	pl_view_invalidate(&job->a->spinner);
	free(job);
}

static const struct pl_async_task_ops task_ops = {
	.on_pre_execute = on_pre_execute,
	.do_in_background = do_in_background,
	.on_post_execute = on_post_execute,
};

static void on_tap(struct bench_ui *ui, int32_t param)
{
	struct job *job = malloc(sizeof(*job));
	if (!job)
		return;
	*job = (struct job){ .a = (struct animation *)ui, .ms = param > 0 ? (uint64_t)param : 0 };
	if (pl_async_task_execute(&task_ops, job, pl_app_main_handler(ui->app),
				  pl_app_serial_executor(ui->app)) != 0)
		free(job);
}

static int on_create(struct pl_app *app, void *ctx)
{
	struct animation *a = ctx;
	int err = bench_ui_create(app, &a->ui);
	a->spinner = (struct pl_view){ .x_px = 60, .y_px = 560, .w_px = 360, .h_px = 40,
				       .draw = draw_spinner, .ctx = a };
	return err ? err : pl_window_add_view(pl_app_window(app), &a->spinner);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct animation a = { .ui.on_tap = on_tap };

	return pl_app_main("animation", &ops, &a);
}
