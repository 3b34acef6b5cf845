// SPDX-License-Identifier: GPL-2.0
/*
 * The panlab kernel logger's probes. They attach to tracepoints: the
 * kernel's own (sched, lock, power, irq, binder, hrtimer) and the ones
 * guest-kernel/patches add (futex, sock); wait queue sleeps and wakes are
 * read from the fields patch 0003 adds to each task, and what a poll waits
 * on and what woke it from those of patch 0004. While tracing is off no probe is
 * registered, so the cost is the tracepoints' own static-key branch.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/cpufreq.h>
#include <linux/interrupt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/threads.h>
#include <linux/tracepoint.h>
#include <uapi/linux/android/binder.h>

#include <trace/events/irq.h>
#include <trace/events/lock.h>
#include <trace/events/power.h>
#include <trace/events/sock.h>
#include <trace/events/timer.h>

/*
 * struct binder_transaction (debug_id, flags, to_proc) is private to the
 * binder driver, and its tracepoints pass only a pointer to it. Kbuild adds
 * drivers/android to the include path so that the probes can read the
 * fields the driver's own trace events read.
 */
#include "binder_internal.h"

#include "klog.h"

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
	/* Not a lock, futex or disk: the files it waits on (files.c). */
	if (pt->wait_kind == KLOG_WAIT_NONE ||
	    pt->wait_kind == KLOG_WAIT_WAITQUEUE) {
		u32 kinds = klog_files_waited(prev);

		if (kinds)
			klog_put(b, PL_EV_FILE_WAIT, prev->pid, kinds, 0, 0);
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
	klog_counters_switch(&b, prev->pid);
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
 * Timers: whether this cpu runs an hrtimer's expiry function (a sleep's,
 * a poll's timeout, an interval timer's signal, a timerfd's), so that a
 * wake-up in it is named PL_FILE_TIMER. A depth, not a flag: the hrtimer
 * interrupt may run hard timers while the softirq runs a soft one.
 */
static DEFINE_PER_CPU(unsigned int, klog_in_hrtimer);

static void probe_hrtimer_expire_entry(void *data, struct hrtimer *timer,
				       ktime_t *now)
{
	this_cpu_inc(klog_in_hrtimer);
}

static void probe_hrtimer_expire_exit(void *data, struct hrtimer *timer)
{
	/* Tracing may start inside an expiry. */
	if (this_cpu_read(klog_in_hrtimer))
		this_cpu_dec(klog_in_hrtimer);
}

/*
 * What a wake-up is for: a timer's expiry, whatever file it goes through
 * (a timerfd, the signalfd of an interval timer's SIGALRM), or else the
 * file whose poll wake function the waker runs (patch 0004's waking_file).
 */
static u32 klog_wake_kind(void)
{
	struct file *f = current->waking_file;

	if (this_cpu_read(klog_in_hrtimer))
		return PL_FILE_TIMER;
	return f ? klog_file_kind(f) : PL_FILE_UNKNOWN;
}

/*
 * sched_waking runs in the waker's context on the waker's cpu, unlike
 * sched_wakeup, which may run on the wakee's cpu when the wakeup is queued
 * there. A wakeup from interrupt context has no waking thread: tid 0. Nor
 * has a kernel thread's wake-up through a file: that is deferred kernel
 * work on no user thread's behalf (a pty's flip buffer, flushed by a
 * kworker), so a reader woken by it is not joined to the kworker's work.
 * A user thread's wake-up through a file is its write reaching the reader
 * (a Unix socket's sock_def_readable() in its sendmsg, a pipe's write).
 */
static noinline void klog_waking(struct task_struct *p, struct klog_task *t,
				 u8 kind)
{
	bool deferred = current->flags & PF_KTHREAD && current->waking_file;
	u32 waker = in_task() && !deferred ? current->pid : 0;
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
		klog_record(type, waker, p->pid, task_cpu(p), klog_wake_kind());
	else
		klog_record(type, waker, READ_ONCE(t->lock_id), p->pid,
			    type == PL_EV_WAITQUEUE_NOTIFY ? klog_wake_kind() : 0);
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

/*
 * Interrupts on an idle cpu: a thread woken onto it waits while the cpu
 * finishes the handler or softirq that woke it, so these records name that
 * wait. On a busy cpu that time is the running thread's: nothing is logged.
 * An irq's name goes with its first entry of the trace (irqs past
 * KLOG_NAMED_IRQS go unnamed).
 */
#define KLOG_NAMED_IRQS 1024
static DECLARE_BITMAP(klog_named_irqs, KLOG_NAMED_IRQS);

/* IRQ_NAME records: the name in parts of 12 bytes, NUL padded. */
static void klog_irq_name(int irq, const char *name)
{
	u32 w[3 * PL_IRQ_NAME_PARTS] = { 0 };
	size_t len = name ? strnlen(name, sizeof(w)) : 0;
	u64 part;

	if (len)
		memcpy(w, name, len);
	for (part = 0; part < PL_IRQ_NAME_PARTS; part++) {
		const u32 *p = &w[3 * part];

		if (part && 12 * part >= len)
			break;
		klog_record(PL_EV_IRQ_NAME, 0,
			    (u32)irq | part << 16 | (u64)p[0] << 32, p[1],
			    p[2]);
	}
}

static void probe_irq_handler_entry(void *data, int irq,
				    struct irqaction *action)
{
	if (!is_idle_task(current))
		return;
	if (irq >= 0 && irq < KLOG_NAMED_IRQS &&
	    !test_and_set_bit(irq, klog_named_irqs))
		klog_irq_name(irq, action->name);
	klog_record(PL_EV_IRQ_ENTRY, 0, irq, PL_IRQ_HARD, 0);
}

static void probe_irq_handler_exit(void *data, int irq,
				   struct irqaction *action, int ret)
{
	if (is_idle_task(current))
		klog_record(PL_EV_IRQ_EXIT, 0, irq, PL_IRQ_HARD, 0);
}

static void probe_softirq_entry(void *data, unsigned int vec_nr)
{
	if (is_idle_task(current))
		klog_record(PL_EV_IRQ_ENTRY, 0, vec_nr, PL_IRQ_SOFT, 0);
}

static void probe_softirq_exit(void *data, unsigned int vec_nr)
{
	if (is_idle_task(current))
		klog_record(PL_EV_IRQ_EXIT, 0, vec_nr, PL_IRQ_SOFT, 0);
}

/* Hotplug callbacks of CPUHP_AP_ONLINE_DYN run on the cpu concerned. */
int klog_cpu_online(unsigned int cpu)
{
	klog_counters_cpu_online(cpu);
	if (READ_ONCE(klog_enabled))
		klog_record(PL_EV_CPU_ONLINE, current->pid, 0, cpu, 0);
	return 0;
}

int klog_cpu_offline(unsigned int cpu)
{
	klog_counters_cpu_offline(cpu);
	if (READ_ONCE(klog_enabled))
		klog_record(PL_EV_CPU_OFFLINE, current->pid, 0, cpu, 0);
	return 0;
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
	{ "irq_handler_entry", probe_irq_handler_entry },
	{ "irq_handler_exit", probe_irq_handler_exit },
	{ "softirq_entry", probe_softirq_entry },
	{ "softirq_exit", probe_softirq_exit },
	/* The exit first: an expiry counted at its entry is counted down. */
	{ "hrtimer_expire_exit", probe_hrtimer_expire_exit },
	{ "hrtimer_expire_entry", probe_hrtimer_expire_entry },
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

int klog_probes_find(void)
{
	int i;

	/* One slot per possible pid (see struct klog_task). */
	BUILD_BUG_ON(PID_MAX_LIMIT > KLOG_TASK_SLOTS);
	/* The trace names softirqs by the kernel's vector order. */
	BUILD_BUG_ON(NR_SOFTIRQS != PL_SOFTIRQS);
	for_each_kernel_tracepoint(klog_find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(klog_probes); i++) {
		if (!klog_probes[i].tp) {
			pr_err("tracepoint %s not found\n", klog_probes[i].name);
			return -ENOENT;
		}
	}
	return 0;
}

/* Attaches every probe, or none. */
int klog_probes_register(void)
{
	int i, ret;

	/* Waits that began while tracing was off are not known. */
	memset(klog_tasks, 0, sizeof(klog_tasks));
	bitmap_zero(klog_named_irqs, KLOG_NAMED_IRQS);
	for_each_possible_cpu(i)
		per_cpu(klog_in_hrtimer, i) = 0;
	for (i = 0; i < ARRAY_SIZE(klog_probes); i++) {
		ret = tracepoint_probe_register(klog_probes[i].tp,
						klog_probes[i].func, NULL);
		if (ret) {
			pr_err("cannot attach to %s: %d\n",
			       klog_probes[i].name, ret);
			klog_unregister(i);
			return ret;
		}
	}
	return 0;
}

void klog_probes_unregister(void)
{
	klog_unregister(ARRAY_SIZE(klog_probes));
}

/* What a trace needs from its start: every thread's name, each frequency. */
void klog_probes_dump(void)
{
	klog_dump_threads();
	klog_dump_frequencies();
}
