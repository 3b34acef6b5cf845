/*
 * svc-compute: a remote service in its own process (Panappticon Figure 2's
 * "background service" reached by RPC). It registers COMPUTE_SERVICE_NAME
 * with the service manager, serves calls on a binder thread pool, and exits
 * 0 on SIGTERM. Started by app-service and app-svcjournal through
 * pl_app_start_service.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench_work.h"
#include "compute_service.h"
#include "panlab/binder.h"
#include "panlab/ready.h"
#include "panlab/error.h"

static pthread_once_t journal_once = PTHREAD_ONCE_INIT;
static int journal = -1;

/* Opened on the first note, so app-service's runs never touch the card. */
static void open_journal(void)
{
	const char *path = access("/sdcard", W_OK) == 0 ? "/sdcard/compute-journal"
							: "/tmp/compute-journal";
	journal = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_DSYNC | O_CLOEXEC, 0644);
}

/* Appends bytes to the journal, on the card when write() returns. */
static int note(uint64_t bytes)
{
	static const char zeros[COMPUTE_NOTE_MAX];

	if (bytes > COMPUTE_NOTE_MAX)
		return -EINVAL;
	pthread_once(&journal_once, open_journal);
	if (journal < 0)
		return -EIO;
	return write(journal, zeros, bytes) == (ssize_t)bytes ? 0 : -EIO;
}

static int on_transact(struct pl_binder_service *s, uint32_t code, struct pl_parcel *in,
		       struct pl_parcel *reply)
{
	uint64_t arg;
	int err;
	(void)s;
	/* A note is one-way, the calls two-way. */
	if (pl_parcel_get_u64(in, &arg) != 0 || (code == COMPUTE_NOTE) != !reply)
		return -EINVAL;
	switch (code) {
	case COMPUTE_NOTE:
		/* No caller hears of a one-way call's failure: say it here. */
		if ((err = note(arg)) != 0)
			fprintf(stderr, "svc-compute: journal note of %llu bytes: %s\n",
				(unsigned long long)arg, strerror(-err));
		return err;
	case COMPUTE_NOTED_CALL:
		if ((err = note(COMPUTE_RECORD_BYTES)) != 0)
			return err;
		/* fall through */
	case COMPUTE_CALL:
		return pl_parcel_put_u64(reply, bench_compute(arg));
	default:
		return -EINVAL;
	}
}

int main(void)
{
	static struct pl_binder_service compute = { .on_transact = on_transact };
	struct pl_error err;
	sigset_t term;
	int sig, r;

	/* Blocked before the pool starts, so only sigwait below takes SIGTERM. */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &term, NULL);
	struct pl_binder *b = pl_binder_open(PL_BINDER_DEVICE, &err);
	if (!b)
		pl_die("%s", err.msg);
	if ((r = pl_binder_start_pool(b, 2)) != 0)
		pl_die("binder thread pool: %s", strerror(-r));
	if ((r = pl_binder_add_service(b, COMPUTE_SERVICE_NAME, &compute)) != 0)
		pl_die("register %s: %s", COMPUTE_SERVICE_NAME, strerror(-r));
	if ((r = pl_ready_signal()) != 0)
		pl_die("signal ready: %s", strerror(-r));
	sigwait(&term, &sig);
	return 0;
}
