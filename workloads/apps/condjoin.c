/*
 * app-condjoin: a join through a condition variable. A tap
 * submits two tasks to THREAD_POOL_EXECUTOR: the signaller computes for the
 * tap's param milliseconds, then sets `done` and signals; the waiter computes
 * for a quarter of that, then waits on the condition variable until `done`,
 * and posts the joined result to the main looper, which draws it. The waiter
 * finishes the transaction, but what it waited for is the signaller's work:
 * the critical path must cross the signaller's FUTEX_NOTIFY (a `notify`
 * hop), not charge that time to the waiter as `lock`.
 *
 * No logging here: every trace event comes from the platform and the kernel.
 */
#include <pthread.h>
#include <stdlib.h>

#include "bench_ui.h"
#include "bench_work.h"

struct join {
	struct bench_ui *ui;
	uint64_t ms;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;			/* under lock */
	uint64_t signaller_sum;		/* under lock */
	uint64_t checksum;		/* the waiter's, then the join's */
};

static void show(void *arg)
{
	struct join *j = arg;

	bench_ui_job_finished(j->ui, j->ms, j->checksum);
	pthread_cond_destroy(&j->cond);
	pthread_mutex_destroy(&j->lock);
	free(j);
}

static void signaller(void *arg)
{
	struct join *j = arg;
	uint64_t sum = bench_compute(j->ms);

	pthread_mutex_lock(&j->lock);
	j->signaller_sum = sum;
	j->done = 1;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
}

static void waiter(void *arg)
{
	struct join *j = arg;

	j->checksum = bench_compute(j->ms / 4);
	pthread_mutex_lock(&j->lock);
	while (!j->done)
		pthread_cond_wait(&j->cond, &j->lock);
	j->checksum ^= j->signaller_sum;
	pthread_mutex_unlock(&j->lock);
	/* Fails only if the app is quitting; then nobody is left to show it. */
	if (pl_handler_post(pl_app_main_handler(j->ui->app), show, j) != 0)
		free(j);
}

static void on_tap(struct bench_ui *ui, int32_t param)
{
	struct pl_executor *ex = pl_app_thread_pool_executor(ui->app);
	struct join *j = calloc(1, sizeof(*j));

	if (!j)
		return;
	j->ui = ui;
	j->ms = param > 0 ? (uint64_t)param : 0;
	pthread_mutex_init(&j->lock, NULL);
	pthread_cond_init(&j->cond, NULL);
	bench_ui_job_started(ui);
	if (pl_executor_submit(ex, waiter, j) != 0) {
		bench_ui_job_finished(ui, 0, 0);
		free(j);
		return;
	}
	/* Without the signaller the waiter would wait forever: end it here instead. */
	if (pl_executor_submit(ex, signaller, j) != 0) {
		pthread_mutex_lock(&j->lock);
		j->done = 1;
		pthread_cond_signal(&j->cond);
		pthread_mutex_unlock(&j->lock);
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

	return pl_app_main("condjoin", &ops, &ui);
}
