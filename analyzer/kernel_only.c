/* SPDX-License-Identifier: MIT */
/*
 * Kernel-only inference (Panappticon 4.5: native code that no framework
 * hook sees). An unmodified program logs nothing itself, so its
 * transactions come from kernel events alone (FORMAT.md, "Kernel-only
 * inference"):
 *
 *  - the start: KEY_REPORT is the i-th press the input core received
 *    (ground truth numbers presses alike: a modifier reported with a key in
 *    one frame, a script's CTRL+C, is no press of its own); the first KEY_READ after it,
 *    before the next press, by a thread of a process without userspace
 *    events (for an evdev read, of the same key code) delivered it: it
 *    becomes input i;
 *  - the end: a GPU_FLUSH by a thread of such a process (the fbdev
 *    emulation's kworker, or the program's own DRM call) is a display
 *    update, and every FB_DAMAGE (a write to a clean framebuffer page) of
 *    such a process since the previous one is drawn by it;
 *  - the causal chain in between is the graph's usual one: fork, futex and
 *    wait-queue notifies, and file notifies: a WAKEUP of a kernel-only
 *    thread by another through a pipe, socket or pty (kernel_only.h), with
 *    other waits as blocking.
 *
 * The pass runs before the stages and marks those events in their unused
 * a2 (kernel_only.h), so that intervals, graph and transactions treat them
 * as the platform's UI_INPUT, UI_INVALIDATE and UI_UPDATE.
 */
#include "panlab/kernel_only.h"

#include "idmap.h"
#include "panlab/ground_truth_format.h"

/* The process of tid: its tgid from FORK, else itself (started before tracing). */
static uint64_t process_of(struct pl_idmap *tgids, uint32_t tid)
{
	uint64_t tgid;

	return pl_idmap_get(tgids, tid, 0, &tgid) ? tgid : tid;
}

/*
 * Whether the KEY_REPORT at e is followed by another on its cpu in the same interrupt: the
 * modifiers and the key of one input frame (ground_truth_format.h) are reported by one run of
 * the input driver's handler, with no context switch or other report between, microseconds
 * apart, where two actions' presses are at least a press's 50 ms hold apart (replay/README.md).
 */
#define CHORD_WITHIN_NS 1000000u

static int chord_follows(const struct pl_trace *trace, uint64_t e)
{
	const struct pl_event *ev = &trace->events[e];

	for (uint64_t k = e + 1; k < trace->nevents; k++) {
		const struct pl_event *next = &trace->events[k];

		if (next->ts_ns - ev->ts_ns >= CHORD_WITHIN_NS)
			return 0;
		if (next->cpu != ev->cpu)
			continue;
		if (next->type == PL_EV_KEY_REPORT)
			return next->tid == ev->tid;
		if (next->type == PL_EV_CONTEXT_SWITCH || next->type == PL_EV_IRQ_EXIT)
			return 0;
	}
	return 0;
}

void pl_trace_infer_kernel_only(struct pl_trace *trace)
{
	struct pl_idmap tgids = { 0 }, user_processes = { 0 };
	uint64_t presses = 0, pending_code = 0;
	int pending = 0;

	trace->kernel_only_inputs = 0;
	trace->kernel_only_presses = 0;
	/* Forks first: a process's user events may precede its threads' forks in the merge. */
	for (uint64_t e = 0; e < trace->nevents; e++)
		if (trace->events[e].type == PL_EV_FORK)
			pl_idmap_put(&tgids, trace->events[e].a0, 0, trace->events[e].a1);
	for (uint64_t e = 0; e < trace->nevents; e++)
		if (trace->events[e].cpu == PL_CPU_NONE)
			pl_idmap_put(&user_processes, process_of(&tgids, trace->events[e].tid), 0, 1);

	for (uint64_t e = 0; e < trace->nevents; e++) {
		struct pl_event *ev = &trace->events[e];
		uint64_t unused;
		int kernel_only = ev->tid != 0 &&
			!pl_idmap_get(&user_processes, process_of(&tgids, ev->tid), 0, &unused);

		switch (ev->type) {
		case PL_EV_KEY_REPORT:
			/* A modifier the same interrupt's next report follows is that key's. */
			if (pl_gt_key_is_modifier((uint32_t)ev->a0) && chord_follows(trace, e))
				break;
			presses++;
			pending = 1;
			pending_code = ev->a0;
			break;
		case PL_EV_KEY_READ:
			ev->a2 = 0;
			if (!pending || !kernel_only ||
			    (ev->a1 == PL_KEY_READ_EVDEV && ev->a0 != pending_code))
				break;
			ev->a2 = (uint32_t)presses;	/* input id presses - 1, plus one */
			pending = 0;
			trace->kernel_only_inputs++;
			break;
		case PL_EV_FB_DAMAGE:
		case PL_EV_GPU_FLUSH:
			ev->a2 = kernel_only;
			break;
		case PL_EV_WAKEUP: {
			uint32_t kind = ev->a2 & PL_WAKE_KIND;
			int wakee_kernel_only = ev->a0 != ev->tid &&
						!pl_idmap_get(&user_processes,
							      process_of(&tgids, (uint32_t)ev->a0),
							      0, &unused);

			ev->a2 = kind;
			if (kernel_only && wakee_kernel_only &&
			    (kind == PL_FILE_IPC || kind == PL_FILE_NETWORK))
				ev->a2 |= PL_WAKE_FILE_NOTIFY;
			break;
		}
		default:
			break;
		}
	}
	trace->kernel_only_presses = presses;
	pl_idmap_free(&tgids);
	pl_idmap_free(&user_processes);
}
