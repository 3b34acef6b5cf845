/*
 * panlab-pmu: the phone's PMU (emu/cpu/pmu.c) through Linux's stock armv7 PMU driver and the
 * perf_event_open() system call, what `perf stat -e instructions:u,cycles:u` uses.
 *   1. The driver probed: /sys/bus/event_source/devices/armv7_cortex_a15 exists.
 *   2. Exactness: a loop of N iterations (subs, bne) between the syscall that enables a group
 *      {instructions:u, cycles:u} and the one that disables it executes 2N + 4 user
 *      instructions (mov before the loop, two movs and the svc after it; the kernel's return
 *      to user is PL1). instructions:u must be exactly that, and cycles:u too (1 cycle per
 *      instruction; the loop is run once before, so no page fault costs a cycle inside).
 *   3. Overflow: a sampling event on instructions:u with period P over the same loop must
 *      leave exactly floor(count / P) samples, each with its pc inside the loop: the
 *      driver takes one overflow interrupt per period, at the programmed count.
 *   4. A negative control: the same group without exclude_kernel counts more (the syscalls'
 *      kernel instructions), so the :u filter is what makes the count exact.
 * Prints one line per check and "panlab-pmu: ok", or what failed, and exits 1.
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PMU_DIR "/sys/bus/event_source/devices/armv7_cortex_a15"
#define RING_PAGES 8

extern const char loop_start[], loop_end[];

static int fail(const char *what)
{
	printf("panlab-pmu: FAIL %s\n", what);
	return 1;
}

static int open_event(uint32_t type, uint64_t config, int user_only, uint64_t period, int group)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = group < 0;
	a.exclude_kernel = user_only;
	a.exclude_hv = 1;
	a.read_format = PERF_FORMAT_GROUP;
	if (period) {
		a.sample_period = period;
		a.sample_type = PERF_SAMPLE_IP;
	}
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, 0);
}

/* Enables the group of fd, runs n iterations, disables it: all in one asm block, so that the
 * user instructions between the two system calls are known (see the top). */
static void counted_loop(int fd, uint32_t n)
{
	register uint32_t r0 __asm__("r0") = (uint32_t)fd;
	register uint32_t r1 __asm__("r1") = PERF_EVENT_IOC_ENABLE;
	register uint32_t r2 __asm__("r2") = PERF_IOC_FLAG_GROUP;
	register uint32_t r7 __asm__("r7") = SYS_ioctl;
	uint32_t off = PERF_EVENT_IOC_DISABLE;
	__asm__ __volatile__("mov r4, %[fd]\n\t"
			     "mov r5, %[off]\n\t"
			     "svc #0\n\t"
			     "mov r3, %[n]\n"
			     ".global loop_start\n"
			     "loop_start:\n\t"
			     "subs r3, r3, #1\n\t"
			     "bne loop_start\n"
			     ".global loop_end\n"
			     "loop_end:\n\t"
			     "mov r0, r4\n\t"
			     "mov r1, r5\n\t"
			     "svc #0\n\t"
			     : "+r"(r0), "+r"(r1)
			     : [fd] "r"(fd), [off] "r"(off), [n] "r"(n), "r"(r2), "r"(r7)
			     : "r3", "r4", "r5", "cc", "memory");
}

/* {leader, member} group values after counted_loop(n). */
static int count(int user_only, uint32_t n, uint64_t v[2])
{
	int lead = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, user_only, 0, -1);
	if (lead < 0)
		return -1;
	int cyc = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, user_only, 0, lead);
	if (cyc < 0)
		return -1;
	counted_loop(lead, n);
	uint64_t buf[3];
	if (read(lead, buf, sizeof(buf)) != sizeof(buf) || buf[0] != 2)
		return -1;
	v[0] = buf[1];
	v[1] = buf[2];
	close(cyc);
	close(lead);
	return 0;
}

static int exactness(uint32_t n)
{
	uint64_t v[2], want = 2ull * n + 4;
	char what[160];
	if (count(1, n, v) < 0)
		return fail("perf_event_open instructions:u,cycles:u");
	printf("panlab-pmu: loop of %u: instructions:u %llu cycles:u %llu (expected %llu)\n", n,
	       (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)want);
	snprintf(what, sizeof(what),
		 "loop of %u: instructions:u %llu, cycles:u %llu, expected %llu", n,
		 (unsigned long long)v[0], (unsigned long long)v[1], (unsigned long long)want);
	return v[0] == want && v[1] == want ? 0 : fail(what);
}

static int overflow(uint32_t n, uint64_t period)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, period, -1);
	if (fd < 0)
		return fail("perf_event_open instructions:u with a sample period");
	void *ring = mmap(NULL, (size_t)page * (RING_PAGES + 1), PROT_READ | PROT_WRITE, MAP_SHARED,
			  fd, 0);
	if (ring == MAP_FAILED)
		return fail("mmap of the sample ring");
	counted_loop(fd, n);
	const struct perf_event_mmap_page *meta = ring;
	uint64_t head = meta->data_head, grp[2];
	__sync_synchronize();
	if (read(fd, grp, sizeof(grp)) != sizeof(grp))
		return fail("read of the sampling event");
	uint64_t total = grp[1];
	const uint8_t *data = (const uint8_t *)ring + page;
	uint64_t samples = 0, inside = 0;
	for (uint64_t off = 0; off < head;) {
		const struct perf_event_header *h =
			(const void *)(data + off % ((uint64_t)page * RING_PAGES));
		if (h->type == PERF_RECORD_SAMPLE) {
			uint64_t ip;
			memcpy(&ip, h + 1, sizeof(ip));
			samples++;
			inside += ip >= (uintptr_t)loop_start && ip <= (uintptr_t)loop_end;
		}
		off += h->size;
	}
	printf("panlab-pmu: sampling every %llu of %llu instructions:u: %llu overflow samples, "
	       "%llu in the loop (expected %llu)\n",
	       (unsigned long long)period, (unsigned long long)total, (unsigned long long)samples,
	       (unsigned long long)inside, (unsigned long long)(total / period));
	munmap(ring, (size_t)page * (RING_PAGES + 1));
	close(fd);
	if (total != 2ull * n + 4)
		return fail("the sampling event's count is not the loop's");
	return samples == total / period && inside == samples ? 0 : fail("overflow samples");
}

int main(void)
{
	struct stat st;
	uint64_t v[2];
	if (stat(PMU_DIR, &st) != 0)
		return fail("no " PMU_DIR ": the armv7 PMU driver did not probe");
	printf("panlab-pmu: %s probed\n", PMU_DIR);
	counted_loop(-1, 1); /* touch the loop's page; the ioctls fail on fd -1 */
	if (exactness(1000) || exactness(3000000) || overflow(3000000, 100003))
		return 1;
	if (count(0, 1000, v) < 0)
		return fail("perf_event_open instructions,cycles");
	printf("panlab-pmu: negative control, kernel included: instructions %llu\n",
	       (unsigned long long)v[0]);
	if (v[0] <= 2000 + 4)
		return fail("counting the kernel too gave no more than the loop");
	printf("panlab-pmu: ok\n");
	return 0;
}
