/*
 * app-asynctask: Panappticon Table 2's AsyncTask benchmark. A tap on the
 * button starts an AsyncTask (Android's default execute(): the serial
 * executor): pre-execute darkens the button, the background step computes for
 * the tap's param milliseconds, post-execute draws the result. Taps closer
 * together than their tasks queue behind each other (DiagDroid's serial
 * executor case).
 *
 * Built a second time with ASYNCTASK_THREAD_POOL as app-asyncpool, whose
 * tasks go to THREAD_POOL_EXECUTOR (executeOnExecutor): bursts of taps run
 * 5 at a time, queue 10 more, then grow the pool (DiagDroid's thread-pool
 * exhaustion).
 *
 * Built a third time with ASYNCTASK_TIMER as app-timer: a clock view ticks TIMER_TICKS times,
 * TIMER_TICK_MS apart, from a delayed message the app posts to itself at start, so those display
 * updates are caused by no input (a transaction-shape case); taps work as in
 * app-asynctask.
 *
 * No logging here: every trace event comes from the platform.
 */
#include "bench_ui.h"

static uint64_t compute(struct bench_ui *ui, uint64_t ms)
{
	(void)ui;
	return bench_compute(ms);
}

static const struct bench_job_ops job_ops = { .work = compute };

static void on_tap(struct bench_ui *ui, int32_t param)
{
#ifdef ASYNCTASK_THREAD_POOL
	struct pl_executor *ex = pl_app_thread_pool_executor(ui->app);
#else
	struct pl_executor *ex = pl_app_serial_executor(ui->app);
#endif
	bench_ui_start_job(ui, param, ex, &job_ops);
}

#ifdef ASYNCTASK_TIMER
#define TIMER_TICKS 8
#define TIMER_TICK_MS 250
#define CLOCK_XRGB 0x00ffb300u

static struct pl_view clock_view;
static unsigned ticks;

static void draw_clock(struct pl_view *v, struct pl_canvas *c)
{
	pl_canvas_fill_rect(c, v->x_px, v->y_px, v->w_px, v->h_px, CLOCK_XRGB);
	pl_canvas_draw_number(c, v->x_px + 10, v->y_px + 10, v->h_px - 20, ticks, 0);
}

static void tick(void *arg)
{
	struct pl_app *app = arg;
	ticks++;
	pl_view_invalidate(&clock_view);
	if (ticks < TIMER_TICKS)
		pl_handler_post_delayed(pl_app_main_handler(app), tick, app,
					TIMER_TICK_MS * UINT64_C(1000000));
}
#endif

static int on_create(struct pl_app *app, void *ctx)
{
#ifdef ASYNCTASK_TIMER
	clock_view = (struct pl_view){ .x_px = 160, .y_px = 600, .w_px = 160, .h_px = 100,
				       .draw = draw_clock };
	int err = pl_window_add_view(pl_app_window(app), &clock_view);
	if (!err)
		err = pl_handler_post_delayed(pl_app_main_handler(app), tick, app,
					      TIMER_TICK_MS * UINT64_C(1000000));
	if (err)
		return err;
#endif
	return bench_ui_create(app, ctx);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct bench_ui ui = { .on_tap = on_tap };

#if defined(ASYNCTASK_THREAD_POOL)
	return pl_app_main("asyncpool", &ops, &ui);
#elif defined(ASYNCTASK_TIMER)
	return pl_app_main("timer", &ops, &ui);
#else
	return pl_app_main("asynctask", &ops, &ui);
#endif
}
