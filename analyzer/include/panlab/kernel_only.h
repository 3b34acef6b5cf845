/* SPDX-License-Identifier: MIT */
/*
 * Kernel-only inference for programs without userspace events
 * (kernel_only.c). pl_trace_infer_kernel_only() marks, in place, the kernel
 * events that take the platform's roles, in their a2 (0 as logged):
 *   KEY_READ    a2 = input id + 1: it delivered that press (an input);
 *   FB_DAMAGE   a2 = 1: a kernel-only process drew (an invalidate);
 *   GPU_FLUSH   a2 = 1: a kernel-only thread flushed (an update);
 *   WAKEUP      a2 |= PL_WAKE_FILE_NOTIFY: a file notify (below).
 * and counts them in trace->kernel_only_inputs and kernel_only_presses.
 * The predicates below are how the stages ask for either kind of event.
 */
#ifndef PANLAB_KERNEL_ONLY_H
#define PANLAB_KERNEL_ONLY_H

#include <stdbool.h>
#include <stdint.h>

#include "panlab/trace.h"

void pl_trace_infer_kernel_only(struct pl_trace *trace);

/* An input: UI_INPUT or UI_KEY, or a marked KEY_READ. *id (may be NULL) gets its input id. */
static inline bool pl_event_is_input(const struct pl_event *ev, uint64_t *id)
{
	bool user = ev->type == PL_EV_UI_INPUT || ev->type == PL_EV_UI_KEY;
	bool kernel = ev->type == PL_EV_KEY_READ && ev->a2 != 0;

	if (id && (user || kernel))
		*id = user ? ev->a0 : ev->a2 - 1u;
	return user || kernel;
}

/* A key input, as opposed to a touch (BTN_TOUCH is 0x14a). */
static inline bool pl_event_is_key_input(const struct pl_event *ev)
{
	return ev->type == PL_EV_UI_KEY ||
	       (ev->type == PL_EV_KEY_READ && (ev->a1 == PL_KEY_READ_TTY || ev->a0 != 0x14a));
}

static inline bool pl_event_is_invalidate(const struct pl_event *ev)
{
	return ev->type == PL_EV_UI_INVALIDATE || (ev->type == PL_EV_FB_DAMAGE && ev->a2 != 0);
}

static inline bool pl_event_is_update(const struct pl_event *ev)
{
	return ev->type == PL_EV_UI_UPDATE || (ev->type == PL_EV_GPU_FLUSH && ev->a2 != 0);
}

/* WAKEUP a2: the file's kind as logged, and kernel_only.c's mark. */
#define PL_WAKE_KIND 0xffu
#define PL_WAKE_FILE_NOTIFY 0x100u

/*
 * A kernel-only thread's wake-up of another, through a file it wrote (a
 * Unix socket, a pipe, a pty, an eventfd, a socket): the kernel logger
 * names a waker only then, not for an interrupt, a timer or a kworker's
 * deferred work. It ends a wait on files as a lock's NOTIFY ends a wait on
 * the lock: the writer's work is what the reader waited for. Between
 * instrumented processes the platform's own events say why (a message, a
 * frame), so their file wake-ups join nothing.
 */
static inline bool pl_event_is_file_notify(const struct pl_event *ev)
{
	return ev->type == PL_EV_WAKEUP && (ev->a2 & PL_WAKE_FILE_NOTIFY);
}

/* A kernel-only update is drawn by another thread (a kworker): the graph joins it by time. */
static inline bool pl_event_is_kernel_only(const struct pl_event *ev)
{
	return ev->cpu != PL_CPU_NONE;
}

#endif /* PANLAB_KERNEL_ONLY_H */
