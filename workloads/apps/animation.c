/*
 * app-animation: a loading animation. A tap starts an AsyncTask
 * that computes for the tap's param milliseconds; while it runs, a spinner is
 * redrawn on every vsync through a Choreographer frame callback, and it stops
 * when the task completes. Every frame of the animation is a display update
 * the tap caused: the analyzer labels the transaction an animation.
 *
 * No logging here: every trace event comes from the platform.
 */
#include <stdbool.h>

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

static void start_spinner(struct bench_ui *ui)
{
	struct animation *a = (struct animation *)ui;
	if (!a->animating)
		a->animating = pl_window_post_frame_callback(pl_app_window(ui->app), animate, a) == 0;
}

static uint64_t compute(struct bench_ui *ui, uint64_t ms)
{
	(void)ui;
	return bench_compute(ms);
}

/* The frame that clears the spinner. */
static void stop_spinner(struct bench_ui *ui)
{
	pl_view_invalidate(&((struct animation *)ui)->spinner);
}

static const struct bench_job_ops job_ops = {
	.work = compute,
	.started = start_spinner,
	.finished = stop_spinner,
};

static void on_tap(struct bench_ui *ui, int32_t param)
{
	bench_ui_start_job(ui, param, pl_app_serial_executor(ui->app), &job_ops);
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
