/* SPDX-License-Identifier: MIT */
/*
 * Stage 4 (transactions.c): graph -> transactions (UI_INPUT ... last
 * UI_UPDATE) and animations.
 *
 * Ownership: each *_build / *_extract function fills a caller-provided struct, allocating
 * its arrays; the matching *_free releases them. Results refer to the trace by event index
 * only; the trace must outlive any use of the indices and is never changed. Out of memory
 * aborts. Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_TRANSACTIONS_H
#define PANLAB_TRANSACTIONS_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/graph.h"

/*
 * A transaction from input to pixels, filled by display.c (panlab/display.h):
 * from the kernel's delivery of its input (inputd's INPUT_READ) to the
 * display flush of the first composed frame that holds its last update (the
 * compositor's FRAME_LATCH of that app frame, then DISPLAY_SUBMIT and
 * DISPLAY_FLUSHED). The segments before and after the critical path
 * [input_ns, end_ns] tile the rest. Where the trace lacks those events
 * (traces from before them, an input or frame they missed) that end stays at
 * UI_INPUT or UI_UPDATE and its segments are 0.
 */
struct pl_pixels {
	uint64_t delivered_ns;		/* INPUT_READ time - its a1; input_ns if unknown */
	uint64_t shown_ns;		/* that DISPLAY_FLUSHED; end_ns if unknown */
	uint64_t latency_ns;		/* shown_ns - delivered_ns: the detected latency */
	uint64_t input_dispatch_ns;	/* delivered .. UI_INPUT: inputd, the socket, the main queue */
	uint64_t vsync_queue_ns;	/* last UI_UPDATE .. FRAME_LATCH: waiting for the vsync */
	uint64_t composition_ns;	/* FRAME_LATCH .. DISPLAY_SUBMIT: the compositor's copy */
	uint64_t flush_ns;		/* DISPLAY_SUBMIT .. DISPLAY_FLUSHED: transfer and flush */
	uint64_t read_event;		/* the INPUT_READ, or PL_NONE */
	uint64_t latch_event;		/* the FRAME_LATCH, or PL_NONE */
	uint64_t flushed_event;		/* the DISPLAY_FLUSHED, or PL_NONE */
	uint64_t display_frame;		/* its display frame number, or PL_NONE */
};

struct pl_transaction {
	uint64_t input_event;		/* the UI_INPUT or UI_KEY event */
	uint64_t input_id;		/* its a0: dispatcher sequence number */
	uint64_t input_ns;
	uint64_t last_update_event;	/* the UI_UPDATE that ends it */
	uint64_t end_ns;		/* its time */
	uint64_t latency_ns;		/* end_ns - input_ns */
	uint32_t nupdates;		/* UI_UPDATE events reached */
	uint64_t first_update_ns;	/* the earliest UI_UPDATE reached: the first response */
	/*
	 * Most intervals that invalidate the view on one causal chain of a
	 * looper's messages to itself and its frames (message and invalidate
	 * edges within one thread, temporal order) from the input: 1 for an
	 * ordinary transaction, whose work goes to another thread (a task,
	 * binder call, HandlerThread or renderer) before its result
	 * invalidates. 2 or more when an invalidating message posts the next
	 * one, as a frame callback re-posted on every vsync while a task runs,
	 * or when a drawn frame invalidates again: an animation, reported apart.
	 */
	uint32_t chained_frames;
	int animation;			/* chained_frames >= 2 */
	uint32_t nthreads;		/* threads with a reached event */
	uint64_t nintervals;		/* intervals with a reached event */
	uint64_t nevents;		/* events reached */
	uint64_t first_member;		/* they are members[first_member .. + nevents) */
	struct pl_pixels pixels;	/* input to pixels, filled by display.c */
};

struct pl_transactions {
	uint64_t count;
	struct pl_transaction *items;	/* in input time order */
	uint64_t *members;		/* event indices reached, per transaction, in event (time) order */
	/*
	 * Parallel to members: the chained frames behind each member (the
	 * count chained_frames is the largest of): 0 before any invalidate,
	 * 2 or more on an animation's own frame chain.
	 */
	uint32_t *member_frames;
	uint64_t inputs;		/* UI_INPUT + UI_KEY events */
	uint64_t inputs_without_update;	/* inputs that reached no UI_UPDATE: no transaction */
	uint64_t updates;		/* UI_UPDATE events */
	uint64_t unattributed_updates;	/* UI_UPDATE events no input reached */
	uint64_t animations;		/* transactions with animation set */
};

void pl_transactions_extract(const struct pl_trace *trace, const struct pl_intervals *iv,
			     const struct pl_graph *g, struct pl_transactions *out);
void pl_transactions_free(struct pl_transactions *tx);

/*
 * Where the transactions' inputs came from: the platform's UI_INPUT/UI_KEY
 * ("userspace"), kernel events alone for programs that log nothing
 * (kernel_only.c: "kernel-only"), both ("mixed"), or none (NULL). A static string.
 */
const char *pl_transactions_inference(const struct pl_trace *trace,
				      const struct pl_transactions *tx);

#endif /* PANLAB_TRANSACTIONS_H */
