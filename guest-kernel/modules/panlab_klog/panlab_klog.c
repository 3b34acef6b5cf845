// SPDX-License-Identifier: GPL-2.0
/*
 * panlab kernel logger: records the kernel-side events of Panappticon's
 * Table 1 into per-cpu ring buffers that a userspace collector drains
 * through /dev/panlab_klog.
 *
 * Probes attach to tracepoints: the kernel's own (sched, lock, power,
 * binder) and the ones guest-kernel/patches add (futex, sock); wait queue
 * sleeps and wakes are read from the fields patch 0003 adds to each task.
 * While tracing is off no probe is registered, so the cost is the
 * tracepoints' own static-key branch. Each cpu's ring has one producer
 * (that cpu, with local irqs off while slots are claimed) and one consumer
 * (the reader), so the logging path takes no lock and never sleeps. A full
 * ring drops the new record and counts it; the next record that fits is
 * preceded by a LOST record carrying the count.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/clocksource_ids.h>
#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/cpuhotplug.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/input.h>
#include <linux/kprobes.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <uapi/linux/android/binder.h>

#include <asm/arch_timer.h>

#include <trace/events/lock.h>
#include <trace/events/power.h>
#include <trace/events/sock.h>

/*
 * struct binder_transaction (debug_id, flags, to_proc) is private to the
 * binder driver, and its tracepoints pass only a pointer to it. Kbuild adds
 * drivers/android to the include path so that the probes can read the
 * fields the driver's own trace events read.
 */
#include "binder_internal.h"

#include "panlab/trace_format.h"
#include "panlab/klog_uapi.h"

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

static DEFINE_PER_CPU(struct klog_ring, klog_rings);
static DEFINE_MUTEX(klog_state_lock);	/* enable/disable and readers */
static bool klog_enabled;
static int klog_hp_state;

static unsigned long buffer_bytes = 30 * 1024 * 1024;
module_param(buffer_bytes, ulong, 0444);
MODULE_PARM_DESC(buffer_bytes, "Total ring size over all possible cpus, bytes");

/* Arming kprobes patches kernel text under stop_machine: only runs that need them pay for it. */
static bool native_probes;
module_param(native_probes, bool, 0444);
MODULE_PARM_DESC(native_probes, "Log input and display kprobe events for programs that log nothing");

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
static u32 klog_ns_per_tick;
static s64 klog_clock_offset_ns;

/* CLOCK_MONOTONIC ns of a stored time stamp. */
static u64 klog_ts_ns(u64 stored)
{
	return stored * klog_ns_per_tick + klog_clock_offset_ns;
}

static int clock_offset_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", klog_clock_offset_ns);
}

static int clock_offset_set(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static const struct kernel_param_ops clock_offset_ops = {
	.set = clock_offset_set,
	.get = clock_offset_get,
};
module_param_cb(clock_offset_ns, &clock_offset_ops, NULL, 0444);
MODULE_PARM_DESC(clock_offset_ns,
		 "CLOCK_MONOTONIC ns = CNTVCT * (1e9 / CNTFRQ) + this (read-only)");

/*
 * What a task waits on, kept from its *_WAIT to its *_WAKE so that the
 * waker's probe can name the lock in a *_NOTIFY, or that it is blocked on
 * disk IO. Indexed by pid: PID_MAX_LIMIT is 32768 on 32-bit kernels, so
 * slots are never shared. A slot is written only while its task runs
 * nowhere else: by the task itself (the lock, futex and wait queue probes
 * run in the waiter's context) or by sched_switch for the task switching
 * out or in (a futex waker may claim a FUTEX_WAIT too: see
 * klog_claim_futex_wait()). Wakers read it without a lock: a stale read
 * costs one NOTIFY reported as a plain WAKEUP, or the reverse.
 */
enum klog_wait_kind {
	KLOG_WAIT_NONE,
	KLOG_WAIT_MUTEX,
	KLOG_WAIT_SEM,
	/* The kinds from here on end when the task is next switched in. */
	KLOG_WAIT_IO,		/* IO_BLOCK logged */
	KLOG_WAIT_WAITQUEUE,	/* asleep on it: WAITQUEUE_WAIT logged */
	KLOG_WAIT_FUTEX,	/* FUTEX_WAIT logged */
};

struct klog_task {
	unsigned long lock_id;
	u8 wait_kind;		/* enum klog_wait_kind */
};

#define KLOG_TASK_SLOTS 32768
static struct klog_task klog_tasks[KLOG_TASK_SLOTS];

static struct klog_task *klog_task_of(pid_t pid)
{
	return &klog_tasks[pid & (KLOG_TASK_SLOTS - 1)];
}

/*
 * Whether this caller is the one to log the FUTEX_WAIT of a task waiting
 * on futex lock_id: the task's own switch out and a waker that finds it
 * not switched out yet may race (see "Futex" below), and the one that
 * moves the slot to KLOG_WAIT_FUTEX logs it. Relaxed: it only decides who
 * logs; the task reads lock_id after its wake-up, which orders it.
 */
static __always_inline bool klog_claim_futex_wait(struct klog_task *t,
						  unsigned long lock_id)
{
	u8 kind = READ_ONCE(t->wait_kind);

	if (kind == KLOG_WAIT_FUTEX ||
	    cmpxchg_relaxed(&t->wait_kind, kind, KLOG_WAIT_FUTEX) != kind)
		return false;
	WRITE_ONCE(t->lock_id, lock_id);
	return true;
}

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

/*
 * No room is known: read tail again, wrap next at the end of the array and
 * set ring->limit and ring->next. Then store a LOST record with the count
 * of records dropped since the last stored one, if any, and this record,
 * or drop this one too. Out of line: the common path stays short. Returns
 * the number of records stored.
 */
static noinline u32 klog_put_slow(struct klog_ring *ring,
				  struct pl_event *next, u32 stored, u64 ts,
				  u16 cpu, u16 type, u32 tid, u64 a0, u32 a1,
				  u32 a2)
{
	u32 need = ring->lost_pending ? 2 : 1;
	u32 head = ring->head + stored;
	/* Pairs with the reader's release of tail: its slot copy is done. */
	u32 tail = smp_load_acquire(&ring->tail);
	u32 room = ring->capacity - (head - tail);

	if (head < ring->head_seen)
		ring->head_laps++;
	ring->head_seen = head;
	if (next == ring->end)
		next = ring->rec;
	ring->next = next;
	if (room < need) {
		ring->lost++;
		ring->lost_pending++;
		ring->limit = next;
		return 0;
	}
	if (ring->lost_pending) {
		next = klog_store(next, ts, cpu, PL_EV_LOST, tid,
				  ring->lost_pending, 0, 0);
		if (next == ring->end)
			next = ring->rec;
		ring->lost_pending = 0;
	}
	next = klog_store(next, ts, cpu, type, tid, a0, a1, a2);
	ring->next = next;
	ring->limit = next + min_t(u32, room - need, ring->end - next);
	return need;
}

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

static u32 klog_state_of(bool preempt, unsigned int state)
{
	if (preempt || state == TASK_RUNNING)
		return PL_STATE_RUNNABLE;
	if (state & TASK_INTERRUPTIBLE)
		return PL_STATE_SLEEPING;
	if (state & TASK_UNINTERRUPTIBLE)
		return PL_STATE_BLOCKED;
	if (state & (TASK_DEAD | EXIT_DEAD | EXIT_ZOMBIE))
		return PL_STATE_DEAD;
	return PL_STATE_OTHER;
}

static void klog_thread_name(struct task_struct *t, const char *comm)
{
	u32 w[4] = { 0 };

	/* TASK_COMM_LEN is 16: the name fills a0, a1 and a2 exactly. */
	memcpy(w, comm, strnlen(comm, sizeof(w)));
	klog_record(PL_EV_THREAD_NAME, t->pid, w[0] | (u64)w[1] << 32,
		    w[2], w[3]);
}

/*
 * Scheduler: context switches, disk IO blocking (no patch needed), wait
 * queue sleeps (patch 0003), wakeups.
 */

/*
 * Wait queues: patch 0003 keeps, in each task, the queue of the
 * wait_event*() loop it is in (wait_event_queue, from
 * prepare_to_wait_event() queueing it to finish_wait()) and the queue whose
 * wake function it is calling (waking_queue, in __wake_up_common()), so
 * that no probe fires on those paths. A task that switches out asleep with
 * wait_event_queue set sleeps on that queue: probe_sched_switch() logs
 * WAITQUEUE_WAIT and clears the field (the task is switching out: nothing
 * else writes it), so that another sleep before the loop queues the task
 * again (in the rest of a wait_event_cmd() command, say) is not taken for
 * one on the queue; and WAITQUEUE_WAKE when the task runs again.
 * A wake-up in __wake_up_common() of that queue is WAITQUEUE_NOTIFY. Only
 * the wait_event*() family goes through prepare_to_wait_event(); socket
 * and binder waits have events of their own.
 */

/* The record a wait that ends at the switch in ends with. */
static const u16 klog_wake_event[] = {
	[KLOG_WAIT_IO] = PL_EV_IO_RESUME,
	[KLOG_WAIT_WAITQUEUE] = PL_EV_WAITQUEUE_WAKE,
	[KLOG_WAIT_FUTEX] = PL_EV_FUTEX_WAKE,
};

/* The wait, if any, that prev begins by switching out asleep. */
static __always_inline void klog_switch_out_asleep(struct klog_batch *b,
						   struct task_struct *prev,
						   unsigned int prev_state)
{
	struct klog_task *pt = klog_task_of(prev->pid);
	unsigned long futex = READ_ONCE(prev->futex_wait_id);

	/* io_schedule() marks the task in_iowait before it sleeps. */
	if ((prev_state & TASK_UNINTERRUPTIBLE) && prev->in_iowait) {
		WRITE_ONCE(pt->wait_kind, KLOG_WAIT_IO);
		klog_put(b, PL_EV_IO_BLOCK, prev->pid, 0, 0, 0);
	} else if (pt->wait_kind == KLOG_WAIT_NONE && prev->wait_event_queue) {
		/* See "Wait queues" above. */
		WRITE_ONCE(pt->lock_id, (unsigned long)prev->wait_event_queue);
		/* Pairs with the acquire in probe_sched_waking(). */
		smp_store_release(&pt->wait_kind, KLOG_WAIT_WAITQUEUE);
		prev->wait_event_queue = NULL;
		klog_put(b, PL_EV_WAITQUEUE_WAIT, prev->pid, pt->lock_id, 0, 0);
	} else if (futex && klog_claim_futex_wait(pt, futex)) {
		/* Asleep in futex_wait_queue(): see "Futex" below. */
		klog_put(b, PL_EV_FUTEX_WAIT, prev->pid, futex, 0, 0);
	}
}

static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	u32 state = klog_state_of(preempt, prev_state);
	struct klog_batch b __uninitialized;
	struct klog_task *nt;
	u8 kind;

	/* __schedule() runs this with local irqs off. */
	lockdep_assert_irqs_disabled();
	klog_begin(&b);
	if (state == PL_STATE_SLEEPING || state == PL_STATE_BLOCKED)
		klog_switch_out_asleep(&b, prev, prev_state);
	klog_put(&b, PL_EV_CONTEXT_SWITCH, prev->pid, (u32)next->pid, state, 0);
	nt = klog_task_of(next->pid);
	kind = nt->wait_kind;
	if (kind >= KLOG_WAIT_IO) {
		WRITE_ONCE(nt->wait_kind, KLOG_WAIT_NONE);
		klog_put(&b, klog_wake_event[kind], next->pid,
			 kind == KLOG_WAIT_IO ? 0 : nt->lock_id, 0, 0);
	}
	klog_end(&b);
}

/*
 * sched_waking runs in the waker's context on the waker's cpu, unlike
 * sched_wakeup, which may run on the wakee's cpu when the wakeup is queued
 * there. A wakeup from interrupt context has no waking thread: tid 0.
 */
static noinline void klog_waking(struct task_struct *p, struct klog_task *t,
				 u8 kind)
{
	u32 waker = in_task() ? current->pid : 0;
	u16 type = PL_EV_WAKEUP;

	switch (kind) {
	case KLOG_WAIT_MUTEX:
		type = PL_EV_MUTEX_NOTIFY;
		break;
	case KLOG_WAIT_SEM:
		type = PL_EV_SEM_NOTIFY;
		break;
	case KLOG_WAIT_WAITQUEUE:
		/* Woken through the queue it sleeps on, not by a signal. */
		if (READ_ONCE(t->lock_id) ==
		    (unsigned long)current->waking_queue)
			type = PL_EV_WAITQUEUE_NOTIFY;
		break;
	}
	if (type == PL_EV_WAKEUP)
		klog_record(type, waker, p->pid, task_cpu(p), 0);
	else
		klog_record(type, waker, READ_ONCE(t->lock_id), p->pid, 0);
}

/*
 * A FUTEX_WAKE took the waiter p off the queue of futex lock_id. If p has
 * not switched out yet, its FUTEX_WAIT is logged here, just before the
 * notify, so that a wait always begins before the notify that ends it.
 */
static noinline void klog_futex_notify(struct task_struct *p,
				       struct klog_task *t,
				       unsigned long lock_id)
{
	unsigned long waiting_on = READ_ONCE(p->futex_wait_id);
	struct klog_batch b __uninitialized;

	/*
	 * A futex waker never wakes itself, and try_to_wake_up() holds the
	 * wakee's pi_lock with local irqs off.
	 */
	lockdep_assert_irqs_disabled();
	klog_begin(&b);
	if (waiting_on && klog_claim_futex_wait(t, waiting_on))
		klog_put(&b, PL_EV_FUTEX_WAIT, p->pid, waiting_on, 0, 0);
	klog_put(&b, PL_EV_FUTEX_NOTIFY, current->pid, lock_id, p->pid, 0);
	klog_end(&b);
}

static void probe_sched_waking(void *data, struct task_struct *p)
{
	struct klog_task *t = klog_task_of(p->pid);
	/* Pairs with the release in probe_sched_switch(): lock_id is set. */
	u8 kind = smp_load_acquire(&t->wait_kind);
	unsigned long futex = READ_ONCE(p->futex_wake_id);

	/*
	 * futex_wake_id outlives a wait that a timeout ended while a waker
	 * was taking it off the queue: it counts only during a futex wait.
	 */
	if (futex && (kind == KLOG_WAIT_FUTEX || READ_ONCE(p->futex_wait_id)))
		klog_futex_notify(p, t, futex);
	else
		klog_waking(p, t, kind);
}

static void probe_sched_wakeup_new(void *data, struct task_struct *p)
{
	klog_record(PL_EV_WAKEUP, current->pid, p->pid, task_cpu(p), 0);
}

static void probe_sched_process_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
	struct klog_task *t = klog_task_of(child->pid);

	/* The child has not run yet: nobody else writes its slot. */
	t->wait_kind = KLOG_WAIT_NONE;
	klog_record(PL_EV_FORK, current->pid, child->pid, child->tgid, 0);
	klog_thread_name(child, child->comm);
}

static void probe_sched_process_exit(void *data, struct task_struct *p)
{
	klog_record(PL_EV_EXIT, p->pid, 0, 0, 0);
}

static void probe_task_rename(void *data, struct task_struct *task,
			      const char *comm)
{
	klog_thread_name(task, comm);
}

/*
 * Futex: patch 0001 keeps, in each task, the futex it waits on in
 * futex_wait_queue() (futex_wait_id) and the one whose FUTEX_WAKE took it
 * off the queue (futex_wake_id), so that the wait and its end are logged
 * with the context switches they cause, in the same claim of the ring:
 * the switch out of the wait's schedule() logs FUTEX_WAIT, the switch back
 * in FUTEX_WAKE, and the waker's sched_waking FUTEX_NOTIFY. A waker that
 * finds its waiter not switched out yet logs the waiter's FUTEX_WAIT
 * before its notify; whichever of the two moves the waiter's slot to
 * KLOG_WAIT_FUTEX logs it. A wait that a waker logged but that made no
 * voluntary switch ends at futex_wait_awake, which fires only for such
 * waits, so a wait that slept costs no tracepoint hit of its own. (A waker
 * that claims the wait after that, in the instant a timeout or a signal
 * ends it, leaves its FUTEX_WAKE to the task's next switch in.) A wait that
 * never switched out and that no waker claimed is not logged: the task
 * never slept.
 */
static void probe_futex_wait_awake(void *data, unsigned long lock_id)
{
	struct klog_task *t = klog_task_of(current->pid);

	/*
	 * Logged only if a waker claimed it; a claimed wait that was
	 * preempted in schedule() ended at its switch back in.
	 */
	if (READ_ONCE(t->wait_kind) != KLOG_WAIT_FUTEX)
		return;
	WRITE_ONCE(t->wait_kind, KLOG_WAIT_NONE);
	klog_record(PL_EV_FUTEX_WAKE, current->pid, t->lock_id, 0, 0);
}

/*
 * Kernel mutexes and semaphores: lock:contention_begin/end. Spinning
 * (spinlocks, rwlocks, a mutex's optimistic spin) is not a wait; a mutex
 * waiter that spins again between sleeps reports one wait.
 */
static void probe_contention_begin(void *data, void *lock, unsigned int flags)
{
	struct klog_task *t;
	u8 kind;

	if (flags & LCB_F_SPIN)
		return;
	kind = flags & (LCB_F_MUTEX | LCB_F_RT) ? KLOG_WAIT_MUTEX :
						   KLOG_WAIT_SEM;
	t = klog_task_of(current->pid);
	if (t->wait_kind == kind && t->lock_id == (unsigned long)lock)
		return;
	WRITE_ONCE(t->lock_id, (unsigned long)lock);
	WRITE_ONCE(t->wait_kind, kind);
	klog_record(kind == KLOG_WAIT_MUTEX ? PL_EV_MUTEX_WAIT : PL_EV_SEM_WAIT,
		    current->pid, (unsigned long)lock, 0, 0);
}

static void probe_contention_end(void *data, void *lock, int ret)
{
	struct klog_task *t = klog_task_of(current->pid);
	u8 kind = t->wait_kind;

	/* Also fires for spinlocks, some taken while this task waits. */
	if ((kind != KLOG_WAIT_MUTEX && kind != KLOG_WAIT_SEM) ||
	    t->lock_id != (unsigned long)lock || !in_task())
		return;
	WRITE_ONCE(t->wait_kind, KLOG_WAIT_NONE);
	klog_record(kind == KLOG_WAIT_MUTEX ? PL_EV_MUTEX_WAKE : PL_EV_SEM_WAKE,
		    current->pid, (unsigned long)lock, 0, 0);
}

/* Sockets: tracepoints of patch 0002, around the sleep itself. */

static u16 klog_sock_event(enum sock_wait_kind kind, bool resume)
{
	switch (kind) {
	case SOCK_WAIT_DATAGRAM:
		return resume ? PL_EV_DATAGRAM_RESUME : PL_EV_DATAGRAM_BLOCK;
	case SOCK_WAIT_STREAM:
		return resume ? PL_EV_STREAM_RESUME : PL_EV_STREAM_BLOCK;
	default:	/* connect and accept: waiting for a connection */
		return resume ? PL_EV_SOCK_RESUME : PL_EV_SOCK_BLOCK;
	}
}

static void probe_sock_wait_block(void *data, const struct sock *sk,
				  enum sock_wait_kind kind)
{
	klog_record(klog_sock_event(kind, false), current->pid, 0, 0, 0);
}

static void probe_sock_wait_resume(void *data, const struct sock *sk,
				   enum sock_wait_kind kind)
{
	klog_record(klog_sock_event(kind, true), current->pid, 0, 0, 0);
}

/* Binder: the driver's own tracepoints. */

static void probe_binder_transaction(void *data, bool reply,
				     struct binder_transaction *t,
				     struct binder_node *target_node)
{
	u16 type = reply ? PL_EV_BINDER_REPLY :
		   t->flags & TF_ONE_WAY ? PL_EV_BINDER_PRODUCE_ONEWAY :
					   PL_EV_BINDER_PRODUCE_TWOWAY;
	/* binder_transaction() sets to_proc before this tracepoint. */
	u32 target = t->to_proc ? t->to_proc->pid : 0;

	klog_record(type, current->pid, t->debug_id, target, 0);
}

static void probe_binder_transaction_received(void *data,
					      struct binder_transaction *t)
{
	klog_record(PL_EV_BINDER_CONSUME, current->pid, t->debug_id, 0, 0);
}

/* Power: frequency changes and idle, logged on the cpu they concern. */

static void probe_cpu_frequency(void *data, unsigned int frequency,
				unsigned int cpu_id)
{
	klog_record(PL_EV_CPU_FREQUENCY, current->pid, frequency, cpu_id, 0);
}

static void probe_cpu_idle(void *data, unsigned int state, unsigned int cpu_id)
{
	if (state == (unsigned int)PWR_EVENT_EXIT)
		klog_record(PL_EV_CPU_IDLE_EXIT, current->pid, 0, cpu_id, 0);
	else
		klog_record(PL_EV_CPU_IDLE_ENTER, current->pid, 0, cpu_id,
			    state);
}

/* Hotplug callbacks of CPUHP_AP_ONLINE_DYN run on the cpu concerned. */
static int klog_cpu_online(unsigned int cpu)
{
	if (READ_ONCE(klog_enabled))
		klog_record(PL_EV_CPU_ONLINE, current->pid, 0, cpu, 0);
	return 0;
}

static int klog_cpu_offline(unsigned int cpu)
{
	if (READ_ONCE(klog_enabled))
		klog_record(PL_EV_CPU_OFFLINE, current->pid, 0, cpu, 0);
	return 0;
}

/*
 * Input and display, for programs that log nothing themselves (Debian's
 * unmodified armel programs): the kernel has no tracepoints on these paths,
 * so kprobes on the functions every such program goes through. Arguments
 * are read from the AAPCS registers (r0-r3).
 */

/* input_event(dev, type, code, value): a device driver reports an event. */
static int kprobe_input_event(struct kprobe *p, struct pt_regs *regs)
{
	if (regs->ARM_r1 == EV_KEY && regs->ARM_r3 == 1)
		klog_record(PL_EV_KEY_REPORT, current->pid, regs->ARM_r2, 0, 0);
	return 0;
}

/* input_event_to_user(buffer, event): evdev_read() hands one event over. */
static int kprobe_input_event_to_user(struct kprobe *p, struct pt_regs *regs)
{
	const struct input_event *ev = (const void *)regs->ARM_r1;

	if (ev->type == EV_KEY && ev->value == 1)
		klog_record(PL_EV_KEY_READ, current->pid, ev->code,
			    PL_KEY_READ_EVDEV, 0);
	return 0;
}

/* fb_deferred_io_mkwrite(vmf): the first write to a clean framebuffer page. */
static int kprobe_fb_mkwrite(struct kprobe *p, struct pt_regs *regs)
{
	klog_record(PL_EV_FB_DAMAGE, current->pid, 0, 0, 0);
	return 0;
}

/*
 * virtio_gpu_cmd_resource_flush(vgdev, resource_id, x, y, width, height,
 * ...): width and height are the fifth and sixth arguments, on the stack.
 * a2 stays 0: the analyzer marks its kernel-only inference there.
 */
static int kprobe_resource_flush(struct kprobe *p, struct pt_regs *regs)
{
	const u32 *stack = (const u32 *)regs->ARM_sp;

	klog_record(PL_EV_GPU_FLUSH, current->pid, regs->ARM_r1,
		    stack[0] << 16 | (stack[1] & 0xffff), 0);
	return 0;
}

static struct kprobe klog_kprobes[] = {
	{ .symbol_name = "input_event", .pre_handler = kprobe_input_event },
	{ .symbol_name = "input_event_to_user",
	  .pre_handler = kprobe_input_event_to_user },
	{ .symbol_name = "fb_deferred_io_mkwrite",
	  .pre_handler = kprobe_fb_mkwrite },
	{ .symbol_name = "virtio_gpu_cmd_resource_flush",
	  .pre_handler = kprobe_resource_flush },
};

/*
 * n_tty_read(tty, file, kbuf, nr, cookie, offset) returning bytes from a
 * virtual console: the console keyboard's characters reach a reader.
 */
static int kretprobe_n_tty_read_entry(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	*(struct tty_struct **)ri->data = (struct tty_struct *)regs->ARM_r0;
	return 0;
}

static int kretprobe_n_tty_read(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct tty_struct *tty = *(struct tty_struct **)ri->data;

	if ((long)regs_return_value(regs) > 0 &&
	    tty->driver->type == TTY_DRIVER_TYPE_CONSOLE)
		klog_record(PL_EV_KEY_READ, current->pid, 0,
			    PL_KEY_READ_TTY, 0);
	return 0;
}

static struct kretprobe klog_tty_read_probe = {
	.kp.symbol_name = "n_tty_read",
	.entry_handler = kretprobe_n_tty_read_entry,
	.handler = kretprobe_n_tty_read,
	.data_size = sizeof(struct tty_struct *),
	.maxactive = 8,
};

static struct kprobe *klog_kprobe_ptrs[ARRAY_SIZE(klog_kprobes)];

static int klog_register_kprobes(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(klog_kprobes); i++) {
		/* A kprobe is registered afresh each time: clear what the last run left. */
		klog_kprobes[i].addr = NULL;
		klog_kprobes[i].flags = 0;
		klog_kprobe_ptrs[i] = &klog_kprobes[i];
	}
	ret = register_kprobes(klog_kprobe_ptrs, ARRAY_SIZE(klog_kprobes));
	if (ret) {
		pr_err("cannot attach the input and display kprobes: %d\n", ret);
		return ret;
	}
	klog_tty_read_probe.kp.addr = NULL;
	klog_tty_read_probe.kp.flags = 0;
	ret = register_kretprobe(&klog_tty_read_probe);
	if (ret) {
		pr_err("cannot attach to n_tty_read: %d\n", ret);
		unregister_kprobes(klog_kprobe_ptrs, ARRAY_SIZE(klog_kprobes));
	}
	return ret;
}

static void klog_unregister_kprobes(void)
{
	unregister_kretprobe(&klog_tty_read_probe);
	unregister_kprobes(klog_kprobe_ptrs, ARRAY_SIZE(klog_kprobes));
}

struct klog_probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
};

static struct klog_probe klog_probes[] = {
	{ "sched_switch", probe_sched_switch },
	{ "sched_waking", probe_sched_waking },
	{ "sched_wakeup_new", probe_sched_wakeup_new },
	{ "sched_process_fork", probe_sched_process_fork },
	{ "sched_process_exit", probe_sched_process_exit },
	{ "task_rename", probe_task_rename },
	{ "futex_wait_awake", probe_futex_wait_awake },
	{ "contention_begin", probe_contention_begin },
	{ "contention_end", probe_contention_end },
	{ "sock_wait_block", probe_sock_wait_block },
	{ "sock_wait_resume", probe_sock_wait_resume },
	{ "binder_transaction", probe_binder_transaction },
	{ "binder_transaction_received", probe_binder_transaction_received },
	{ "cpu_frequency", probe_cpu_frequency },
	{ "cpu_idle", probe_cpu_idle },
};

static void klog_find_tracepoint(struct tracepoint *tp, void *unused)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(klog_probes); i++)
		if (!strcmp(tp->name, klog_probes[i].name))
			klog_probes[i].tp = tp;
}

static void klog_dump_threads(void)
{
	struct task_struct *p, *t;

	rcu_read_lock();
	for_each_process_thread(p, t)
		klog_thread_name(t, t->comm);
	rcu_read_unlock();
}

/* Each online cpu's frequency when tracing starts, as a CPU_FREQUENCY. */
static void klog_dump_frequencies(void)
{
	unsigned int cpu, khz;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		khz = cpufreq_quick_get(cpu);
		if (khz)
			klog_record(PL_EV_CPU_FREQUENCY, current->pid, khz, cpu, 0);
	}
	cpus_read_unlock();
}

static void klog_unregister(int count)
{
	while (count-- > 0)
		tracepoint_probe_unregister(klog_probes[count].tp,
					    klog_probes[count].func, NULL);
	tracepoint_synchronize_unregister();
}

static int klog_set_enabled(bool on)
{
	int i, ret = 0;

	mutex_lock(&klog_state_lock);
	if (on == klog_enabled)
		goto out;
	if (!on) {
		WRITE_ONCE(klog_enabled, false);
		if (native_probes)
			klog_unregister_kprobes();
		klog_unregister(ARRAY_SIZE(klog_probes));
		goto out;
	}
	/* Waits that began while tracing was off are not known. */
	memset(klog_tasks, 0, sizeof(klog_tasks));
	for (i = 0; i < ARRAY_SIZE(klog_probes); i++) {
		ret = tracepoint_probe_register(klog_probes[i].tp,
						klog_probes[i].func, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n",
			       klog_probes[i].name, ret);
			klog_unregister(i);
			goto out;
		}
	}
	ret = native_probes ? klog_register_kprobes() : 0;
	if (ret) {
		klog_unregister(ARRAY_SIZE(klog_probes));
		goto out;
	}
	WRITE_ONCE(klog_enabled, true);
	klog_dump_threads();
	klog_dump_frequencies();
out:
	mutex_unlock(&klog_state_lock);
	return ret;
}

static int enable_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int ret = kstrtobool(val, &on);

	return ret ? ret : klog_set_enabled(on);
}

static int enable_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(klog_enabled));
}

static const struct kernel_param_ops enable_ops = {
	.set = enable_set,
	.get = enable_get,
};
module_param_cb(enable, &enable_ops, NULL, 0644);
MODULE_PARM_DESC(enable, "Record events (1) or not (0)");

static ssize_t klog_read(struct file *file, char __user *buf, size_t len,
			 loff_t *ppos)
{
	size_t done = 0;
	int cpu;

	if (len < sizeof(struct pl_event))
		return -EINVAL;
	mutex_lock(&klog_state_lock);
	for_each_possible_cpu(cpu) {
		struct klog_ring *ring = per_cpu_ptr(&klog_rings, cpu);
		/* Pairs with the writer's release: records up to head are filled. */
		u32 head = smp_load_acquire(&ring->head);

		while (ring->tail != head &&
		       len - done >= sizeof(struct pl_event)) {
			struct pl_event ev = *ring->read_next;

			ev.ts_ns = klog_ts_ns(ev.ts_ns);
			if (copy_to_user(buf + done, &ev, sizeof(ev))) {
				mutex_unlock(&klog_state_lock);
				return done ? done : -EFAULT;
			}
			done += sizeof(ev);
			if (++ring->read_next == ring->end)
				ring->read_next = ring->rec;
			/* Hand the slot back only after it was copied out. */
			smp_store_release(&ring->tail, ring->tail + 1);
		}
	}
	mutex_unlock(&klog_state_lock);
	return done;
}

static long klog_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct pl_klog_stats st = { .ncpus = num_possible_cpus() };
	int cpu;

	if (cmd != PL_KLOG_IOC_STATS)
		return -ENOTTY;
	for_each_possible_cpu(cpu) {
		struct klog_ring *ring = per_cpu_ptr(&klog_rings, cpu);
		u32 head, laps;

		if (cpu >= PL_KLOG_MAX_CPUS)
			break;
		head = READ_ONCE(ring->head);
		/* A wrap since the last slow path is not in head_laps yet. */
		laps = ring->head_laps + (head < ring->head_seen);
		/* Exact once tracing is off; a snapshot while it runs. */
		st.written[cpu] = (u64)laps << 32 | head;
		st.lost[cpu] = ring->lost;
	}
	return copy_to_user((void __user *)arg, &st, sizeof(st)) ? -EFAULT : 0;
}

static const struct file_operations klog_fops = {
	.owner = THIS_MODULE,
	.read = klog_read,
	.unlocked_ioctl = klog_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice klog_dev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "panlab_klog",
	.fops = &klog_fops,
};

static void klog_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		vfree(per_cpu_ptr(&klog_rings, cpu)->rec);
}

/*
 * Sets the counter clock up (see klog_ts_ns()) if CLOCK_MONOTONIC is an
 * exact function of CNTVCT, or fails with -ENODEV. ktime_get_snapshot()
 * reads the clocksource once and gives CLOCK_REALTIME at that count;
 * CLOCK_MONOTONIC is that minus offs_real (ktime_mono_to_real(0)), unless
 * the clock was set in between. Checked: the clocksource is the arch
 * counter and read CNTVCT (its count lies between two CNTVCT reads), and
 * over 1 ms both CLOCK_MONOTONIC and CLOCK_MONOTONIC_RAW advanced by
 * exactly ns_per_tick per tick (the rate is CNTFRQ, nothing slews the
 * clock).
 */
static int __init klog_clock_init(void)
{
	struct system_time_snapshot snap, later;
	u32 hz = arch_timer_get_cntfrq();
	u64 before, after;
	s64 mono_ns, mono_later_ns, ticks_ns;

	if (!hz || NSEC_PER_SEC % hz) {
		pr_err("the counter runs at %u Hz: 1e9 must be a multiple\n", hz);
		return -ENODEV;
	}
	klog_ns_per_tick = NSEC_PER_SEC / hz;
	do {
		before = __arch_counter_get_cntvct();
		ktime_get_snapshot(&snap);
		after = __arch_counter_get_cntvct();
		mono_ns = ktime_to_ns(ktime_sub(snap.real, ktime_mono_to_real(0)));
		mdelay(1);
		ktime_get_snapshot(&later);
		mono_later_ns = ktime_to_ns(ktime_sub(later.real,
						      ktime_mono_to_real(0)));
	} while (later.clock_was_set_seq != snap.clock_was_set_seq);
	ticks_ns = (s64)(later.cycles - snap.cycles) * klog_ns_per_tick;
	if (snap.cs_id != CSID_ARM_ARCH_COUNTER || snap.cycles < before ||
	    snap.cycles > after ||
	    ktime_to_ns(ktime_sub(later.raw, snap.raw)) != ticks_ns ||
	    mono_later_ns - mono_ns != ticks_ns) {
		pr_err("CLOCK_MONOTONIC is not CNTVCT * %u ns + an offset\n",
		       klog_ns_per_tick);
		return -ENODEV;
	}
	klog_clock_offset_ns = mono_ns - (s64)(snap.cycles * klog_ns_per_tick);
	pr_info("timestamps: CNTVCT * %u ns + %lld ns\n", klog_ns_per_tick,
		klog_clock_offset_ns);
	return 0;
}

static int __init klog_init(void)
{
	u32 capacity;
	int cpu, i, ret;

	/* One slot per possible pid (see struct klog_task). */
	BUILD_BUG_ON(PID_MAX_LIMIT > KLOG_TASK_SLOTS);
	for_each_kernel_tracepoint(klog_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(klog_probes); i++) {
		if (!klog_probes[i].tp) {
			pr_err("tracepoint %s not found\n", klog_probes[i].name);
			return -ENOENT;
		}
	}
	if (num_possible_cpus() > PL_KLOG_MAX_CPUS)
		return -EINVAL;
	ret = klog_clock_init();
	if (ret)
		return ret;
	capacity = buffer_bytes / num_possible_cpus() / sizeof(struct pl_event);
	/* A LOST marker and the record after it must fit. */
	if (capacity < 2)
		return -EINVAL;
	for_each_possible_cpu(cpu) {
		struct klog_ring *ring = per_cpu_ptr(&klog_rings, cpu);

		ring->rec = vmalloc(array_size(capacity, sizeof(*ring->rec)));
		if (!ring->rec) {
			ret = -ENOMEM;
			goto err_free;
		}
		ring->end = ring->rec + capacity;
		ring->capacity = capacity;
		ring->cpu = cpu;
		ring->next = ring->rec;
		ring->read_next = ring->rec;
		ring->limit = ring->end;
	}
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "panlab/klog:online",
					klog_cpu_online, klog_cpu_offline);
	if (ret < 0)
		goto err_free;
	klog_hp_state = ret;
	ret = misc_register(&klog_dev);
	if (ret)
		goto err_hp;
	pr_info("%u records per cpu\n", capacity);
	return 0;

err_hp:
	cpuhp_remove_state_nocalls(klog_hp_state);
err_free:
	klog_free();
	return ret;
}

static void __exit klog_exit(void)
{
	klog_set_enabled(false);
	misc_deregister(&klog_dev);
	cpuhp_remove_state_nocalls(klog_hp_state);
	klog_free();
}

module_init(klog_init);
module_exit(klog_exit);
MODULE_DESCRIPTION("panlab kernel event logger (Panappticon Table 1)");
MODULE_LICENSE("GPL");
