/*
 * app-workerthread: Panappticon's other asynchronous pattern (section 4.2):
 * a tap starts a plain worker thread that computes for the tap's param
 * milliseconds and posts its result back to the main looper, which draws it.
 * The trace links the two through the kernel's FORK and the posted message.
 *
 * No logging here: every trace event comes from the platform and the kernel.
 */
#include <stdlib.h>

#include "bench_ui.h"

struct job {
	struct bench_ui *ui;
	uint64_t ms;
	uint64_t checksum;
};

/* On the main looper: show the result. */
static void show_result(void *arg)
{
	struct job *job = arg;
	bench_ui_job_finished(job->ui, job->ms, job->checksum);
	free(job);
}

static void worker(void *arg)
{
	struct job *job = arg;
	job->checksum = bench_compute(job->ms);
	/* Fails only if the app is quitting; then nobody is left to show it. */
	if (pl_handler_post(pl_app_main_handler(job->ui->app), show_result, job) != 0)
		free(job);
}

static void on_tap(struct bench_ui *ui, int32_t param)
{
	struct job *job = malloc(sizeof(*job));
	if (!job)
		return;
	*job = (struct job){ .ui = ui, .ms = param > 0 ? (uint64_t)param : 0 };
	bench_ui_job_started(ui);
	if (pl_app_start_thread(ui->app, "worker", worker, job) != 0) {
		bench_ui_job_finished(ui, 0, 0);
		free(job);
	}
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
