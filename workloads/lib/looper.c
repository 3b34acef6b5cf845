/* Looper/MessageQueue/Handler. See include/panlab/looper.h. */
#include "panlab/looper.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "panlab/input_cause.h"
#include "panlab/ulog.h"

struct queued {
	struct queued *next;
	uint64_t when_ns;
	uint32_t id;
	struct pl_handler *handler;
	struct pl_message msg;
	pl_runnable_fn fn;	/* set: a posted runnable; else handler->handle(msg) */
	void *arg;
	uint64_t cause;		/* the sender's input cause, in force while it runs */
};

struct fd_watch {
	struct fd_watch *next;
	int fd;
	pl_fd_fn fn;
	void *ctx;
};

struct idle_handler {
	pl_idle_fn fn;
	void *ctx;
};

struct pl_looper {
	pthread_mutex_t lock;
	struct idle_handler idle[PL_LOOPER_MAX_IDLE_HANDLERS];
	unsigned nidle;
	struct queued *head;	/* sorted by when_ns, FIFO among equals */
	uint32_t next_msg_id;
	bool quit;
	uint32_t queue_id;
	int epfd;
	int wakefd;
	struct fd_watch *watches;	/* touched only on the looper thread */
	int signal_fd;			/* -1 until pl_looper_watch_signals */
	pl_signal_fn on_signal;
	void *signal_ctx;
};

static _Atomic uint32_t next_object_index;

uint32_t pl_new_object_id(void)
{
	return ((uint32_t)getpid() << 8) | (atomic_fetch_add(&next_object_index, 1) & 0xff);
}

struct pl_looper *pl_looper_create(void)
{
	struct pl_looper *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	pthread_mutex_init(&l->lock, NULL);
	l->queue_id = pl_new_object_id();
	pl_ulog_capacity(l->queue_id, 1, PL_UNIT_LOOPER); /* one thread runs its messages */
	l->next_msg_id = 1;
	l->signal_fd = -1;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	l->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	if (l->epfd < 0 || l->wakefd < 0 || epoll_ctl(l->epfd, EPOLL_CTL_ADD, l->wakefd, &ev) < 0) {
		int err = errno;
		pl_looper_destroy(l);
		errno = err;
		return NULL;
	}
	return l;
}

void pl_looper_destroy(struct pl_looper *l)
{
	if (!l)
		return;
	while (l->head) {
		struct queued *q = l->head;
		l->head = q->next;
		free(q);
	}
	while (l->watches) {
		struct fd_watch *w = l->watches;
		l->watches = w->next;
		free(w);
	}
	if (l->signal_fd >= 0)
		close(l->signal_fd);
	if (l->epfd >= 0)
		close(l->epfd);
	if (l->wakefd >= 0)
		close(l->wakefd);
	pthread_mutex_destroy(&l->lock);
	free(l);
}

uint32_t pl_looper_queue_id(const struct pl_looper *l)
{
	return l->queue_id;
}

static void wake(struct pl_looper *l)
{
	uint64_t one = 1;
	/* EAGAIN means the counter is already non-zero: the looper will wake. */
	(void)!write(l->wakefd, &one, sizeof(one));
}

void pl_looper_quit(struct pl_looper *l)
{
	pthread_mutex_lock(&l->lock);
	l->quit = true;
	pthread_mutex_unlock(&l->lock);
	wake(l);
}

int pl_looper_add_fd(struct pl_looper *l, int fd, uint32_t events, pl_fd_fn fn, void *ctx)
{
	struct fd_watch *w = malloc(sizeof(*w));
	if (!w)
		return -ENOMEM;
	*w = (struct fd_watch){ .next = l->watches, .fd = fd, .fn = fn, .ctx = ctx };
	struct epoll_event ev = { .events = events, .data.ptr = w };
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		int err = -errno;
		free(w);
		return err;
	}
	l->watches = w;
	return 0;
}

int pl_looper_remove_fd(struct pl_looper *l, int fd)
{
	for (struct fd_watch **p = &l->watches; *p; p = &(*p)->next) {
		if ((*p)->fd == fd) {
			struct fd_watch *w = *p;
			*p = w->next;
			epoll_ctl(l->epfd, EPOLL_CTL_DEL, fd, NULL);
			free(w);
			return 0;
		}
	}
	return -ENOENT;
}

static void on_signalfd(int fd, uint32_t events, void *ctx)
{
	struct pl_looper *l = ctx;
	struct signalfd_siginfo si;

	(void)events;
	if (read(fd, &si, sizeof(si)) != sizeof(si))
		return;
	if (l->on_signal)
		l->on_signal((int)si.ssi_signo, l->signal_ctx);
	else
		pl_looper_quit(l);
}

int pl_looper_watch_signals(struct pl_looper *l, pl_signal_fn on_signal, void *ctx)
{
	sigset_t set;

	if (l->signal_fd >= 0)
		return -EBUSY;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	int err = pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (err)
		return -err;
	l->signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (l->signal_fd < 0)
		return -errno;
	l->on_signal = on_signal;
	l->signal_ctx = ctx;
	return pl_looper_add_fd(l, l->signal_fd, EPOLLIN, on_signalfd, l);
}

void pl_handler_init(struct pl_handler *h, struct pl_looper *l, pl_handle_fn handle, void *ctx)
{
	*h = (struct pl_handler){ .looper = l, .handle = handle, .ctx = ctx };
}

/* when_ns of a held message: after everything, until released. */
#define HELD_NS UINT64_MAX

static int enqueue(struct pl_handler *h, const struct pl_message *m, pl_runnable_fn fn, void *arg,
		   uint64_t delay_ns, bool at_front)
{
	struct pl_looper *l = h->looper;
	struct queued *q = malloc(sizeof(*q));
	if (!q)
		return -ENOMEM;
	*q = (struct queued){ .handler = h, .fn = fn, .arg = arg, .cause = pl_input_cause_get() };
	if (m)
		q->msg = *m;
	uint64_t now = pl_now_ns();
	if (at_front)
		q->when_ns = 0;
	else if (delay_ns == HELD_NS)
		q->when_ns = HELD_NS;
	else
		q->when_ns = delay_ns < HELD_NS - now ? now + delay_ns : HELD_NS - 1;

	pthread_mutex_lock(&l->lock);
	if (l->quit) {
		pthread_mutex_unlock(&l->lock);
		free(q);
		return -ESHUTDOWN;
	}
	q->id = l->next_msg_id++;
	struct queued **p = &l->head;
	if (!at_front)
		while (*p && (*p)->when_ns <= q->when_ns)
			p = &(*p)->next;
	q->next = *p;
	*p = q;
	/* Logged under the lock so a queue's ENQUEUE records are in id order. A held message's
	 * delay is unknown when it is sent: logged as 0. */
	uint64_t delay_us = delay_ns == HELD_NS ? 0 : delay_ns / 1000;
	pl_ulog_submit(PL_EV_ENQUEUE_MSG, q->id, l->queue_id,
		       (uint32_t)(delay_us > UINT32_MAX ? UINT32_MAX : delay_us));
	pthread_mutex_unlock(&l->lock);
	wake(l);
	return 0;
}

int pl_handler_send(struct pl_handler *h, const struct pl_message *m)
{
	return enqueue(h, m, NULL, NULL, 0, false);
}

int pl_handler_send_delayed(struct pl_handler *h, const struct pl_message *m, uint64_t delay_ns)
{
	return enqueue(h, m, NULL, NULL, delay_ns, false);
}

int pl_handler_send_at_front(struct pl_handler *h, const struct pl_message *m)
{
	return enqueue(h, m, NULL, NULL, 0, true);
}

int pl_handler_post(struct pl_handler *h, pl_runnable_fn fn, void *arg)
{
	return enqueue(h, NULL, fn, arg, 0, false);
}

int pl_handler_post_delayed(struct pl_handler *h, pl_runnable_fn fn, void *arg, uint64_t delay_ns)
{
	return enqueue(h, NULL, fn, arg, delay_ns, false);
}

int pl_handler_post_at_front(struct pl_handler *h, pl_runnable_fn fn, void *arg)
{
	return enqueue(h, NULL, fn, arg, 0, true);
}

int pl_handler_post_held(struct pl_handler *h, pl_runnable_fn fn, void *arg)
{
	return enqueue(h, NULL, fn, arg, HELD_NS, false);
}

void pl_handler_release_held(struct pl_handler *h)
{
	struct pl_looper *l = h->looper;
	struct queued *held = NULL, **tail = &held;

	pthread_mutex_lock(&l->lock);
	/* Held messages sort last; take h's out in order, then put them back due now. */
	for (struct queued **p = &l->head; *p;) {
		if ((*p)->when_ns == HELD_NS && (*p)->handler == h) {
			*tail = *p;
			*p = (*p)->next;
			tail = &(*tail)->next;
		} else {
			p = &(*p)->next;
		}
	}
	*tail = NULL;
	uint64_t now = pl_now_ns();
	struct queued **p = &l->head;
	while (*p && (*p)->when_ns <= now)
		p = &(*p)->next;
	if (held) {
		for (struct queued *q = held; q; q = q->next)
			q->when_ns = now;
		struct queued *rest = *p;
		*p = held;
		*tail = rest;
	}
	pthread_mutex_unlock(&l->lock);
	if (held)
		wake(l);
}

static void dispatch(struct pl_looper *l, struct queued *q)
{
	pl_ulog(PL_EV_DEQUEUE_MSG, q->id, l->queue_id, 0);
	uint64_t outer = pl_input_cause_get();
	pl_input_cause_set(q->cause);
	if (q->fn)
		q->fn(q->arg);
	else if (q->handler->handle)
		q->handler->handle(q->handler, &q->msg);
	pl_input_cause_set(outer);
	pl_ulog(PL_EV_MSG_DONE, q->id, l->queue_id, 0);
	free(q);
}

/* Sleep until a watched fd is ready, a message is due or someone wakes us. */
static int poll_once(struct pl_looper *l, int timeout_ms)
{
	struct epoll_event ev;
	/* One event per call: a callback may remove any watch, so no stale batch survives it. */
	int n = epoll_wait(l->epfd, &ev, 1, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (n == 0)
		return 0;
	if (!ev.data.ptr) {
		uint64_t count;
		(void)!read(l->wakefd, &count, sizeof(count));
		return 0;
	}
	struct fd_watch *w = ev.data.ptr;
	w->fn(w->fd, ev.events, w->ctx);
	return 0;
}

/* Milliseconds epoll may sleep before the head message is due; 0 if it is. */
static int wait_ms(const struct pl_looper *l, uint64_t now)
{
	if (!l->head)
		return -1;
	if (l->head->when_ns <= now)
		return 0;
	uint64_t wait_ns = l->head->when_ns - now;
	/* Round up so a delayed message is never dispatched early. */
	return wait_ns >= 60000000000ull ? 60000 : (int)((wait_ns + 999999) / 1000000);
}

int pl_looper_add_idle_handler(struct pl_looper *l, pl_idle_fn fn, void *ctx)
{
	int err = -ENOSPC;
	pthread_mutex_lock(&l->lock);
	if (l->nidle < PL_LOOPER_MAX_IDLE_HANDLERS) {
		l->idle[l->nidle++] = (struct idle_handler){ fn, ctx };
		err = 0;
	}
	pthread_mutex_unlock(&l->lock);
	return err;
}

static void remove_idle_handler(struct pl_looper *l, struct idle_handler h)
{
	pthread_mutex_lock(&l->lock);
	for (unsigned i = 0; i < l->nidle; i++) {
		if (l->idle[i].fn == h.fn && l->idle[i].ctx == h.ctx) {
			l->idle[i] = l->idle[--l->nidle];
			break;
		}
	}
	pthread_mutex_unlock(&l->lock);
}

/* Android's MessageQueue.next(): idle handlers run once each time the queue goes idle. */
static void run_idle_handlers(struct pl_looper *l)
{
	struct idle_handler run[PL_LOOPER_MAX_IDLE_HANDLERS];
	pthread_mutex_lock(&l->lock);
	unsigned n = l->nidle;
	memcpy(run, l->idle, n * sizeof(run[0]));
	pthread_mutex_unlock(&l->lock);
	for (unsigned i = 0; i < n; i++)
		if (!run[i].fn(run[i].ctx))
			remove_idle_handler(l, run[i]);
}

int pl_looper_loop(struct pl_looper *l)
{
	bool idle_done = false;	/* since the last message */

	for (;;) {
		pthread_mutex_lock(&l->lock);
		bool quit = l->quit;
		int timeout_ms = wait_ms(l, pl_now_ns());
		bool run_idle = timeout_ms != 0 && !idle_done && l->nidle > 0;
		pthread_mutex_unlock(&l->lock);
		if (quit)
			return 0;
		if (run_idle) {
			run_idle_handlers(l);
			idle_done = true;
			continue;	/* they may have sent messages */
		}
		/* Watched fds get a turn before every message, as in Android's pollOnce. */
		int err = poll_once(l, timeout_ms);
		if (err)
			return err;

		pthread_mutex_lock(&l->lock);
		struct queued *q = l->head;
		if (l->quit || !q || q->when_ns > pl_now_ns())
			q = NULL;
		else
			l->head = q->next;
		pthread_mutex_unlock(&l->lock);
		if (q) {
			dispatch(l, q);
			idle_done = false;
		}
	}
}
