/*
 * Looper, MessageQueue and Handler: the thread model of Android's
 * android.os.Looper. A looper thread sleeps until a message is due or a
 * watched fd is ready, then runs the fd callback or the message's handler,
 * one at a time. Input and vsync reach an app's main thread this way.
 *
 * Tracing (done here, never by callers): ENQUEUE_MSG on the sending thread,
 * DEQUEUE_MSG before and MSG_DONE after the handler on the looper thread,
 * with the message id (unique within its queue) and the queue id (unique
 * across processes).
 *
 * Times are CLOCK_MONOTONIC ns (pl_now_ns()).
 *
 * Ownership: pl_looper_create allocates, pl_looper_destroy frees the looper
 * and any messages still queued (without running them). Handlers are
 * caller-owned structs that must outlive their pending messages. The obj
 * pointer in a message is never touched by the queue.
 */
#ifndef PANLAB_LOOPER_H
#define PANLAB_LOOPER_H

#include <stdbool.h>
#include <stdint.h>

struct pl_looper;
struct pl_handler;

struct pl_message {
	int what;
	int64_t arg1;
	int64_t arg2;
	void *obj;
};

typedef void (*pl_handle_fn)(struct pl_handler *h, const struct pl_message *msg);
typedef void (*pl_runnable_fn)(void *arg);
/* events are EPOLL* bits. */
typedef void (*pl_fd_fn)(int fd, uint32_t events, void *ctx);

struct pl_handler {
	struct pl_looper *looper;
	pl_handle_fn handle;	/* may be NULL for a handler used only to post runnables */
	void *ctx;
};

/* Returns NULL on failure (errno set). */
struct pl_looper *pl_looper_create(void);
void pl_looper_destroy(struct pl_looper *l);

/* Run on the calling thread until pl_looper_quit. Returns 0 or -errno. */
int pl_looper_loop(struct pl_looper *l);

/*
 * From any thread: the loop returns after the message or callback now
 * running; queued messages are dropped.
 */
void pl_looper_quit(struct pl_looper *l);

/* Queue id as traced in ENQUEUE_MSG/DEQUEUE_MSG a1. */
uint32_t pl_looper_queue_id(const struct pl_looper *l);

/*
 * Run fn on the looper thread each time the queue goes idle (nothing due),
 * once per idle period, as Android's IdleHandler; fn returns false to be
 * removed. Returns 0 or -ENOSPC beyond PL_LOOPER_MAX_IDLE_HANDLERS.
 */
#define PL_LOOPER_MAX_IDLE_HANDLERS 8
typedef bool (*pl_idle_fn)(void *ctx);
int pl_looper_add_idle_handler(struct pl_looper *l, pl_idle_fn fn, void *ctx);

/*
 * Block SIGTERM and SIGINT in the calling thread (threads it starts later
 * inherit the mask) and deliver them on the looper thread through a signalfd
 * the looper owns: on_signal(signo, ctx) runs, or with on_signal NULL the
 * looper quits. Returns 0 or -errno.
 */
typedef void (*pl_signal_fn)(int signo, void *ctx);
int pl_looper_watch_signals(struct pl_looper *l, pl_signal_fn on_signal, void *ctx);

/*
 * Watch fd (not owned) for events; fn runs on the looper thread. Add and
 * remove on the looper thread (any callback, even for the fd being removed)
 * or before the loop runs. Returns 0 or -errno.
 */
int pl_looper_add_fd(struct pl_looper *l, int fd, uint32_t events, pl_fd_fn fn, void *ctx);
int pl_looper_remove_fd(struct pl_looper *l, int fd);

void pl_handler_init(struct pl_handler *h, struct pl_looper *l, pl_handle_fn handle, void *ctx);

/* Each returns 0, or -ESHUTDOWN after quit, or -ENOMEM. Safe from any thread. */
int pl_handler_send(struct pl_handler *h, const struct pl_message *m);
int pl_handler_send_delayed(struct pl_handler *h, const struct pl_message *m, uint64_t delay_ns);
/* Ahead of everything queued, even messages already due (Android's sendMessageAtFrontOfQueue). */
int pl_handler_send_at_front(struct pl_handler *h, const struct pl_message *m);
int pl_handler_post(struct pl_handler *h, pl_runnable_fn fn, void *arg);
int pl_handler_post_delayed(struct pl_handler *h, pl_runnable_fn fn, void *arg, uint64_t delay_ns);
int pl_handler_post_at_front(struct pl_handler *h, pl_runnable_fn fn, void *arg);

/*
 * A held message is enqueued (and traced) now but dispatched only after
 * pl_handler_release_held(h): for work gated on an outside event, such as a
 * frame callback waiting for vsync, so the trace links it to the interval
 * that asked for it. Its ENQUEUE_MSG logs a delay of 0. Release makes every
 * message held on h due now, in the order they were sent.
 */
int pl_handler_post_held(struct pl_handler *h, pl_runnable_fn fn, void *arg);
void pl_handler_release_held(struct pl_handler *h);

/* Globally unique id for a queue or executor: (pid << 8) | per-process index. */
uint32_t pl_new_object_id(void);

#endif /* PANLAB_LOOPER_H */
