/*
 * servicemanager: the binder context manager (handle 0 in every process), as
 * Android's servicemanager. Services register under a name
 * (PL_SM_ADD_SERVICE: string name, service object) and clients look them up
 * (PL_SM_GET_SERVICE: string name; reply: handle). It serves on its main
 * thread only; SIGTERM ends it with status 0.
 *
 *   servicemanager [DEVICE]      default /dev/binderfs/binder
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "panlab/binder.h"
#include "panlab/ready.h"
#include "panlab/error.h"

#define MAX_SERVICES 64

struct registry {
	char names[MAX_SERVICES][PL_SM_MAX_NAME];
	uint32_t handles[MAX_SERVICES];
	unsigned n;
};

static int find(const struct registry *r, const char *name)
{
	for (unsigned i = 0; i < r->n; i++)
		if (strcmp(r->names[i], name) == 0)
			return (int)i;
	return -1;
}

static int on_transact(struct pl_binder_service *s, uint32_t code, struct pl_parcel *in,
		       struct pl_parcel *reply)
{
	struct registry *r = s->ctx;
	char name[PL_SM_MAX_NAME];
	uint32_t handle;

	if (!reply || pl_parcel_get_string(in, name, sizeof(name)) != 0)
		return -EINVAL;
	switch (code) {
	case PL_SM_ADD_SERVICE:
		if (pl_parcel_get_handle(in, &handle) != 0)
			return -EINVAL;
		if (find(r, name) >= 0)
			return -EEXIST;
		if (r->n == MAX_SERVICES)
			return -ENOSPC;
		/* The handle stays valid: the library acquires every handle it receives. */
		memcpy(r->names[r->n], name, sizeof(name));
		r->handles[r->n++] = handle;
		return 0;
	case PL_SM_GET_SERVICE: {
		int i = find(r, name);
		return i < 0 ? -ENOENT : pl_parcel_put_handle(reply, r->handles[i]);
	}
	default:
		return -EINVAL;
	}
}

static void on_term(int signo)
{
	(void)signo;
	_exit(0);
}

int main(int argc, char **argv)
{
	static struct registry registry;
	static struct pl_binder_service sm = { .on_transact = on_transact, .ctx = &registry };
	const char *device = argc > 1 ? argv[1] : PL_BINDER_DEVICE;
	struct pl_error err;

	/* It blocks in the driver, so the stop request ends it from a handler. */
	signal(SIGTERM, on_term);
	struct pl_binder *b = pl_binder_open(device, &err);
	if (!b)
		pl_die("%s", err.msg);
	int r = pl_binder_become_context_manager(b, &sm);
	if (r)
		pl_die("%s: BINDER_SET_CONTEXT_MGR: %s", device, strerror(-r));
	if ((r = pl_ready_signal()) != 0)
		pl_die("signal ready: %s", strerror(-r));
	r = pl_binder_loop(b);
	pl_die("%s: %s", device, strerror(-r));
}
