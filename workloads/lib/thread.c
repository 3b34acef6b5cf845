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

struct pl_intent_service {
	struct pl_handler_thread *thread;
	struct pl_handler handler;
	pl_intent_fn on_intent;
	void *ctx;
};

static void handle_intent(struct pl_handler *h, const struct pl_message *m)
{
	struct pl_intent_service *s = h->ctx;
	s->on_intent(s->ctx, m->what, m->obj);
}

struct pl_intent_service *pl_intent_service_create(const char *name, pl_intent_fn on_intent,
						   void *ctx)
{
	struct pl_intent_service *s = malloc(sizeof(*s));
	if (!s)
		return NULL;
	s->thread = pl_handler_thread_start(name);
	if (!s->thread) {
		free(s);
		return NULL;
	}
	s->on_intent = on_intent;
	s->ctx = ctx;
	pl_handler_init(&s->handler, pl_handler_thread_looper(s->thread), handle_intent, s);
	return s;
}

int pl_intent_service_start(struct pl_intent_service *s, int what, void *obj)
{
	struct pl_message m = { .what = what, .obj = obj };
	return pl_handler_send(&s->handler, &m);
}

void pl_intent_service_stop(struct pl_intent_service *s)
{
	pl_handler_thread_stop(s->thread);
	free(s);
}
