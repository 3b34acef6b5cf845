/*
 * app-workerthread: Panappticon's other asynchronous pattern (section 4.2):
 * a tap starts a plain worker thread that computes for the tap's param
 * milliseconds and posts its result back to the main looper, which draws it.
 * The trace links the two through the kernel's FORK and the posted message.
 *
 * No logging here: every trace event comes from the platform and the kernel.
 */
#include "bench_ui.h"

static void on_tap(struct bench_ui *ui, int32_t param)
{
	struct bench_thread_job *job = bench_ui_thread_job(ui, param);
	if (job && pl_app_start_thread(ui->app, "worker", bench_ui_run_thread_job, job) != 0)
		bench_ui_drop_thread_job(job);
}

static int on_create(struct pl_app *app, void *ctx)
{
	return bench_ui_create(app, ctx);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct bench_ui ui = { .on_tap = on_tap };

	return pl_app_main("workerthread", &ops, &ui);
}
