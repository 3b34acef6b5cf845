/*
 * Threads as Android apps start them: a plain worker thread (new Thread(r)
 * .start()) and a HandlerThread, a thread running its own looper. The kernel
 * logger sees both through FORK and THREAD_NAME; work handed to a
 * HandlerThread is traced through its message queue.
 *
 * Ownership: pl_handler_thread_start allocates the thread object and its
 * looper; pl_handler_thread_stop quits the looper (dropping queued messages),
 * joins the thread and frees both. A plain thread is the caller's to join.
 */
#ifndef PANLAB_THREAD_H
#define PANLAB_THREAD_H

#include <pthread.h>

#include "panlab/looper.h"

/* Start fn(arg) on a new thread named name (15 chars kept). Returns 0 or -errno. */
int pl_thread_start(pthread_t *out, const char *name, void *(*fn)(void *), void *arg);

struct pl_handler_thread;

/* Returns NULL on failure (errno set). The looper is usable at once, from any thread. */
struct pl_handler_thread *pl_handler_thread_start(const char *name);
struct pl_looper *pl_handler_thread_looper(struct pl_handler_thread *t);
void pl_handler_thread_stop(struct pl_handler_thread *t);

/*
 * IntentService: requests ("intents") handled one at a time, in order, by
 * on_intent on a HandlerThread of the service's own. Unlike Android's, the
 * thread stays until pl_intent_service_stop rather than stopping itself after
 * the last intent; the trace is the same (each intent is a message).
 * Ownership: create allocates; stop lets the intent being handled finish,
 * drops queued ones, joins and frees. obj stays the caller's.
 */
struct pl_intent_service;
typedef void (*pl_intent_fn)(void *ctx, int what, void *obj);

struct pl_intent_service *pl_intent_service_create(const char *name, pl_intent_fn on_intent,
						   void *ctx);
/* From any thread. Returns 0 or -errno. */
int pl_intent_service_start(struct pl_intent_service *s, int what, void *obj);
void pl_intent_service_stop(struct pl_intent_service *s);

#endif /* PANLAB_THREAD_H */
