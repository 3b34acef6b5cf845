/* See include/panlab/cpustat.h. */
#include "panlab/cpustat.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

int pl_cpu_ticks_read(struct pl_cpu_ticks *t)
{
	uint64_t f[8] = { 0 };
	FILE *st = fopen("/proc/stat", "re");
	if (!st)
		return -errno;
	int n = fscanf(st, "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		       " %" SCNu64 " %" SCNu64 " %" SCNu64, &f[0], &f[1], &f[2], &f[3], &f[4],
		       &f[5], &f[6], &f[7]);
	fclose(st);
	if (n != 8)
		return -EPROTO;
	t->idle = f[3] + f[4];
	t->total = 0;
	for (int i = 0; i < 8; i++)
		t->total += f[i];
	return 0;
}

bool pl_cpu_idle_between(const struct pl_cpu_ticks *a, const struct pl_cpu_ticks *b,
			 unsigned idle_pct)
{
	uint64_t total = b->total - a->total;
	return total > 0 && (b->idle - a->idle) * 100 >= (uint64_t)idle_pct * total;
}
