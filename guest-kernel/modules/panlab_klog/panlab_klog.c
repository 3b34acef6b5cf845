// SPDX-License-Identifier: GPL-2.0
/*
 * panlab kernel logger: records the kernel-side events of Panappticon's
 * Table 1 into per-cpu ring buffers that a userspace collector drains
 * through /dev/panlab_klog.
 *
 * Probes attach to the kernel's existing tracepoints. While tracing is off
 * no probe is registered, so the cost is the tracepoints' own static-key
 * branch. Each cpu's ring has one producer (that cpu, with local irqs off
 * while a slot is claimed) and one consumer (the reader), so the logging
 * path takes no lock and never sleeps. A full ring drops the new record and
 * counts it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

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
	u64 written;
	u64 lost;
};

static DEFINE_PER_CPU(struct klog_ring, klog_rings);
static DEFINE_MUTEX(klog_state_lock);	/* enable/disable and readers */
static bool klog_enabled;

static unsigned long buffer_bytes = 30 * 1024 * 1024;
module_param(buffer_bytes, ulong, 0444);
MODULE_PARM_DESC(buffer_bytes, "Total ring size over all possible cpus, bytes");

static u32 klog_used(const struct klog_ring *ring, u32 head, u32 tail)
{
	return head >= tail ? head - tail : head + 2 * ring->capacity - tail;
}

static u32 klog_next(const struct klog_ring *ring, u32 pos)
{
	return pos + 1 == 2 * ring->capacity ? 0 : pos + 1;
}

static void klog_record(u16 type, u32 tid, u64 a0, u32 a1, u32 a2)
{
	struct klog_ring *ring;
	struct pl_event *ev;
	unsigned long flags;
	u32 head;

	local_irq_save(flags);
	ring = this_cpu_ptr(&klog_rings);
	head = ring->head;
	if (klog_used(ring, head, smp_load_acquire(&ring->tail)) >=
	    ring->capacity) {
		ring->lost++;
		local_irq_restore(flags);
		return;
	}
	ev = &ring->rec[head % ring->capacity];
	ev->ts_ns = ktime_get_mono_fast_ns();
	ev->type = type;
	ev->cpu = smp_processor_id();
	ev->tid = tid;
	ev->a0 = a0;
	ev->a1 = a1;
	ev->a2 = a2;
	ring->written++;
	/* Publish the slot only once it is filled in. */
	smp_store_release(&ring->head, klog_next(ring, head));
	local_irq_restore(flags);
}

static u32 klog_state_of(unsigned int state)
{
	if (state == TASK_RUNNING)
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

static void probe_sched_switch(void *data, bool preempt,
			       struct task_struct *prev,
			       struct task_struct *next,
			       unsigned int prev_state)
{
	klog_record(PL_EV_CONTEXT_SWITCH, prev->pid, next->pid,
		    klog_state_of(prev_state), 0);
}

static void probe_sched_wakeup(void *data, struct task_struct *p)
{
	klog_record(PL_EV_WAKEUP, current->pid, p->pid, task_cpu(p), 0);
}

static void probe_sched_process_fork(void *data, struct task_struct *parent,
				     struct task_struct *child)
{
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

struct klog_probe {
	const char *name;
	void *func;
	struct tracepoint *tp;
};

static struct klog_probe klog_probes[] = {
	{ "sched_switch", probe_sched_switch },
	{ "sched_wakeup", probe_sched_wakeup },
	{ "sched_wakeup_new", probe_sched_wakeup },
	{ "sched_process_fork", probe_sched_process_fork },
	{ "sched_process_exit", probe_sched_process_exit },
	{ "task_rename", probe_task_rename },
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
		klog_unregister(ARRAY_SIZE(klog_probes));
		klog_enabled = false;
		goto out;
	}
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
	klog_enabled = true;
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
		u32 head = smp_load_acquire(&ring->head);

		while (ring->tail != head &&
		       len - done >= sizeof(struct pl_event)) {
			struct pl_event *ev =
				&ring->rec[ring->tail % ring->capacity];

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

static void klog_free_rings(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		vfree(per_cpu_ptr(&klog_rings, cpu)->rec);
}

static int __init klog_init(void)
{
	u32 capacity;
	int cpu, i, ret;

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
	if (!capacity)
		return -EINVAL;
	for_each_possible_cpu(cpu) {
		struct klog_ring *ring = per_cpu_ptr(&klog_rings, cpu);

		ring->rec = vmalloc(array_size(capacity, sizeof(*ring->rec)));
		if (!ring->rec) {
			klog_free_rings();
			return -ENOMEM;
		}
		ring->capacity = capacity;
	}
	ret = misc_register(&klog_dev);
	if (ret) {
		klog_free_rings();
		return ret;
	}
	pr_info("%u records per cpu\n", capacity);
	return 0;
}

static void __exit klog_exit(void)
{
	klog_set_enabled(false);
	misc_deregister(&klog_dev);
	klog_free_rings();
}

module_init(klog_init);
module_exit(klog_exit);
MODULE_DESCRIPTION("panlab kernel event logger (Panappticon Table 1)");
MODULE_LICENSE("GPL");
