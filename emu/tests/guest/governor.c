/*
 * panlab-governor: the interactive governor (guest-kernel/modules/cpufreq_interactive) on the
 * phone's cpufreq driver, against the rules Panappticon 6.3 gives for Android 4.1. Selects it
 * on policy0 and plays a load pattern on cpu0, one phase:
 *   idle 400 ms, a key press (uinput), idle 300 ms, a fixed amount of CPU work, idle 400 ms.
 * The frequency trace it checks is the kernel logger's CPU_FREQUENCY records for cpu 0, read
 * from /dev/panlab_klog (the records the collector ships as trace.bin; same CLOCK_MONOTONIC).
 * What the rules predict, with 5 ms of slack for the speed-change work item and the 300 us
 * transition:
 *   R1 idle: the clock is at the lowest operating point before the press;
 *   R2 input boost, raising immediate: the first change after the press is to hispeed_freq
 *      (700 MHz), within 5 ms;
 *   R3 min_sample_time: nothing lowers the boost within 60 ms of the press, and the idle clock
 *      is back at the lowest by 60 ms + one timer_rate (20 ms) after it;
 *   R4 go_hispeed_load after idle: the first change after the work starts is to hispeed_freq,
 *      at the first sample whose 20 ms window the work loads past 85%: one timer_rate after
 *      the cpu left idle when that armed the timer, or, when another wake-up (a kernel worker)
 *      had armed it already, between 17 and 40 ms after the work began; within 5 ms. A sample
 *      that comes sooner saw a window the work loaded less than 85% and asks for max * load:
 *      an operating point above hispeed_freq, below the top, and not below that load;
 *   R5 raising immediate above hispeed: the next sample (20 ms later, within 5 ms) takes the
 *      still fully loaded cpu to the top (1200 MHz);
 *   R6 min_sample_time: every decrease comes at least 60 ms after the increase before it;
 *   R7 the clock is back at the lowest by the end of the phase.
 *
 * usage: panlab-governor [NAME=VALUE...]
 *   With tunables (module parameters of cpufreq_interactive), plays one phase with them and
 *   checks it: exits 1 naming the first rule broken. Without, plays a phase with Android's
 *   defaults, which must follow every rule, then one phase per negative control (a wrong
 *   tunable each), which the rules must reject: a check that cannot fail proves nothing.
 * Prints each phase's transitions and "panlab-governor: ok" or what failed.
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
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "panlab/klog_uapi.h"
#include "panlab/trace_format.h"

#define KLOG "/dev/panlab_klog"
#define POLICY "/sys/devices/system/cpu/cpufreq/policy0"
#define MODULE "/lib/modules/cpufreq_interactive.ko"
#define TUNABLES "/sys/module/cpufreq_interactive/parameters/"
/* The rules' figures: Panappticon 6.3, Android 4.1's defaults (guest-kernel/README.md). */
#define HISPEED_KHZ 700000u
#define TOP_KHZ 1200000u
#define TIMER_MS 20
#define MIN_SAMPLE_MS 60
#define GO_HISPEED_LOAD 85	/* % */
#define SLACK_MS 5
#define MS 1000000ll
#define MAX_CHANGES 4096
#define MAX_PHASES 8

struct change {
	int64_t ns;
	unsigned int khz;
};

static struct change changes[MAX_CHANGES];
static int nchanges;

/* One played pattern: CLOCK_MONOTONIC ns of its steps. */
struct phase {
	const char *tunables;	/* as given, "" for the defaults */
	const char *rule;	/* a negative control: the rules it may break, "R3 R4 R5" */
	int64_t start, press, busy, busy_end, end;
};

/* Each negative control breaks one rule that the defaults keep. */
static const struct control {
	const char *tunables;
	const char *rule;	/* the rules it may break, one of which it must */
} controls[] = {
	{ "hispeed_freq=920000", "R2" },	/* the boost lands on 920 MHz */
	{ "input_boost=0", "R2" },		/* no boost on the press */
	{ "min_sample_time=20000", "R3" },	/* the boost is lowered after 20-40 ms */
	/* Samples 40 ms apart: the boost is lowered 60-100 ms after the press (R3 by the
	 * timer's phase), the first raise may come 80 ms into the work (R4), and the top
	 * 40 ms after 700 MHz (R5). */
	{ "timer_rate=40000", "R3 R4 R5" },
	{ "go_hispeed_load=101", "R4" },	/* a full load goes straight to the top */
};

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

static unsigned int read_uint(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned int v = 0;

	if (!f || fscanf(f, "%u", &v) != 1) {
		printf("panlab-governor: FAIL cannot read %s\n", path);
		exit(1);
	}
	fclose(f);
	return v;
}

/* Sets "NAME=VALUE NAME=VALUE" (module parameters); returns the old values likewise in old. */
static void set_tunables(const char *list, char *old, size_t old_size)
{
	char copy[256], path[128], value[32];
	char *save = NULL;

	if (old)
		old[0] = 0;
	snprintf(copy, sizeof(copy), "%s", list);
	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(t, '=');

		if (!eq || eq == t)
			fail("a tunable is NAME=VALUE");
		*eq = 0;
		snprintf(path, sizeof(path), TUNABLES "%s", t);
		if (old) {
			FILE *f = fopen(path, "r");

			if (!f || !fgets(value, sizeof(value), f)) {
				printf("panlab-governor: FAIL no tunable %s\n", t);
				exit(1);
			}
			fclose(f);
			value[strcspn(value, "\n")] = 0;
			snprintf(old + strlen(old), old_size - strlen(old), "%s%s=%s",
				 old[0] ? " " : "", t, value);
		}
		put(path, eq + 1);
	}
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

static void play(struct phase *p, int key)
{
	uint32_t sink;

	p->start = now_ns();
	idle_ms(400);
	p->press = now_ns();
	emit(key, EV_KEY, KEY_A, 1);
	emit(key, EV_SYN, SYN_REPORT, 0);
	emit(key, EV_KEY, KEY_A, 0);
	emit(key, EV_SYN, SYN_REPORT, 0);
	idle_ms(300);
	p->busy = now_ns();
	sink = work();
	p->busy_end = now_ns();
	idle_ms(400);
	p->end = now_ns();
	if (sink == 0)	/* keeps the work; xorshift never reaches 0 */
		fail("the work loop reached 0");
}

static int by_time(const void *a, const void *b)
{
	const struct change *x = a, *y = b;

	return (x->ns > y->ns) - (x->ns < y->ns);
}

/* Drains the kernel logger and keeps cpu 0's CPU_FREQUENCY records, in time order. */
static void read_trace(void)
{
	static struct pl_event ev[2048];
	struct pl_klog_stats st;
	int fd = open(KLOG, O_RDONLY);
	ssize_t got;

	if (fd < 0)
		fail("cannot open " KLOG " (is tracing on?)");
	do {
		got = read(fd, ev, sizeof(ev));
		if (got < 0)
			fail("cannot read " KLOG);
		for (size_t i = 0; i < (size_t)got / sizeof(ev[0]); i++) {
			if (ev[i].type != PL_EV_CPU_FREQUENCY || ev[i].a1 != 0)
				continue;
			if (nchanges == MAX_CHANGES)
				fail("more CPU_FREQUENCY records than expected");
			changes[nchanges++] = (struct change){ (int64_t)ev[i].ts_ns, (unsigned int)ev[i].a0 };
		}
	} while (got == (ssize_t)sizeof(ev));
	if (ioctl(fd, PL_KLOG_IOC_STATS, &st) != 0)
		fail("cannot read the logger's counters");
	for (unsigned int c = 0; c < st.ncpus && c < PL_KLOG_MAX_CPUS; c++)
		if (st.lost[c])
			fail("the kernel logger lost records: the trace is incomplete");
	close(fd);
	qsort(changes, nchanges, sizeof(changes[0]), by_time);
}

/* The frequency in force at t (the last change at or before it), or 0 if none. */
static unsigned int khz_at(int64_t t)
{
	unsigned int khz = 0;

	for (int i = 0; i < nchanges && changes[i].ns <= t; i++)
		khz = changes[i].khz;
	return khz;
}

/* The index of the first change after t, or -1. */
static int next_change(int64_t t)
{
	for (int i = 0; i < nchanges; i++)
		if (changes[i].ns > t)
			return i;
	return -1;
}

static void print_phase(const struct phase *p)
{
	printf("panlab-governor: phase '%s': press at %.3f ms, work %.3f..%.3f ms\n",
	       p->tunables[0] ? p->tunables : "defaults", (p->press - p->start) / 1e6,
	       (p->busy - p->start) / 1e6, (p->busy_end - p->start) / 1e6);
	for (int i = 0; i < nchanges; i++)
		if (changes[i].ns >= p->start && changes[i].ns <= p->end)
			printf("panlab-governor:   %+9.3f ms %u kHz\n", (changes[i].ns - p->start) / 1e6,
			       changes[i].khz);
}

/* R4 for the first change after the work starts (the rule in the header). */
static int first_raise_ok(const struct phase *p, const struct change *c)
{
	int64_t in = c->ns - p->busy;

	if (c->khz == HISPEED_KHZ)
		return in >= (TIMER_MS * GO_HISPEED_LOAD / 100 - SLACK_MS) * MS &&
		       in <= (2 * TIMER_MS + SLACK_MS) * MS;
	return c->khz > HISPEED_KHZ && c->khz < TOP_KHZ &&
	       in < (TIMER_MS * GO_HISPEED_LOAD / 100 + SLACK_MS) * MS &&
	       (int64_t)c->khz * TIMER_MS * MS >= (int64_t)TOP_KHZ * (in - SLACK_MS * MS);
}

/* The first rule the phase breaks, or NULL. */
static const char *check(const struct phase *p, unsigned int lowest)
{
	int i, up = -1;
	int64_t t;

	if (khz_at(p->press) != lowest)
		return "R1: not at the lowest operating point before the press";
	i = next_change(p->press);
	if (i < 0 || changes[i].khz != HISPEED_KHZ || changes[i].ns - p->press > SLACK_MS * MS)
		return "R2: the press did not raise the clock to 700 MHz within 5 ms";
	for (i++; i < nchanges && changes[i].ns < p->busy; i++)
		if (changes[i].khz < HISPEED_KHZ && changes[i].ns < p->press + MIN_SAMPLE_MS * MS)
			return "R3: the boost was lowered within min_sample_time (60 ms) of the press";
	if (khz_at(p->press + (MIN_SAMPLE_MS + TIMER_MS + SLACK_MS) * MS) != lowest)
		return "R3: the idle clock was not back at the lowest 60 + 20 ms after the press";
	i = next_change(p->busy);
	if (i < 0 || !first_raise_ok(p, &changes[i]))
		return "R4: the work did not go to 700 MHz at the first sample it loaded past 85%";
	t = changes[i].ns + TIMER_MS * MS;
	if (i + 1 >= nchanges || changes[i + 1].khz != TOP_KHZ ||
	    changes[i + 1].ns < t - SLACK_MS * MS || changes[i + 1].ns > t + SLACK_MS * MS)
		return "R5: the loaded cpu did not go from 700 MHz to the top one timer_rate later";
	for (i = 1; i < nchanges; i++) {
		if (changes[i].ns < p->start || changes[i].ns > p->end)
			continue;
		if (changes[i].khz > changes[i - 1].khz)
			up = i;
		else if (changes[i].khz < changes[i - 1].khz && up >= 0 &&
			 changes[i].ns - changes[up].ns < MIN_SAMPLE_MS * MS)
			return "R6: a decrease within min_sample_time (60 ms) of the increase before it";
	}
	if (khz_at(p->end) != lowest)
		return "R7: the clock was not back at the lowest by the end of the phase";
	return NULL;
}

int main(int argc, char **argv)
{
	struct phase phases[MAX_PHASES];
	char given[256] = "", old[256];
	int modfd, key, n = 0;
	unsigned int lowest;
	cpu_set_t cpu0;

	for (int a = 1; a < argc; a++)
		snprintf(given + strlen(given), sizeof(given) - strlen(given), "%s%s",
			 given[0] ? " " : "", argv[a]);
	/* /init loads the governor modules; load it here when it did not. */
	modfd = open(MODULE, O_RDONLY | O_CLOEXEC);
	if (modfd < 0 || (syscall(SYS_finit_module, modfd, "", 0) != 0 && errno != EEXIST))
		fail("cannot load " MODULE);
	close(modfd);
	if (read_uint("/sys/module/panlab_klog/parameters/enable") != 1)
		fail("the kernel logger is off: boot with panlab.trace=1");
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) != 0)
		fail("cannot pin to cpu0");
	put(POLICY "/scaling_governor", "interactive");
	key = uinput_key();
	lowest = read_uint(POLICY "/cpuinfo_min_freq");

	if (given[0]) {
		set_tunables(given, NULL, 0);
		phases[n] = (struct phase){ .tunables = given };
		play(&phases[n++], key);
	} else {
		phases[n] = (struct phase){ .tunables = "" };
		play(&phases[n++], key);
		for (size_t c = 0; c < sizeof(controls) / sizeof(controls[0]); c++) {
			set_tunables(controls[c].tunables, old, sizeof(old));
			phases[n] = (struct phase){ .tunables = controls[c].tunables,
						    .rule = controls[c].rule };
			play(&phases[n++], key);
			set_tunables(old, NULL, 0);
		}
	}
	read_trace();

	for (int i = 0; i < n; i++) {
		const char *broken = check(&phases[i], lowest);

		print_phase(&phases[i]);
		printf("panlab-governor: phase '%s': %s\n",
		       phases[i].tunables[0] ? phases[i].tunables : "defaults",
		       broken ? broken : "follows R1-R7");
		if (!phases[i].rule && broken)
			fail(broken);
		if (phases[i].rule && (!broken || !strstr(phases[i].rule, (char[]){ broken[0],
								       broken[1], '\0' }))) {
			printf("panlab-governor: FAIL the negative control '%s' did not break %s\n",
			       phases[i].tunables, phases[i].rule);
			return 1;
		}
	}
	if (n > 1)
		printf("panlab-governor: ok (the defaults follow R1-R7; %d wrong tunables are caught)\n",
		       n - 1);
	else
		printf("panlab-governor: ok (follows R1-R7)\n");
	return 0;
}
