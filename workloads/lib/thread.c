/* Worker threads and HandlerThread. See include/panlab/thread.h. */
#include "panlab/thread.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int pl_thread_start(pthread_t *out, const char *name, void *(*fn)(void *), void *arg)
{
	int err = pthread_create(out, NULL, fn, arg);
	if (err)
		return -err;
	char comm[16];
	snprintf(comm, sizeof(comm), "%s", name);
	pthread_setname_np(*out, comm);
	return 0;
}

struct pl_handler_thread {
	pthread_t thread;
	struct pl_looper *looper;
};

static void *loop(void *arg)
{
	struct pl_handler_thread *t = arg;
	pl_looper_loop(t->looper);
	return NULL;
}

struct pl_handler_thread *pl_handler_thread_start(const char *name)
{
	struct pl_handler_thread *t = malloc(sizeof(*t));
	if (!t)
		return NULL;
	/* Created here rather than on the thread, so callers need not wait for it. */
	t->looper = pl_looper_create();
	int err = t->looper ? pl_thread_start(&t->thread, name, loop, t) : -errno;
	if (err) {
		pl_looper_destroy(t->looper);
		free(t);
		errno = -err;
		return NULL;
	}
	return t;
}

struct pl_looper *pl_handler_thread_looper(struct pl_handler_thread *t)
{
	return t->looper;
}

void pl_handler_thread_stop(struct pl_handler_thread *t)
{
	pl_looper_quit(t->looper);
	pthread_join(t->thread, NULL);
	pl_looper_destroy(t->looper);
	free(t);
}
