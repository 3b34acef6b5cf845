/*
 * app-webview: Panappticon's WebView case (section 4.5). Rendering is done by
 * a pool of native renderer threads that the platform does not instrument:
 * the main thread hands a render job over a mutex/condition-variable queue
 * (futex waits and wakes, seen only by the kernel logger), a renderer
 * computes for the tap's param milliseconds, then posts the result to the
 * main looper, which draws it. The analyzer must infer the renderers'
 * intervals from kernel wait/notify events, as Panappticon does for WebKit.
 *
 * No logging here: every trace event comes from the platform and the kernel.
 * The job queue is native code outside the platform, so each job carries the
 * input it answers by hand (panlab/input_cause.h), for the frame marker of the
 * ground truth, as the platform does for its own hand-offs.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bench_ui.h"
#include "panlab/input_cause.h"

#define RENDERERS 2

struct job {
	struct job *next;
	struct bench_ui *ui;
	uint64_t ms;
	uint64_t checksum;
	uint64_t cause;		/* the input it answers */
};

struct webview {
	struct bench_ui ui;	/* first: bench_ui callbacks get this pointer */
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct job *head, *tail;
	bool quit;
};

static void show_result(void *arg)
{
	struct job *job = arg;
	bench_ui_job_finished(job->ui, job->ms, job->checksum);
	free(job);
}

static void renderer(void *arg)
{
	struct webview *wv = arg;
	pthread_mutex_lock(&wv->lock);
	for (;;) {
		while (!wv->head && !wv->quit)
			pthread_cond_wait(&wv->work, &wv->lock);
		if (wv->quit)
			break;
		struct job *job = wv->head;
		wv->head = job->next;
		if (!wv->head)
			wv->tail = NULL;
		pthread_mutex_unlock(&wv->lock);
		pl_input_cause_set(job->cause);
		job->checksum = bench_compute(job->ms);
		if (pl_handler_post(pl_app_main_handler(wv->ui.app), show_result, job) != 0)
			free(job);
		pthread_mutex_lock(&wv->lock);
	}
	pthread_mutex_unlock(&wv->lock);
}

static void on_tap(struct bench_ui *ui, int32_t param)
{
	struct webview *wv = (struct webview *)ui;
	struct job *job = malloc(sizeof(*job));
	if (!job)
		return;
	*job = (struct job){ .ui = ui, .ms = param > 0 ? (uint64_t)param : 0,
			     .cause = pl_input_cause_get() };
	bench_ui_job_started(ui);
	pthread_mutex_lock(&wv->lock);
	if (wv->tail)
		wv->tail->next = job;
	else
		wv->head = job;
	wv->tail = job;
	pthread_cond_signal(&wv->work);
	pthread_mutex_unlock(&wv->lock);
}

static int on_create(struct pl_app *app, void *ctx)
{
	struct webview *wv = ctx;
	int err = bench_ui_create(app, &wv->ui);
	for (int i = 0; i < RENDERERS && !err; i++)
		err = pl_app_start_thread(app, "renderer", renderer, wv);
	return err;
}

static void on_destroy(struct pl_app *app, void *ctx)
{
	struct webview *wv = ctx;
	(void)app;
	pthread_mutex_lock(&wv->lock);
	wv->quit = true;
	pthread_cond_broadcast(&wv->work);
	pthread_mutex_unlock(&wv->lock);
}

int main(void)
{
	static const struct pl_app_ops ops = {
		.on_create = on_create, .on_key = bench_ui_on_key, .on_destroy = on_destroy,
	};
	static struct webview wv = {
		.ui.on_tap = on_tap,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.work = PTHREAD_COND_INITIALIZER,
	};

	return pl_app_main("webview", &ops, &wv);
}
