// SPDX-License-Identifier: GPL-2.0
/*
 * Instructions on the context switch: each cpu has a pinned perf event
 * counting instructions in user mode; at each switch the probe reads it
 * and logs what it advanced since the previous switch on that cpu, which
 * is what the thread switching out ran there.
 *
 * Why user mode only: the kernel's share of a slice (interrupts, timer
 * ticks, system calls, the logger's own probes) follows timing, so the same
 * work counted in every mode differs with the clock (a task 8 ms longer at
 * a lower frequency took one more tick, about 10000 instructions). The
 * driver filters with the PMU's PMXEVTYPER P bit (exclude_kernel), so the
 * filter costs nothing at the switch: it is the same one counter read.
 *
 * Why a perf event and not the PMU registers: the armv7 PMU driver owns
 * the counters (perf stat and perf record in the guest use them too), so
 * the logger asks it for one. A pinned per-cpu event stays on the PMU
 * whatever else is scheduled, and the driver widens the 32-bit counter to
 * 64 bits through the overflow interrupt. It is read as
 * perf_event_read_local() reads an active event of this cpu (the event
 * pmu's read, then the count); that function is not exported to modules.
 *
 * Why no cycles: the driver puts every cycles event on the one cycle
 * counter (armv7pmu_get_event_idx), so a pinned one would leave perf's
 * cycles unscheduled while tracing. A running thread's cycles are its time
 * times the frequency, which the trace has (CPU_FREQUENCY): the analyzer
 * derives them.
 *
 * With no PMU (no driver bound) the event cannot be created: the logger
 * then logs no SWITCH_COUNTS, says so once, and logs everything else.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/smp.h>

#include "klog.h"

struct klog_counter {
	struct perf_event *ev;	/* NULL while not counting */
	u64 last;		/* the count at the last switch */
};

static DEFINE_PER_CPU(struct klog_counter, klog_counter);
/* Set from start to stop; cpus coming online then get an event too. */
static bool klog_counting;

static void klog_counter_release(unsigned int cpu)
{
	struct klog_counter *c = per_cpu_ptr(&klog_counter, cpu);
	struct perf_event *ev = c->ev;

	if (!ev)
		return;
	/* The switch probe of this cpu sees NULL before the release. */
	WRITE_ONCE(c->ev, NULL);
	perf_event_release_kernel(ev);
}

static int klog_counter_create(unsigned int cpu)
{
	struct klog_counter *c = per_cpu_ptr(&klog_counter, cpu);
	struct perf_event_attr attr = {
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.size = sizeof(attr),
		.pinned = 1,
		.exclude_kernel = 1,
	};
	struct perf_event *ev;

	ev = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
	if (IS_ERR(ev))
		return PTR_ERR(ev);
	c->last = 0;
	/* Publishes the event after last: the probe reads both. */
	smp_store_release(&c->ev, ev);
	return 0;
}

void klog_counters_start(void)
{
	unsigned int cpu;
	int ret = 0;

	cpus_read_lock();
	WRITE_ONCE(klog_counting, true);
	for_each_online_cpu(cpu) {
		ret = klog_counter_create(cpu);
		if (ret)
			break;
	}
	cpus_read_unlock();
	if (ret) {
		klog_counters_stop();
		pr_warn("no instruction counter (%d): SWITCH_COUNTS not logged\n",
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
		klog_counter_release(cpu);
	cpus_read_unlock();
}

/* The hotplug callbacks run on the cpu itself, in process context. */
void klog_counters_cpu_online(unsigned int cpu)
{
	if (READ_ONCE(klog_counting) && klog_counter_create(cpu))
		pr_warn("cpu%u: no instruction counter\n", cpu);
}

void klog_counters_cpu_offline(unsigned int cpu)
{
	klog_counter_release(cpu);
}

/* Local irqs are off (the switch probe): nothing reschedules the event. */
void klog_counters_switch(struct klog_batch *b, u32 prev)
{
	struct klog_counter *c = this_cpu_ptr(&klog_counter);
	/* Pairs with the release in klog_counter_create(). */
	struct perf_event *ev = smp_load_acquire(&c->ev);
	u64 now;

	if (!ev)
		return;
	if (READ_ONCE(ev->oncpu) == smp_processor_id())
		ev->pmu->read(ev);
	now = local64_read(&ev->count);
	klog_put(b, PL_EV_SWITCH_COUNTS, prev, now - c->last, 0, 0);
	c->last = now;
}
