/*
 * panlab-workbench: measures the benchmarks' unit of work (apps/bench_work.h) in the guest,
 * for its calibration and for the checks that jobs feel the machine's timing.
 *
 *   panlab-workbench --calibrate  runs CALIBRATE_ITERATIONS of the work loop on an idle core
 *                                 and prints "panlab-workbench: calibrate iterations_per_ms=X";
 *                                 at 1.2 GHz, X is BENCH_ITERATIONS_PER_MS_1200MHZ.
 *   panlab-workbench --scaling    runs one job of JOB_MS (bench_compute) pinned to cpu0, alone,
 *                                 then again with a second CPU-bound thread pinned to cpu0, and
 *                                 prints "panlab-workbench: scaling job_ms=J solo_ns=S
 *                                 shared_ns=H": a job is work, so S grows as the clock slows and
 *                                 H is about 2 S (the scheduler shares the core fairly).
 *
 * Times are CLOCK_MONOTONIC, whose counter does not follow the CPU clock.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../apps/bench_work.h"
#include "panlab/clock.h"
#include "panlab/error.h"

#define CALIBRATE_ITERATIONS (200u * BENCH_ITERATIONS_PER_MS_1200MHZ)
#define JOB_MS 200u

static volatile uint64_t sink;	/* results, so the work cannot be optimised away */

static void pin_to_cpu0(void)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	int r = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (r != 0)
		pl_die("pin to cpu0: %s", strerror(r));
}

static uint64_t timed_job(void)
{
	uint64_t t0 = pl_now_ns();
	sink += bench_compute(JOB_MS);
	return pl_now_ns() - t0;
}

static atomic_bool competitor_stop;
static atomic_bool competitor_running;

/* The second CPU-bound thread: a load, so it runs until told to stop. */
static void *competitor(void *arg)
{
	(void)arg;
	pin_to_cpu0();
	atomic_store(&competitor_running, true);
	while (!atomic_load_explicit(&competitor_stop, memory_order_relaxed))
		sink += bench_work(1);
	return NULL;
}

static void scaling(void)
{
	pthread_t t;
	pin_to_cpu0();
	sink += bench_compute(10);	/* warm: page faults and caches out of the timed runs */
	uint64_t solo_ns = timed_job();
	int r = pthread_create(&t, NULL, competitor, NULL);
	if (r != 0)
		pl_die("start the competing thread: %s", strerror(r));
	while (!atomic_load(&competitor_running))
		sched_yield();
	uint64_t shared_ns = timed_job();
	atomic_store(&competitor_stop, true);
	pthread_join(t, NULL);
	printf("panlab-workbench: scaling job_ms=%u solo_ns=%" PRIu64 " shared_ns=%" PRIu64 "\n",
	       JOB_MS, solo_ns, shared_ns);
}

static void calibrate(void)
{
	pin_to_cpu0();
	sink += bench_work(CALIBRATE_ITERATIONS / 20);
	uint64_t t0 = pl_now_ns();
	sink += bench_work(CALIBRATE_ITERATIONS);
	uint64_t ns = pl_now_ns() - t0;
	printf("panlab-workbench: calibrate iterations_per_ms=%.2f (%u iterations in %" PRIu64
	       " ns)\n", (double)CALIBRATE_ITERATIONS * 1e6 / (double)ns, CALIBRATE_ITERATIONS, ns);
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--calibrate"))
		calibrate();
	else if (argc == 2 && !strcmp(argv[1], "--scaling"))
		scaling();
	else
		pl_die("usage: panlab-workbench --calibrate | --scaling");
	return 0;
}
