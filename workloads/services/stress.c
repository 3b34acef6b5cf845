/*
 * panlab-stress LOAD: one background stress load in the style of DiagDroid's stress services,
 * run by panlab-session under any app (workload APP+LOAD, see workloads/README.md). It is an
 * unrelated process: it shares nothing with the app but the machine.
 *
 *   cpu   one thread spinning on integer work (CPU contention)
 *   mem   one thread writing and reading back a 32 MiB buffer, page by page (memory bandwidth,
 *         cache and TLB pressure)
 *
 * It signals ready (PANLAB_READY_FD) once its memory is set up, and exits 0 on SIGTERM.
 * No logging: the kernel logger sees it as context switches like any other process.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/die.h"
#include "panlab/ready.h"

#define MEM_LOAD_BYTES (32u << 20)
#define PAGE_BYTES 4096u

static volatile sig_atomic_t stopping;
static volatile uint32_t sink;	/* the loads' results, so their loops cannot be optimised away */

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static uint32_t cpu_load(void)
{
	uint32_t x = 2463534242u;
	while (!stopping) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
	}
	return x;
}

static uint32_t mem_load(void)
{
	volatile uint8_t *buf = malloc(MEM_LOAD_BYTES);
	uint32_t sum = 0;
	if (!buf)
		pl_die("panlab-stress mem: out of memory for %u bytes", MEM_LOAD_BYTES);
	for (uint8_t pass = 0; !stopping; pass++) {
		for (uint32_t off = 0; off < MEM_LOAD_BYTES && !stopping; off += PAGE_BYTES)
			memset((uint8_t *)buf + off, pass, PAGE_BYTES);
		for (uint32_t off = 0; off < MEM_LOAD_BYTES && !stopping; off += 64)
			sum += buf[off];
	}
	free((void *)buf);
	return sum;
}

int main(int argc, char **argv)
{
	uint32_t (*load)(void) = NULL;
	if (argc == 2 && !strcmp(argv[1], "cpu"))
		load = cpu_load;
	else if (argc == 2 && !strcmp(argv[1], "mem"))
		load = mem_load;
	else
		pl_die("usage: panlab-stress cpu|mem");
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	int err = pl_ready_signal();
	if (err)
		pl_die("panlab-stress: signal ready: %s", strerror(-err));
	sink = load();
	return 0;
}
