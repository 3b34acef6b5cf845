/* See include/panlab/clock.h. */
#include "panlab/clock.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Tries at measuring the offset; the narrowest bracket wins (clock.h). */
#define OFFSET_TRIES 16
#define CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"
/* The arm_arch_timer driver's clocksource: the counter the vDSO and ktime read. */
#define ARCH_COUNTER_NAME "arch_sys_counter"

struct pl_trace_clock pl_trace_clock_state;
static pthread_once_t setup_once = PTHREAD_ONCE_INIT;

uint64_t pl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__arm__)
/* CNTFRQ (ARM ARM B4.1.21): readable at PL0 when CNTKCTL allows a counter read. */
static uint32_t counter_hz(void)
{
	uint32_t hz;
	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(hz));
	return hz;
}

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	char *got = fgets(buf, (int)len, f);
	fclose(f);
	return got ? 0 : -1;
}

/* The kernel logger's offset (clock.h), if its module has the parameter. */
static int offset_from_param(int64_t *offset_ns)
{
	char line[32];
	if (read_line(PL_CLOCK_OFFSET_PARAM, line, sizeof(line)) != 0)
		return -1;
	return sscanf(line, "%" SCNd64, offset_ns) == 1 ? 0 : -1;
}

/*
 * clock_gettime reads the counter once, at some tick c with c0 <= c <= c1, and returns
 * c * k + offset. So the offset is t - c * k for an unknown c in [c0, c1]: taking the middle
 * of the narrowest of OFFSET_TRIES brackets is off by at most half its width in ticks.
 */
static void offset_measured(uint32_t k, int64_t *offset_ns, uint64_t *error_ns)
{
	*offset_ns = 0;
	*error_ns = UINT64_MAX;
	uint64_t best_width = UINT64_MAX;
	for (int i = 0; i < OFFSET_TRIES; i++) {
		uint64_t c0 = pl_counter_ticks();
		uint64_t t = pl_now_ns();
		uint64_t c1 = pl_counter_ticks();
		if (c1 - c0 >= best_width)
			continue;
		best_width = c1 - c0;
		*offset_ns = (int64_t)(t - (c0 + best_width / 2) * k);
		*error_ns = (best_width - best_width / 2) * k;
	}
}
#endif

static void setup(void)
{
#if defined(__arm__)
	char name[64];
	uint32_t hz = counter_hz();
	/* Exact only with a whole number of ns per tick and the counter as the kernel's clock. */
	if (hz == 0 || 1000000000u % hz != 0 || read_line(CLOCKSOURCE, name, sizeof(name)) != 0 ||
	    strcmp(name, ARCH_COUNTER_NAME "\n") != 0)
		return;
	struct pl_trace_clock c = { .source = PL_TRACE_CLOCK_COUNTER_PARAM, .error_ns = 0 };
	if (offset_from_param(&c.offset_ns) != 0) {
		c.source = PL_TRACE_CLOCK_COUNTER_MEASURED;
		offset_measured(1000000000u / hz, &c.offset_ns, &c.error_ns);
	}
	pl_trace_clock_state.source = c.source;
	pl_trace_clock_state.offset_ns = c.offset_ns;
	pl_trace_clock_state.error_ns = c.error_ns;
	/* Last: a nonzero ns_per_tick turns the fast path on. */
	__atomic_store_n(&pl_trace_clock_state.ns_per_tick, 1000000000u / hz, __ATOMIC_RELEASE);
#endif
}

const struct pl_trace_clock *pl_trace_clock_setup(void)
{
	pthread_once(&setup_once, setup);
	return &pl_trace_clock_state;
}

int pl_trace_clock_measure(int64_t *offset_ns, uint64_t *error_ns)
{
#if defined(__arm__)
	uint32_t k = pl_trace_clock_setup()->ns_per_tick;
	if (k) {
		offset_measured(k, offset_ns, error_ns);
		return 0;
	}
#endif
	(void)offset_ns;
	(void)error_ns;
	return -1;
}

uint64_t pl_trace_clock_slow_ns(void)
{
	pl_trace_clock_setup();
#if defined(__arm__)
	if (pl_trace_clock_state.ns_per_tick)
		return pl_trace_clock_ns();
#endif
	return pl_now_ns();
}
