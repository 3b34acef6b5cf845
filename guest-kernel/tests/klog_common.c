// SPDX-License-Identifier: GPL-2.0
#include "klog_common.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define KLOG_DEV "/dev/panlab_klog"
#define KLOG_ENABLE "/sys/module/panlab_klog/parameters/enable"

void klog_die(const char *fmt, ...)
{
	va_list ap;

	printf("KLOG-TEST: FAIL ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

void klog_set_enabled(int on)
{
	int fd = open(KLOG_ENABLE, O_WRONLY);

	if (fd < 0 || write(fd, on ? "1" : "0", 1) != 1)
		klog_die("cannot write %s: %s", KLOG_ENABLE, strerror(errno));
	close(fd);
}

void klog_stats(struct pl_klog_stats *st)
{
	int fd = open(KLOG_DEV, O_RDONLY);

	if (fd < 0 || ioctl(fd, PL_KLOG_IOC_STATS, st) != 0)
		klog_die("cannot read counters of %s: %s", KLOG_DEV, strerror(errno));
	close(fd);
}

size_t klog_drain(struct klog_trace *t)
{
	size_t before = t->n;
	int fd = open(KLOG_DEV, O_RDONLY);

	if (fd < 0)
		klog_die("cannot open %s: %s", KLOG_DEV, strerror(errno));
	for (;;) {
		ssize_t got;

		if (t->cap - t->n < 2048) {
			t->cap = t->cap ? 2 * t->cap : 65536;
			t->ev = realloc(t->ev, t->cap * sizeof(*t->ev));
			if (!t->ev)
				klog_die("out of memory for %zu records", t->cap);
		}
		got = read(fd, t->ev + t->n, 2048 * sizeof(*t->ev));
		if (got < 0)
			klog_die("read %s: %s", KLOG_DEV, strerror(errno));
		if (got % sizeof(*t->ev))
			klog_die("read %s returned %zd bytes, not whole records", KLOG_DEV, got);
		t->n += got / sizeof(*t->ev);
		if ((size_t)got < 2048 * sizeof(*t->ev))
			break;
	}
	close(fd);
	return t->n - before;
}

void klog_pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		klog_die("cannot pin to cpu%d: %s", cpu, strerror(errno));
}

pid_t klog_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

uint64_t klog_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void klog_sleep_us(unsigned int us)
{
	struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (long)(us % 1000000) * 1000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

#define KLOG_NAME_ENTRY(name, value, str) [value] = str,
static const char *const klog_names[PL_EV_TYPE_MAX + 1] = {
	PL_EVENT_TYPES(KLOG_NAME_ENTRY)
};

const char *klog_type_name(unsigned int type)
{
	return type <= PL_EV_TYPE_MAX && klog_names[type] ? klog_names[type] : "?";
}
