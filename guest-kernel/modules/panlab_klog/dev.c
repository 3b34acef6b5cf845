// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/panlab_klog, the panlab kernel logger's user ABI
 * (panlab/klog_uapi.h): read() drains the rings, the PL_KLOG_IOC_STATS
 * ioctl counts what each cpu kept and lost.
 */
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "klog.h"
#include "panlab/klog_uapi.h"

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

int klog_dev_register(void)
{
	return misc_register(&klog_dev);
}

void klog_dev_unregister(void)
{
	misc_deregister(&klog_dev);
}
