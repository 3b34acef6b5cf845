/*
 * Executors: java.util.concurrent.ThreadPoolExecutor's policy in C, and the
 * two executors of Android's AsyncTask built from it.
 *
 * submit(): while fewer than core_threads workers exist, start one for the
 * task; else queue it if the queue has room; else start a worker if fewer
 * than max_threads exist; else reject with -EAGAIN (saturated). Workers live
 * until shutdown.
 *
 * Tracing (done here): SUBMIT_ASYNC_TASK on the submitting thread,
 * CONSUME_ASYNC_TASK and ASYNC_TASK_END on the worker, with the task id
 * (unique within the executor) and the executor id (unique across processes).
 *
 * Ownership: pl_executor_create allocates; pl_executor_shutdown runs every
 * task already accepted, joins the workers and frees the executor. The arg
 * of a task is the caller's.
 */
#ifndef PANLAB_EXECUTOR_H
#define PANLAB_EXECUTOR_H

#include <stdint.h>

struct pl_executor;
typedef void (*pl_task_fn)(void *arg);

/* queue_capacity 0 means unbounded. Returns NULL on bad bounds or no memory. */
struct pl_executor *pl_executor_create(const char *name, unsigned core_threads, unsigned max_threads,
				       unsigned queue_capacity);

/* Android 4.1 AsyncTask.THREAD_POOL_EXECUTOR: 5 core, 128 max, 10 queued. */
struct pl_executor *pl_executor_create_thread_pool(void);

/*
 * Android's AsyncTask.SERIAL_EXECUTOR runs one task at a time in submission
 * order. Here that is one worker with an unbounded queue: the same order and
 * exclusion, without SERIAL_EXECUTOR's hand-off through the thread pool, which
 * would make each task look caused by the task before it.
 */
struct pl_executor *pl_executor_create_serial(void);

/* Returns 0, -EAGAIN when saturated, -ESHUTDOWN, or -errno from thread creation. */
int pl_executor_submit(struct pl_executor *e, pl_task_fn fn, void *arg);

void pl_executor_shutdown(struct pl_executor *e);

/* Executor id as traced in the task events' a1. */
uint32_t pl_executor_id(const struct pl_executor *e);

#endif /* PANLAB_EXECUTOR_H */
