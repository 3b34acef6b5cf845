/*
 * CPU utilisation from /proc/stat: how much of a window all online cpus spent idle. The
 * activity manager's `wait idle` and the configuration daemon wait for a quiet window with it.
 * No allocation; the caller owns the snapshots.
 */
#ifndef PANLAB_CPUSTAT_H
#define PANLAB_CPUSTAT_H

#include <stdbool.h>
#include <stdint.h>

/* The "cpu" line of /proc/stat so far, in clock ticks: idle + iowait, and all fields. */
struct pl_cpu_ticks {
	uint64_t idle;
	uint64_t total;
};

/* Reads the counters; 0, or -errno (-EPROTO for a line of another format). */
int pl_cpu_ticks_read(struct pl_cpu_ticks *t);

/* Whether at least idle_pct % of the ticks from a to b (a later snapshot) were idle; false
 * for a window with no tick. */
bool pl_cpu_idle_between(const struct pl_cpu_ticks *a, const struct pl_cpu_ticks *b,
			 unsigned idle_pct);

#endif /* PANLAB_CPUSTAT_H */
