/* SPDX-License-Identifier: MIT */
/*
 * panlab trace file format, version 1: the contract between the guest
 * loggers (kernel module, userspace logger library, collector) and the host
 * analyzer. See analyzer/FORMAT.md for the prose description.
 *
 * All integers are little-endian. Timestamps are CLOCK_MONOTONIC in ns, the
 * clock both the kernel (ktime_get_ns) and userspace (clock_gettime) read.
 *
 * This header is included by kernel code, guest userspace and host code, so
 * it uses only fixed-width types and declares no functions.
 */
#ifndef PANLAB_TRACE_FORMAT_H
#define PANLAB_TRACE_FORMAT_H

#ifdef __KERNEL__
#include <linux/types.h>
typedef u8 pl_u8;
typedef u16 pl_u16;
typedef u32 pl_u32;
typedef u64 pl_u64;
#else
#include <stdint.h>
typedef uint8_t pl_u8;
typedef uint16_t pl_u16;
typedef uint32_t pl_u32;
typedef uint64_t pl_u64;
#endif

#define PL_TRACE_MAGIC "PANLABTR"	/* 8 bytes, no terminator in the file */
#define PL_TRACE_VERSION 1
#define PL_CLOCK_MONOTONIC 1

/* File header: 32 bytes, then nsources struct pl_source, then records. */
struct pl_file_header {
	char magic[8];
	pl_u16 version;
	pl_u16 record_bytes;	/* sizeof(struct pl_event) == 32 */
	pl_u32 clock_id;	/* PL_CLOCK_MONOTONIC */
	pl_u32 ncpus;		/* cpus possible in the guest */
	pl_u32 nsources;
	pl_u64 reserved;	/* zero */
};

enum pl_source_kind {
	PL_SRC_KERNEL_CPU = 1,	/* id = cpu number */
	PL_SRC_USER_THREAD = 2,	/* id = tid of the thread that owns the buffer */
};

/*
 * One per buffer the collector drained. Records of source i follow those of
 * source i-1, contiguously, in the order the buffer held them.
 */
struct pl_source {
	pl_u32 kind;		/* enum pl_source_kind */
	pl_u32 id;
	pl_u64 records;		/* records present in the file for this source */
	pl_u64 lost;		/* records dropped because the buffer was full */
};

/* One event: 32 bytes. Meaning of a0..a2 depends on type (see below). */
struct pl_event {
	pl_u64 ts_ns;
	pl_u16 type;		/* enum pl_event_type */
	pl_u16 cpu;		/* cpu for kernel events, PL_CPU_NONE for user */
	pl_u32 tid;		/* thread the event happened on */
	pl_u64 a0;
	pl_u32 a1;
	pl_u32 a2;
};

#define PL_CPU_NONE 0xffff

/*
 * Event types. Kernel events are 1..63, userspace events 64..127. Field use:
 *   CONTEXT_SWITCH  tid=prev, a0=next tid, a1=prev state (PL_STATE_*)
 *   WAKEUP          tid=waker, a0=wakee tid, a1=wakee's cpu
 *   FORK            tid=parent, a0=child tid, a1=child tgid
 *   THREAD_NAME     tid=named thread, a0,a1,a2 = 16 bytes of comm (NUL padded)
 *   EXIT            tid=exiting thread
 *   UI_INPUT        a0=input id (dispatcher sequence number)
 *   UI_KEY          a0=input id, a1=key code
 *   ENQUEUE_MSG     a0=message id, a1=queue id, a2=time to dequeue (us, delay)
 *   DEQUEUE_MSG     a0=message id, a1=queue id
 *   MSG_DONE        a0=message id, a1=queue id (handler returned)
 *   SUBMIT_ASYNC_TASK  a0=task id, a1=executor id
 *   CONSUME_ASYNC_TASK a0=task id, a1=executor id
 *   ASYNC_TASK_END  a0=task id, a1=executor id
 *   UI_INVALIDATE   a0=view id
 *   UI_UPDATE       a0=frame sequence number of the app's surface
 *   ENTER/EXIT_FOREGROUND  a0=pid (tgid) of the app
 */
enum pl_event_type {
	PL_EV_CONTEXT_SWITCH = 1,
	PL_EV_WAKEUP = 2,
	PL_EV_FORK = 3,
	PL_EV_THREAD_NAME = 4,
	PL_EV_EXIT = 5,

	PL_EV_UI_INPUT = 64,
	PL_EV_UI_KEY = 65,
	PL_EV_ENQUEUE_MSG = 66,
	PL_EV_DEQUEUE_MSG = 67,
	PL_EV_MSG_DONE = 68,
	PL_EV_SUBMIT_ASYNC_TASK = 69,
	PL_EV_CONSUME_ASYNC_TASK = 70,
	PL_EV_ASYNC_TASK_END = 71,
	PL_EV_UI_INVALIDATE = 72,
	PL_EV_UI_UPDATE = 73,
	PL_EV_ENTER_FOREGROUND = 74,
	PL_EV_EXIT_FOREGROUND = 75,
};

/* Old-thread state in CONTEXT_SWITCH, from the kernel's task state. */
enum pl_thread_state {
	PL_STATE_RUNNABLE = 0,	/* preempted */
	PL_STATE_SLEEPING = 1,	/* TASK_INTERRUPTIBLE */
	PL_STATE_BLOCKED = 2,	/* TASK_UNINTERRUPTIBLE (disk IO, etc.) */
	PL_STATE_DEAD = 3,
	PL_STATE_OTHER = 4,
};

#endif /* PANLAB_TRACE_FORMAT_H */
