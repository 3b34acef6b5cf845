// SPDX-License-Identifier: GPL-2.0
/*
 * Provokes every kernel event type of the panlab kernel logger, drains
 * /dev/panlab_klog and checks the trace (guest program, run by
 * guest-kernel/tests/init).
 *
 *   klog_provoke events   check the clock contract (clock_offset_ns), provoke
 *                         each type, then check fields, timestamps (per-cpu
 *                         order, CLOCK_MONOTONIC), counters, wait/wake/notify
 *                         and block/resume pairs, binder produce/consume pairs
 *   klog_provoke loss     with a tiny buffer: numbered renames, then check
 *                         that lost == produced - kept, per cpu and overall
 *
 * Prints "KLOG-TEST: OK ..." or "KLOG-TEST: FAIL <why>" and exits 0 or 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "klog_binder.h"
#include "klog_common.h"

#define DISK "/dev/vda"
#define RENAMED "klog-renamed"

/* Tids of every thread and process of this test, shared with children. */
struct shared {
	atomic_int ntids;
	pid_t tids[64];
	atomic_int flag;
	pid_t binder_server;	/* pid of the context manager process */
};
static struct shared *sh;

static void register_tid(void)
{
	int i = atomic_fetch_add(&sh->ntids, 1);

	if (i >= 64)
		klog_die("too many test threads");
	sh->tids[i] = klog_gettid();
}

static int is_ours(uint32_t tid)
{
	int i, n = atomic_load(&sh->ntids);

	for (i = 0; i < n; i++)
		if ((uint32_t)sh->tids[i] == tid)
			return 1;
	return 0;
}

static void run_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	if (pthread_create(t, NULL, fn, arg) != 0)
		klog_die("pthread_create failed");
}

static void join(pthread_t t)
{
	pthread_join(t, NULL);
}

/* ---- futex: a contended pthread mutex ---- */

static pthread_mutex_t pm = PTHREAD_MUTEX_INITIALIZER;

static void *futex_waiter(void *arg)
{
	(void)arg;
	register_tid();
	while (!atomic_load(&sh->flag))
		;
	pthread_mutex_lock(&pm);	/* blocks: the main thread holds it */
	pthread_mutex_unlock(&pm);
	return NULL;
}

static void provoke_futex(void)
{
	int round;

	for (round = 0; round < 3; round++) {
		pthread_t t;

		atomic_store(&sh->flag, 0);
		run_thread(&t, futex_waiter, NULL);
		pthread_mutex_lock(&pm);
		atomic_store(&sh->flag, 1);
		klog_sleep_us(5000);
		pthread_mutex_unlock(&pm);
		join(t);
	}
}

/*
 * ---- kernel mutex: two readers of one pty ----
 * n_tty_read() sleeps for input with the tty's atomic_read_lock mutex held,
 * so a second reader sleeps on that mutex until the first one has its line.
 */
static void *pty_reader(void *p)
{
	int fd = *(int *)p;
	char buf[64];

	register_tid();
	if (read(fd, buf, sizeof(buf)) <= 0)
		klog_die("pty read: %s", strerror(errno));
	return NULL;
}

static void provoke_mutex(void)
{
	pthread_t r1, r2;
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	if (m < 0 || grantpt(m) != 0 || unlockpt(m) != 0)
		klog_die("pty: %s (is devpts mounted on /dev/pts?)", strerror(errno));
	s = open(ptsname(m), O_RDWR | O_NOCTTY);
	if (s < 0)
		klog_die("open %s: %s", ptsname(m), strerror(errno));
	run_thread(&r1, pty_reader, &s);
	run_thread(&r2, pty_reader, &s);
	klog_sleep_us(20000);
	if (write(m, "a\n", 2) != 2)
		klog_die("pty write: %s", strerror(errno));
	klog_sleep_us(20000);
	if (write(m, "b\n", 2) != 2)
		klog_die("pty write: %s", strerror(errno));
	join(r1);
	join(r2);
	close(s);
	close(m);
}

/*
 * ---- kernel rwsem: a tmpfs file's i_rwsem ----
 * The holder writes to a tmpfs file from a not-yet-faulted mapping of the
 * disk: the write takes the inode's i_rwsem, then faults the source in and
 * waits for the disk with i_rwsem held. A second writer then sleeps on the
 * rwsem. A 4 MiB read-around makes the disk wait long enough to be real.
 */
struct holder_arg {
	int fd;
	const char *src;
};

static void *sem_holder(void *p)
{
	struct holder_arg *a = p;

	register_tid();
	atomic_store(&sh->flag, 1);
	if (write(a->fd, a->src, 4096) != 4096)
		klog_die("holder write: %s", strerror(errno));
	return NULL;
}

static void write_file(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || write(fd, value, strlen(value)) != (ssize_t)strlen(value))
		klog_die("cannot write %s: %s", path, strerror(errno));
	close(fd);
}

static void provoke_sem(void)
{
	struct holder_arg a;
	size_t map_bytes;
	char *map;
	int disk, round, other;

	write_file("/sys/block/vda/queue/read_ahead_kb", "4096");
	disk = open(DISK, O_RDONLY);
	if (disk < 0)
		klog_die("open %s: %s", DISK, strerror(errno));
	map_bytes = (size_t)lseek(disk, 0, SEEK_END);
	map = mmap(NULL, map_bytes, PROT_READ, MAP_SHARED, disk, 0);
	if (map == MAP_FAILED)
		klog_die("mmap %s: %s", DISK, strerror(errno));
	a.fd = open("/tmp/klog-sem", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (a.fd < 0)
		klog_die("open /tmp/klog-sem: %s", strerror(errno));
	/* Its own open file: writers sharing one would meet on f_pos_lock. */
	other = open("/tmp/klog-sem", O_WRONLY | O_APPEND);
	if (other < 0)
		klog_die("open /tmp/klog-sem: %s", strerror(errno));
	for (round = 1; round <= 12 && (size_t)(round + 1) * (8 << 20) <= map_bytes; round++) {
		pthread_t t;

		a.src = map + (size_t)round * (8 << 20);
		atomic_store(&sh->flag, 0);
		run_thread(&t, sem_holder, &a);
		while (!atomic_load(&sh->flag))
			;
		if (write(other, "x", 1) != 1)
			klog_die("contender write: %s", strerror(errno));
		join(t);
	}
	close(a.fd);
	close(other);
	munmap(map, map_bytes);
	close(disk);
}

/* ---- hotplug ---- */

static void provoke_hotplug(void)
{
	const char *path = "/sys/devices/system/cpu/cpu1/online";

	write_file(path, "0");
	write_file(path, "1");
}

/* ---- disk IO: direct reads from the virtio disk ---- */

static void provoke_io(void)
{
	void *buf;
	int fd, i;

	fd = open(DISK, O_RDONLY | O_DIRECT);
	if (fd < 0)
		klog_die("open %s: %s (boot with a virtio-blk disk)", DISK, strerror(errno));
	if (posix_memalign(&buf, 4096, 1 << 20) != 0)
		klog_die("posix_memalign failed");
	/*
	 * qemu may complete a small request before the reader gets to sleep
	 * on it; a 1 MiB one keeps the host busy long enough.
	 */
	for (i = 0; i < 16; i++)
		if (pread(fd, buf, 1 << 20, (off_t)i << 20) != 1 << 20)
			klog_die("read %s: %s", DISK, strerror(errno));
	free(buf);
	close(fd);
}

/* ---- sockets: accept, TCP receive and UDP receive on loopback ---- */

static struct sockaddr_in loopback(int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

static void *tcp_server(void *p)
{
	int ls = *(int *)p, c;
	char b;

	register_tid();
	c = accept(ls, NULL, NULL);		/* blocks: SOCK */
	if (c < 0)
		klog_die("accept: %s", strerror(errno));
	if (recv(c, &b, 1, 0) != 1)		/* blocks: STREAM */
		klog_die("tcp recv: %s", strerror(errno));
	close(c);
	return NULL;
}

static void *udp_server(void *p)
{
	int s = *(int *)p;
	char b;

	register_tid();
	if (recv(s, &b, 1, 0) != 1)		/* blocks: DATAGRAM */
		klog_die("udp recv: %s", strerror(errno));
	return NULL;
}

static void provoke_sockets(void)
{
	struct sockaddr_in tcp = loopback(7171), udp = loopback(7172);
	int one = 1, ls, c, us, uc;
	pthread_t t;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (ls < 0 || bind(ls, (struct sockaddr *)&tcp, sizeof(tcp)) != 0 || listen(ls, 1) != 0)
		klog_die("tcp listen: %s (is lo up?)", strerror(errno));
	run_thread(&t, tcp_server, &ls);
	klog_sleep_us(5000);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&tcp, sizeof(tcp)) != 0)
		klog_die("tcp connect: %s", strerror(errno));
	klog_sleep_us(5000);
	if (send(c, "x", 1, 0) != 1)
		klog_die("tcp send: %s", strerror(errno));
	join(t);
	close(c);
	close(ls);

	us = socket(AF_INET, SOCK_DGRAM, 0);
	uc = socket(AF_INET, SOCK_DGRAM, 0);
	if (us < 0 || uc < 0 || bind(us, (struct sockaddr *)&udp, sizeof(udp)) != 0)
		klog_die("udp bind: %s", strerror(errno));
	run_thread(&t, udp_server, &us);
	klog_sleep_us(5000);
	if (sendto(uc, "x", 1, 0, (struct sockaddr *)&udp, sizeof(udp)) != 1)
		klog_die("udp send: %s", strerror(errno));
	join(t);
	close(us);
	close(uc);
}

/* ---- binder: a context manager process and a client ---- */

static void provoke_binder(void)
{
	struct kb server, client;
	pid_t pid;
	int status;

	kb_add_device("klogtest");
	atomic_store(&sh->flag, 0);
	/* Binder mappings are not inherited: the server opens its own. */
	pid = fork();
	if (pid < 0)
		klog_die("fork: %s", strerror(errno));
	if (pid == 0) {
		register_tid();
		sh->binder_server = getpid();
		kb_open(&server, "/dev/binderfs/klogtest");
		kb_become_manager(&server);
		atomic_store(&sh->flag, 1);
		kb_serve(&server, 3);
		_exit(0);
	}
	while (!atomic_load(&sh->flag))
		klog_sleep_us(1000);
	kb_open(&client, "/dev/binderfs/klogtest");
	kb_call(&client, 1, 1);
	kb_call(&client, 2, 0);
	kb_call(&client, 3, 0);
	kb_close(&client);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		klog_die("binder server failed");
}

/*
 * ---- wait queue: a reader of an empty pipe ----
 * pipe_read() sleeps in wait_event_interruptible_exclusive() on the pipe's
 * rd_wait queue until the writer's wake-up.
 */
static void *pipe_reader(void *p)
{
	int fd = *(int *)p;
	char c;

	register_tid();
	if (read(fd, &c, 1) != 1)
		klog_die("pipe read: %s", strerror(errno));
	return NULL;
}

static void provoke_waitqueue(void)
{
	int round, fds[2];

	for (round = 0; round < 3; round++) {
		pthread_t t;

		if (pipe(fds) != 0)
			klog_die("pipe: %s", strerror(errno));
		run_thread(&t, pipe_reader, &fds[0]);
		klog_sleep_us(5000);
		if (write(fds[1], "x", 1) != 1)
			klog_die("pipe write: %s", strerror(errno));
		join(t);
		close(fds[0]);
		close(fds[1]);
	}
}

/*
 * ---- poll: a pipe, then a timeout ----
 * poll() on an empty pipe sleeps with the pipe in its poll table (FILE_WAIT
 * of kind IPC), and the writer's wake-up runs pollwake() for the pipe
 * (WAKEUP a2 = IPC, patch 0004's waking_file); poll() of no file with a
 * timeout is woken in its hrtimer's expiry (WAKEUP a2 = TIMER). Then two
 * waits that time out: a poll() of more pipes than the poll table holds
 * inline (its FILE_WAIT adds bit 0: not every kind is listed), and an
 * epoll_wait() on a pipe (bit 0 alone: the set's files are not listed).
 */
#define POLL_MANY 20 /* more than the kernel's N_INLINE_POLL_ENTRIES, 18 */
static atomic_int poller_tid;

static void poll_many_and_epoll(void)
{
	struct pollfd pfd[POLL_MANY];
	struct epoll_event ev = { .events = EPOLLIN };
	int fds[POLL_MANY][2], ep, i;

	for (i = 0; i < POLL_MANY; i++) {
		if (pipe(fds[i]) != 0)
			klog_die("pipe: %s", strerror(errno));
		pfd[i] = (struct pollfd){ .fd = fds[i][0], .events = POLLIN };
	}
	if (poll(pfd, POLL_MANY, 2) != 0)
		klog_die("poll of %d pipes: %s", POLL_MANY, strerror(errno));
	ep = epoll_create1(0);
	if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, fds[0][0], &ev) != 0)
		klog_die("epoll: %s", strerror(errno));
	if (epoll_wait(ep, &ev, 1, 2) != 0)
		klog_die("epoll_wait: %s", strerror(errno));
	close(ep);
	for (i = 0; i < POLL_MANY; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
}

static void *pipe_poller(void *p)
{
	struct pollfd pfd = { .fd = *(int *)p, .events = POLLIN };

	register_tid();
	atomic_store(&poller_tid, klog_gettid());
	if (poll(&pfd, 1, -1) != 1)
		klog_die("poll of a pipe: %s", strerror(errno));
	if (poll(NULL, 0, 2) != 0)
		klog_die("poll with a timeout: %s", strerror(errno));
	poll_many_and_epoll();
	return NULL;
}

/* Reads a /proc file of this test's into buf, NUL-terminated. */
static void read_proc(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		klog_die("%s: cannot read", path);
	buf[n] = '\0';
}

/* Whether thread tid sleeps in poll() (/proc's state S in syscall poll). */
static int asleep_in_poll(pid_t tid)
{
	char path[64], buf[256];
	const char *state;
	int nr = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	read_proc(path, buf, sizeof(buf));
	state = strrchr(buf, ')');
	if (!state || state[1] != ' ' || state[2] != 'S')
		return 0;
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	read_proc(path, buf, sizeof(buf));
	return sscanf(buf, "%d", &nr) == 1 && nr == SYS_poll;
}

static void provoke_poll(void)
{
	pthread_t t;
	int fds[2];

	if (pipe(fds) != 0)
		klog_die("pipe: %s", strerror(errno));
	run_thread(&t, pipe_poller, &fds[0]);
	/* The write must find the poller asleep, for its wake-up to be logged. */
	while (!atomic_load(&poller_tid) || !asleep_in_poll(atomic_load(&poller_tid)))
		sched_yield();
	if (write(fds[1], "x", 1) != 1)
		klog_die("pipe write: %s", strerror(errno));
	join(t);
	close(fds[0]);
	close(fds[1]);
}

/*
 * ---- the clock contract ----
 * Records and the userspace logger share CLOCK_MONOTONIC: the module
 * publishes clock_offset_ns such that CLOCK_MONOTONIC ns = CNTVCT *
 * (1e9 / CNTFRQ) + clock_offset_ns, exactly. Each clock_gettime() read
 * between two counter reads must be that function of a count between them.
 */
#define OFFSET_PARAM "/sys/module/panlab_klog/parameters/clock_offset_ns"

static int64_t clock_offset_ns;
static uint32_t ns_per_tick;
static uint64_t rename_start_ns, rename_end_ns;	/* around the prctl */

static uint64_t counter_ticks(void)
{
	uint64_t v;

	/* ISB first, so the read is not early; armel's -march has no mnemonic for it. */
	__asm__ __volatile__(".inst 0xf57ff06f\n\tmrrc p15, 1, %Q0, %R0, c14"
			     : "=r"(v) : : "memory");
	return v;
}

static void check_clock(void)
{
	uint32_t hz;
	char line[32];
	FILE *f;
	int i;

	__asm__ __volatile__("mrc p15, 0, %0, c14, c0, 0" : "=r"(hz));
	/* Both backends run the counter at 62.5 MHz: the module has no fallback here. */
	if (hz != 62500000)
		klog_die("clock: CNTFRQ is %u Hz, expected 62500000", hz);
	ns_per_tick = 1000000000u / hz;
	f = fopen(OFFSET_PARAM, "re");
	if (!f || !fgets(line, sizeof(line), f) ||
	    sscanf(line, "%" SCNd64, &clock_offset_ns) != 1)
		klog_die("clock: cannot read %s: %s", OFFSET_PARAM, strerror(errno));
	fclose(f);
	for (i = 0; i < 1000; i++) {
		uint64_t c0 = counter_ticks();
		uint64_t t = klog_now_ns();
		uint64_t c1 = counter_ticks();
		uint64_t at = t - (uint64_t)clock_offset_ns;

		if (at % ns_per_tick || at / ns_per_tick < c0 || at / ns_per_tick > c1)
			klog_die("clock: CLOCK_MONOTONIC %" PRIu64 " is not CNTVCT in [%" PRIu64
				 ", %" PRIu64 "] * %u + %" PRId64, t, c0, c1, ns_per_tick,
				 clock_offset_ns);
	}
	printf("klog-check: clock: CLOCK_MONOTONIC = CNTVCT * %u + %" PRId64
	       " ns in 1000 of 1000 reads\n", ns_per_tick, clock_offset_ns);
}

/* ---- fork, rename, hotplug ---- */

static void provoke_fork_rename(void)
{
	pid_t pid;
	int status;

	rename_start_ns = klog_now_ns();
	if (prctl(PR_SET_NAME, RENAMED) != 0)
		klog_die("prctl: %s", strerror(errno));
	rename_end_ns = klog_now_ns();
	pid = fork();
	if (pid < 0)
		klog_die("fork: %s", strerror(errno));
	if (pid == 0) {
		register_tid();
		_exit(0);
	}
	waitpid(pid, &status, 0);
}

/* ---- checks ---- */

static int fails;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
	va_list ap;

	if (fails++ >= 10)
		return;
	printf("klog-check: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int is_notify(unsigned int type)
{
	return type == PL_EV_FUTEX_NOTIFY || type == PL_EV_MUTEX_NOTIFY ||
	       type == PL_EV_SEM_NOTIFY || type == PL_EV_WAITQUEUE_NOTIFY;
}

static int cmp_ts(const void *pa, const void *pb)
{
	const struct pl_event *a = *(const struct pl_event *const *)pa;
	const struct pl_event *b = *(const struct pl_event *const *)pb;

	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns ? -1 : 1;
	return a < b ? -1 : a > b;	/* read order within a cpu */
}

struct span {
	uint32_t tid;
	uint16_t kind;
	uint64_t id, begin, end;
};

static struct span spans[8192];
static int nspans;

/* Pairs opening and closing records of one tid; closing needs an opener. */
static void pair_spans(struct pl_event **ord, size_t n, uint16_t open_type,
		       uint16_t close_type, int with_id, int *paired)
{
	size_t i;
	int j;

	*paired = 0;
	for (i = 0; i < n; i++) {
		const struct pl_event *e = ord[i];

		if (!is_ours(e->tid) || (e->type != open_type && e->type != close_type))
			continue;
		for (j = nspans - 1; j >= 0; j--)
			if (spans[j].tid == e->tid && spans[j].kind == open_type &&
			    !spans[j].end)
				break;
		if (e->type == open_type) {
			if (j >= 0)
				fail("%s: tid %u opens a wait while one is open since %llu",
				     klog_type_name(open_type), e->tid,
				     (unsigned long long)spans[j].begin);
			if (nspans == 8192)
				klog_die("too many waits");
			spans[nspans++] = (struct span){ e->tid, open_type, e->a0, e->ts_ns, 0 };
		} else if (j < 0 || (with_id && spans[j].id != e->a0)) {
			fail("%s: tid %u resumes without a matching block (lock %#llx)",
			     klog_type_name(close_type), e->tid, (unsigned long long)e->a0);
		} else {
			spans[j].end = e->ts_ns;
			(*paired)++;
		}
	}
	for (j = 0; j < nspans; j++)
		if (spans[j].kind == open_type && !spans[j].end)
			fail("%s: tid %u never resumed (since %llu ns)",
			     klog_type_name(open_type), spans[j].tid,
			     (unsigned long long)spans[j].begin);
}

/* A NOTIFY names a waiter whose wait on the same lock spans it. */
static int match_notifies(struct pl_event **ord, size_t n, uint16_t wait_type,
			  uint16_t notify_type, int *unmatched)
{
	size_t i;
	int j, matched = 0;

	*unmatched = 0;
	for (i = 0; i < n; i++) {
		const struct pl_event *e = ord[i];
		int ok = 0;

		if (e->type != notify_type || !is_ours(e->a1))
			continue;
		for (j = 0; j < nspans && !ok; j++)
			ok = spans[j].kind == wait_type && spans[j].tid == e->a1 &&
			     spans[j].id == e->a0 && spans[j].begin <= e->ts_ns + 1000000 &&
			     spans[j].end >= e->ts_ns;
		if (ok)
			matched++;
		else
			(*unmatched)++;
	}
	return matched;
}

static int is_irq_event(uint16_t type)
{
	return type == PL_EV_IRQ_ENTRY || type == PL_EV_IRQ_EXIT || type == PL_EV_IRQ_NAME;
}

/* The module names irqs below 1024 (probes.c KLOG_NAMED_IRQS). */
#define NAMED_IRQS 1024

/* On the idle task only (tid 0); a device's irq named in the trace; a known softirq. */
static void check_irq_event(size_t i, const struct pl_event *e, const uint8_t *named)
{
	if (e->tid != 0)
		fail("record %zu: %s on tid %u, expected the idle task", i,
		     klog_type_name(e->type), e->tid);
	if (e->type == PL_EV_IRQ_NAME)
		return;
	if (e->a1 == PL_IRQ_SOFT && e->a0 >= PL_SOFTIRQS)
		fail("record %zu: %s of softirq %llu, expected a vector below %d", i,
		     klog_type_name(e->type), (unsigned long long)e->a0, PL_SOFTIRQS);
	else if (e->a1 != PL_IRQ_SOFT && e->a1 != PL_IRQ_HARD)
		fail("record %zu: %s kind %u", i, klog_type_name(e->type), e->a1);
	else if (e->type == PL_EV_IRQ_ENTRY && e->a1 == PL_IRQ_HARD && e->a0 < NAMED_IRQS &&
		 !named[e->a0])
		fail("record %zu: irq_entry of irq %llu, which no irq_name names", i,
		     (unsigned long long)e->a0);
}

/* The armv7 PMU driver's perf PMU on the phone (arch/arm/kernel/perf_event_v7.c). */
#define PMU_NAME "armv7_cortex_a15"

static void check_events(struct klog_trace *t, const struct pl_klog_stats *st)
{
	static const uint16_t wanted[] = {
		PL_EV_CONTEXT_SWITCH, PL_EV_WAKEUP, PL_EV_FORK, PL_EV_THREAD_NAME, PL_EV_EXIT,
		PL_EV_BINDER_PRODUCE_ONEWAY, PL_EV_BINDER_PRODUCE_TWOWAY, PL_EV_BINDER_REPLY,
		PL_EV_BINDER_CONSUME, PL_EV_FUTEX_WAIT, PL_EV_FUTEX_WAKE, PL_EV_FUTEX_NOTIFY,
		PL_EV_MUTEX_WAIT, PL_EV_MUTEX_WAKE, PL_EV_MUTEX_NOTIFY, PL_EV_SEM_WAIT,
		PL_EV_SEM_WAKE, PL_EV_SEM_NOTIFY, PL_EV_WAITQUEUE_WAIT, PL_EV_WAITQUEUE_WAKE,
		PL_EV_WAITQUEUE_NOTIFY, PL_EV_SOCK_BLOCK, PL_EV_SOCK_RESUME,
		PL_EV_DATAGRAM_BLOCK, PL_EV_DATAGRAM_RESUME, PL_EV_STREAM_BLOCK,
		PL_EV_STREAM_RESUME, PL_EV_IO_BLOCK, PL_EV_IO_RESUME, PL_EV_CPU_ONLINE,
		PL_EV_CPU_OFFLINE, PL_EV_CPU_IDLE_ENTER, PL_EV_CPU_IDLE_EXIT, PL_EV_IRQ_ENTRY,
		PL_EV_IRQ_EXIT, PL_EV_IRQ_NAME,
	};
	/* Kernel-wide events; the others must come from this test's threads. */
	static const uint16_t anyone[] = {
		PL_EV_CPU_ONLINE, PL_EV_CPU_OFFLINE, PL_EV_CPU_IDLE_ENTER, PL_EV_CPU_IDLE_EXIT,
		PL_EV_IRQ_ENTRY, PL_EV_IRQ_EXIT, PL_EV_IRQ_NAME,
	};
	static const uint16_t pairs[][3] = {	/* open, close, carries a lock id */
		{ PL_EV_FUTEX_WAIT, PL_EV_FUTEX_WAKE, 1 },
		{ PL_EV_MUTEX_WAIT, PL_EV_MUTEX_WAKE, 1 },
		{ PL_EV_SEM_WAIT, PL_EV_SEM_WAKE, 1 },
		{ PL_EV_WAITQUEUE_WAIT, PL_EV_WAITQUEUE_WAKE, 1 },
		{ PL_EV_SOCK_BLOCK, PL_EV_SOCK_RESUME, 0 },
		{ PL_EV_DATAGRAM_BLOCK, PL_EV_DATAGRAM_RESUME, 0 },
		{ PL_EV_STREAM_BLOCK, PL_EV_STREAM_RESUME, 0 },
		{ PL_EV_IO_BLOCK, PL_EV_IO_RESUME, 0 },
	};
	size_t count[PL_EV_TYPE_MAX + 1] = { 0 }, percpu[PL_KLOG_MAX_CPUS] = { 0 };
	uint64_t last_ts[PL_KLOG_MAX_CPUS] = { 0 }, renamed_ns = 0;
	struct pl_event **ord;
	enum { NPAIRS = sizeof(pairs) / sizeof(pairs[0]), NLOCKS = 4 };
	unsigned int poll_wakes = 0; /* bit 1 << WAKEUP a2 of the poller's wake-ups */
	int file_waits_ipc = 0;
	unsigned int poller_waits = 0; /* 1: a poll of many pipes, 2: an epoll_wait */
	/* The previous record of each cpu: a SWITCH_COUNTS follows its CONTEXT_SWITCH. */
	const struct pl_event *prev_on[PL_KLOG_MAX_CPUS] = { 0 };
	size_t switches = 0, switch_counts = 0, ours_counted = 0;
	uint8_t named[NAMED_IRQS] = { 0 };
	int pmu = access("/sys/bus/event_source/devices/" PMU_NAME, F_OK) == 0;
	int binder_pairs = 0, renamed = 0, paired[NPAIRS], notified[NLOCKS], unmatched[NLOCKS];
	size_t i, k;
	int j;

	for (i = 0; i < t->n; i++) {
		const struct pl_event *e = &t->ev[i];
		uint32_t irq = (uint32_t)e->a0 & 0xffff, part = (uint32_t)e->a0 >> 16;

		if (e->type != PL_EV_IRQ_NAME)
			continue;
		if (irq >= NAMED_IRQS || part >= PL_IRQ_NAME_PARTS)
			fail("record %zu: irq_name of irq %u part %u, expected an irq below %d and a part below %d",
			     i, irq, part, NAMED_IRQS, PL_IRQ_NAME_PARTS);
		else if (part != named[irq])
			fail("record %zu: irq_name part %u of irq %u after %u parts, expected them in order",
			     i, part, irq, named[irq]);
		else
			named[irq]++;
	}
	for (i = 0; i < t->n; i++) {
		const struct pl_event *e = &t->ev[i];

		if (e->cpu >= st->ncpus) {
			fail("record %zu: cpu %u out of range", i, e->cpu);
			continue;
		}
		if (e->type == 0 || (e->type > PL_EV_LOST && e->type != PL_EV_FILE_WAIT &&
				     e->type != PL_EV_SWITCH_COUNTS && !is_irq_event(e->type)))
			fail("record %zu: type %u is not a kernel event", i, e->type);
		if (is_irq_event(e->type))
			check_irq_event(i, e, named);
		if (e->type == PL_EV_SWITCH_COUNTS) {
			const struct pl_event *p = prev_on[e->cpu];

			if (!p || p->type != PL_EV_CONTEXT_SWITCH || p->tid != e->tid ||
			    p->ts_ns != e->ts_ns)
				fail("record %zu: switch_counts not just after its context_switch",
				     i);
			switch_counts++;
			ours_counted += is_ours(e->tid) && e->a0 && !e->a1 && !e->a2;
		}
		switches += e->type == PL_EV_CONTEXT_SWITCH;
		prev_on[e->cpu] = e;
		if (e->type == PL_EV_FILE_WAIT && is_ours(e->tid) && (e->a0 & 1u << PL_FILE_IPC))
			file_waits_ipc++;
		if (e->type == PL_EV_FILE_WAIT && e->tid == (uint32_t)atomic_load(&poller_tid))
			poller_waits |= (e->a0 == (1u << PL_FILE_UNKNOWN | 1u << PL_FILE_IPC)) |
					(e->a0 == 1u << PL_FILE_UNKNOWN) << 1;
		if (e->type == PL_EV_WAKEUP && e->a2 < 32 &&
		    e->a0 == (uint64_t)atomic_load(&poller_tid))
			poll_wakes |= 1u << e->a2;
		if (e->ts_ns < last_ts[e->cpu])
			fail("record %zu: timestamp goes back on cpu%u by %llu ns", i, e->cpu,
			     (unsigned long long)(last_ts[e->cpu] - e->ts_ns));
		if ((e->ts_ns - (uint64_t)clock_offset_ns) % ns_per_tick)
			fail("record %zu: timestamp %llu is not CNTVCT * %u + %lld", i,
			     (unsigned long long)e->ts_ns, ns_per_tick, (long long)clock_offset_ns);
		last_ts[e->cpu] = e->ts_ns;
		percpu[e->cpu]++;
		/* A notify counts when it wakes one of ours, whoever the waker. */
		if (e->type <= PL_EV_TYPE_MAX &&
		    (is_ours(e->tid) || e->type >= PL_EV_CPU_FREQUENCY ||
		     (is_notify(e->type) && is_ours(e->a1))))
			count[e->type]++;
		if (e->type == PL_EV_CONTEXT_SWITCH && e->a1 > PL_STATE_OTHER)
			fail("context_switch: bad old-thread state %u", e->a1);
		if (e->type == PL_EV_THREAD_NAME && is_ours(e->tid)) {
			char name[17] = { 0 };

			memcpy(name, &e->a0, 8);
			memcpy(name + 8, &e->a1, 4);
			memcpy(name + 12, &e->a2, 4);
			/* Threads created later inherit the name: the first is the prctl(). */
			if (!strcmp(name, RENAMED) && (!renamed++ || e->ts_ns < renamed_ns))
				renamed_ns = e->ts_ns;
		}
		/* Binder calls go to the server process, replies back to us. */
		if ((e->type == PL_EV_BINDER_PRODUCE_ONEWAY ||
		     e->type == PL_EV_BINDER_PRODUCE_TWOWAY) && is_ours(e->tid) &&
		    e->a1 != (uint32_t)sh->binder_server)
			fail("%s: target pid %u, expected the server %d", klog_type_name(e->type),
			     e->a1, sh->binder_server);
		if (e->type == PL_EV_BINDER_REPLY && is_ours(e->tid) && e->a1 != (uint32_t)getpid())
			fail("binder_reply: target pid %u, expected the client %d", e->a1, getpid());
		/* A new process is its own thread group; a new thread joins ours. */
		if (e->type == PL_EV_FORK && is_ours(e->tid) && e->a1 != e->a0 &&
		    e->a1 != (uint32_t)getpid())
			fail("fork: child %llu in thread group %u", (unsigned long long)e->a0, e->a1);
		if ((e->type == PL_EV_CPU_ONLINE || e->type == PL_EV_CPU_OFFLINE) && e->a1 != 1)
			fail("%s: cpu %u, expected 1", klog_type_name(e->type), e->a1);
	}
	for (i = 0; i < st->ncpus; i++) {
		if (percpu[i] != st->written[i])
			fail("cpu%zu: read %zu records, the module kept %llu", i, percpu[i],
			     (unsigned long long)st->written[i]);
		if (st->lost[i])
			fail("cpu%zu: %llu records lost with a 30 MB buffer", i,
			     (unsigned long long)st->lost[i]);
	}
	if (count[PL_EV_LOST])
		fail("%zu LOST markers without loss", count[PL_EV_LOST]);
	if (!(poller_waits & 1))
		fail("file_wait: the poll of %d pipes has not kinds ipc and unknown", POLL_MANY);
	if (!(poller_waits & 2))
		fail("file_wait: the epoll_wait's is not unknown alone");
	if (!file_waits_ipc)
		fail("file_wait: none of a pipe (the pipe reader's and poller's)");
	if (!(poll_wakes & 1u << PL_FILE_IPC))
		fail("wakeup: the poller's wake by the pipe writer names no pipe (a2 %#x)",
		     poll_wakes);
	if (!(poll_wakes & 1u << PL_FILE_TIMER))
		fail("wakeup: the poller's timeout names no timer (a2 %#x)", poll_wakes);
	if (!renamed)
		fail("no THREAD_NAME with the new name %s", RENAMED);
	/* The record's clock is the one clock_gettime reads. */
	else if (renamed_ns < rename_start_ns || renamed_ns > rename_end_ns)
		fail("thread_name %s at %llu ns, outside its prctl() call [%llu, %llu]", RENAMED,
		     (unsigned long long)renamed_ns, (unsigned long long)rename_start_ns,
		     (unsigned long long)rename_end_ns);
	/* With the PMU driver bound the logger counts; without it, it cannot. */
	if (pmu && !ours_counted)
		fail("switch_counts: none of the test's threads counted, with %s bound", PMU_NAME);
	if (!pmu && switch_counts)
		fail("switch_counts: %zu records with no %s", switch_counts, PMU_NAME);
	for (k = 0; k < sizeof(wanted) / sizeof(wanted[0]); k++) {
		int global = 0;

		for (j = 0; j < (int)(sizeof(anyone) / sizeof(anyone[0])); j++)
			global |= anyone[j] == wanted[k];
		if (!count[wanted[k]])
			fail("%s: no such record%s", klog_type_name(wanted[k]),
			     global ? "" : " from the test's threads");
	}

	ord = malloc(t->n * sizeof(*ord));
	if (!ord)
		klog_die("out of memory");
	for (i = 0; i < t->n; i++)
		ord[i] = &t->ev[i];
	qsort(ord, t->n, sizeof(*ord), cmp_ts);

	for (k = 0; k < NPAIRS; k++)
		pair_spans(ord, t->n, pairs[k][0], pairs[k][1], pairs[k][2], &paired[k]);
	for (k = 0; k < NLOCKS; k++) {
		notified[k] = match_notifies(ord, t->n, pairs[k][0], pairs[k][0] + 2, &unmatched[k]);
		if (!notified[k])
			fail("%s: no notify matches a waiter's wait",
			     klog_type_name(pairs[k][0] + 2));
	}

	/* Every produce of ours is consumed, later, by one of ours; and back. */
	for (i = 0; i < t->n; i++) {
		const struct pl_event *p = ord[i];
		int found = 0;

		if (!is_ours(p->tid) || p->type < PL_EV_BINDER_PRODUCE_ONEWAY ||
		    p->type > PL_EV_BINDER_CONSUME)
			continue;
		for (k = 0; k < t->n && !found; k++) {
			const struct pl_event *c = ord[k];

			if (c->a0 != p->a0 || c == p || !is_ours(c->tid))
				continue;
			if (p->type == PL_EV_BINDER_CONSUME)
				found = c->type != PL_EV_BINDER_CONSUME && k < i;
			else
				found = c->type == PL_EV_BINDER_CONSUME && k > i &&
					c->tid != p->tid;
		}
		if (!found)
			fail("%s: transaction %llu has no counterpart",
			     klog_type_name(p->type), (unsigned long long)p->a0);
		else if (p->type == PL_EV_BINDER_CONSUME)
			binder_pairs++;
	}
	free(ord);

	printf("klog-check: file waits of a pipe %d, the poller's wakes by kind %#x\n",
	       file_waits_ipc, poll_wakes);
	printf("klog-check: %zu records; pairs: futex %d, mutex %d, sem %d, waitqueue %d, sock %d, "
	       "datagram %d, stream %d, io %d; notifies matched: futex %d (+%d early), mutex %d, "
	       "sem %d, waitqueue %d; binder %d\n",
	       t->n, paired[0], paired[1], paired[2], paired[3], paired[4], paired[5], paired[6],
	       paired[7], notified[0], unmatched[0], notified[1], notified[2], notified[3],
	       binder_pairs);
	if (unmatched[1] || unmatched[2] || unmatched[3])
		fail("%d mutex, %d sem and %d waitqueue notifies name no waiting waiter",
		     unmatched[1], unmatched[2], unmatched[3]);
	if (fails && getenv("KLOG_DUMP")) {
		for (i = 0; i < t->n; i++) {
			const struct pl_event *e = &t->ev[i];

			if (is_ours(e->tid) && e->type != PL_EV_THREAD_NAME)
				printf("klog-dump: %llu cpu%u tid %u %s %#llx %u %u\n",
				       (unsigned long long)e->ts_ns, e->cpu, e->tid,
				       klog_type_name(e->type), (unsigned long long)e->a0,
				       e->a1, e->a2);
		}
	}
	if (fails)
		klog_die("%d checks failed (first ones above)", fails);
	printf("KLOG-TEST: OK every kernel event type recorded and paired (%zu records, "
	       "%d binder and %d lock wait pairs; %zu of %zu switches counted)\n",
	       t->n, binder_pairs, paired[0] + paired[1] + paired[2] + paired[3], switch_counts,
	       switches);
}

static int run_events(void)
{
	struct klog_trace t = { 0 };
	struct pl_klog_stats st;

	static const struct {
		const char *name;
		void (*fn)(void);
	} steps[] = {
		{ "fork and rename", provoke_fork_rename },
		{ "futex", provoke_futex },
		{ "kernel mutex", provoke_mutex },
		{ "kernel rwsem", provoke_sem },
		{ "wait queue", provoke_waitqueue },
		{ "poll", provoke_poll },
		{ "disk io", provoke_io },
		{ "sockets", provoke_sockets },
		{ "binder", provoke_binder },
		{ "hotplug", provoke_hotplug },
	};
	size_t i;

	check_clock();
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		printf("klog-step: %s\n", steps[i].name);
		steps[i].fn();
	}
	klog_sleep_us(10000);
	klog_set_enabled(0);
	klog_stats(&st);
	klog_drain(&t);
	check_events(&t, &st);
	return 0;
}

/*
 * Loss accounting with a tiny ring. The module counts, per cpu, records
 * written (kept) and lost; a LOST record carries the count dropped before
 * the record it precedes. Produced = kept - markers + dropped. We check that
 * the markers account for every drop the counters report, that kept equals
 * what we read, and, independently of the module's counters, that every gap
 * in a sequence of numbered renames is covered by LOST markers.
 */
static int run_loss(void)
{
	enum { RENAMES = 4000 };
	struct klog_trace t = { 0 };
	struct pl_klog_stats st;
	uint64_t marked[PL_KLOG_MAX_CPUS] = { 0 }, kept[PL_KLOG_MAX_CPUS] = { 0 };
	uint64_t lost_since = 0, gap_total = 0, lost_total = 0, produced = 0;
	int i, last = -1, kept_renames = 0, gaps = 0;
	unsigned int c;
	size_t k;

	klog_pin_cpu(0);
	for (i = 0; i < RENAMES; i++) {
		char name[16];

		snprintf(name, sizeof(name), "L%05d", i);
		prctl(PR_SET_NAME, name);
		if (i % 500 == 499)
			klog_drain(&t);
	}
	/* One record on each cpu after a drain flushes its pending LOST count. */
	klog_drain(&t);
	for (c = 0; c < 2; c++) {
		klog_pin_cpu((int)c);
		prctl(PR_SET_NAME, "klog-flush");
	}
	klog_set_enabled(0);
	klog_stats(&st);
	klog_drain(&t);

	for (k = 0; k < t.n; k++) {
		const struct pl_event *e = &t.ev[k];
		char name[17] = { 0 };

		kept[e->cpu]++;
		if (e->type == PL_EV_LOST) {
			marked[e->cpu] += e->a0;
			if (e->cpu == 0)
				lost_since += e->a0;
			continue;
		}
		if (e->type != PL_EV_THREAD_NAME || e->cpu != 0)
			continue;
		memcpy(name, &e->a0, 8);
		if (name[0] != 'L' || atoi(name + 1) <= last)
			continue;
		i = atoi(name + 1);
		if (i != last + 1) {
			gaps++;
			gap_total += (uint64_t)(i - last - 1);
			if (lost_since < (uint64_t)(i - last - 1))
				klog_die("renames %d..%d missing but only %llu drops marked before %d",
					 last + 1, i - 1, (unsigned long long)lost_since, i);
		}
		lost_since = 0;
		last = i;
		kept_renames++;
	}
	for (c = 0; c < st.ncpus; c++) {
		printf("klog-loss: cpu%u kept %llu (read %llu), lost %llu, marked lost %llu\n", c,
		       (unsigned long long)st.written[c], (unsigned long long)kept[c],
		       (unsigned long long)st.lost[c], (unsigned long long)marked[c]);
		if (kept[c] != st.written[c])
			klog_die("cpu%u: read %llu records, the module kept %llu", c,
				 (unsigned long long)kept[c], (unsigned long long)st.written[c]);
		if (marked[c] != st.lost[c])
			klog_die("cpu%u: LOST markers account for %llu drops, the module counted %llu",
				 c, (unsigned long long)marked[c], (unsigned long long)st.lost[c]);
		lost_total += st.lost[c];
		produced += st.written[c] + st.lost[c];
	}
	if (!gaps || lost_total == 0)
		klog_die("no loss with a tiny buffer (%d renames kept of %d)", kept_renames, RENAMES);
	printf("KLOG-TEST: OK loss %llu == produced %llu - kept %llu; %d rename gaps "
	       "(%llu renames) covered by LOST markers\n", (unsigned long long)lost_total,
	       (unsigned long long)produced, (unsigned long long)(produced - lost_total), gaps,
	       (unsigned long long)gap_total);
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		klog_die("mmap: %s", strerror(errno));
	register_tid();
	if (argc == 2 && !strcmp(argv[1], "events"))
		return run_events();
	if (argc == 2 && !strcmp(argv[1], "loss"))
		return run_loss();
	fprintf(stderr, "usage: %s events|loss\n", argv[0]);
	return 2;
}
