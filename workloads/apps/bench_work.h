/*
 * The synthetic benchmarks' unit of work, shared by apps, their service processes and the
 * stress loads: a fixed amount of CPU work, never a spin until a clock deadline, so a job
 * takes longer at a lower CPU frequency, on a shared core, or with a costlier tracer.
 *
 * Work is counted in iterations of one loop (BENCH_ROUNDS_PER_ITERATION xorshift32 rounds:
 * integer register work, no memory traffic, no system call). A job's size is stated as the
 * milliseconds it takes at 1.2 GHz on an idle core (the phone's default clock, CPI 1);
 * BENCH_ITERATIONS_PER_MS_1200MHZ converts. It was calibrated with `panlab-workbench
 * calibrate` on the phone at 1.2 GHz, and test_work_scaling.sh checks it on every `make test`
 * (a 200 ms job takes 200 ms within 2%), so a compiler change that alters the loop shows.
 */
#ifndef PANLAB_BENCH_WORK_H
#define PANLAB_BENCH_WORK_H

#include <stdint.h>

#define BENCH_ROUNDS_PER_ITERATION 1000u
#define BENCH_ITERATIONS_PER_MS_1200MHZ 240u

/* Any thread: runs the loop iterations times; returns a checksum (use it, so the work stays). */
uint64_t bench_work(uint64_t iterations);

/* Any thread: does ms milliseconds' worth of work at 1.2 GHz on an idle core. */
uint64_t bench_compute(uint64_t ms);

#endif /* PANLAB_BENCH_WORK_H */
