/* SPDX-License-Identifier: MIT */
/*
 * panlab trace file format, version 6: the contract between the guest
 * loggers (kernel module, userspace logger library, collector) and the host
 * analyzer. See include/FORMAT.md for the prose description.
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
#define PL_TRACE_VERSION 6		/* written; readers accept 1 to 6 */
#define PL_TRACE_VERSION_MIN 1		/* version 1 lacks TASK_CONTEXT and UNIT_CAPACITY */
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
 * Event types, as one list so that the enum and every table of names are
 * generated from it: X(name, value, lower-case name). Kernel events are
 * 1..63, userspace events 64..127. Field use:
 *   CONTEXT_SWITCH  tid=prev, a0=next tid, a1=prev state (PL_STATE_*)
 *   SWITCH_COUNTS   (version 3) just after a CONTEXT_SWITCH, in the same
 *                   source and with its time stamp: what prev ran on this
 *                   cpu since the cpu's previous switch: a0=instructions
 *                   (PMU event 0x08) in user mode (version 6; versions 3
 *                   to 5: every mode, its interrupts included); a1, a2
 *                   zero. Absent with no PMU
 *   IRQ_ENTRY       (version 4) an idle cpu begins a device's interrupt
 *                   handler (a1=PL_IRQ_HARD, a0=Linux irq number) or a
 *                   softirq (a1=PL_IRQ_SOFT, a0=vector, PL_SOFTIRQ_NAMES);
 *                   tid=0. Logged only on the idle task: what an idle cpu
 *                   does before it runs a thread it was woken for
 *   IRQ_EXIT        (version 4) the matching end: a0, a1 as IRQ_ENTRY's
 *   IRQ_NAME        (version 4) with an irq's first IRQ_ENTRY of the trace,
 *                   just before it on that cpu, its handler's name (the
 *                   driver's request_irq() name, NUL padded) in parts of 12
 *                   bytes: a0 = irq number | part << 16 | the part's bytes
 *                   0-3 << 32, a1 = bytes 4-7, a2 = bytes 8-11. Part k holds
 *                   name bytes 12k to 12k+11; version 4 wrote part 0 only,
 *                   version 5 writes up to PL_IRQ_NAME_PARTS parts
 *   WAKEUP          tid=waker (0 when woken from interrupt context, or by
 *                   a kernel thread through a file: a kworker's deferred
 *                   work, such as a pty's flip buffer flush), a0=wakee
 *                   tid, a1=cpu the wakee last ran on, a2=what woke it
 *                   (enum pl_file_kind: the file that became ready in a
 *                   select, poll or epoll, or PL_FILE_TIMER for a wake-up
 *                   in a timer's expiry; 0 when not known). A wakee that
 *                   waits on a futex, mutex or semaphore gets <lock>_NOTIFY
 *                   instead.
 *   FORK            tid=parent, a0=child tid, a1=child tgid
 *   THREAD_NAME     tid=named thread, a0,a1,a2 = 16 bytes of comm (NUL padded)
 *   EXIT            tid=exiting thread
 *   BINDER_PRODUCE_ONEWAY, BINDER_PRODUCE_TWOWAY, BINDER_REPLY
 *                   a0=binder transaction id, a1=target pid (0 if unknown)
 *   BINDER_CONSUME  a0=binder transaction id
 *   <lock>_WAIT     tid blocks on a contended lock, a0=lock id
 *   <lock>_WAKE     tid resumes after waiting, a0=lock id
 *   <lock>_NOTIFY   tid releases and wakes a waiter, a0=lock id, a1=woken tid
 *                   (<lock> is FUTEX, MUTEX, SEM or WAITQUEUE; futex lock ids
 *                   are user addresses, so they are unique per process only);
 *                   WAITQUEUE_NOTIFY a2=what woke it, as WAKEUP's
 *   FILE_WAIT       tid switches out asleep waiting on files: a0=the kinds
 *                   (bit 1 << enum pl_file_kind) of the files of its
 *                   select or poll (the first 18; with more, bit 0 too),
 *                   or of the one it reads, receives from
 *                   or sends an ioctl to; 1 << PL_FILE_UNKNOWN in an
 *                   epoll_wait (the wake names the file); just before its
 *                   CONTEXT_SWITCH
 *   <kind>_BLOCK / <kind>_RESUME   tid blocks / resumes on SOCK (waiting
 *                   for a connection), DATAGRAM (UDP data), STREAM (TCP
 *                   data) or IO (disk)
 *   CPU_FREQUENCY   a0=new frequency in kHz, a1=cpu
 *   CPU_ONLINE, CPU_OFFLINE   a1=cpu
 *   CPU_IDLE_ENTER  a1=cpu, a2=idle state; CPU_IDLE_EXIT a1=cpu
 *   LOST            a0=records this source dropped just before this one
 *   KEY_REPORT      an input device reported a press (EV_KEY, value 1) to
 *                   the input core: tid=current (0 in interrupt context of
 *                   the idle task), a0=key code (BTN_TOUCH for a touch)
 *   KEY_READ        tid read a press: a0=key code, a1=PL_KEY_READ_EVDEV;
 *                   or tid read bytes from a virtual console (the console
 *                   keyboard's characters): a0=0, a1=PL_KEY_READ_TTY
 *   FB_DAMAGE       tid wrote to a deferred-I/O framebuffer page that was
 *                   clean (fbdev's page_mkwrite): a flush will follow;
 *                   a1=PL_FB_DAMAGE_FBDEV; or a user thread committed a
 *                   drawn buffer to DRM (atomic commit): a1=PL_FB_DAMAGE_DRM
 *   GPU_FLUSH       tid asked the GPU to flush a resource to the display
 *                   (virtio-gpu RESOURCE_FLUSH): a0=resource id,
 *                   a1=width << 16 | height
 *                   (36-39 are kernel events for programs that log nothing;
 *                   INPUT_READ and DISPLAY_FLUSHED below are userspace ones)
 *   UI_INPUT        a0=input id (dispatcher sequence number)
 *   UI_KEY          a0=input id, a1=key code
 *   ENQUEUE_MSG     a0=message id, a1=queue id, a2=time to dequeue (us, delay)
 *   DEQUEUE_MSG     a0=message id, a1=queue id
 *   MSG_DONE        a0=message id, a1=queue id (handler returned)
 *   SUBMIT_ASYNC_TASK  a0=task id, a1=executor id
 *   CONSUME_ASYNC_TASK a0=task id, a1=executor id
 *   ASYNC_TASK_END  a0=task id, a1=executor id
 *   UI_INVALIDATE   a0=view id
 *   UI_UPDATE       a0=frame sequence number of the app's surface, a1=app pid
 *   INPUT_READ      inputd read an input from evdev: a0=input id, a1=ns
 *                   since the kernel delivered it (the evdev event's
 *                   CLOCK_MONOTONIC time stamp), saturated at 2^32-1
 *   INPUT_DISPATCH  inputd sent it to the focused app: a0=input id, a1=app
 *                   pid (0: no app had the focus)
 *   FRAME_LATCH     the compositor took an app's newest posted frame for the
 *                   display frame it composes: a0=the app's frame sequence
 *                   number (UI_UPDATE a0), a1=app pid, a2=display frame number
 *   DISPLAY_SUBMIT  composed, handed to the display driver: a0=display frame
 *   DISPLAY_FLUSHED the driver reports the display flushed it (the device
 *                   completed RESOURCE_FLUSH): a0=display frame
 *   ENTER/EXIT_FOREGROUND  a0=pid (tgid) of the app
 *   TASK_CONTEXT    (version 2) the execution context of the SUBMIT_ASYNC_TASK
 *                   or ENQUEUE_MSG just before it in the same source: the
 *                   return addresses of the submitter's first
 *                   PL_CONTEXT_FRAMES frames, innermost first, 0 past the
 *                   last frame walked: a0=frame 0 | frame 1 << 32,
 *                   a1=frame 2, a2=frame 3
 *   UNIT_CAPACITY   (version 2) an execution unit was created or resized:
 *                   a0=unit id (executor id or queue id, as SUBMIT/ENQUEUE
 *                   a1), a1=tasks it runs at once, a2=enum pl_unit_kind
 */
/* One event a line, as the list has always been written. */
/* clang-format off */
#define PL_EVENT_TYPES(X) \
	X(CONTEXT_SWITCH, 1, "context_switch") \
	X(WAKEUP, 2, "wakeup") \
	X(FORK, 3, "fork") \
	X(THREAD_NAME, 4, "thread_name") \
	X(EXIT, 5, "exit") \
	X(BINDER_PRODUCE_ONEWAY, 6, "binder_produce_oneway") \
	X(BINDER_PRODUCE_TWOWAY, 7, "binder_produce_twoway") \
	X(BINDER_REPLY, 8, "binder_reply") \
	X(BINDER_CONSUME, 9, "binder_consume") \
	X(FUTEX_WAIT, 10, "futex_wait") \
	X(FUTEX_WAKE, 11, "futex_wake") \
	X(FUTEX_NOTIFY, 12, "futex_notify") \
	X(MUTEX_WAIT, 13, "mutex_wait") \
	X(MUTEX_WAKE, 14, "mutex_wake") \
	X(MUTEX_NOTIFY, 15, "mutex_notify") \
	X(SEM_WAIT, 16, "sem_wait") \
	X(SEM_WAKE, 17, "sem_wake") \
	X(SEM_NOTIFY, 18, "sem_notify") \
	X(WAITQUEUE_WAIT, 19, "waitqueue_wait") \
	X(WAITQUEUE_WAKE, 20, "waitqueue_wake") \
	X(WAITQUEUE_NOTIFY, 21, "waitqueue_notify") \
	X(SOCK_BLOCK, 22, "sock_block") \
	X(SOCK_RESUME, 23, "sock_resume") \
	X(DATAGRAM_BLOCK, 24, "datagram_block") \
	X(DATAGRAM_RESUME, 25, "datagram_resume") \
	X(STREAM_BLOCK, 26, "stream_block") \
	X(STREAM_RESUME, 27, "stream_resume") \
	X(IO_BLOCK, 28, "io_block") \
	X(IO_RESUME, 29, "io_resume") \
	X(CPU_FREQUENCY, 30, "cpu_frequency") \
	X(CPU_ONLINE, 31, "cpu_online") \
	X(CPU_OFFLINE, 32, "cpu_offline") \
	X(CPU_IDLE_ENTER, 33, "cpu_idle_enter") \
	X(CPU_IDLE_EXIT, 34, "cpu_idle_exit") \
	X(LOST, 35, "lost") \
	X(KEY_REPORT, 36, "key_report") \
	X(KEY_READ, 37, "key_read") \
	X(FB_DAMAGE, 38, "fb_damage") \
	X(GPU_FLUSH, 39, "gpu_flush") \
	X(FILE_WAIT, 40, "file_wait") \
	X(SWITCH_COUNTS, 41, "switch_counts") \
	X(IRQ_ENTRY, 42, "irq_entry") \
	X(IRQ_EXIT, 43, "irq_exit") \
	X(IRQ_NAME, 44, "irq_name") \
	X(UI_INPUT, 64, "ui_input") \
	X(UI_KEY, 65, "ui_key") \
	X(ENQUEUE_MSG, 66, "enqueue_msg") \
	X(DEQUEUE_MSG, 67, "dequeue_msg") \
	X(MSG_DONE, 68, "msg_done") \
	X(SUBMIT_ASYNC_TASK, 69, "submit_async_task") \
	X(CONSUME_ASYNC_TASK, 70, "consume_async_task") \
	X(ASYNC_TASK_END, 71, "async_task_end") \
	X(UI_INVALIDATE, 72, "ui_invalidate") \
	X(UI_UPDATE, 73, "ui_update") \
	X(ENTER_FOREGROUND, 74, "enter_foreground") \
	X(EXIT_FOREGROUND, 75, "exit_foreground") \
	X(INPUT_READ, 76, "input_read") \
	X(INPUT_DISPATCH, 77, "input_dispatch") \
	X(FRAME_LATCH, 78, "frame_latch") \
	X(DISPLAY_SUBMIT, 79, "display_submit") \
	X(DISPLAY_FLUSHED, 80, "display_flushed") \
	X(TASK_CONTEXT, 81, "task_context") \
	X(UNIT_CAPACITY, 82, "unit_capacity")
/* clang-format on */

#define PL_EV_ENUM_ENTRY(name, value, str) PL_EV_##name = value,
enum pl_event_type {
	PL_EVENT_TYPES(PL_EV_ENUM_ENTRY)
};
#undef PL_EV_ENUM_ENTRY

#define PL_EV_TYPE_MAX 127
#define PL_EV_V1_MAX PL_EV_DISPLAY_FLUSHED /* the last type version 1 knew */

/* IRQ_ENTRY and IRQ_EXIT a1: which kind of handler. */
enum pl_irq_kind {
	PL_IRQ_HARD = 0,	/* a device's handler: a0 = Linux irq number */
	PL_IRQ_SOFT = 1,	/* a softirq: a0 = its vector */
};

/* IRQ_NAME: parts per name, so names are cut at 12 * PL_IRQ_NAME_PARTS bytes. */
#define PL_IRQ_NAME_PARTS 2
#define PL_IRQ_NAME_BYTES (12 * PL_IRQ_NAME_PARTS)

/* Softirq vectors, in the order of Linux's enum (include/linux/interrupt.h). */
#define PL_SOFTIRQ_NAMES                                                          \
	{ "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET", "SCHED", \
	  "HRTIMER", "RCU" }
#define PL_SOFTIRQS 10

/* Frames of a TASK_CONTEXT: 32-bit guest addresses, four fit one record. */
#define PL_CONTEXT_FRAMES 4

/* UNIT_CAPACITY a2: what kind of execution unit. */
enum pl_unit_kind {
	PL_UNIT_EXECUTOR = 1, /* tasks: SUBMIT_ASYNC_TASK a1 */
	PL_UNIT_LOOPER = 2,   /* messages: ENQUEUE_MSG a1 */
};

/* KEY_READ a1: where the press was read. */
enum pl_key_read_kind {
	PL_KEY_READ_EVDEV = 0,	/* /dev/input/event* */
	PL_KEY_READ_TTY = 1,	/* a virtual console's keyboard */
};

/* FB_DAMAGE a1: how the program handed its pixels to the display. */
enum pl_fb_damage_kind {
	PL_FB_DAMAGE_FBDEV = 0, /* a write to a clean fbdev page */
	PL_FB_DAMAGE_DRM = 1,	/* an atomic commit (a compositor's page flip) */
};

/*
 * What a file waited on is (FILE_WAIT a0's bits) and what woke a wait
 * (WAKEUP and WAITQUEUE_NOTIFY a2).
 */
enum pl_file_kind {
	PL_FILE_UNKNOWN = 0, /* not known, or no file */
	PL_FILE_NETWORK = 1, /* an IPv4 or IPv6 socket */
	PL_FILE_IPC = 2,     /* a pipe, FIFO, Unix/netlink socket, pty, eventfd, signalfd */
	PL_FILE_INPUT = 3,   /* evdev, a virtual console */
	PL_FILE_TIMER = 4,   /* timerfd; a2 only: woken in a timer's expiry */
	PL_FILE_DISPLAY = 5, /* DRM, fbdev */
	PL_FILE_DISK = 6,    /* a regular file or block device */
	PL_FILE_OTHER = 7,   /* any other file */
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
