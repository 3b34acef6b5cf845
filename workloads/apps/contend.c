/*
 * The DiagDroid contention apps: a tap's job waits behind silent background work that
 * an earlier tap left running. Each tap starts its visible job (the bench_ui job: darken the
 * button, compute for param ms, draw the result) and then leaves TRAIL_MS of blocking
 * background work that never touches the display. A tap that arrives while that work runs
 * waits for it:
 *
 *   CONTEND_SERIAL   app-serialqueue:    the trailing task is queued on the serial executor
 *                                        after the visible one; the next tap's task queues
 *                                        behind it (a task queued behind a long one).
 *   CONTEND_POOL     app-poolexhaust:    POOL_TRAILERS trailing tasks on THREAD_POOL_EXECUTOR
 *                                        fill its 5 core threads; the next tap's task waits in
 *                                        the pool's queue (thread-pool exhaustion).
 *   CONTEND_HANDLER  app-backlog:        the trailing job is posted to the one HandlerThread
 *                                        after the visible one (a HandlerThread backlog).
 *   CONTEND_LEAK     app-leak:           as serialqueue, but the trailing task is the screen's
 *                                        1500 ms refresh, which a key press (leaving
 *                                        the screen) never cancels; the next tap, on the
 *                                        screen the user came back to, queues behind it.
 *   CONTEND_LOCK     app-lockcontention: the visible job runs on a new worker thread holding
 *                                        the app's data lock; when it is done, a housekeeping
 *                                        HandlerThread takes the lock for TRAIL_MS; the next
 *                                        tap's worker blocks on it (lock contention between
 *                                        app threads, a futex wait and wake).
 *
 * The background work ends no display update, so each transaction still ends at its own result
 * frame: a script that leaves each visible job time to be drawn before the next tap keeps
 * include/FORMAT.md's ground truth exact while the next tap's latency includes the wait.
 *
 * No logging here: every trace event comes from the platform and the kernel.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "bench_ui.h"
#include "panlab/thread.h"

#ifdef CONTEND_LEAK
#define TRAIL_MS 1500
#else
#define TRAIL_MS 600
#endif
#define POOL_TRAILERS 5

struct contend_app {
	struct bench_ui ui;	/* first: bench_ui callbacks get this pointer */
	struct pl_handler_thread *worker;	/* the HandlerThread (backlog) or housekeeper (lock) */
	struct pl_handler to_worker;
	pthread_mutex_t data_lock;
};

struct job {
	struct contend_app *a;
	uint64_t ms;
	uint64_t checksum;
};

static void show_result(void *arg)
{
	struct job *job = arg;
	bench_ui_job_finished(&job->a->ui, job->ms, job->checksum);
	free(job);
}

static void compute_job(struct job *job)
{
	job->checksum = bench_compute(job->ms);
}

/*
 * Background work with no display update; arg is unused. It blocks rather than computes, like
 * the network and storage work behind DiagDroid's cases: the queue, pool, thread or lock it
 * holds is what later taps wait for, and the CPU stays free for the display pipeline.
 */
static void trail(void *arg)
{
	struct timespec d = { .tv_sec = TRAIL_MS / 1000, .tv_nsec = TRAIL_MS % 1000 * 1000000L };
	(void)arg;
	while (nanosleep(&d, &d) != 0 && errno == EINTR)
		;
}

#if defined(CONTEND_SERIAL) || defined(CONTEND_LEAK) || defined(CONTEND_POOL)
static void on_pre_execute(struct pl_async_task *t, void *ctx)
{
	struct job *job = ctx;
	(void)t;
	bench_ui_job_started(&job->a->ui);
}

static void *do_in_background(struct pl_async_task *t, void *ctx)
{
	(void)t;
	compute_job(ctx);
	return NULL;
}

static void on_post_execute(struct pl_async_task *t, void *ctx, void *result)
{
	(void)t;
	(void)result;
	show_result(ctx);
}

static const struct pl_async_task_ops task_ops = {
	.on_pre_execute = on_pre_execute,
	.do_in_background = do_in_background,
	.on_post_execute = on_post_execute,
};

#if defined(CONTEND_SERIAL) || defined(CONTEND_LEAK)
#define EXECUTOR pl_app_serial_executor
#define TRAILERS 1
#else
#define EXECUTOR pl_app_thread_pool_executor
#define TRAILERS POOL_TRAILERS
#endif

static int start_job(struct job *job)
{
	struct pl_executor *ex = EXECUTOR(job->a->ui.app);
	int err = pl_async_task_execute(&task_ops, job, pl_app_main_handler(job->a->ui.app), ex);

	for (int i = 0; !err && i < TRAILERS; i++)
		pl_executor_submit(ex, trail, NULL);	/* a full pool rejects: the work is optional */
	return err;
}
#define NEEDS_WORKER 0

#elif defined(CONTEND_HANDLER)
/* On the HandlerThread. */
static void run_job(void *arg)
{
	struct job *job = arg;
	compute_job(job);
	if (pl_handler_post(pl_app_main_handler(job->a->ui.app), show_result, job) != 0)
		free(job);
}

static int start_job(struct job *job)
{
	bench_ui_job_started(&job->a->ui);
	int err = pl_handler_post(&job->a->to_worker, run_job, job);
	if (err) {
		bench_ui_job_finished(&job->a->ui, 0, 0);
		return err;
	}
	pl_handler_post(&job->a->to_worker, trail, NULL);
	return 0;
}
#define NEEDS_WORKER 1

#elif defined(CONTEND_LOCK)
/* On the housekeeping HandlerThread: the background work holds the data lock. */
static void housekeep(void *arg)
{
	struct contend_app *a = arg;
	pthread_mutex_lock(&a->data_lock);
	trail(NULL);
	pthread_mutex_unlock(&a->data_lock);
}

/* On a new worker thread. */
static void run_job(void *arg)
{
	struct job *job = arg;
	struct contend_app *a = job->a;

	pthread_mutex_lock(&a->data_lock);
	compute_job(job);
	pthread_mutex_unlock(&a->data_lock);
	pl_handler_post(&a->to_worker, housekeep, a);
	if (pl_handler_post(pl_app_main_handler(a->ui.app), show_result, job) != 0)
		free(job);
}

static int start_job(struct job *job)
{
	bench_ui_job_started(&job->a->ui);
	int err = pl_app_start_thread(job->a->ui.app, "worker", run_job, job);
	if (err)
		bench_ui_job_finished(&job->a->ui, 0, 0);
	return err;
}
#define NEEDS_WORKER 1
#else
#error "build with one of CONTEND_SERIAL, CONTEND_LEAK, CONTEND_POOL, CONTEND_HANDLER, CONTEND_LOCK"
#endif

static void on_tap(struct bench_ui *ui, int32_t param)
{
	struct job *job = malloc(sizeof(*job));
	if (!job)
		return;
	*job = (struct job){ .a = (struct contend_app *)ui, .ms = param > 0 ? (uint64_t)param : 0 };
	if (start_job(job) != 0)
		free(job);
}

static int on_create(struct pl_app *app, void *ctx)
{
	struct contend_app *a = ctx;
	if (NEEDS_WORKER) {
		a->worker = pl_handler_thread_start("JobThread");
		if (!a->worker)
			return -errno;
		pl_handler_init(&a->to_worker, pl_handler_thread_looper(a->worker), NULL, NULL);
	}
	return bench_ui_create(app, &a->ui);
}

static void on_destroy(struct pl_app *app, void *ctx)
{
	struct contend_app *a = ctx;
	(void)app;
	if (NEEDS_WORKER)
		pl_handler_thread_stop(a->worker);
}

int main(void)
{
	static const struct pl_app_ops ops = {
		.on_create = on_create, .on_key = bench_ui_on_key, .on_destroy = on_destroy,
	};
	static struct contend_app a = { .ui.on_tap = on_tap, .data_lock = PTHREAD_MUTEX_INITIALIZER };

	return pl_app_main(CONTEND_NAME, &ops, &a);
}
