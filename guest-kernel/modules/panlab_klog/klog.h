/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the panlab kernel logger share (main.c says what the
 * logger does):
 *   main.c     the switch (the enable parameter), module load and unload
 *   ring.c     the per-cpu rings: their slow path, size and allocation
 *   clock.c    the counter clock and its contract
 *   probes.c   tracepoint probes, the per-task wait slots, cpu hotplug
 *   kprobes.c  input and display kprobes, for programs that log nothing
 *   dev.c      /dev/panlab_klog: read() and the stats ioctl
 *   counters.c instructions at each context switch
 * Here: the ring, the fast path that stores records (inlined into every
 * probe, so that a record costs no call), and each part's entry points.
 */
#ifndef PANLAB_KLOG_H
#define PANLAB_KLOG_H

#include <linux/compiler.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/types.h>

#include <asm/arch_timer.h>

#include "panlab/trace_format.h"

/*
 * Positions are counts of records, mod 2^32 (a ring holds fewer than 2^31),
 * so that head - tail is the number held whatever the capacity; each side
 * keeps its own slot pointer, so that no position is divided (32-bit ARMv7-A
 * has no divide instruction in the kernel's instruction set).
 */
struct klog_ring {
	struct pl_event *rec;	/* capacity records */
	struct pl_event *end;	/* rec + capacity */
	u32 capacity;
	u16 cpu;		/* whose ring this is */
	/* Written by this cpu only. */
	struct pl_event *next;	/* the slot of the next record */
	/*
	 * The end of the free slots from next on, up to the end of the array,
	 * when this cpu last read tail (the reader only frees more): a record
	 * below it needs no read of tail and no wrap test; next while
	 * dropping or at the end of the array.
	 */
	struct pl_event *limit;
	u32 lost_pending;	/* dropped since the last stored record */
	u32 head;		/* records stored, LOST markers included */
	/*
	 * Wraps of head past 2^32, counted out of line: klog_put_slow() runs
	 * at least once per capacity (< 2^31) records, at the end of the
	 * array, so head wraps at most once between two of its runs.
	 */
	u32 head_laps;
	u32 head_seen;		/* head at the last klog_put_slow() */
	u64 lost;
	/* Written by the reader only. */
	struct pl_event *read_next;
	u32 tail;		/* records read */
};

DECLARE_PER_CPU(struct klog_ring, klog_rings);

/*
 * The records one probe stores: one claim of this cpu's ring, one
 * timestamp, published together. Local irqs are off from klog_begin() to
 * klog_end(). Probes declare it __uninitialized: klog_begin() fills it,
 * and CONFIG_INIT_STACK_ALL_ZERO would otherwise memset() it on each call.
 */
struct klog_batch {
	struct klog_ring *ring;
	struct pl_event *next;
	struct pl_event *limit;	/* as ring->limit: at it, the slow path */
	u64 ts;		/* CNTVCT */
	u32 stored;	/* records stored by this batch so far */
	u16 cpu;
};

static __always_inline void klog_begin(struct klog_batch *b)
{
	struct klog_ring *ring = this_cpu_ptr(&klog_rings);

	b->ring = ring;
	b->next = ring->next;
	b->limit = ring->limit;
	b->stored = 0;
	b->ts = __arch_counter_get_cntvct();
	b->cpu = ring->cpu;
}

/* Fills the slot ev, which is not the array's end; returns the slot after it. */
static __always_inline struct pl_event *
klog_store(struct pl_event *ev, u64 ts, u16 cpu, u16 type, u32 tid, u64 a0,
	   u32 a1, u32 a2)
{
	ev->ts_ns = ts;
	ev->type = type;
	ev->cpu = cpu;
	ev->tid = tid;
	ev->a0 = a0;
	ev->a1 = a1;
	ev->a2 = a2;
	return ev + 1;
}

/* The slow path of klog_put() (ring.c). */
u32 klog_put_slow(struct klog_ring *ring, struct pl_event *next, u32 stored,
		  u64 ts, u16 cpu, u16 type, u32 tid, u64 a0, u32 a1, u32 a2);

static __always_inline void klog_put(struct klog_batch *b, u16 type, u32 tid,
				     u64 a0, u32 a1, u32 a2)
{
	if (unlikely(b->next == b->limit)) {
		b->stored += klog_put_slow(b->ring, b->next, b->stored, b->ts,
					   b->cpu, type, tid, a0, a1, a2);
		b->next = b->ring->next;
		b->limit = b->ring->limit;
		return;
	}
	b->stored++;
	b->next = klog_store(b->next, b->ts, b->cpu, type, tid, a0, a1, a2);
}

static __always_inline void klog_end(struct klog_batch *b)
{
	struct klog_ring *ring = b->ring;

	ring->next = b->next;
	/* Publish the slots only once they are filled in. */
	smp_store_release(&ring->head, ring->head + b->stored);
}

/* One record from any context. */
static __always_inline void klog_record(u16 type, u32 tid, u64 a0, u32 a1,
					u32 a2)
{
	struct klog_batch b __uninitialized;
	unsigned long flags;

	local_irq_save(flags);
	klog_begin(&b);
	klog_put(&b, type, tid, a0, a1, a2);
	klog_end(&b);
	local_irq_restore(flags);
}

/*
 * Timestamps are guest CLOCK_MONOTONIC ns, the userspace logger's clock.
 * The guest's clocksource is the generic timer's virtual count (CNTVCT).
 * The counter frequency divides 1e9 (62.5 MHz on both backends: 16 ns per
 * tick), so the clocksource's mult/shift is exact, and with no NTP slewing
 * CLOCK_MONOTONIC = CNTVCT * ns_per_tick + clock_offset_ns holds exactly
 * for the whole boot (klog_clock_init() checks it, or the module does not
 * load). A record holds the raw count, read in about 3 instructions, and
 * the reader converts it (ktime_get_mono_fast_ns() costs about 67).
 */
struct klog_clock {
	u32 ns_per_tick;
	s64 offset_ns;	/* the clock_offset_ns parameter */
};

/* Set once at load (clock.c), read by read(). */
extern struct klog_clock klog_clock;

/* CLOCK_MONOTONIC ns of a stored time stamp. */
static inline u64 klog_ts_ns(u64 stored)
{
	return stored * klog_clock.ns_per_tick + klog_clock.offset_ns;
}

int __init klog_clock_init(void);

/* ring.c: 0 and the records per cpu in *capacity, or an error. */
int klog_rings_alloc(u32 *capacity);
void klog_rings_free(void);

/* probes.c */
int klog_probes_find(void);
int klog_probes_register(void);
void klog_probes_unregister(void);
void klog_probes_dump(void);
int klog_cpu_online(unsigned int cpu);
int klog_cpu_offline(unsigned int cpu);

/* files.c: the enum pl_file_kind of a file; the kinds a task waits on. */
struct file;
struct task_struct;
u32 klog_file_kind(const struct file *f);
u32 klog_files_waited(struct task_struct *t);

/* kprobes.c: they do nothing unless the native_probes parameter is set. */
int klog_kprobes_register(void);
void klog_kprobes_unregister(void);

/*
 * counters.c: start before the probes attach, stop after they detach;
 * klog_counters_switch() puts prev's SWITCH_COUNTS into the switch's batch.
 */
void klog_counters_start(void);
void klog_counters_stop(void);
void klog_counters_cpu_online(unsigned int cpu);
void klog_counters_cpu_offline(unsigned int cpu);
void klog_counters_switch(struct klog_batch *b, u32 prev);

/* dev.c */
int klog_dev_register(void);
void klog_dev_unregister(void);

/* main.c */
extern struct mutex klog_state_lock;	/* enable/disable and readers */
extern bool klog_enabled;

#endif /* PANLAB_KLOG_H */
