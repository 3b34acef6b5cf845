/*
 * panlab-ulog-bench: the userspace logger's cost per event (issue 4, bench).
 * Logs N events from one thread into a private buffer, with tracing on and
 * then off, and prints the difference per event. Under QEMU's
 * -icount shift=2 every guest instruction is 4 ns, so ns/4 is the count of
 * guest instructions per event.
 *
 *   panlab-ulog-bench [EVENTS]      prints: events=N ns_per_event=X off_ns_per_event=Y
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panlab/die.h"
#include "panlab/ulog.h"

static uint64_t run(uint32_t n)
{
	uint64_t t0 = pl_now_ns();
	for (uint32_t i = 0; i < n; i++)
		pl_ulog(PL_EV_ENQUEUE_MSG, i, 1, 0);
	return pl_now_ns() - t0;
}

int main(int argc, char **argv)
{
	uint32_t n = argc > 1 ? (uint32_t)strtoul(argv[1], NULL, 10) : 100000;
	char path[64];
	snprintf(path, sizeof(path), "/dev/shm/panlab-ulog-bench.%d", (int)getpid());
	if (n == 0)
		pl_die("EVENTS must be a positive count");
	/* One ring big enough for every event: the bench measures logging, not loss. Pages of the
	 * ring are first touched while measuring, as they are in a real run. */
	uint32_t warm = n / 10 + 1;
	int err = pl_ulog_open(path, 4096 + 128 + ((size_t)n + warm) * sizeof(struct pl_event), 1);
	if (err)
		pl_die("open %s: %s", path, strerror(-err));
	run(warm);	/* claims the slot and warms the caches */
	uint64_t on_ns = run(n);
	pl_ulog_close();
	unlink(path);
	uint64_t off_ns = run(n);
	printf("events=%" PRIu32 " ns_per_event=%.1f off_ns_per_event=%.1f\n", n,
	       (double)(on_ns - (on_ns > off_ns ? off_ns : 0)) / n, (double)off_ns / n);
	return 0;
}
