// SPDX-License-Identifier: GPL-2.0
/*
 * panlab kernel logger: records the kernel-side events of Panappticon's
 * Table 1 into per-cpu ring buffers that a userspace collector drains
 * through /dev/panlab_klog.
 *
 * Probes attach to tracepoints: the kernel's own (sched, lock, power,
 * binder) and the ones guest-kernel/patches add (futex, sock). While
 * tracing is off no probe is registered, so the cost is the tracepoints'
 * own static-key branch. Each cpu's ring has one producer (that cpu, with
 * local irqs off while slots are claimed) and one consumer (the reader), so
 * the logging path takes no lock and never sleeps. A full ring drops the new
 * record and counts it; the next record that fits is preceded by a LOST
 * record carrying the count.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/fs.h>
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
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <uapi/linux/android/binder.h>

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
#include "panlab_klog_uapi.h"

struct klog_ring {
	struct pl_event *rec;
	u32 capacity;		/* records */
	/*
	 * Positions run over [0, 2 * capacity) so that a full ring and an
	 * empty one differ without needing a power-of-two capacity.
	 */
	u32 head;		/* next slot to write; written by this cpu only */
	u32 tail;		/* next slot to read; written by the reader only */
	u32 lost_pending;	/* dropped since the last stored record */
	u64 written;		/* stored, LOST markers included */
	u64 lost;
};

static DEFINE_PER_CPU(struct klog_ring, klog_rings);
static DEFINE_MUTEX(klog_state_lock);	/* enable/disable and readers */
static bool klog_enabled;
static int klog_hp_state;

static unsigned long buffer_bytes = 30 * 1024 * 1024;
module_param(buffer_bytes, ulong, 0444);
MODULE_PARM_DESC(buffer_bytes, "Total ring size over all possible cpus, bytes");

/*
 * What a task waits on, kept from its *_WAIT to its *_WAKE so that the
 * waker's probe can name the lock in a *_NOTIFY, and whether it is blocked
 * on disk IO. Indexed by pid: PID_MAX_LIMIT is 32768 on 32-bit kernels, so
 * slots are never shared. A slot is written only by its own task (the lock
 * and futex probes run in the waiter's context, sched_switch in the
 * switching task's), and read without a lock by wakers: a stale read costs
 * one NOTIFY reported as a plain WAKEUP, or the reverse.
 */
enum klog_wait_kind {
	KLOG_WAIT_NONE,
	KLOG_WAIT_FUTEX,
	KLOG_WAIT_MUTEX,
	KLOG_WAIT_SEM,
};

struct klog_task {
	unsigned long lock_id;
	u8 wait_kind;		/* enum klog_wait_kind */
	u8 io_blocked;
};

#define KLOG_TASK_SLOTS 32768
static struct klog_task *klog_tasks;

static struct klog_task *klog_task_of(pid_t pid)
{
	return &klog_tasks[pid & (KLOG_TASK_SLOTS - 1)];
}

static u32 klog_used(const struct klog_ring *ring, u32 head, u32 tail)
{
	return head >= tail ? head - tail : head + 2 * ring->capacity - tail;
}

static u32 klog_next(const struct klog_ring *ring, u32 pos)
{
	return pos + 1 == 2 * ring->capacity ? 0 : pos + 1;
}

/* No division: 32-bit ARM has none in ARMv7-A, and this is the hot path. */
static struct pl_event *klog_slot(const struct klog_ring *ring, u32 pos)
{
	return &ring->rec[pos < ring->capacity ? pos : pos - ring->capacity];
}

static __always_inline u32 klog_store(struct klog_ring *ring, u32 head,
				      u64 ts, u16 type, u32 tid, u64 a0,
				      u32 a1, u32 a2)
{
	struct pl_event *ev = klog_slot(ring, head);

	ev->ts_ns = ts;
	ev->type = type;
	ev->cpu = smp_processor_id();
	ev->tid = tid;
	ev->a0 = a0;
	ev->a1 = a1;
	ev->a2 = a2;
	ring->written++;
	return klog_next(ring, head);
}

/*
 * The ring dropped records since it last stored one: store a LOST record
 * with the count, then this one, or drop this one too. Out of line: the
 * common path stays short.
 */
static noinline void klog_record_after_loss(struct klog_ring *ring, u32 head,
					    u16 type, u32 tid, u64 a0, u32 a1,
					    u32 a2)
{
	u64 ts;

	/* Pairs with the reader's release of tail, as in klog_record(). */
	if (klog_used(ring, head, smp_load_acquire(&ring->tail)) + 2 >
	    ring->capacity) {
		ring->lost++;
		ring->lost_pending++;
		return;
	}
	ts = ktime_get_mono_fast_ns();
	head = klog_store(ring, head, ts, PL_EV_LOST, tid, ring->lost_pending,
			  0, 0);
	ring->lost_pending = 0;
	head = klog_store(ring, head, ts, type, tid, a0, a1, a2);
	/* Publish both slots only once they are filled in. */
	smp_store_release(&ring->head, head);
}

/* Inlined into each probe, which is the hot path of every event. */
static __always_inline void klog_record(u16 type, u32 tid, u64 a0, u32 a1,
					u32 a2)
{
	struct klog_ring *ring;
	unsigned long flags;
	u32 head;

	local_irq_save(flags);
	ring = this_cpu_ptr(&klog_rings);
	head = ring->head;
	if (unlikely(ring->lost_pending)) {
		klog_record_after_loss(ring, head, type, tid, a0, a1, a2);
		local_irq_restore(flags);
		return;
	}
	/* Pairs with the reader's release of tail: its slot copy is done. */
	if (unlikely(klog_used(ring, head, smp_load_acquire(&ring->tail)) >=
		     ring->capacity)) {
		ring->lost++;
		ring->lost_pending++;
		local_irq_restore(flags);
		return;
	}
	head = klog_store(ring, head, ktime_get_mono_fast_ns(), type, tid, a0,
			  a1, a2);
	/* Publish the slot only once it is filled in. */
	smp_store_release(&ring->head, head);
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

/* Scheduler: context switches, disk IO blocking (no patch needed), wakeups. */

static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	struct klog_task *nt;

	/* io_schedule() marks the task in_iowait before it sleeps. */
	if (!preempt && (prev_state & TASK_UNINTERRUPTIBLE) &&
	    prev->in_iowait) {
		klog_task_of(prev->pid)->io_blocked = 1;
		klog_record(PL_EV_IO_BLOCK, prev->pid, 0, 0, 0);
	}
	klog_record(PL_EV_CONTEXT_SWITCH, prev->pid, next->pid,
		    klog_state_of(preempt, prev_state), 0);
	nt = klog_task_of(next->pid);
	if (nt->io_blocked) {
		nt->io_blocked = 0;
		klog_record(PL_EV_IO_RESUME, next->pid, 0, 0, 0);
	}
}

/*
 * sched_waking runs in the waker's context on the waker's cpu, unlike
 * sched_wakeup, which may run on the wakee's cpu when the wakeup is queued
 * there. A wakeup from interrupt context has no waking thread: tid 0.
 */
static void probe_sched_waking(void *data, struct task_struct *p)
{
	struct klog_task *t = klog_task_of(p->pid);
	u32 waker = in_task() ? current->pid : 0;

	switch (READ_ONCE(t->wait_kind)) {
	case KLOG_WAIT_FUTEX:
		/* probe_futex_wake() already logged FUTEX_NOTIFY. */
		if (in_task())
			return;
		break;
	case KLOG_WAIT_MUTEX:
		klog_record(PL_EV_MUTEX_NOTIFY, waker, READ_ONCE(t->lock_id),
			    p->pid, 0);
		return;
	case KLOG_WAIT_SEM:
		klog_record(PL_EV_SEM_NOTIFY, waker, READ_ONCE(t->lock_id),
			    p->pid, 0);
		return;
	}
	klog_record(PL_EV_WAKEUP, waker, p->pid, task_cpu(p), 0);
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
	t->io_blocked = 0;
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

/* Futex: tracepoints of patch 0001, in the waiter's and the waker's context. */

static void probe_futex_wait(void *data, unsigned long lock_id)
{
	struct klog_task *t = klog_task_of(current->pid);

	WRITE_ONCE(t->lock_id, lock_id);
	WRITE_ONCE(t->wait_kind, KLOG_WAIT_FUTEX);
	klog_record(PL_EV_FUTEX_WAIT, current->pid, lock_id, 0, 0);
}

static void probe_futex_resume(void *data, unsigned long lock_id)
{
	WRITE_ONCE(klog_task_of(current->pid)->wait_kind, KLOG_WAIT_NONE);
	klog_record(PL_EV_FUTEX_WAKE, current->pid, lock_id, 0, 0);
}

static void probe_futex_wake(void *data, unsigned long lock_id,
			     struct task_struct *waiter)
{
	klog_record(PL_EV_FUTEX_NOTIFY, current->pid, lock_id, waiter->pid, 0);
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
	{ "futex_wait", probe_futex_wait },
	{ "futex_resume", probe_futex_resume },
	{ "futex_wake", probe_futex_wake },
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
		klog_unregister(ARRAY_SIZE(klog_probes));
		goto out;
	}
	/* Waits that began while tracing was off are not known. */
	memset(klog_tasks, 0, KLOG_TASK_SLOTS * sizeof(*klog_tasks));
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
	WRITE_ONCE(klog_enabled, true);
	klog_dump_threads();
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
			struct pl_event *ev = klog_slot(ring, ring->tail);

			if (copy_to_user(buf + done, ev, sizeof(*ev))) {
				mutex_unlock(&klog_state_lock);
				return done ? done : -EFAULT;
			}
			done += sizeof(*ev);
			/* Hand the slot back only after it was copied out. */
			smp_store_release(&ring->tail,
					  klog_next(ring, ring->tail));
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

		if (cpu >= PL_KLOG_MAX_CPUS)
			break;
		/* Exact once tracing is off; a snapshot while it runs. */
		st.written[cpu] = ring->written;
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
	vfree(klog_tasks);
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
	capacity = buffer_bytes / num_possible_cpus() / sizeof(struct pl_event);
	/* A LOST marker and the record after it must fit. */
	if (capacity < 2)
		return -EINVAL;
	klog_tasks = vzalloc(array_size(KLOG_TASK_SLOTS, sizeof(*klog_tasks)));
	if (!klog_tasks)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct klog_ring *ring = per_cpu_ptr(&klog_rings, cpu);

		ring->rec = vmalloc(array_size(capacity, sizeof(*ring->rec)));
		if (!ring->rec) {
			ret = -ENOMEM;
			goto err_free;
		}
		ring->capacity = capacity;
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
