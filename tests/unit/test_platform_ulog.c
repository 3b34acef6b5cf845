/* Userspace logger rings: concurrent producers against a concurrent drainer, and exact loss. */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/ulog.h"
#include "panlab/ulog_reader.h"
#include "test_platform.h"

#define PRODUCERS 6
#define EVENTS_PER_PRODUCER 20000u

struct producer {
	unsigned index;
	unsigned count;
	pthread_barrier_t *hold;	/* if set, wait here before exiting: no slot is freed early */
};

static void *produce(void *p)
{
	const struct producer *pr = p;
	for (unsigned i = 0; i < pr->count; i++)
		pl_ulog(PL_EV_ENQUEUE_MSG, ((uint64_t)pr->index << 32) | i, pr->index, i);
	if (pr->hold)
		pthread_barrier_wait(pr->hold);
	return NULL;
}

/* Bytes for nslots rings of exactly ring_records each (layout in workloads/lib/ulog_layout.h). */
static size_t bytes_for(unsigned nslots, unsigned ring_records)
{
	return 4096 + (size_t)nslots * (128 + 32 * (size_t)ring_records);
}

struct drain_state {
	struct pl_ulog_reader *r;
	atomic_bool stop;
	/* per producer: one past the last sequence seen (a repeat or reordering is an error) */
	uint32_t next[PRODUCERS];
	unsigned errors;
	uint64_t total;
};

static void drain_all(struct drain_state *d)
{
	struct pl_event buf[256];
	for (unsigned s = 0; s < pl_ulog_reader_slots(d->r); s++) {
		size_t n;
		while ((n = pl_ulog_reader_drain(d->r, s, buf, 256)) > 0) {
			for (size_t i = 0; i < n; i++) {
				unsigned idx = buf[i].a1;
				uint32_t seq = (uint32_t)buf[i].a0;
				if (idx >= PRODUCERS || (buf[i].a0 >> 32) != idx || buf[i].a2 != seq ||
				    seq < d->next[idx] || buf[i].type != PL_EV_ENQUEUE_MSG ||
				    buf[i].cpu != PL_CPU_NONE || buf[i].ts_ns == 0)
					d->errors++;
				else
					d->next[idx] = seq + 1;
			}
			d->total += n;
		}
	}
}

static void *drainer(void *p)
{
	struct drain_state *d = p;
	while (!atomic_load(&d->stop))
		drain_all(d);
	drain_all(d);
	return NULL;
}

static void test_concurrent_no_loss(void)
{
	char path[128];
	test_shm_path(path, sizeof(path), "ulog-big");
	CU_ASSERT_FATAL(pl_ulog_open(path, bytes_for(PRODUCERS, 4096), PRODUCERS) == 0);
	struct pl_ulog_reader r;
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);

	/* Rings of 4096 hold a fifth of each producer's events, so the rings wrap under the drainer. */
	struct drain_state d = { .r = &r };
	pthread_t drain_thread, threads[PRODUCERS];
	struct producer pr[PRODUCERS];
	pthread_create(&drain_thread, NULL, drainer, &d);
	for (unsigned i = 0; i < PRODUCERS; i++) {
		pr[i] = (struct producer){ .index = i, .count = EVENTS_PER_PRODUCER };
		pthread_create(&threads[i], NULL, produce, &pr[i]);
	}
	for (unsigned i = 0; i < PRODUCERS; i++)
		pthread_join(threads[i], NULL);
	atomic_store(&d.stop, true);
	pthread_join(drain_thread, NULL);

	uint64_t lost = 0;
	for (unsigned s = 0; s < pl_ulog_reader_slots(&r); s++) {
		struct pl_ulog_slot_info si;
		pl_ulog_reader_slot(&r, s, &si);
		CU_ASSERT(si.tid != 0);
		lost += si.lost;
	}
	/* A starved drainer may cause loss, but every event is either read once, in order, or counted lost. */
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_EQUAL(d.total + lost, (uint64_t)PRODUCERS * EVENTS_PER_PRODUCER);
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
}

static void test_big_buffer_exact(void)
{
	char path[128];
	test_shm_path(path, sizeof(path), "ulog-huge");
	/* Room for everything: no loss, no duplicates, per-thread order, even without a drainer. */
	CU_ASSERT_FATAL(pl_ulog_open(path, bytes_for(PRODUCERS, EVENTS_PER_PRODUCER), PRODUCERS) == 0);
	struct pl_ulog_reader r;
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);
	pthread_t threads[PRODUCERS];
	struct producer pr[PRODUCERS];
	for (unsigned i = 0; i < PRODUCERS; i++) {
		pr[i] = (struct producer){ .index = i, .count = EVENTS_PER_PRODUCER };
		pthread_create(&threads[i], NULL, produce, &pr[i]);
	}
	for (unsigned i = 0; i < PRODUCERS; i++)
		pthread_join(threads[i], NULL);
	struct drain_state d = { .r = &r };
	for (unsigned s = 0; s < pl_ulog_reader_slots(&r); s++) {
		struct pl_ulog_slot_info si;
		pl_ulog_reader_slot(&r, s, &si);
		CU_ASSERT_EQUAL(si.lost, 0);
		CU_ASSERT_EQUAL(si.pending, EVENTS_PER_PRODUCER);
	}
	drain_all(&d);
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_EQUAL(d.total, (uint64_t)PRODUCERS * EVENTS_PER_PRODUCER);
	for (unsigned i = 0; i < PRODUCERS; i++)
		CU_ASSERT_EQUAL(d.next[i], EVENTS_PER_PRODUCER);
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
}

static void test_small_buffer_exact_loss(void)
{
	enum { RING = 1000, SLOTS = 4, THREADS = 6, EACH = 2500 };
	char path[128];
	test_shm_path(path, sizeof(path), "ulog-small");
	CU_ASSERT_FATAL(pl_ulog_open(path, bytes_for(SLOTS, RING), SLOTS) == 0);
	struct pl_ulog_reader r;
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);
	pthread_t threads[THREADS];
	struct producer pr[THREADS];
	pthread_barrier_t hold;
	pthread_barrier_init(&hold, NULL, THREADS);
	for (unsigned i = 0; i < THREADS; i++) {
		pr[i] = (struct producer){ .index = i, .count = EACH, .hold = &hold };
		pthread_create(&threads[i], NULL, produce, &pr[i]);
	}
	for (unsigned i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	pthread_barrier_destroy(&hold);

	/* SLOTS threads each kept the first RING events and lost the rest; the others found no slot. */
	for (unsigned s = 0; s < SLOTS; s++) {
		struct pl_ulog_slot_info si;
		pl_ulog_reader_slot(&r, s, &si);
		CU_ASSERT(si.tid != 0);
		CU_ASSERT_EQUAL(si.pending, RING);
		CU_ASSERT_EQUAL(si.lost, EACH - RING);
		struct pl_event first, rest[RING];
		CU_ASSERT_EQUAL(pl_ulog_reader_drain(&r, s, &first, 1), 1);
		CU_ASSERT_EQUAL((uint32_t)first.a0, 0);
		CU_ASSERT_EQUAL(pl_ulog_reader_drain(&r, s, rest, RING), RING - 1);
		CU_ASSERT_EQUAL((uint32_t)rest[RING - 2].a0, RING - 1);
	}
	CU_ASSERT_EQUAL(pl_ulog_reader_unslotted_lost(&r), (uint64_t)(THREADS - SLOTS) * EACH);
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
}

static void test_off_writes_nothing(void)
{
	CU_ASSERT_FALSE(pl_ulog_on);
	pl_ulog(PL_EV_UI_INPUT, 1, 0, 0);	/* must not crash with no buffer */
	unsetenv("PANLAB_TRACE");
	CU_ASSERT_EQUAL(pl_ulog_open_from_env(), 0);
	CU_ASSERT_FALSE(pl_ulog_on);
}

/* The trace clock is CLOCK_MONOTONIC (on x86 hosts through clock_gettime; the guest's counter
 * path is checked in the guest by panlab-ulog-bench --clock). */
static void test_trace_clock_is_monotonic_clock(void)
{
	const struct pl_trace_clock *c = pl_trace_clock_setup();
	uint64_t tol = c->error_ns + c->ns_per_tick;
	for (int i = 0; i < 1000; i++) {
		uint64_t a = pl_trace_clock_ns(), g = pl_now_ns(), b = pl_trace_clock_ns();
		CU_ASSERT(a <= g + tol && g <= b + tol && a <= b);
	}
	/* Logged records carry the same clock: each lies between the readings around its call. */
	enum { N = 256 };
	char path[] = "/tmp/panlab-ulog-clock-XXXXXX";
	int fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_FATAL(pl_ulog_open(path, bytes_for(1, N), 1) == 0);
	uint64_t g0[N], g1[N];
	for (int i = 0; i < N; i++) {
		g0[i] = pl_now_ns();
		pl_ulog(PL_EV_UI_UPDATE, (uint64_t)i, 0, 0);
		g1[i] = pl_now_ns();
	}
	struct pl_ulog_reader r;
	struct pl_event ev[N];
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);
	CU_ASSERT_EQUAL_FATAL(pl_ulog_reader_drain(&r, 0, ev, N), N);
	for (int i = 0; i < N; i++)
		CU_ASSERT(g0[i] <= ev[i].ts_ns + tol && ev[i].ts_ns <= g1[i] + tol);
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
#if !defined(__arm__)
	int64_t off;
	uint64_t err;
	CU_ASSERT_EQUAL(c->source, PL_TRACE_CLOCK_GETTIME);
	CU_ASSERT_EQUAL(pl_trace_clock_measure(&off, &err), -1);
#endif
}

/* A platform function scheduling a task, and two app code paths calling it. */
static __attribute__((noinline)) void platform_submit(uint32_t id)
{
	pl_ulog_submit(PL_EV_SUBMIT_ASYNC_TASK, id, 7, 0);
	__asm__ volatile("" ::: "memory"); /* no tail call: its frame stays on the stack */
}

static __attribute__((noinline)) void path_a(uint32_t id)
{
	platform_submit(id);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void path_b(uint32_t id)
{
	platform_submit(id);
	__asm__ volatile("" ::: "memory");
}

static void *path_a_thread(void *p)
{
	path_a((uint32_t)(uintptr_t)p);
	return NULL;
}

/* frame 0 of a context: the return address into the caller of the platform function */
static int returns_into(uint64_t frame, void (*fn)(uint32_t))
{
	uint32_t start = (uint32_t)(uintptr_t)fn;
	return frame > start && frame < (uint64_t)start + 256;
}

/* Each submit is followed by its context; the context names the code path, not the platform. */
static void test_submit_context(void)
{
	enum { N = 16 };
	char path[128];
	test_shm_path(path, sizeof(path), "ulog-context");
	CU_ASSERT_FATAL(pl_ulog_open(path, bytes_for(2, N), 2) == 0);
	pl_ulog_capacity(7, 1, PL_UNIT_EXECUTOR);
	/* volatile: one call site for both, not an unrolled pair */
	for (volatile uint32_t id = 1; id <= 2; id++)
		path_a(id);
	path_b(3);
	pthread_t t;
	CU_ASSERT_FATAL(pthread_create(&t, NULL, path_a_thread, (void *)(uintptr_t)4) == 0);
	pthread_join(t, NULL);

	struct pl_ulog_reader r;
	struct pl_event ev[N], other[N];
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);
	CU_ASSERT_EQUAL_FATAL(pl_ulog_reader_drain(&r, 0, ev, N), 7);
	CU_ASSERT_EQUAL_FATAL(pl_ulog_reader_drain(&r, 1, other, N), 2);
	CU_ASSERT(ev[0].type == PL_EV_UNIT_CAPACITY && ev[0].a0 == 7 && ev[0].a1 == 1 &&
		  ev[0].a2 == PL_UNIT_EXECUTOR);
	for (int i = 1; i < 7; i += 2) {
		CU_ASSERT(ev[i].type == PL_EV_SUBMIT_ASYNC_TASK && ev[i].a1 == 7);
		CU_ASSERT(ev[i + 1].type == PL_EV_TASK_CONTEXT && ev[i + 1].tid == ev[i].tid);
	}
	CU_ASSERT(returns_into(ev[2].a0 & 0xffffffffu, path_a));
	CU_ASSERT(returns_into(ev[6].a0 & 0xffffffffu, path_b));
	/* the same code path, the same context, up to the test that called both */
	CU_ASSERT(ev[2].a0 == ev[4].a0 && ev[2].a1 == ev[4].a1 && ev[2].a2 == ev[4].a2);
	CU_ASSERT((ev[2].a0 >> 32) != 0 && (ev[2].a0 >> 32) != (ev[6].a0 >> 32));
	/* another thread's walk stops at its stack's end without faulting */
	CU_ASSERT(other[0].type == PL_EV_SUBMIT_ASYNC_TASK && other[0].a0 == 4);
	CU_ASSERT(other[1].type == PL_EV_TASK_CONTEXT);
	CU_ASSERT(returns_into(other[1].a0 & 0xffffffffu, path_a));
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
}

/* A submit and its context take two records or none: a ring with one free loses both. */
static void test_submit_all_or_nothing(void)
{
	char path[128];
	test_shm_path(path, sizeof(path), "ulog-submit-full");
	CU_ASSERT_FATAL(pl_ulog_open(path, bytes_for(1, 3), 1) == 0);
	path_a(1);
	path_a(2);
	struct pl_ulog_reader r;
	struct pl_event ev[4];
	struct pl_ulog_slot_info si;
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);
	CU_ASSERT_EQUAL(pl_ulog_reader_drain(&r, 0, ev, 4), 2);
	CU_ASSERT(ev[0].type == PL_EV_SUBMIT_ASYNC_TASK && ev[0].a0 == 1);
	CU_ASSERT(ev[1].type == PL_EV_TASK_CONTEXT && ev[1].ts_ns == ev[0].ts_ns);
	pl_ulog_reader_slot(&r, 0, &si);
	CU_ASSERT_EQUAL(si.lost, 2);
	pl_ulog_reader_close(&r);
	pl_ulog_close();
	unlink(path);
}

void add_ulog_suite(void)
{
	CU_pSuite s = CU_add_suite("ulog", NULL, NULL);
	CU_add_test(s, "tracing off is a no-op", test_off_writes_nothing);
	CU_add_test(s, "trace clock is CLOCK_MONOTONIC", test_trace_clock_is_monotonic_clock);
	CU_add_test(s, "big buffer: no loss, no duplicates", test_big_buffer_exact);
	CU_add_test(s, "concurrent producers and drainer", test_concurrent_no_loss);
	CU_add_test(s, "small buffer: exact loss counts", test_small_buffer_exact_loss);
	CU_add_test(s, "a submit's execution context", test_submit_context);
	CU_add_test(s, "a submit and its context: both or neither", test_submit_all_or_nothing);
}
