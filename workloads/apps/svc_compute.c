/*
 * svc-compute: a remote service in its own process (Panappticon Figure 2's
 * "background service" reached by RPC). It registers COMPUTE_SERVICE_NAME
 * with the service manager, serves calls on a binder thread pool, and exits
 * 0 on SIGTERM. Started by app-service through pl_app_start_service.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "bench_work.h"
#include "compute_service.h"
#include "panlab/binder.h"
#include "panlab/die.h"
#include "panlab/ready.h"
#include "panlab/error.h"

static int on_transact(struct pl_binder_service *s, uint32_t code, struct pl_parcel *in,
		       struct pl_parcel *reply)
{
	uint64_t ms;
	(void)s;
	if (code != COMPUTE_CALL || !reply || pl_parcel_get_u64(in, &ms) != 0)
		return -EINVAL;
	return pl_parcel_put_u64(reply, bench_compute(ms));
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
