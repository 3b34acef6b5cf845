/* SPDX-License-Identifier: MIT */
/*
 * Stage 6 (breakdown.c): critical path -> time per resource category.
 *
 * Ownership: each *_build / *_extract function fills a caller-provided struct, allocating
 * its arrays; the matching *_free releases them. Results refer to the trace by event index
 * only; the trace must outlive any use of the indices and is never changed. Out of memory
 * aborts. Times are CLOCK_MONOTONIC ns from the trace.
 */
#ifndef PANLAB_BREAKDOWN_H
#define PANLAB_BREAKDOWN_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/critical_path.h"

/*
 * Where a transaction's time went, along its critical path (Panappticon
 * 4.4): each temporal step is split by its thread's scheduling state,
 * taken from CONTEXT_SWITCH and WAKEUP and refined by the blocking events;
 * each causal hop counts whole for what the consumer waited on.
 */
enum pl_category {
	PL_CAT_RUNNING,	      /* on a cpu */
	PL_CAT_RUNNABLE,      /* preempted or woken, waiting for a cpu */
	PL_CAT_IO,	      /* disk: IO_BLOCK, uninterruptible sleep, a file's read or poll */
	PL_CAT_NETWORK,	      /* blocked on an IP socket (SOCK/DATAGRAM/STREAM_BLOCK, or a poll) */
	PL_CAT_LOCK,	      /* waiting for a contended lock (*_WAIT .. *_WAKE) */
	PL_CAT_SLEEPING,      /* any other sleep: condition waits, polls of several kinds */
	PL_CAT_UNKNOWN,	      /* off cpu before the trace shows why, or no kernel trace */
	PL_CAT_QUEUE_MESSAGE, /* a message waiting in its queue: ENQUEUE .. DEQUEUE */
	PL_CAT_QUEUE_TASK,    /* a task waiting for a worker: SUBMIT .. CONSUME */
	PL_CAT_BINDER,	      /* a binder request or reply in flight */
	PL_CAT_THREAD_START,  /* FORK .. the child's first event */
	PL_CAT_FRAME_WAIT,    /* INVALIDATE .. the frame that draws it starts: the next vsync */
	/* Sleeps named by the files waited on or the wake (FILE_WAIT, WAKEUP a2): */
	PL_CAT_IPC,	/* a pipe, Unix socket, pty or eventfd */
	PL_CAT_INPUT,	/* "input_wait" (input_ns is a time in the CSV): evdev, a console */
	PL_CAT_TIMER,	/* a timeout, sleep or timerfd */
	PL_CAT_DISPLAY, /* DRM or fbdev */
	PL_CATEGORIES,
};

/*
 * Holders of a cpu that ran its idle task while a woken thread waited for
 * it, named by the IRQ events (version 4): a device's handler or a softirq
 * running then, and PL_TID_IDLE_CPU for the rest (leaving the idle loop;
 * all of it in a trace without IRQ events). These ids lie above any pid.
 */
#define PL_TID_IDLE_CPU UINT32_MAX
#define PL_TID_SOFTIRQ_BASE 0xffffff00u /* + vector (< PL_SOFTIRQS) */
#define PL_TID_IRQ_BASE 0xffff0000u	/* + Linux irq number (< 0xff00) */
#define PL_TID_IS_HOLDER(tid) ((tid) >= PL_TID_IRQ_BASE)

/*
 * What running time executed. Instructions (SWITCH_COUNTS) of the slices
 * on a cpu it covers: a slice the time cuts (a step that starts or ends
 * while its thread runs) counts by its share of the slice's time;
 * counted_ns is the running time whose slice was counted (not a slice
 * before the thread's first switch, nor any without SWITCH_COUNTS). Cycles
 * are running time times the frequency in force (CPU_FREQUENCY): khz_ns
 * sums kHz x ns over clocked_ns, the running time whose frequency is known,
 * so cycles = khz_ns / 10^6 and the effective MHz = khz_ns / clocked_ns / 1000.
 */
struct pl_counts {
	uint64_t instructions, counted_ns;
	uint64_t khz_ns, clocked_ns;
};

struct pl_breakdowns {
	uint64_t count;				/* = transactions */
	uint64_t (*ns)[PL_CATEGORIES];		/* per transaction; each row sums to its latency */
	uint64_t total_ns[PL_CATEGORIES];	/* over all transactions */
	/*
	 * total_ns[PL_CAT_RUNNING] by the frequency of the cpu it ran on
	 * (CPU_FREQUENCY), ascending; 0 kHz where no frequency was logged yet.
	 */
	uint32_t nfreqs;
	uint32_t *freq_khz;
	uint64_t *running_ns_by_freq;
	/*
	 * total_ns[PL_CAT_RUNNABLE] by the thread that held the cpu meanwhile,
	 * most first: for a preempted thread the one that took its cpu
	 * (CONTEXT_SWITCH's next tid), for a woken one whatever ran on the cpu
	 * it then ran on, a PL_TID_IS_HOLDER id for that cpu's idle task (see
	 * pl_holder_name); and per transaction the tid that held most, 0 if none.
	 */
	uint32_t npreempters;
	uint32_t *preempter_tid;
	uint64_t *preempted_ns;
	uint32_t *top_preempter_tid;
	/*
	 * Per transaction k, its running time by frequency, ascending:
	 * tx_freq_khz[i] and tx_running_ns[i] for i in [tx_freq_first[k],
	 * tx_freq_first[k + 1]); they sum to ns[k][PL_CAT_RUNNING].
	 */
	uint64_t *tx_freq_first;	/* count + 1 */
	uint32_t *tx_freq_khz;
	uint64_t *tx_running_ns;
	/*
	 * Per transaction k, its time waiting for a cpu by the thread that
	 * held it (as above), most first: tx_preempter_tid[i] and tx_preempted_ns[i] for i in
	 * [tx_preempt_first[k], tx_preempt_first[k + 1]).
	 */
	uint64_t *tx_preempt_first;	/* count + 1 */
	uint32_t *tx_preempter_tid;
	uint64_t *tx_preempted_ns;
	/*
	 * The trace holds SWITCH_COUNTS; the counts of each critical-path step
	 * (indexed as cp->steps) and their sum per transaction.
	 */
	int counted;
	struct pl_counts *step_counts;
	struct pl_counts *tx_counts;
	/* What each execution interval's running time executed (indexed as iv->intervals). */
	struct pl_counts *interval_counts;
	/* IRQ_NAME: irq_name[i] names irq irqs[i] (PL_IRQ_NAME_BYTES at most, NUL ended). */
	uint32_t nirqs;
	uint32_t *irqs;
	char (*irq_name)[PL_IRQ_NAME_BYTES + 1];
};

void pl_breakdowns_build(const struct pl_trace *trace, const struct pl_intervals *iv,
			 const struct pl_critical_paths *cp, struct pl_breakdowns *out);
void pl_breakdowns_free(struct pl_breakdowns *b);
/* The effective frequency of counted running time, cycles over clocked_ns, in MHz (0 if none). */
double pl_counts_mhz(const struct pl_counts *c);
const char *pl_category_name(enum pl_category c);
/*
 * The name of a cpu's holder: a thread's last THREAD_NAME ("" if none was
 * traced), or for an idle cpu "idle cpu", "idle cpu: softirq NET_RX" or
 * "idle cpu: irq 35 mmci-pl18x (..." (a name cut at 12 bytes ends in
 * "..."). Written into buf (64 bytes suffice).
 */
const char *pl_holder_name(const struct pl_breakdowns *bd, const struct pl_intervals *iv,
			   uint32_t tid, char *buf, size_t size);

#endif /* PANLAB_BREAKDOWN_H */
