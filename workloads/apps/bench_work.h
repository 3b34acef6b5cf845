/* The synthetic benchmarks' unit of work, shared by apps and their service processes. */
#ifndef PANLAB_BENCH_WORK_H
#define PANLAB_BENCH_WORK_H

#include <stdint.h>

/* Any thread: compute until ms of CLOCK_MONOTONIC time have passed; returns a checksum. */
uint64_t bench_compute(uint64_t ms);

#endif /* PANLAB_BENCH_WORK_H */
