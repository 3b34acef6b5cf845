/* Thread-pool executor. See include/panlab/executor.h. */
#include "panlab/executor.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/input_cause.h"
#include "panlab/looper.h"
#include "panlab/ulog.h"

struct task {
	struct task *next;
	pl_task_fn fn;
	void *arg;
	uint32_t id;
	uint64_t cause;		/* the submitter's input cause */
};

struct pl_executor {
	pthread_mutex_t lock;
	pthread_cond_t work;
	struct task *head, *tail;
	unsigned queued;
	unsigned core_threads, max_threads, queue_capacity;
	unsigned nthreads;
	pthread_t *threads;	/* max_threads entries */
	uint32_t next_task_id;
	uint32_t id;
	bool shutdown;
	char name[16];
};

struct worker_start {
	struct pl_executor *e;
	struct task *first;
};

static void run(struct pl_executor *e, struct task *t)
{
	pl_ulog(PL_EV_CONSUME_ASYNC_TASK, t->id, e->id, 0);
	pl_input_cause_set(t->cause);
	t->fn(t->arg);
	pl_input_cause_set(0);
	pl_ulog(PL_EV_ASYNC_TASK_END, t->id, e->id, 0);
	free(t);
}

static void *worker(void *p)
{
	struct worker_start start = *(struct worker_start *)p;
	struct pl_executor *e = start.e;

	free(p);
	pthread_setname_np(pthread_self(), e->name);
	if (start.first)
		run(e, start.first);
	pthread_mutex_lock(&e->lock);
	for (;;) {
		while (!e->head && !e->shutdown)
			pthread_cond_wait(&e->work, &e->lock);
		struct task *t = e->head;
		if (!t)
			break;
		e->head = t->next;
		if (!e->head)
			e->tail = NULL;
		e->queued--;
		pthread_mutex_unlock(&e->lock);
		run(e, t);
		pthread_mutex_lock(&e->lock);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

struct pl_executor *pl_executor_create(const char *name, unsigned core_threads, unsigned max_threads,
				       unsigned queue_capacity)
{
	if (max_threads == 0 || core_threads > max_threads)
		return NULL;
	struct pl_executor *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->threads = calloc(max_threads, sizeof(*e->threads));
	if (!e->threads) {
		free(e);
		return NULL;
	}
	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->work, NULL);
	e->core_threads = core_threads;
	e->max_threads = max_threads;
	e->queue_capacity = queue_capacity;
	e->next_task_id = 1;
	e->id = pl_new_object_id();
	/* Tasks it runs at once while its queue has room; start_worker logs growth past it. */
	pl_ulog_capacity(e->id, core_threads ? core_threads : 1, PL_UNIT_EXECUTOR);
	snprintf(e->name, sizeof(e->name), "%s", name);
	return e;
}

struct pl_executor *pl_executor_create_thread_pool(void)
{
	return pl_executor_create("AsyncTask", 5, 128, 10);
}

struct pl_executor *pl_executor_create_serial(void)
{
	return pl_executor_create("AsyncSerial", 1, 1, 0);
}

uint32_t pl_executor_id(const struct pl_executor *e)
{
	return e->id;
}

/* Called with the lock held. */
static int start_worker(struct pl_executor *e, struct task *first)
{
	struct worker_start *s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct worker_start){ .e = e, .first = first };
	int err = pthread_create(&e->threads[e->nthreads], NULL, worker, s);
	if (err) {
		free(s);
		return -err;
	}
	e->nthreads++;
	if (e->nthreads > e->core_threads)
		pl_ulog_capacity(e->id, e->nthreads, PL_UNIT_EXECUTOR);
	return 0;
}

int pl_executor_submit(struct pl_executor *e, pl_task_fn fn, void *arg)
{
	struct task *t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	*t = (struct task){ .fn = fn, .arg = arg, .cause = pl_input_cause_get() };

	pthread_mutex_lock(&e->lock);
	int err = 0;
	if (e->shutdown) {
		err = -ESHUTDOWN;
		goto out;
	}
	bool room = e->queue_capacity == 0 || e->queued < e->queue_capacity;
	bool new_worker = e->nthreads < e->core_threads || (!room && e->nthreads < e->max_threads);
	if (!new_worker && !room) {
		err = -EAGAIN;
		goto out;
	}
	t->id = e->next_task_id++;
	/* Logged before the hand-off so CONSUME can never precede SUBMIT in time. */
	pl_ulog_submit(PL_EV_SUBMIT_ASYNC_TASK, t->id, e->id, 0);
	if (new_worker) {
		err = start_worker(e, t);
	} else {
		if (e->tail)
			e->tail->next = t;
		else
			e->head = t;
		e->tail = t;
		e->queued++;
		pthread_cond_signal(&e->work);
	}
out:
	pthread_mutex_unlock(&e->lock);
	if (err)
		free(t);
	return err;
}

void pl_executor_shutdown(struct pl_executor *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&e->lock);
	e->shutdown = true;
	pthread_cond_broadcast(&e->work);
	unsigned n = e->nthreads;
	pthread_mutex_unlock(&e->lock);
	for (unsigned i = 0; i < n; i++)
		pthread_join(e->threads[i], NULL);
	pthread_cond_destroy(&e->work);
	pthread_mutex_destroy(&e->lock);
	free(e->threads);
	free(e);
}
