/*
 * app-handlerthread: DiagDroid's HandlerThread backlog. A tap posts a job to
 * one background HandlerThread, which computes for the tap's param
 * milliseconds and posts the result to the main looper. Taps closer together
 * than their jobs queue up behind each other on that one thread.
 *
 * No logging here: every trace event comes from the platform.
 */
#include <errno.h>

#include "bench_ui.h"
#include "panlab/thread.h"

struct handlerthread_app {
	struct bench_ui ui;	/* first: bench_ui callbacks get this pointer */
	struct pl_handler_thread *worker;
	struct pl_handler to_worker;
};

static void on_tap(struct bench_ui *ui, int32_t param)
{
	struct handlerthread_app *a = (struct handlerthread_app *)ui;
	struct bench_thread_job *job = bench_ui_thread_job(ui, param);
	if (job && pl_handler_post(&a->to_worker, bench_ui_run_thread_job, job) != 0)
		bench_ui_drop_thread_job(job);
}

static int on_create(struct pl_app *app, void *ctx)
{
	struct handlerthread_app *a = ctx;
	a->worker = pl_handler_thread_start("JobThread");
	if (!a->worker)
		return -errno;
	pl_handler_init(&a->to_worker, pl_handler_thread_looper(a->worker), NULL, NULL);
	return bench_ui_create(app, &a->ui);
}

static void on_destroy(struct pl_app *app, void *ctx)
{
	struct handlerthread_app *a = ctx;
	(void)app;
	pl_handler_thread_stop(a->worker);
}

int main(void)
{
	static const struct pl_app_ops ops = {
		.on_create = on_create, .on_key = bench_ui_on_key, .on_destroy = on_destroy,
	};
	static struct handlerthread_app a = { .ui.on_tap = on_tap };

	return pl_app_main("handlerthread", &ops, &a);
}
