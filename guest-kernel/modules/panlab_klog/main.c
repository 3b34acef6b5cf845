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
 *
 * This file holds the switch (the enable parameter) and module load and
 * unload; klog.h lists the other parts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/kstrtox.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

#include "klog.h"
#include "panlab/klog_uapi.h"

DEFINE_MUTEX(klog_state_lock);	/* enable/disable and readers */
bool klog_enabled;
static int klog_hp_state;

static int klog_set_enabled(bool on)
{
	int ret = 0;

	mutex_lock(&klog_state_lock);
	if (on == klog_enabled)
		goto out;
	if (!on) {
		WRITE_ONCE(klog_enabled, false);
		klog_kprobes_unregister();
		klog_probes_unregister();
		klog_counters_stop();
		goto out;
	}
	klog_counters_start();
	ret = klog_probes_register();
	if (ret) {
		klog_counters_stop();
		goto out;
	}
	ret = klog_kprobes_register();
	if (ret) {
		klog_probes_unregister();
		klog_counters_stop();
		goto out;
	}
	WRITE_ONCE(klog_enabled, true);
	klog_probes_dump();
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

static int __init klog_init(void)
{
	u32 capacity;
	int ret;

	ret = klog_probes_find();
	if (ret)
		return ret;
	if (num_possible_cpus() > PL_KLOG_MAX_CPUS)
		return -EINVAL;
	ret = klog_clock_init();
	if (ret)
		return ret;
	ret = klog_rings_alloc(&capacity);
	if (ret)
		return ret;
	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "panlab/klog:online",
					klog_cpu_online, klog_cpu_offline);
	if (ret < 0)
		goto err_free;
	klog_hp_state = ret;
	ret = klog_dev_register();
	if (ret)
		goto err_hp;
	pr_info("%u records per cpu\n", capacity);
	return 0;

err_hp:
	cpuhp_remove_state_nocalls(klog_hp_state);
err_free:
	klog_rings_free();
	return ret;
}

static void __exit klog_exit(void)
{
	klog_set_enabled(false);
	klog_dev_unregister();
	cpuhp_remove_state_nocalls(klog_hp_state);
	klog_rings_free();
}

module_init(klog_init);
module_exit(klog_exit);
MODULE_DESCRIPTION("panlab kernel event logger (Panappticon Table 1)");
MODULE_LICENSE("GPL");
