/*
 * panlab-governor: the interactive governor (guest-kernel/modules/cpufreq_interactive) on the
 * phone's cpufreq driver, against the rules Panappticon 6.3 gives for Android 4.1. Loads the
 * module, selects it on policy0, records the kernel's power:cpu_frequency events through
 * tracefs (CLOCK_MONOTONIC), and plays a load pattern on cpu0:
 *   idle 400 ms, a key press, idle 300 ms, a fixed amount of CPU work, idle 400 ms.
 * Then it checks the frequency trace:
 *   R1 idle: the clock is at the lowest operating point before the press;
 *   R2 input boost: the press raises it to hispeed (700 MHz) within 5 ms (raising is immediate);
 *   R3 hold: nothing lowers it within min_sample_time (60 ms) of the press;
 *   R4 busy after idle: the work raises it to at least hispeed within timer_rate (20 ms) plus
 *      10 ms of its start, and to the top (1200 MHz) within 70 ms;
 *   R5 every decrease comes at least 60 ms after the last increase before it.
 * Prints each transition and "panlab-governor: ok" or the rule that failed; exits 0 or 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/uinput.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define TRACING "/sys/kernel/tracing"
#define POLICY "/sys/devices/system/cpu/cpufreq/policy0"
#define MODULE "/lib/modules/cpufreq_interactive.ko"
#define HISPEED_KHZ 700000u
#define TOP_KHZ 1200000u
#define MS 1000000ll
#define MAX_EVENTS 4096

struct change {
	int64_t ns;
	unsigned khz;
};

static struct change changes[MAX_EVENTS];
static int nchanges;

static void fail(const char *what)
{
	printf("panlab-governor: FAIL %s\n", what);
	exit(1);
}

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000ll + t.tv_nsec;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		printf("panlab-governor: FAIL writing '%s' to %s: %s\n", text, path, strerror(errno));
		exit(1);
	}
	close(fd);
}

static unsigned read_khz(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned khz = 0;

	if (!f || fscanf(f, "%u", &khz) != 1)
		fail("cannot read the policy's lowest frequency");
	fclose(f);
	return khz;
}

static void idle_ms(int64_t ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000 };

	while (nanosleep(&t, &t) != 0 && errno == EINTR)
		;
}

/* A fixed amount of work: about 300 ms at 350 MHz, 90 ms at 1.2 GHz. */
static uint32_t work(void)
{
	uint32_t x = 2463534242u;

	for (uint32_t i = 0; i < 30000000u; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
	}
	return x;
}

static int uinput_key(void)
{
	struct uinput_setup setup = { .id = { .bustype = BUS_VIRTUAL }, .name = "panlab-governor" };
	int fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK);

	if (fd < 0 || ioctl(fd, UI_SET_EVBIT, EV_KEY) < 0 || ioctl(fd, UI_SET_KEYBIT, KEY_A) < 0 ||
	    ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0)
		fail("cannot create a uinput key device");
	return fd;
}

static void emit(int fd, int type, int code, int value)
{
	struct input_event ev = { .type = type, .code = code, .value = value };

	if (write(fd, &ev, sizeof(ev)) != (ssize_t)sizeof(ev))
		fail("cannot write to uinput");
}

/* Reads cpu0's cpu_frequency events from the trace buffer. */
static void read_trace(void)
{
	FILE *f = fopen(TRACING "/trace", "r");
	char line[512];

	if (!f)
		fail("cannot read " TRACING "/trace");
	while (fgets(line, sizeof(line), f) && nchanges < MAX_EVENTS) {
		char *ev = strstr(line, "cpu_frequency: state=");
		unsigned long sec, usec;
		unsigned khz, cpu;
		char *colon;

		if (!ev || sscanf(ev, "cpu_frequency: state=%u cpu_id=%u", &khz, &cpu) != 2 || cpu)
			continue;
		*ev = 0;
		colon = strrchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (sscanf(strrchr(line, ' ') + 1, "%lu.%lu", &sec, &usec) != 2)
			continue;
		changes[nchanges++] = (struct change){ (int64_t)sec * 1000000000ll + usec * 1000, khz };
	}
	fclose(f);
}

/* The frequency in force at t (the last change at or before it), or 0 if none. */
static unsigned khz_at(int64_t t)
{
	unsigned khz = 0;

	for (int i = 0; i < nchanges && changes[i].ns <= t; i++)
		khz = changes[i].khz;
	return khz;
}

/* The first change after t to at least khz, or -1. */
static int64_t first_at_least(int64_t t, unsigned khz)
{
	for (int i = 0; i < nchanges; i++)
		if (changes[i].ns > t && changes[i].khz >= khz)
			return changes[i].ns;
	return -1;
}

int main(void)
{
	cpu_set_t cpu0;
	int modfd = open(MODULE, O_RDONLY | O_CLOEXEC), key;
	unsigned lowest;
	int64_t start, press, busy, busy_end, t;
	uint32_t sink;

	if (modfd < 0 || syscall(SYS_finit_module, modfd, "", 0) != 0)
		fail("cannot load " MODULE);
	close(modfd);
	if (access(TRACING "/trace", F_OK) != 0 &&
	    mount("tracefs", TRACING, "tracefs", 0, NULL) != 0)
		fail("cannot mount tracefs");
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) != 0)
		fail("cannot pin to cpu0");
	put(TRACING "/trace_clock", "mono");
	put(TRACING "/events/power/cpu_frequency/enable", "1");
	put(TRACING "/trace", "");
	put(POLICY "/scaling_governor", "interactive");
	key = uinput_key();
	lowest = read_khz(POLICY "/cpuinfo_min_freq");

	start = now_ns();
	idle_ms(400);
	press = now_ns();
	emit(key, EV_KEY, KEY_A, 1);
	emit(key, EV_SYN, SYN_REPORT, 0);
	emit(key, EV_KEY, KEY_A, 0);
	emit(key, EV_SYN, SYN_REPORT, 0);
	idle_ms(300);
	busy = now_ns();
	sink = work();
	busy_end = now_ns();
	idle_ms(400);
	put(TRACING "/tracing_on", "0");
	read_trace();

	for (int i = 0; i < nchanges; i++)
		printf("panlab-governor: %+8.3f ms %u kHz\n", (changes[i].ns - start) / 1e6,
		       changes[i].khz);
	printf("panlab-governor: press at %.3f ms, work %.3f..%.3f ms (%u)\n", (press - start) / 1e6,
	       (busy - start) / 1e6, (busy_end - start) / 1e6, sink & 1);
	if (khz_at(press) != lowest)
		fail("R1: not at the lowest operating point before the press");
	t = first_at_least(press, HISPEED_KHZ);
	if (t < 0 || t - press > 5 * MS)
		fail("R2: the press did not raise the clock to hispeed within 5 ms");
	for (int i = 1; i < nchanges; i++)
		if (changes[i].ns > press && changes[i].ns < press + 60 * MS &&
		    changes[i].khz < changes[i - 1].khz)
			fail("R3: lowered within min_sample_time of the press");
	t = first_at_least(busy, HISPEED_KHZ);
	if (khz_at(busy) < HISPEED_KHZ && (t < 0 || t - busy > 30 * MS))
		fail("R4: work after idle did not reach hispeed within timer_rate + 10 ms");
	t = first_at_least(busy, TOP_KHZ);
	if (t < 0 || t - busy > 70 * MS)
		fail("R4: work after idle did not reach the top within 70 ms");
	for (int i = 1; i < nchanges; i++) {
		int64_t last_up = -1;

		if (changes[i].khz >= changes[i - 1].khz)
			continue;
		for (int j = 1; j < i; j++)
			if (changes[j].khz > changes[j - 1].khz)
				last_up = changes[j].ns;
		if (last_up >= 0 && changes[i].ns - last_up < 60 * MS)
			fail("R5: a decrease within min_sample_time of the last increase");
	}
	printf("panlab-governor: ok (%d transitions follow R1-R5)\n", nchanges);
	return 0;
}
