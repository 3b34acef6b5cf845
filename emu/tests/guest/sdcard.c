/*
 * panlab-sdcard: the phone's SD card (PL181 MMCI, Linux's mmci driver by PIO) moves data
 * correctly and costs the guest CPU. Waits for /dev/mmcblk0 (the mmc core identifies the card
 * in a work item after boot), writes 4 MiB to the raw card past the file system's first
 * 32 MiB with O_DIRECT, reads it back the same way and compares, and takes the CPUs' busy time
 * around it (elapsed time on the online cpus less their idle and iowait time, /proc/stat).
 * Every 32-bit word crosses the FIFO register at PL181_ACCESS_NS (200 ns) of bus time, so the
 * 2 x 1 Mi words must keep the CPUs busy at least 2 x 1 Mi x 200 ns = 419 ms; the check asks
 * for 350 ms (the accounting is in 10 ms units). Prints "panlab-sdcard: ok ..." or the
 * failure; exits 0 or 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define CARD "/dev/mmcblk0"
#define OFFSET (32ll << 20)
#define BYTES (4u << 20)
#define CHUNK (256u << 10)
#define MIN_CPU_MS 350

static void fail(const char *what)
{
	printf("panlab-sdcard: FAIL %s: %s\n", what, strerror(errno));
	exit(1);
}

static int64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/*
 * Idle and iowait time of all cpus so far, in ms (USER_HZ is 100). With NO_HZ_IDLE both are
 * measured, not sampled by ticks, and an interrupt on an idle cpu stops the idle clock (the
 * tick-sampled system and irq times miss a PIO interrupt that lands on an idle cpu).
 */
static int64_t idle_ms(void)
{
	unsigned long long user, nice, sys, idle, iowait;
	FILE *f = fopen("/proc/stat", "r");

	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu", &user, &nice, &sys, &idle,
			 &iowait) != 5)
		fail("cannot read /proc/stat");
	fclose(f);
	return (int64_t)(idle + iowait) * 10;
}

static int online_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* Waits up to 5 s for devtmpfs to create the card's node. */
static void wait_for_card(void)
{
	int fd = inotify_init1(IN_CLOEXEC);
	int64_t deadline = now_ms() + 5000;

	if (fd < 0 || inotify_add_watch(fd, "/dev", IN_CREATE) < 0)
		fail("inotify on /dev");
	while (access(CARD, F_OK) != 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[4096];
		int64_t left = deadline - now_ms();

		if (left <= 0 || poll(&p, 1, (int)left) <= 0) {
			errno = ENODEV;
			fail(CARD " did not appear within 5 s");
		}
		if (read(fd, buf, sizeof(buf)) < 0)
			fail("reading inotify events");
	}
	close(fd);
}

int main(void)
{
	static uint8_t buf[CHUNK] __attribute__((aligned(4096)));
	int64_t idle0, t0, cpu_ms, wall_ms;
	int fd;

	wait_for_card();
	fd = open(CARD, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		fail("open " CARD);
	idle0 = idle_ms();
	t0 = now_ms();
	for (uint32_t off = 0; off < BYTES; off += CHUNK) {
		for (uint32_t i = 0; i < CHUNK; i += 4) {
			uint32_t word = (off + i) ^ 0x5a5aa5a5u;

			memcpy(buf + i, &word, 4);
		}
		if (pwrite(fd, buf, CHUNK, OFFSET + off) != (ssize_t)CHUNK)
			fail("write");
	}
	if (fsync(fd) != 0)
		fail("fsync");
	for (uint32_t off = 0; off < BYTES; off += CHUNK) {
		if (pread(fd, buf, CHUNK, OFFSET + off) != (ssize_t)CHUNK)
			fail("read");
		for (uint32_t i = 0; i < CHUNK; i += 4) {
			uint32_t word;

			memcpy(&word, buf + i, 4);
			if (word != ((off + i) ^ 0x5a5aa5a5u)) {
				printf("panlab-sdcard: FAIL byte %u read back 0x%08x, wrote 0x%08x\n",
				       off + i, word, (off + i) ^ 0x5a5aa5a5u);
				return 1;
			}
		}
	}
	wall_ms = now_ms() - t0;
	cpu_ms = wall_ms * online_cpus() - (idle_ms() - idle0);
	close(fd);
	printf("panlab-sdcard: wrote and read back %u KiB in %lld ms, %lld ms of CPU busy\n",
	       BYTES >> 10, (long long)wall_ms, (long long)cpu_ms);
	if (cpu_ms < MIN_CPU_MS) {
		printf("panlab-sdcard: FAIL the card cost %lld ms of CPU, expected at least %d (PIO)\n",
		       (long long)cpu_ms, MIN_CPU_MS);
		return 1;
	}
	printf("panlab-sdcard: ok\n");
	return 0;
}
