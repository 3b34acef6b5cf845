/*
 * panlab-configd: Panappticon section 6's configuration daemon, run beside a workload as its
 * load `configd` (workload APP+configd). Every PERIOD_MS of guest time it picks one of the four
 * configurations at random, {1, 2} cores x DVFS {on, off}, and switches to it, but only at a
 * moment when CPU utilisation over the last SAMPLE_MS was below 5%, so that it never disturbs
 * intensive work ("the configuration was changed only when CPU utilization was below 5%").
 * The study switched every 10 minutes over weeks; a replayed run lasts tens of seconds, so
 * the period here is 2 s.
 *
 *   cores  cpu1 offline or online (/sys/devices/system/cpu/cpu1/online: PSCI CPU_OFF/CPU_ON)
 *   DVFS   on: the `interactive` governor if the kernel has it, else `ondemand`;
 *          off: `performance` (the top operating point, 1.2 GHz)
 *
 * The random choice is a fixed-seed generator, so a run repeats exactly on the phone. Each
 * switch prints "panlab-configd: cores=N dvfs=on|off at T ns" on stderr (the console); the
 * trace has it as CPU_ONLINE/CPU_OFFLINE and CPU_FREQUENCY. Signals ready at once, exits 0 on
 * SIGTERM; any failure is one line and exit 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "panlab/clock.h"
#include "panlab/cpustat.h"
#include "panlab/error.h"
#include "panlab/ready.h"

#define PERIOD_MS 2000u
#define SAMPLE_MS 100u
#define BUSY_BELOW_PCT 5u
#define CPU1_ONLINE "/sys/devices/system/cpu/cpu1/online"
#define POLICY "/sys/devices/system/cpu/cpufreq/policy0/"

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static void write_file(const char *path, const char *value)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(value, f) < 0 || fclose(f) != 0)
		pl_die("write %s to %s: %s", value, path, strerror(errno));
}

static bool file_has_word(const char *path, const char *word)
{
	char buf[512], *save = NULL;
	FILE *f = fopen(path, "r");
	if (!f)
		pl_die("%s: %s", path, strerror(errno));
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (char *w = strtok_r(buf, " \n", &save); w; w = strtok_r(NULL, " \n", &save))
		if (!strcmp(w, word))
			return true;
	return false;
}

/* Sleeps ms of guest time; false if SIGTERM came first. */
static bool sleep_ms(uint32_t ms)
{
	struct timespec d = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };
	while (!stopping && nanosleep(&d, &d) != 0 && errno == EINTR)
		;
	return !stopping;
}

static void read_cpu_ticks(struct pl_cpu_ticks *t)
{
	int err = pl_cpu_ticks_read(t);
	if (err)
		pl_die("read /proc/stat: %s", strerror(-err));
}

/* Waits until a SAMPLE_MS window has utilisation below BUSY_BELOW_PCT. */
static bool wait_for_idle(void)
{
	struct pl_cpu_ticks before, now;
	read_cpu_ticks(&before);
	while (sleep_ms(SAMPLE_MS)) {
		read_cpu_ticks(&now);
		if (pl_cpu_idle_between(&before, &now, 100 - BUSY_BELOW_PCT))
			return true;
		before = now;
	}
	return false;
}

int main(void)
{
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	const char *dvfs_on = file_has_word(POLICY "scaling_available_governors", "interactive")
				      ? "interactive" : "ondemand";
	int err = pl_ready_signal();
	if (err)
		pl_die("signal ready: %s", strerror(-err));
	uint32_t rng = 12345, config = 3;	/* bit 0: two cores, bit 1: DVFS off (boot state) */
	while (sleep_ms(PERIOD_MS) && wait_for_idle()) {
		rng = rng * 1103515245u + 12345u;	/* C's example generator: deterministic */
		uint32_t next = (config + 1 + (rng >> 16) % 3) % 4;	/* one of the other three */
		if ((next ^ config) & 1)
			write_file(CPU1_ONLINE, next & 1 ? "1" : "0");
		if ((next ^ config) & 2)
			write_file(POLICY "scaling_governor", next & 2 ? "performance" : dvfs_on);
		config = next;
		fprintf(stderr, "panlab-configd: cores=%u dvfs=%s at %" PRIu64 " ns\n",
			(config & 1) + 1, config & 2 ? "off" : "on", pl_now_ns());
	}
	return 0;
}
