// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel logger microbenchmarks (guest program, run by `make -C guest-kernel
 * bench` on one cpu): each benchmark runs with the logger off and on, side
 * by side, REPS times, and prints one line per benchmark
 *
 *   KLOG-BENCH name=N iterations=I off_ns=A on_ns=B events=E lost=L
 *              sleeps_off=S sleeps_on=T
 *
 * with the fastest off and on runs (guest CLOCK_MONOTONIC ns), the records
 * the logger produced (kept + lost) during the fastest on run, and the
 * voluntary context switches (sleeps) of the benchmark's process in each:
 * where the threads' interleaving can vary, tracing that changes how often
 * they sleep changes the work itself, and unequal counts show it.
 * guest-kernel/tests/klog_bench_json.c turns the lines into JSON. Under
 * qemu's -icount shift=2 every guest instruction takes 4 ns of guest time,
 * and with one cpu that never idles during a run, guest ns / 4 is the
 * number of instructions executed.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "klog_binder.h"
#include "klog_common.h"

#define REPS 2

/* ---- pipe ping-pong: two processes, one byte each way ---- */

static void pipe_pingpong(int n)
{
	int ab[2], ba[2], i;
	pid_t pid;
	char c = 0;

	if (pipe(ab) || pipe(ba))
		klog_die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		for (i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			klog_die("pipe ping-pong: %s", strerror(errno));
	waitpid(pid, NULL, 0);
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
}

/*
 * ---- futex contention: two threads hand one pthread mutex back and forth ----
 * Both run SCHED_FIFO at one priority on the one cpu, so neither preempts
 * the other: a thread takes the mutex and yields; the other finds it taken
 * and sleeps in FUTEX_WAIT; the holder unlocks (FUTEX_WAKE) and yields, so
 * the woken thread takes the mutex next. Every acquisition after the first
 * is contended, and the interleaving, hence the work, is the same with the
 * logger on and off: under SCHED_OTHER, wake-up preemption decided from
 * run to run whether the woken thread or its waker took the mutex next,
 * and the number of sleeps varied by up to a third.
 */
static pthread_mutex_t bm = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t start_line;
static long counter;

static void *contender(void *p)
{
	int i, n = *(int *)p;

	/* The thread created first would otherwise run alone. */
	pthread_barrier_wait(&start_line);
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&bm);
		counter++;
		sched_yield();
		pthread_mutex_unlock(&bm);
		sched_yield();
	}
	return NULL;
}

static void futex_contention(int n)
{
	struct sched_param prio = { .sched_priority = 1 };
	pthread_attr_t fifo;
	pthread_t a, b;
	int half = n / 2, err;

	pthread_attr_init(&fifo);
	pthread_attr_setinheritsched(&fifo, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&fifo, SCHED_FIFO);
	pthread_attr_setschedparam(&fifo, &prio);
	pthread_barrier_init(&start_line, NULL, 2);
	err = pthread_create(&a, &fifo, contender, &half);
	if (!err)
		err = pthread_create(&b, &fifo, contender, &half);
	if (err)
		klog_die("SCHED_FIFO thread: %s", strerror(err));
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	pthread_barrier_destroy(&start_line);
	pthread_attr_destroy(&fifo);
}

/* ---- binder round-trips: two-way calls to a context manager process ---- */

static struct kb client;

static void binder_roundtrip(int n)
{
	int i;

	for (i = 0; i < n; i++)
		kb_call(&client, 1, 0);
}

/* ---- small reads from a blocking socket: 1-byte TCP ping-pong ---- */

static int sock_a, sock_b;

static void *sock_echo(void *p)
{
	int i, n = *(int *)p;
	char c;

	for (i = 0; i < n; i++)
		if (recv(sock_b, &c, 1, 0) != 1 || send(sock_b, &c, 1, 0) != 1)
			klog_die("socket echo: %s", strerror(errno));
	return NULL;
}

static void socket_small_reads(int n)
{
	pthread_t t;
	char c = 0;
	int i;

	pthread_create(&t, NULL, sock_echo, &n);
	for (i = 0; i < n; i++)
		if (send(sock_a, &c, 1, 0) != 1 || recv(sock_a, &c, 1, 0) != 1)
			klog_die("socket ping-pong: %s", strerror(errno));
	pthread_join(t, NULL);
}

static void socket_setup(void)
{
	struct sockaddr_in a;
	int one = 1, ls;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(7173);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) || listen(ls, 1))
		klog_die("listen: %s (is lo up?)", strerror(errno));
	sock_a = socket(AF_INET, SOCK_STREAM, 0);
	if (sock_a < 0 || connect(sock_a, (struct sockaddr *)&a, sizeof(a)))
		klog_die("connect: %s", strerror(errno));
	sock_b = accept(ls, NULL, NULL);
	if (sock_b < 0)
		klog_die("accept: %s", strerror(errno));
	setsockopt(sock_a, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(sock_b, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(ls);
}

static pid_t binder_setup(void)
{
	struct kb server;
	int p[2];
	pid_t pid;
	char c;

	kb_add_device("klogbench");
	if (pipe(p))
		klog_die("pipe: %s", strerror(errno));
	pid = fork();
	if (pid == 0) {
		kb_open(&server, "/dev/binderfs/klogbench");
		kb_become_manager(&server);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		kb_serve(&server, 1 << 30);	/* until killed */
		_exit(0);
	}
	if (read(p[0], &c, 1) != 1)
		klog_die("binder server did not start");
	close(p[0]);
	close(p[1]);
	kb_open(&client, "/dev/binderfs/klogbench");
	return pid;
}

struct bench {
	const char *name;
	void (*run)(int n);
	int n;
};

static uint64_t events_of(const struct pl_klog_stats *s, uint64_t *lost)
{
	uint64_t e = 0;
	unsigned int c;

	*lost = 0;
	for (c = 0; c < s->ncpus && c < PL_KLOG_MAX_CPUS; c++) {
		e += s->written[c] + s->lost[c];
		*lost += s->lost[c];
	}
	return e;
}

/* Voluntary context switches of this process, its joined threads included. */
static long sleeps_now(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		klog_die("getrusage: %s", strerror(errno));
	return ru.ru_nvcsw;
}

static void measure(const struct bench *b)
{
	long sleeps_before, sleeps_off = 0, sleeps_on = 0;
	uint64_t best_off = UINT64_MAX, best_on = UINT64_MAX, events = 0, lost = 0;
	struct klog_trace sink = { 0 };
	int rep;

	klog_set_enabled(0);
	b->run(b->n / 10);	/* warm caches and the page tables */
	for (rep = 0; rep < REPS; rep++) {
		struct pl_klog_stats s0, s1;
		uint64_t t0, t1, l0, l1, e;

		klog_set_enabled(0);
		sleeps_before = sleeps_now();
		t0 = klog_now_ns();
		b->run(b->n);
		t1 = klog_now_ns();
		if (t1 - t0 < best_off) {
			best_off = t1 - t0;
			sleeps_off = sleeps_now() - sleeps_before;
		}

		sink.n = 0;
		klog_drain(&sink);
		klog_set_enabled(1);
		klog_stats(&s0);
		sleeps_before = sleeps_now();
		t0 = klog_now_ns();
		b->run(b->n);
		t1 = klog_now_ns();
		klog_stats(&s1);
		klog_set_enabled(0);
		e = events_of(&s1, &l1) - events_of(&s0, &l0);
		if (t1 - t0 < best_on) {
			best_on = t1 - t0;
			events = e;
			lost = l1 - l0;
			sleeps_on = sleeps_now() - sleeps_before;
		}
	}
	free(sink.ev);
	printf("KLOG-BENCH name=%s iterations=%d off_ns=%llu on_ns=%llu events=%llu lost=%llu"
	       " sleeps_off=%ld sleeps_on=%ld\n", b->name, b->n, (unsigned long long)best_off,
	       (unsigned long long)best_on, (unsigned long long)events, (unsigned long long)lost,
	       sleeps_off, sleeps_on);
}

int main(void)
{
	static const struct bench benches[] = {
		{ "pipe_pingpong", pipe_pingpong, 8000 },
		{ "futex_contention", futex_contention, 8000 },
		{ "binder_roundtrip", binder_roundtrip, 4000 },
		{ "socket_small_reads", socket_small_reads, 4000 },
	};
	pid_t server;
	size_t i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	klog_pin_cpu(0);
	socket_setup();
	server = binder_setup();
	for (i = 0; i < sizeof(benches) / sizeof(benches[0]); i++)
		measure(&benches[i]);
	kill(server, SIGKILL);
	waitpid(server, NULL, 0);
	return 0;
}
