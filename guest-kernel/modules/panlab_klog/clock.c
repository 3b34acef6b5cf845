// SPDX-License-Identifier: GPL-2.0
/*
 * The panlab kernel logger's clock: records hold the counter, read()
 * converts it to CLOCK_MONOTONIC ns (klog_ts_ns() in klog.h), and the
 * module loads only if that conversion is exact.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/clocksource_ids.h>
#include <linux/delay.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>

#include "klog.h"

struct klog_clock klog_clock;

static int clock_offset_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", klog_clock.offset_ns);
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
int __init klog_clock_init(void)
{
	struct system_time_snapshot snap, later;
	u32 hz = arch_timer_get_cntfrq();
	u64 before, after;
	s64 mono_ns, mono_later_ns, ticks_ns;

	if (!hz || NSEC_PER_SEC % hz) {
		pr_err("the counter runs at %u Hz: 1e9 must be a multiple\n", hz);
		return -ENODEV;
	}
	klog_clock.ns_per_tick = NSEC_PER_SEC / hz;
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
	ticks_ns = (s64)(later.cycles - snap.cycles) * klog_clock.ns_per_tick;
	if (snap.cs_id != CSID_ARM_ARCH_COUNTER || snap.cycles < before ||
	    snap.cycles > after ||
	    ktime_to_ns(ktime_sub(later.raw, snap.raw)) != ticks_ns ||
	    mono_later_ns - mono_ns != ticks_ns) {
		pr_err("CLOCK_MONOTONIC is not CNTVCT * %u ns + an offset\n",
		       klog_clock.ns_per_tick);
		return -ENODEV;
	}
	klog_clock.offset_ns = mono_ns - (s64)(snap.cycles * klog_clock.ns_per_tick);
	pr_info("timestamps: CNTVCT * %u ns + %lld ns\n", klog_clock.ns_per_tick,
		klog_clock.offset_ns);
	return 0;
}

