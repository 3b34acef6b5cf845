/* See bench_work.h. */
#include "bench_work.h"

#include "panlab/clock.h"

uint64_t bench_compute(uint64_t ms)
{
	uint64_t end = pl_now_ns() + ms * 1000000u;
	uint32_t x = 2463534242u;

	/* xorshift32 rounds between clock reads: CPU work, never a sleep. */
	do {
		for (int i = 0; i < 1000; i++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
		}
	} while (pl_now_ns() < end);
	return x;
}
