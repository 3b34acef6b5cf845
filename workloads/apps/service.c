/*
 * app-service: Panappticon Table 2's remote-service benchmark (issue 5). A
 * tap starts an AsyncTask whose background step makes a two-way binder call
 * to svc-compute, a service in another process that computes for the tap's
 * param milliseconds; post-execute draws the result. The transaction crosses
 * message -> task -> binder -> message, as in Panappticon's Figure 2.
 *
 * No logging here: every trace event comes from the platform and the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_ui.h"
#include "compute_service.h"
#include "panlab/binder.h"

struct service_app {
	struct bench_ui ui;	/* first: bench_ui callbacks get this pointer */
	uint32_t compute;	/* handle of the compute service */
};

struct job {
	struct service_app *app;
	uint64_t ms;
};

static void on_pre_execute(struct pl_async_task *t, void *ctx)
{
	const struct job *job = ctx;
	(void)t;
	bench_ui_job_started(&job->app->ui);
}

static void *do_in_background(struct pl_async_task *t, void *ctx)
{
	const struct job *job = ctx;
	struct pl_parcel in, reply;
	uint64_t checksum = 0;
	(void)t;
	pl_parcel_init(&in);
	struct pl_binder *b = pl_app_binder(job->app->ui.app);
	if (pl_parcel_put_u64(&in, job->ms) == 0 &&
	    pl_binder_call(b, job->app->compute, COMPUTE_CALL, &in, &reply) == 0) {
		pl_parcel_get_u64(&reply, &checksum);
		pl_parcel_free(&reply);
	}
	pl_parcel_free(&in);
	return (void *)(uintptr_t)checksum;
}

static void on_post_execute(struct pl_async_task *t, void *ctx, void *result)
{
	struct job *job = ctx;
	(void)t;
	bench_ui_job_finished(&job->app->ui, job->ms, (uintptr_t)result);
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
	*job = (struct job){ .app = (struct service_app *)ui, .ms = param > 0 ? (uint64_t)param : 0 };
	if (pl_async_task_execute(&task_ops, job, pl_app_main_handler(ui->app),
				  pl_app_serial_executor(ui->app)) != 0)
		free(job);
}

static int on_create(struct pl_app *app, void *ctx)
{
	struct service_app *sa = ctx;
	/* Both print why they failed. */
	if (pl_app_start_service(app, "compute") != 0)
		return -ECHILD;
	if (!pl_app_binder(app))
		return -ENODEV;
	int err = pl_binder_get_service(pl_app_binder(app), COMPUTE_SERVICE_NAME, &sa->compute);
	if (err) {
		fprintf(stderr, "app-service: look up %s: %s\n", COMPUTE_SERVICE_NAME, strerror(-err));
		return err;
	}
	return bench_ui_create(app, &sa->ui);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct service_app sa = { .ui.on_tap = on_tap };

	return pl_app_main("service", &ops, &sa);
}
