/*
 * panlab-ulog-bench: the userspace logger's cost per event (issue 4, bench),
 * and a check of its clock.
 *
 *   panlab-ulog-bench [EVENTS]   logs EVENTS (default 100,000) from one thread into a private
 *                                ring of RING_RECORDS, drained between laps outside the timing
 *                                (the collector's periodic drain), with tracing on and then off,
 *                                and prints the difference per event: events=N ns_per_event=X
 *                                first_touch_ns_per_event=F off_ns_per_event=Y. F is the first
 *                                lap's, when each page of the ring is touched for the first time
 *                                (a tmpfs page fault every 128 records). Under QEMU's -icount
 *                                shift=2 every guest instruction is 4 ns, so ns/4 is the count
 *                                of guest instructions per event.
 *   panlab-ulog-bench --clock    checks that the trace clock (clock.h) is CLOCK_MONOTONIC: each of
 *                                CLOCK_CHECKS clock_gettime readings must lie between the trace
 *                                clock read before and after it, give or take the offset's error
 *                                bound and one counter tick; and a measured offset must agree
 *                                with the kernel logger's within the measured bound. Exit 0 and
 *                                "panlab-ulog-bench: clock ok ..." or 1 and one line.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panlab/clock.h"
#include "panlab/die.h"
#include "panlab/ulog.h"
#include "panlab/ulog_reader.h"

#define CLOCK_CHECKS 10000
/* 128 KiB: a ring of the size a busy thread drained every 100 ms fills (README.md). */
#define RING_RECORDS 4096u

static uint64_t run(uint32_t n)
{
	uint64_t t0 = pl_now_ns();
	for (uint32_t i = 0; i < n; i++)
		pl_ulog(PL_EV_ENQUEUE_MSG, i, 1, 0);
	return pl_now_ns() - t0;
}

/* Logs n events in laps of one ring, drained between laps (untimed), as the collector does. */
static uint64_t run_steady(struct pl_ulog_reader *r, uint32_t n)
{
	static struct pl_event drained[RING_RECORDS];
	uint64_t ns = 0;
	for (uint32_t done = 0; done < n; done += RING_RECORDS) {
		ns += run(n - done < RING_RECORDS ? n - done : RING_RECORDS);
		while (pl_ulog_reader_drain(r, 0, drained, RING_RECORDS) > 0)
			;
	}
	return ns;
}

static const char *source_name(uint32_t source)
{
	switch (source) {
	case PL_TRACE_CLOCK_COUNTER_PARAM: return "counter+param";
	case PL_TRACE_CLOCK_COUNTER_MEASURED: return "counter+measured";
	default: return "clock_gettime";
	}
}

static int check_clock(void)
{
	const struct pl_trace_clock *c = pl_trace_clock_setup();
	uint64_t tol = c->error_ns + c->ns_per_tick;
	int64_t worst_early = 0, worst_late = 0;	/* how far clock_gettime fell outside [a, b] */
	for (int i = 0; i < CLOCK_CHECKS; i++) {
		uint64_t a = pl_trace_clock_ns(), g = pl_now_ns(), b = pl_trace_clock_ns();
		if (g < a && (int64_t)(a - g) > worst_early)
			worst_early = (int64_t)(a - g);
		if (g > b && (int64_t)(g - b) > worst_late)
			worst_late = (int64_t)(g - b);
	}
	printf("panlab-ulog-bench: clock source=%s ns_per_tick=%" PRIu32 " offset_ns=%" PRId64
	       " error_ns=%" PRIu64 " worst_early_ns=%" PRId64 " worst_late_ns=%" PRId64 "\n",
	       source_name(c->source), c->ns_per_tick, c->offset_ns, c->error_ns, worst_early,
	       worst_late);
	if ((uint64_t)worst_early > tol || (uint64_t)worst_late > tol)
		pl_die("clock: clock_gettime off the trace clock by more than %" PRIu64 " ns", tol);
	int64_t measured;
	uint64_t bound;
	if (c->source == PL_TRACE_CLOCK_COUNTER_PARAM && pl_trace_clock_measure(&measured, &bound) == 0) {
		int64_t diff = measured - c->offset_ns;
		printf("panlab-ulog-bench: clock measured_offset_ns=%" PRId64 " bound_ns=%" PRIu64 "\n",
		       measured, bound);
		if ((uint64_t)(diff < 0 ? -diff : diff) > bound)
			pl_die("clock: measured offset %" PRId64 " is %" PRId64 " ns from the module's, "
			       "beyond its bound %" PRIu64, measured, diff, bound);
	}
	printf("panlab-ulog-bench: clock ok (%d readings within %" PRIu64 " ns)\n", CLOCK_CHECKS, tol);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--clock"))
		return check_clock();
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000;
	char path[64];
	snprintf(path, sizeof(path), "/dev/shm/panlab-ulog-bench.%d", (int)getpid());
	if (n == 0)
		pl_die("EVENTS must be a positive count");
	int err = pl_ulog_open(path, 4096 + 128 + RING_RECORDS * sizeof(struct pl_event), 1);
	struct pl_ulog_reader r;
	if (err || (err = pl_ulog_reader_open(&r, path)) != 0)
		pl_die("open %s: %s", path, strerror(-err));
	/* First lap: every record lands on a page not yet touched (tmpfs allocates it then). */
	uint64_t first_ns = run_steady(&r, RING_RECORDS);
	uint64_t on_ns = run_steady(&r, n);
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
	uint64_t off_ns = run(n);
	uint64_t off_first = off_ns * RING_RECORDS / n;
	printf("events=%" PRIu32 " ns_per_event=%.1f first_touch_ns_per_event=%.1f"
	       " off_ns_per_event=%.1f clock=%s\n", n,
	       (double)(on_ns - (on_ns > off_ns ? off_ns : 0)) / n,
	       (double)(first_ns - (first_ns > off_first ? off_first : 0)) / RING_RECORDS,
	       (double)off_ns / n, source_name(pl_trace_clock_state.source));
	return 0;
}
