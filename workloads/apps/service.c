/*
 * app-service: Panappticon Table 2's remote-service benchmark. A
 * tap starts an AsyncTask whose background step makes a two-way binder call
 * to svc-compute, a service in another process that computes for the tap's
 * param milliseconds; post-execute draws the result. The transaction crosses
 * message -> task -> binder -> message, as in Panappticon's Figure 2.
 *
 * Built again with SERVICE_JOURNAL as app-svcjournal: the task first sends a one-way
 * COMPUTE_NOTE of NOTE_BYTES, which one binder thread of svc-compute writes synchronously to
 * its journal on the SD card, then makes a COMPUTE_NOTED_CALL, whose record the other binder
 * thread writes to the same journal before computing: it waits for the note's write on the
 * journal file's position lock, a kernel mutex (compute_service.h). The note's work is on the
 * transaction's path through that wait. An empty note at start opens the journal.
 *
 * No logging here: every trace event comes from the platform and the kernel.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "bench_ui.h"
#include "compute_service.h"
#include "panlab/binder.h"

#ifdef SERVICE_JOURNAL
#define APP_NAME "svcjournal"
#define NOTE_BYTES (64u * 1024u)	/* the one-way note before each call */
#define CALL_CODE COMPUTE_NOTED_CALL
#else
#define APP_NAME "service"
#define NOTE_BYTES 0u
#define CALL_CODE COMPUTE_CALL
#endif

struct service_app {
	struct bench_ui ui;	/* first: bench_ui callbacks get this pointer */
	uint32_t compute;	/* handle of the compute service */
};

/* A note of bytes to the service's journal, one-way: returns once the driver has queued it. */
static int send_note(struct pl_binder *b, uint32_t service, uint64_t bytes)
{
	struct pl_parcel in;
	pl_parcel_init(&in);
	int err = pl_parcel_put_u64(&in, bytes);
	if (!err)
		err = pl_binder_call(b, service, COMPUTE_NOTE, &in, NULL);
	pl_parcel_free(&in);
	return err;
}

/* The job: a two-way binder call to the compute service (after a one-way note for svcjournal). */
static uint64_t call_compute(struct bench_ui *ui, uint64_t ms)
{
	const struct service_app *sa = (const struct service_app *)ui;
	struct pl_parcel in, reply;
	uint64_t checksum = 0;
	if (NOTE_BYTES && send_note(pl_app_binder(ui->app), sa->compute, NOTE_BYTES) != 0)
		return 0;
	pl_parcel_init(&in);
	if (pl_parcel_put_u64(&in, ms) == 0 &&
	    pl_binder_call(pl_app_binder(ui->app), sa->compute, CALL_CODE, &in, &reply) == 0) {
		pl_parcel_get_u64(&reply, &checksum);
		pl_parcel_free(&reply);
	}
	pl_parcel_free(&in);
	return checksum;
}

static const struct bench_job_ops job_ops = { .work = call_compute };

static void on_tap(struct bench_ui *ui, int32_t param)
{
	bench_ui_start_job(ui, param, pl_app_serial_executor(ui->app), &job_ops);
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
		fprintf(stderr, "app-%s: look up %s: %s\n", APP_NAME, COMPUTE_SERVICE_NAME,
			strerror(-err));
		return err;
	}
	/* The service opens its journal on its first note: an empty one now, not in a tap. */
	if (NOTE_BYTES && (err = send_note(pl_app_binder(app), sa->compute, 0)) != 0) {
		fprintf(stderr, "app-%s: note to %s: %s\n", APP_NAME, COMPUTE_SERVICE_NAME,
			strerror(-err));
		return err;
	}
	return bench_ui_create(app, &sa->ui);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct service_app sa = { .ui.on_tap = on_tap };

	return pl_app_main(APP_NAME, &ops, &sa);
}
