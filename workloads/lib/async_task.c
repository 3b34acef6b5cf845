/* AsyncTask. See include/panlab/async_task.h. */
#include "panlab/async_task.h"

#include <errno.h>
#include <stdlib.h>

#include "panlab/executor.h"
#include "panlab/looper.h"

enum { MSG_PROGRESS = 1, MSG_RESULT = 2 };

struct pl_async_task {
	const struct pl_async_task_ops *ops;
	void *ctx;
	/* Our own handler on the caller's looper: messages come back to on_main. */
	struct pl_handler main;
};

static void on_main(struct pl_handler *h, const struct pl_message *m)
{
	struct pl_async_task *t = m->obj;

	(void)h;
	if (m->what == MSG_PROGRESS) {
		if (t->ops->on_progress_update)
			t->ops->on_progress_update(t, t->ctx, m->arg1);
		return;
	}
	void *result = (void *)(intptr_t)m->arg1;
	if (t->ops->on_post_execute)
		t->ops->on_post_execute(t, t->ctx, result);
	free(t);
}

static void background(void *arg)
{
	struct pl_async_task *t = arg;
	void *result = t->ops->do_in_background(t, t->ctx);
	struct pl_message m = { .what = MSG_RESULT, .arg1 = (intptr_t)result, .obj = t };
	/* Fails only when the main looper has quit: nobody is left to show the result. */
	if (pl_handler_send(&t->main, &m) < 0)
		free(t);
}

int pl_async_task_execute(const struct pl_async_task_ops *ops, void *ctx, struct pl_handler *main,
			  struct pl_executor *ex)
{
	struct pl_async_task *t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ops = ops;
	t->ctx = ctx;
	pl_handler_init(&t->main, main->looper, on_main, NULL);
	if (ops->on_pre_execute)
		ops->on_pre_execute(t, ctx);
	int err = pl_executor_submit(ex, background, t);
	if (err)
		free(t);
	return err;
}

void pl_async_task_publish_progress(struct pl_async_task *t, int64_t progress)
{
	struct pl_message m = { .what = MSG_PROGRESS, .arg1 = progress, .obj = t };
	(void)pl_handler_send(&t->main, &m);
}
