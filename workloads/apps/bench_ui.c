/* See bench_ui.h. */
#include "bench_ui.h"

#include <errno.h>
#include <stdlib.h>

#include "panlab/async_task.h"

#define BUTTON_IDLE_XRGB 0x002e7d32u
#define BUTTON_BUSY_XRGB 0x00104010u
#define TEXT_XRGB 0x00f0f0f0u
#define RESULT_XRGB 0x001565c0u

static void draw_button(struct pl_view *v, struct pl_canvas *c)
{
	const struct bench_ui *ui = v->ctx;
	pl_canvas_fill_rect(c, v->x_px, v->y_px, v->w_px, v->h_px,
			    ui->pending ? BUTTON_BUSY_XRGB : BUTTON_IDLE_XRGB);
	pl_canvas_draw_number(c, v->x_px + 20, v->y_px + 20, v->h_px - 40, ui->pending, TEXT_XRGB);
}

static void draw_result(struct pl_view *v, struct pl_canvas *c)
{
	const struct bench_ui *ui = v->ctx;
	pl_canvas_fill_rect(c, v->x_px, v->y_px, v->w_px, v->h_px, RESULT_XRGB);
	pl_canvas_draw_number(c, v->x_px + 20, v->y_px + 20, 80, ui->completed, TEXT_XRGB);
	pl_canvas_draw_number(c, v->x_px + 20, v->y_px + 120, 60, ui->last_ms, TEXT_XRGB);
	pl_canvas_draw_number(c, v->x_px + 20, v->y_px + 200, 40, ui->checksum % 1000000, TEXT_XRGB);
}

static void on_button_tap(struct pl_view *v, int x_px, int y_px, int32_t param)
{
	struct bench_ui *ui = v->ctx;
	(void)x_px;
	(void)y_px;
	ui->on_tap(ui, param);
}

int bench_ui_create(struct pl_app *app, struct bench_ui *ui)
{
	ui->app = app;
	/* The button covers the screen centre (x 60..419, y 300..499), where the scripts tap. */
	ui->result = (struct pl_view){ .x_px = 40, .y_px = 20, .w_px = 400, .h_px = 260,
				       .draw = draw_result, .ctx = ui };
	ui->button = (struct pl_view){ .x_px = 60, .y_px = 300, .w_px = 360, .h_px = 200,
				       .draw = draw_button, .on_tap = on_button_tap, .ctx = ui };
	int err = pl_window_add_view(pl_app_window(app), &ui->result);
	return err ? err : pl_window_add_view(pl_app_window(app), &ui->button);
}

void bench_ui_on_key(struct pl_app *app, void *ctx, uint32_t code)
{
	struct bench_ui *ui = ctx;
	(void)app;
	(void)code;
	ui->completed = 0;
	ui->last_ms = 0;
	ui->checksum = 0;
	pl_view_invalidate(&ui->result);
}

void bench_ui_job_started(struct bench_ui *ui)
{
	ui->pending++;
	pl_view_invalidate(&ui->button);
}

void bench_ui_job_finished(struct bench_ui *ui, uint64_t ms, uint64_t checksum)
{
	ui->pending--;
	ui->completed++;
	ui->last_ms = ms;
	ui->checksum = checksum;
	pl_view_invalidate(&ui->button);
	pl_view_invalidate(&ui->result);
}

struct job {
	struct bench_ui *ui;
	uint64_t ms;
	const struct bench_job_ops *ops;
};

static void on_pre_execute(struct pl_async_task *t, void *ctx)
{
	const struct job *job = ctx;
	(void)t;
	bench_ui_job_started(job->ui);
	if (job->ops->started)
		job->ops->started(job->ui);
}

static void *do_in_background(struct pl_async_task *t, void *ctx)
{
	const struct job *job = ctx;
	(void)t;
	return (void *)(uintptr_t)job->ops->work(job->ui, job->ms);
}

static void on_post_execute(struct pl_async_task *t, void *ctx, void *result)
{
	struct job *job = ctx;
	(void)t;
	bench_ui_job_finished(job->ui, job->ms, (uintptr_t)result);
	if (job->ops->finished)
		job->ops->finished(job->ui);
	free(job);
}

static const struct pl_async_task_ops job_task_ops = {
	.on_pre_execute = on_pre_execute,
	.do_in_background = do_in_background,
	.on_post_execute = on_post_execute,
};

int bench_ui_start_job(struct bench_ui *ui, int32_t param, struct pl_executor *ex,
		       const struct bench_job_ops *ops)
{
	struct job *job = malloc(sizeof(*job));
	if (!job)
		return -ENOMEM;
	*job = (struct job){ .ui = ui, .ms = param > 0 ? (uint64_t)param : 0, .ops = ops };
	int err = pl_async_task_execute(&job_task_ops, job, pl_app_main_handler(ui->app), ex);
	if (err)
		free(job);
	return err;
}

struct bench_thread_job {
	struct bench_ui *ui;
	uint64_t ms;
	uint64_t checksum;
};

struct bench_thread_job *bench_ui_thread_job(struct bench_ui *ui, int32_t param)
{
	struct bench_thread_job *job = malloc(sizeof(*job));
	if (!job)
		return NULL;
	*job = (struct bench_thread_job){ .ui = ui, .ms = param > 0 ? (uint64_t)param : 0 };
	bench_ui_job_started(ui);
	return job;
}

/* On the main looper. */
static void show_thread_job(void *arg)
{
	struct bench_thread_job *job = arg;
	bench_ui_job_finished(job->ui, job->ms, job->checksum);
	free(job);
}

void bench_ui_run_thread_job(void *arg)
{
	struct bench_thread_job *job = arg;
	job->checksum = bench_compute(job->ms);
	/* Fails only if the app is quitting; then nobody is left to show it. */
	if (pl_handler_post(pl_app_main_handler(job->ui->app), show_thread_job, job) != 0)
		free(job);
}

void bench_ui_drop_thread_job(struct bench_thread_job *job)
{
	bench_ui_job_finished(job->ui, 0, 0);
	free(job);
}
