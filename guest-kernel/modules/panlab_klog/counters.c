// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware counters on the context switch: each cpu has two pinned perf
 * events, instructions and cycles, counting in every mode; at each switch
 * the probe reads both and logs what they advanced since the previous
 * switch on that cpu, which is what the thread switching out ran there
 * (its interrupts and the logger's own probes included).
 *
 * Why perf events and not the PMU registers: the armv7 PMU driver owns
 * the counters (perf stat and perf record in the guest use them too), so
 * the logger asks it for two of them. Pinned per-cpu events stay on the
 * PMU whatever else is scheduled, and the driver widens the 32-bit
 * counters to 64 bits through the overflow interrupt. They are read as
 * perf_event_read_local() reads an active event of this cpu (the event
 * pmu's read, then the count); that function is not exported to modules.
 *
 * With no PMU (no driver bound) the events cannot be created: the logger
 * then logs no SWITCH_COUNTS, says so once, and logs everything else.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "klog.h"

enum { KLOG_CNT_INSNS, KLOG_CNT_CYCLES, KLOG_CNTS };

struct klog_counters {
	struct perf_event *ev[KLOG_CNTS];	/* NULL while not counting */
	u64 last[KLOG_CNTS];			/* the counts at the last switch */
};

static DEFINE_PER_CPU(struct klog_counters, klog_counters);
/* Set from start to stop; cpus coming online then get events too. */
static bool klog_counting;

static const u64 klog_cnt_config[KLOG_CNTS] = {
	[KLOG_CNT_INSNS] = PERF_COUNT_HW_INSTRUCTIONS,
	[KLOG_CNT_CYCLES] = PERF_COUNT_HW_CPU_CYCLES,
};

static void klog_counters_release(unsigned int cpu)
{
	struct klog_counters *c = per_cpu_ptr(&klog_counters, cpu);
	int i;

	for (i = 0; i < KLOG_CNTS; i++) {
		struct perf_event *ev = c->ev[i];

		if (!ev)
			continue;
		/* The switch probe of this cpu sees NULL before the release. */
		WRITE_ONCE(c->ev[i], NULL);
		perf_event_release_kernel(ev);
	}
}

static int klog_counters_create(unsigned int cpu)
{
	struct klog_counters *c = per_cpu_ptr(&klog_counters, cpu);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(attr),
		.pinned = 1,
	};
	struct perf_event *ev[KLOG_CNTS];
	int i;

	for (i = 0; i < KLOG_CNTS; i++) {
		attr.config = klog_cnt_config[i];
		ev[i] = perf_event_create_kernel_counter(&attr, cpu, NULL,
							 NULL, NULL);
		if (IS_ERR(ev[i])) {
			int ret = PTR_ERR(ev[i]);

			while (i--)
				perf_event_release_kernel(ev[i]);
			return ret;
		}
	}
	for (i = 0; i < KLOG_CNTS; i++) {
		c->last[i] = 0;
		/* Publishes the event after its last[]: the probe reads both. */
		smp_store_release(&c->ev[i], ev[i]);
	}
	return 0;
}

void klog_counters_start(void)
{
	unsigned int cpu;
	int ret = 0;

	cpus_read_lock();
	WRITE_ONCE(klog_counting, true);
	for_each_online_cpu(cpu) {
		ret = klog_counters_create(cpu);
		if (ret)
			break;
	}
	cpus_read_unlock();
	if (ret) {
		klog_counters_stop();
		pr_warn("no hardware counters (%d): SWITCH_COUNTS not logged\n",
			ret);
	}
}

/* After the probes are unregistered: no probe reads the events any more. */
void klog_counters_stop(void)
{
	unsigned int cpu;

	cpus_read_lock();
	WRITE_ONCE(klog_counting, false);
	for_each_possible_cpu(cpu)
		klog_counters_release(cpu);
	cpus_read_unlock();
}

/* The hotplug callbacks run on the cpu itself, in process context. */
void klog_counters_cpu_online(unsigned int cpu)
{
	if (READ_ONCE(klog_counting) && klog_counters_create(cpu))
		pr_warn("cpu%u: no hardware counters\n", cpu);
}

void klog_counters_cpu_offline(unsigned int cpu)
{
	klog_counters_release(cpu);
}

/* Local irqs are off (the switch probe): nothing reschedules the events. */
void klog_counters_switch(struct klog_batch *b, u32 prev)
{
	struct klog_counters *c = this_cpu_ptr(&klog_counters);
	int cpu = smp_processor_id();
	u64 d[KLOG_CNTS];
	int i;

	for (i = 0; i < KLOG_CNTS; i++) {
		/* Pairs with the release in klog_counters_create(). */
		struct perf_event *ev = smp_load_acquire(&c->ev[i]);
		u64 now;

		if (!ev)
			return;
		if (READ_ONCE(ev->oncpu) == cpu)
			ev->pmu->read(ev);
		now = local64_read(&ev->count);
		d[i] = now - c->last[i];
		c->last[i] = now;
	}
	klog_put(b, PL_EV_SWITCH_COUNTS, prev, d[KLOG_CNT_INSNS],
		 (u32)d[KLOG_CNT_CYCLES], (u32)(d[KLOG_CNT_CYCLES] >> 32));
}
