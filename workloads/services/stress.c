/*
 * panlab-stress LOAD: one background stress load in the style of DiagDroid's stress services,
 * run by panlab-session under any app (workload APP+LOAD, see workloads/README.md). It is an
 * unrelated process: it shares nothing with the app but the machine.
 *
 *   cpu   one thread spinning on integer work (CPU contention)
 *   mem   one thread writing and reading back a 32 MiB buffer, page by page (memory bandwidth,
 *         cache and TLB pressure)
 *   io    rewriting a 16 MiB file on the SD card (/sdcard, else /tmp) in 64 KiB writes with an
 *         fsync every 1 MiB (block IO, write-back)
 *   net   pushing 16 KiB at a time through a TCP connection to itself over loopback (the
 *         kernel's network stack and softirqs)
 *
 * Each runs bursts of a fixed amount of work, the number of steps that take 9 ms at 1.2 GHz
 * on an idle core, each followed by a 1 ms sleep: a 90% load at 1.2 GHz that grows busier at a
 * lower clock or on a shared core, as a real load would (work, never a spin to a deadline).
 * `panlab-stress --calibrate` prints each load's ns per step, which set the counts below.
 *
 * It signals ready (PANLAB_READY_FD) once its memory is set up, and exits 0 on SIGTERM.
 * No logging: the kernel logger sees it as context switches like any other process.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../apps/bench_work.h"
#include "panlab/error.h"
#include "panlab/net.h"
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

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Runs steps_per_burst steps back to back, then sleeps IDLE_NS, until SIGTERM. The sleep also
 * gives the kernel a point where this CPU is quiescent: a pure spin with no system call made
 * QEMU's icount guest report RCU stalls and hang. With calibrate_steps, runs that many steps
 * once instead and prints their mean time.
 */
#define IDLE_NS 1000000u
#define CALIBRATE_STEPS 1000u
static uint32_t calibrate_steps;
static uint32_t duty_cycle(uint32_t (*step)(void *ctx), void *ctx, uint32_t steps_per_burst)
{
	uint32_t sum = 0;
	if (calibrate_steps) {
		uint64_t t0 = now_ns();
		for (uint32_t i = 0; i < calibrate_steps; i++)
			sum += step(ctx);
		printf("ns_per_step=%" PRIu64 " (%u steps)\n",
		       (now_ns() - t0) / calibrate_steps, calibrate_steps);
		return sum;
	}
	while (!stopping) {
		for (uint32_t i = 0; i < steps_per_burst && !stopping; i++)
			sum += step(ctx);
		struct timespec idle = { .tv_nsec = IDLE_NS };
		nanosleep(&idle, NULL);
	}
	return sum;
}

/*
 * Steps per 9 ms burst at 1.2 GHz on an idle core: `panlab-stress --calibrate` on the phone
 * (25 Nov 2026) measured 4,199 ns a cpu step, 3,621 a mem step, 28,764 an io step (on /tmp: a
 * guest test has no SD card mounted, so the card's own time comes on top in a workload) and
 * 15,376 a net step.
 */
#define CPU_BURST_STEPS (9u * BENCH_ITERATIONS_PER_MS_1200MHZ)
#define MEM_BURST_STEPS 2485u
#define IO_BURST_STEPS 313u
#define NET_BURST_STEPS 585u

static uint32_t cpu_step(void *ctx)
{
	(void)ctx;
	return (uint32_t)bench_work(1);
}

struct mem_load {
	volatile uint8_t *buf;
	uint32_t off;
	uint8_t pass;
};

/* One page written, then read back a cache line at a time. */
static uint32_t mem_step(void *ctx)
{
	struct mem_load *m = ctx;
	uint32_t sum = 0;
	memset((uint8_t *)m->buf + m->off, m->pass, PAGE_BYTES);
	for (uint32_t i = 0; i < PAGE_BYTES; i += 64)
		sum += m->buf[m->off + i];
	m->off += PAGE_BYTES;
	if (m->off == MEM_LOAD_BYTES) {
		m->off = 0;
		m->pass++;
	}
	return sum;
}

/* The file the io load rewrites: on the SD card if the session mounted one. */
#define IO_LOAD_BYTES (16u << 20)
#define IO_STEP_BYTES (64u * 1024u)
#define IO_SYNC_STEPS 16u	/* fsync every 1 MiB: write-back, then the wait for the card */

struct io_load {
	int fd;
	uint32_t step;
	uint8_t chunk[IO_STEP_BYTES];
};

static uint32_t io_step(void *ctx)
{
	struct io_load *io = ctx;
	if (pwrite(io->fd, io->chunk, IO_STEP_BYTES,
		   (off_t)(io->step % (IO_LOAD_BYTES / IO_STEP_BYTES)) * IO_STEP_BYTES) !=
	    (ssize_t)IO_STEP_BYTES)
		pl_die("panlab-stress io: write: %s", strerror(errno));
	if (++io->step % IO_SYNC_STEPS == 0 && fsync(io->fd) != 0)
		pl_die("panlab-stress io: fsync: %s", strerror(errno));
	return io->step;
}

/* The two ends of a TCP connection over loopback; each step pushes NET_STEP_BYTES through. */
#define NET_STEP_BYTES (16u * 1024u)

struct net_load {
	int tx, rx;
	uint8_t buf[NET_STEP_BYTES];
};

static uint32_t net_step(void *ctx)
{
	struct net_load *n = ctx;
	if (send(n->tx, n->buf, NET_STEP_BYTES, MSG_NOSIGNAL) != (ssize_t)NET_STEP_BYTES ||
	    recv(n->rx, n->buf, NET_STEP_BYTES, MSG_WAITALL) != (ssize_t)NET_STEP_BYTES)
		pl_die("panlab-stress net: %s", strerror(errno));
	return n->buf[0];
}

static uint32_t io_load(void)
{
	static struct io_load io;
	const char *path = access("/sdcard", W_OK) == 0 ? "/sdcard/panlab-stress.bin" :
							   "/tmp/panlab-stress.bin";
	io.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (io.fd < 0)
		pl_die("panlab-stress io: %s: %s", path, strerror(errno));
	uint32_t sum = duty_cycle(io_step, &io, IO_BURST_STEPS);
	close(io.fd);
	unlink(path);
	return sum;
}

static uint32_t net_load(void)
{
	static struct net_load n;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int err = pl_net_loopback_up(), one = 1;
	if (err)
		pl_die("panlab-stress net: bring lo up: %s", strerror(-err));
	int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	n.tx = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0 || n.tx < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 1) != 0 ||
	    getsockname(l, (struct sockaddr *)&a, &len) != 0 ||
	    connect(n.tx, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    (n.rx = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0 ||
	    setsockopt(n.tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
		pl_die("panlab-stress net: loopback connection: %s", strerror(errno));
	close(l);
	uint32_t sum = duty_cycle(net_step, &n, NET_BURST_STEPS);
	close(n.tx);
	close(n.rx);
	return sum;
}

static uint32_t cpu_load(void)
{
	return duty_cycle(cpu_step, NULL, CPU_BURST_STEPS);
}

static uint32_t mem_load(void)
{
	struct mem_load m = { .buf = malloc(MEM_LOAD_BYTES) };
	if (!m.buf)
		pl_die("panlab-stress mem: out of memory for %u bytes", MEM_LOAD_BYTES);
	/* Every page faulted in now, so each step costs the same from the first burst on. */
	memset((void *)m.buf, 0, MEM_LOAD_BYTES);
	uint32_t sum = duty_cycle(mem_step, &m, MEM_BURST_STEPS);
	free((void *)m.buf);
	return sum;
}

static const struct {
	const char *name;
	uint32_t (*load)(void);
} loads[] = { { "cpu", cpu_load }, { "mem", mem_load }, { "io", io_load }, { "net", net_load } };

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--calibrate")) {
		calibrate_steps = CALIBRATE_STEPS;
		for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
			printf("panlab-stress: calibrate %s ", loads[i].name);
			sink = loads[i].load();
		}
		return 0;
	}
	uint32_t (*load)(void) = NULL;
	for (size_t i = 0; i < sizeof(loads) / sizeof(loads[0]); i++)
		if (argc == 2 && !strcmp(argv[1], loads[i].name))
			load = loads[i].load;
	if (!load)
		pl_die("usage: panlab-stress cpu|mem|io|net | --calibrate");
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	int err = pl_ready_signal();
	if (err)
		pl_die("panlab-stress: signal ready: %s", strerror(-err));
	sink = load();
	return 0;
}
