/*
 * The one clock of panlab: CLOCK_MONOTONIC in ns, which the kernel logger
 * reads as ktime_get_ns.
 *
 * pl_now_ns() is clock_gettime(CLOCK_MONOTONIC): what services and apps use
 * for timers and delays.
 *
 * pl_trace_clock_ns() is the same clock for the tracer's timestamps, read
 * without a call into the vDSO on ARM: the virtual counter CNTVCT (ARM ARM
 * B8.1.1; Linux sets CNTKCTL.PL0VCTEN so user code may read it), times
 * ns_per_tick, plus an offset. The guest kernel's clocksource is that counter
 * with an exact mult/shift (62.5 MHz: 16 ns per tick) and no NTP slewing, so
 * CLOCK_MONOTONIC = CNTVCT * ns_per_tick + offset holds exactly for the whole
 * boot. The offset comes from the kernel logger's module parameter
 * (PL_CLOCK_OFFSET_PARAM) when it is there, else it is measured against
 * clock_gettime (error bounded by error_ns, below). Elsewhere (x86 hosts, a
 * counter frequency that does not divide 1e9, another clocksource) it falls
 * back to clock_gettime.
 *
 * Ownership: process-wide state, set up once on first use (thread-safe).
 */
#ifndef PANLAB_CLOCK_H
#define PANLAB_CLOCK_H

#include <stdint.h>

#define PL_CLOCK_OFFSET_PARAM "/sys/module/panlab_klog/parameters/clock_offset_ns"

uint64_t pl_now_ns(void);

enum pl_trace_clock_source {
	PL_TRACE_CLOCK_GETTIME = 0,	/* clock_gettime: no usable counter */
	PL_TRACE_CLOCK_COUNTER_PARAM,	/* counter + the kernel logger's offset: exact */
	PL_TRACE_CLOCK_COUNTER_MEASURED,	/* counter + an offset measured here */
};

struct pl_trace_clock {
	uint32_t ns_per_tick;	/* 0 until set up, and with the clock_gettime source */
	uint32_t source;	/* enum pl_trace_clock_source; set before ns_per_tick */
	int64_t offset_ns;	/* CLOCK_MONOTONIC ns at counter 0 */
	uint64_t error_ns;	/* bound on |offset_ns - the kernel's|; 0 when exact */
};

/* Read by the inline fast path; written once by pl_trace_clock_setup. */
extern struct pl_trace_clock pl_trace_clock_state;

/* Sets the clock up (once; later calls return at once) and returns its state. */
const struct pl_trace_clock *pl_trace_clock_setup(void);

/*
 * Measures the offset against clock_gettime (what set-up does without the module parameter):
 * 0 with *offset_ns and its bound *error_ns, -1 where there is no usable counter.
 */
int pl_trace_clock_measure(int64_t *offset_ns, uint64_t *error_ns);

/* Slow path of pl_trace_clock_ns: before set-up, or with the clock_gettime source. */
uint64_t pl_trace_clock_slow_ns(void);

#if defined(__arm__)
/* CNTVCT, the virtual count (ARM ARM B4.1.34): MRRC p15, 1, <Rt>, <Rt2>, c14. */
static inline uint64_t pl_counter_ticks(void)
{
	uint64_t v;
	__asm__ __volatile__("mrrc p15, 1, %Q0, %R0, c14" : "=r"(v));
	return v;
}
#endif

/* CLOCK_MONOTONIC ns for trace records: about 10 instructions on the counter path. */
static inline uint64_t pl_trace_clock_ns(void)
{
#if defined(__arm__)
	uint32_t k = pl_trace_clock_state.ns_per_tick;
	if (__builtin_expect(k != 0, 1))
		return pl_counter_ticks() * k + (uint64_t)pl_trace_clock_state.offset_ns;
#endif
	return pl_trace_clock_slow_ns();
}

#endif /* PANLAB_CLOCK_H */
