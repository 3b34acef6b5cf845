/*
 * AsyncTask: Android's android.os.AsyncTask in C. on_pre_execute runs on the
 * calling (main) thread inside pl_async_task_execute; do_in_background runs
 * on an executor worker; on_progress_update and on_post_execute run on the
 * main looper, reached through messages, so the trace links every step:
 * SUBMIT/CONSUME_ASYNC_TASK from main to worker, ENQUEUE/DEQUEUE_MSG back.
 *
 * Ownership: the task object is allocated by pl_async_task_execute and freed
 * after on_post_execute returns; callbacks must not keep it. ctx, the
 * handler, the executor and the result pointer stay the caller's.
 */
#ifndef PANLAB_ASYNC_TASK_H
#define PANLAB_ASYNC_TASK_H

#include <stdint.h>

struct pl_async_task;
struct pl_executor;
struct pl_handler;

struct pl_async_task_ops {
	void (*on_pre_execute)(struct pl_async_task *t, void *ctx);			/* optional */
	void *(*do_in_background)(struct pl_async_task *t, void *ctx);			/* required */
	void (*on_progress_update)(struct pl_async_task *t, void *ctx, int64_t progress); /* optional */
	void (*on_post_execute)(struct pl_async_task *t, void *ctx, void *result);	/* optional */
};

/*
 * Start a task. main is a handler on the looper that gets progress and the
 * result. Returns 0, or a negative errno from pl_executor_submit (the task is
 * then freed and on_post_execute never runs).
 */
int pl_async_task_execute(const struct pl_async_task_ops *ops, void *ctx, struct pl_handler *main,
			  struct pl_executor *ex);

/* From do_in_background: deliver progress to on_progress_update on the main looper. */
void pl_async_task_publish_progress(struct pl_async_task *t, int64_t progress);

#endif /* PANLAB_ASYNC_TASK_H */
