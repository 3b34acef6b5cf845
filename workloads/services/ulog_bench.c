/*
 * panlab-ulog-bench: the userspace logger's cost per event,
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
 *                                of guest instructions per event. The same laps again with
 *                                each task submit logged as the executor logs it (the event and
 *                                its TASK_CONTEXT, a frame-pointer walk) give
 *                                submit_ns_per_submit=S, the cost of one submit, two records.
 *   panlab-ulog-bench --clock    checks that the trace clock (clock.h) is CLOCK_MONOTONIC: each of
 *                                CLOCK_CHECKS clock_gettime readings must lie between the trace
 *                                clock read before and after it, and each of CLOCK_CHECKS logged
 *                                records' time between clock_gettime read before and after the
 *                                pl_ulog call, give or take the offset's error bound and one
 *                                counter tick; and a measured offset must agree with the kernel
 *                                logger's within the measured bound. Exit 0 and
 *                                "panlab-ulog-bench: clock ok ..." or 1 and one line.
 *   panlab-ulog-bench --drain    checks the collector's periodic drains in the guest, with the
 *                                kernel logger live: DRAIN_ROUNDS batches of DRAIN_BATCH events
 *                                through a ring of DRAIN_RING records, each batch drained by the
 *                                collector thread (every DRAIN_PERIOD_MS) before the next; the
 *                                trace must hold every event, kernel records, and no loss.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panlab/clock.h"
#include "panlab/collect.h"
#include "panlab/error.h"
#include "panlab/ulog.h"
#include "panlab/ulog_reader.h"

#define CLOCK_CHECKS 10000
/* 128 KiB: a ring of the size a busy thread drained every 100 ms fills (README.md). */
#define RING_RECORDS 4096u

/* As pl_executor_submit logs a task: noinline, so the walk has the platform's frame to skip. */
static __attribute__((noinline)) void submit(uint32_t i)
{
	pl_ulog_submit(PL_EV_SUBMIT_ASYNC_TASK, i, 1, 0);
	__asm__ volatile("" ::: "memory"); /* no tail call */
}

/* n records: n plain events, or n / 2 submits of two records each. */
static uint64_t run(uint32_t n, bool submits)
{
	uint64_t t0 = pl_now_ns();
	if (submits)
		for (uint32_t i = 0; i < n / 2; i++)
			submit(i);
	else
		for (uint32_t i = 0; i < n; i++)
			pl_ulog(PL_EV_ENQUEUE_MSG, i, 1, 0);
	return pl_now_ns() - t0;
}

/* Logs n records in laps of one ring, drained between laps (untimed), as the collector does. */
static uint64_t run_steady(struct pl_ulog_reader *r, uint32_t n, bool submits)
{
	static struct pl_event drained[RING_RECORDS];
	uint64_t ns = 0;
	for (uint32_t done = 0; done < n; done += RING_RECORDS) {
		ns += run(n - done < RING_RECORDS ? n - done : RING_RECORDS, submits);
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

/* How far g fell outside [a, b], kept as the worst so far. */
static void outside(uint64_t a, uint64_t g, uint64_t b, int64_t *early, int64_t *late)
{
	if (g < a && (int64_t)(a - g) > *early)
		*early = (int64_t)(a - g);
	if (g > b && (int64_t)(g - b) > *late)
		*late = (int64_t)(g - b);
}

/*
 * Logged records' timestamps against clock_gettime: each of CLOCK_CHECKS events is logged between
 * two clock_gettime readings g0, g1 and must carry a time in [g0, g1] (worst deviations kept).
 */
static void check_records(int64_t *early, int64_t *late)
{
	static uint64_t g0[CLOCK_CHECKS], g1[CLOCK_CHECKS];
	static struct pl_event ev[CLOCK_CHECKS];
	char path[64];
	snprintf(path, sizeof(path), "/dev/shm/panlab-ulog-clock.%d", (int)getpid());
	struct pl_ulog_reader r;
	int err = pl_ulog_open(path, 4096 + 128 + CLOCK_CHECKS * sizeof(struct pl_event), 1);
	if (err || (err = pl_ulog_reader_open(&r, path)) != 0)
		pl_die("clock: open %s: %s", path, strerror(-err));
	for (uint32_t i = 0; i < CLOCK_CHECKS; i++) {
		g0[i] = pl_now_ns();
		pl_ulog(PL_EV_ENQUEUE_MSG, i, 0, 0);
		g1[i] = pl_now_ns();
	}
	if (pl_ulog_reader_drain(&r, 0, ev, CLOCK_CHECKS) != CLOCK_CHECKS)
		pl_die("clock: %s: fewer than %d records", path, CLOCK_CHECKS);
	for (uint32_t i = 0; i < CLOCK_CHECKS; i++)
		outside(g0[i], ev[i].ts_ns, g1[i], early, late);
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
}

static int check_clock(void)
{
	const struct pl_trace_clock *c = pl_trace_clock_setup();
	uint64_t tol = c->error_ns + c->ns_per_tick;
	int64_t worst_early = 0, worst_late = 0;	/* how far clock_gettime fell outside [a, b] */
	for (int i = 0; i < CLOCK_CHECKS; i++) {
		uint64_t a = pl_trace_clock_ns(), g = pl_now_ns(), b = pl_trace_clock_ns();
		outside(a, g, b, &worst_early, &worst_late);
	}
	int64_t rec_early = 0, rec_late = 0;	/* how far a record's time fell outside [g0, g1] */
	check_records(&rec_early, &rec_late);
	printf("panlab-ulog-bench: clock source=%s ns_per_tick=%" PRIu32 " offset_ns=%" PRId64
	       " error_ns=%" PRIu64 " worst_early_ns=%" PRId64 " worst_late_ns=%" PRId64 "\n",
	       source_name(c->source), c->ns_per_tick, c->offset_ns, c->error_ns, worst_early,
	       worst_late);
	printf("panlab-ulog-bench: clock records: worst_early_ns=%" PRId64 " worst_late_ns=%" PRId64
	       "\n", rec_early, rec_late);
	if ((uint64_t)worst_early > tol || (uint64_t)worst_late > tol)
		pl_die("clock: clock_gettime off the trace clock by more than %" PRIu64 " ns", tol);
	if ((uint64_t)rec_early > tol || (uint64_t)rec_late > tol)
		pl_die("clock: a logged record's time off clock_gettime by more than %" PRIu64 " ns", tol);
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
	printf("panlab-ulog-bench: clock ok (%d readings and %d records within %" PRIu64 " ns)\n",
	       CLOCK_CHECKS, CLOCK_CHECKS, tol);
	return 0;
}

#define DRAIN_DIR "/tmp/panlab-drain-check"
#define DRAIN_RING 64u
#define DRAIN_BATCH 48u
#define DRAIN_ROUNDS 100u
#define DRAIN_PERIOD_MS 10u
#define DRAIN_WAIT_NS 5000000000ull	/* a batch not drained in 5 s of guest time: a failure */

/* Waits (yielding) until the collector has drained the ring; false after DRAIN_WAIT_NS. */
static bool drained(const struct pl_ulog_reader *r)
{
	uint64_t give_up = pl_now_ns() + DRAIN_WAIT_NS;
	struct pl_ulog_slot_info si;
	for (pl_ulog_reader_slot(r, 0, &si); si.pending; pl_ulog_reader_slot(r, 0, &si)) {
		if (pl_now_ns() > give_up)
			return false;
		sched_yield();
	}
	return true;
}

static int check_drain(void)
{
	char log[64], out[64];
	snprintf(log, sizeof(log), DRAIN_DIR "/panlab-log.%d", (int)getpid());
	snprintf(out, sizeof(out), DRAIN_DIR "/trace.bin");
	if (mkdir(DRAIN_DIR, 0700) != 0)
		pl_die("drain: mkdir %s: %s", DRAIN_DIR, strerror(errno));
	struct pl_ulog_reader r;
	int err = pl_ulog_open(log, 4096 + 128 + DRAIN_RING * sizeof(struct pl_event), 1);
	if (err || (err = pl_ulog_reader_open(&r, log)) != 0)
		pl_die("drain: open %s: %s", log, strerror(-err));
	struct pl_collect_opts o = { .out_path = out, .shm_dir = DRAIN_DIR,
				     .klog_path = PL_COLLECT_DEFAULT_KLOG,
				     .drain_period_ms = DRAIN_PERIOD_MS };
	struct pl_collector *c;
	struct pl_error msg;
	if (pl_collector_start(&o, &c, &msg) != 0)
		pl_die("drain: %s", msg.msg);
	for (uint32_t round = 0; round < DRAIN_ROUNDS; round++) {
		for (uint32_t i = 0; i < DRAIN_BATCH; i++)
			pl_ulog(PL_EV_ENQUEUE_MSG, round * DRAIN_BATCH + i, 0, 0);
		if (!drained(&r))
			pl_die("drain: batch %" PRIu32 " not drained within %llu ms", round,
			       DRAIN_WAIT_NS / 1000000);
	}
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	struct pl_collect_result res;
	if (pl_collector_finish(c, &res, &msg) != 0)
		pl_die("drain: %s", msg.msg);
	FILE *f = fopen(out, "rb");
	struct pl_file_header h;
	if (!f || fread(&h, sizeof(h), 1, f) != 1)
		pl_die("drain: read %s: %s", out, f ? "short file" : strerror(errno));
	uint64_t kernel = 0, user = 0, lost = 0;
	for (uint32_t i = 0; i < h.nsources; i++) {
		struct pl_source src;
		if (fread(&src, sizeof(src), 1, f) != 1)
			pl_die("drain: %s: source table cut at source %" PRIu32, out, i);
		*(src.kind == PL_SRC_KERNEL_CPU ? &kernel : &user) += src.records;
		lost += src.lost;
	}
	fclose(f);
	unlink(out);
	rmdir(DRAIN_DIR);
	printf("panlab-ulog-bench: drain drains=%" PRIu64 " user_records=%" PRIu64
	       " kernel_records=%" PRIu64 " lost=%" PRIu64 "\n", res.drains, user, kernel, lost);
	/* A drain empties a ring in a loop, so one may take several batches: count them, not drains. */
	if (user != DRAIN_ROUNDS * DRAIN_BATCH || lost || !res.drains)
		pl_die("drain: expected %u user records, no loss and periodic drains",
		       DRAIN_ROUNDS * DRAIN_BATCH);
	/* Without the kernel logger (a host run) there are no kernel sources to expect. */
	if (!kernel && access(PL_COLLECT_DEFAULT_KLOG, F_OK) == 0)
		pl_die("drain: no kernel records, though %s is there", PL_COLLECT_DEFAULT_KLOG);
	printf("panlab-ulog-bench: drain ok (%u events through a %u-record ring, periodic drains)\n",
	       DRAIN_ROUNDS * DRAIN_BATCH, DRAIN_RING);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--clock"))
		return check_clock();
	if (argc > 1 && !strcmp(argv[1], "--drain"))
		return check_drain();
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000;
	char path[64];
	snprintf(path, sizeof(path), "/dev/shm/panlab-ulog-bench.%d", (int)getpid());
	if (n < 2)
		pl_die("EVENTS must be 2 or more");
	int err = pl_ulog_open(path, 4096 + 128 + RING_RECORDS * sizeof(struct pl_event), 1);
	struct pl_ulog_reader r;
	if (err || (err = pl_ulog_reader_open(&r, path)) != 0)
		pl_die("open %s: %s", path, strerror(-err));
	/* First lap: every record lands on a page not yet touched (tmpfs allocates it then). */
	uint64_t first_ns = run_steady(&r, RING_RECORDS, false);
	uint64_t on_ns = run_steady(&r, n, false);
	uint64_t submit_on_ns = run_steady(&r, n, true);
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
	uint64_t off_ns = run(n, false);
	uint64_t submit_off_ns = run(n, true);
	uint64_t off_first = off_ns * RING_RECORDS / n;
	printf("events=%" PRIu32 " ns_per_event=%.1f first_touch_ns_per_event=%.1f"
	       " off_ns_per_event=%.1f submit_ns_per_submit=%.1f clock=%s\n",
	       n, (double)(on_ns - (on_ns > off_ns ? off_ns : 0)) / n,
	       (double)(first_ns - (first_ns > off_first ? off_first : 0)) / RING_RECORDS,
	       (double)off_ns / n,
	       (double)(submit_on_ns - (submit_on_ns > submit_off_ns ? submit_off_ns : 0)) /
		       (n / 2),
	       source_name(pl_trace_clock_state.source));
	return 0;
}
