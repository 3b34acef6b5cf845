/* See bench_work.h. */
#include "bench_work.h"

uint64_t bench_work(uint64_t iterations)
{
	uint32_t x = 2463534242u;

	for (uint64_t n = 0; n < iterations; n++) {
		for (unsigned i = 0; i < BENCH_ROUNDS_PER_ITERATION; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
		}
	}
	return x;
}

uint64_t bench_compute(uint64_t ms)
{
	return bench_work(ms * BENCH_ITERATIONS_PER_MS_1200MHZ);
}
