/* Collector: a trace v1 file from userspace logger files, checked field by field. */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "panlab/collect.h"
#include "panlab/ulog.h"
#include "panlab/ulog_reader.h"
#include "test_platform.h"
#include "panlab/error.h"

static void *three_events(void *p)
{
	(void)p;
	for (int i = 0; i < 3; i++)
		pl_ulog(PL_EV_UI_UPDATE, (uint64_t)i, 0, 0);
	return NULL;
}

static void test_collect_user_only(void)
{
	char dir[] = "/tmp/panlab-collect-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char log[256], out[256];
	snprintf(log, sizeof(log), "%s/panlab-log.%d", dir, (int)getpid());
	snprintf(out, sizeof(out), "%s/trace.bin", dir);

	/* Rings of 4 records: the main thread logs 6 (2 lost), a second thread 3. */
	CU_ASSERT_FATAL(pl_ulog_open(log, 4096 + 2 * (128 + 32 * 4), 2) == 0);
	for (int i = 0; i < 6; i++)
		pl_ulog(PL_EV_UI_INPUT, (uint64_t)i, 0, 0);
	pthread_t t;
	pthread_create(&t, NULL, three_events, NULL);
	pthread_join(t, NULL);
	pl_ulog_close();

	struct pl_collect_opts o = { .out_path = out, .shm_dir = dir, .klog_path = NULL };
	struct pl_collect_result res;
	struct pl_error err = { "" };
	CU_ASSERT_EQUAL_FATAL(pl_collect(&o, &res, &err), 0);
	CU_ASSERT_EQUAL(res.nsources, 2);
	CU_ASSERT_EQUAL(res.records, 7);
	CU_ASSERT_EQUAL(res.lost, 2);
	struct stat st;
	CU_ASSERT_EQUAL(stat(log, &st), -1);	/* drained files are removed */

	FILE *f = fopen(out, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct pl_file_header h;
	struct pl_source src[2];
	struct pl_event ev[7];
	CU_ASSERT_EQUAL(fread(&h, sizeof(h), 1, f), 1);
	CU_ASSERT_EQUAL(fread(src, sizeof(src), 1, f), 1);
	CU_ASSERT_EQUAL(fread(ev, sizeof(ev), 1, f), 1);
	CU_ASSERT_EQUAL(fgetc(f), EOF);
	fclose(f);
	CU_ASSERT_EQUAL(memcmp(h.magic, PL_TRACE_MAGIC, 8), 0);
	CU_ASSERT_EQUAL(h.version, PL_TRACE_VERSION);
	CU_ASSERT_EQUAL(h.record_bytes, 32);
	CU_ASSERT_EQUAL(h.clock_id, PL_CLOCK_MONOTONIC);
	CU_ASSERT_EQUAL(h.nsources, 2);
	CU_ASSERT_EQUAL(h.reserved, 0);
	/* Slot 0 is the main thread's: 4 kept, 2 lost; then the other thread's 3. */
	CU_ASSERT_EQUAL(src[0].kind, PL_SRC_USER_THREAD);
	CU_ASSERT_EQUAL(src[0].id, (uint32_t)getpid());
	CU_ASSERT_EQUAL(src[0].records, 4);
	CU_ASSERT_EQUAL(src[0].lost, 2);
	CU_ASSERT_EQUAL(src[1].records, 3);
	CU_ASSERT_EQUAL(src[1].lost, 0);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(ev[i].type, PL_EV_UI_INPUT);
		CU_ASSERT_EQUAL(ev[i].a0, (uint64_t)i);
		CU_ASSERT_EQUAL(ev[i].tid, src[0].id);
	}
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(ev[4 + i].type, PL_EV_UI_UPDATE);
		CU_ASSERT_EQUAL(ev[4 + i].tid, src[1].id);
	}
	unlink(out);
	rmdir(dir);
}

static void *log_two(void *p)
{
	(void)p;
	pl_ulog(PL_EV_ENQUEUE_MSG, 1, 0, 0);
	pl_ulog(PL_EV_ENQUEUE_MSG, 2, 0, 0);
	return NULL;
}

static void test_collect_recycled_slots(void)
{
	enum { THREADS = 5 };
	char dir[] = "/tmp/panlab-collect-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char log[256], out[256];
	snprintf(log, sizeof(log), "%s/panlab-log.%d", dir, (int)getpid());
	snprintf(out, sizeof(out), "%s/trace.bin", dir);

	/* Two slots, five short-lived threads one after another: exited threads' slots are reused. */
	CU_ASSERT_FATAL(pl_ulog_open(log, 4096 + 2 * (128 + 32 * 64), 2) == 0);
	pl_ulog(PL_EV_UI_INPUT, 0, 0, 0);	/* the main thread keeps slot 0 */
	pthread_t t;
	for (int i = 0; i < THREADS; i++) {
		pthread_create(&t, NULL, log_two, NULL);
		pthread_join(t, NULL);
	}
	pl_ulog_close();

	struct pl_collect_opts o = { .out_path = out, .shm_dir = dir };
	struct pl_collect_result res;
	struct pl_error err = { "" };
	CU_ASSERT_EQUAL_FATAL(pl_collect(&o, &res, &err), 0);
	/* Main + one source per worker: nothing lost, no thread without a slot. */
	CU_ASSERT_EQUAL(res.nsources, 1 + THREADS);
	CU_ASSERT_EQUAL(res.records, 1 + 2 * THREADS);
	CU_ASSERT_EQUAL(res.lost, 0);

	FILE *f = fopen(out, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct pl_file_header h;
	struct pl_source src[1 + THREADS];
	struct pl_event ev[1 + 2 * THREADS];
	CU_ASSERT_EQUAL(fread(&h, sizeof(h), 1, f), 1);
	CU_ASSERT_EQUAL(fread(src, sizeof(src), 1, f), 1);
	CU_ASSERT_EQUAL(fread(ev, sizeof(ev), 1, f), 1);
	fclose(f);
	/* Each source's records carry its tid; worker tids are distinct. */
	size_t k = 0;
	for (int s = 0; s < 1 + THREADS; s++) {
		for (uint64_t r = 0; r < src[s].records; r++, k++)
			CU_ASSERT_EQUAL(ev[k].tid, src[s].id);
		for (int s2 = 0; s2 < s; s2++)
			CU_ASSERT_NOT_EQUAL(src[s].id, src[s2].id);
	}
	unlink(out);
	rmdir(dir);
}

static void test_collect_bad_output(void)
{
	struct pl_collect_opts o = { .out_path = "/nonexistent-dir/trace.bin", .shm_dir = "/nonexistent-shm" };
	struct pl_error err = { "" };
	CU_ASSERT_EQUAL(pl_collect(&o, NULL, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent-dir/trace.bin"));
}

#define SPILL_EVENTS 20000u

static void *many_events(void *p)
{
	(void)p;
	for (uint32_t i = 0; i < SPILL_EVENTS; i++)
		pl_ulog(PL_EV_ENQUEUE_MSG, i, 0, 0);
	return NULL;
}

/* One thread's SPILL_EVENTS records in dir; returns the trace's size in bytes. */
static size_t log_many(const char *dir)
{
	char log[256];
	snprintf(log, sizeof(log), "%s/panlab-log.%d", dir, (int)getpid());
	CU_ASSERT_FATAL(pl_ulog_open(log, 4096 + 128 + 32 * (size_t)SPILL_EVENTS, 1) == 0);
	pthread_t t;
	pthread_create(&t, NULL, many_events, NULL);
	pthread_join(t, NULL);
	pl_ulog_close();
	return sizeof(struct pl_file_header) + sizeof(struct pl_source) +
	       SPILL_EVENTS * sizeof(struct pl_event);
}

/* The trace at path holds every record once, in order, and nothing else. */
static void check_many(const char *path, size_t bytes)
{
	FILE *f = fopen(path, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct pl_file_header h;
	struct pl_source src;
	CU_ASSERT_EQUAL(fread(&h, sizeof(h), 1, f), 1);
	CU_ASSERT_EQUAL(fread(&src, sizeof(src), 1, f), 1);
	CU_ASSERT_EQUAL(memcmp(h.magic, PL_TRACE_MAGIC, 8), 0);
	CU_ASSERT_EQUAL(h.nsources, 1);
	CU_ASSERT_EQUAL(src.records, SPILL_EVENTS);
	CU_ASSERT_EQUAL(src.lost, 0);
	uint32_t in_order = 0;
	struct pl_event ev;
	while (fread(&ev, sizeof(ev), 1, f) == 1)
		in_order += ev.type == PL_EV_ENQUEUE_MSG && ev.a0 == in_order;
	CU_ASSERT_EQUAL(in_order, SPILL_EVENTS);
	CU_ASSERT_EQUAL(ftell(f), (long)bytes);
	fclose(f);
}

/* Yields this many times at most waiting for the drain thread (which runs every millisecond):
 * a thread that stopped on an error fails the test instead of hanging it. */
#define MAX_YIELDS 20000000u

/* Waits until the collector has drained every ring of the file at path (a condition, not a
 * time). */
static void wait_drained(const char *path)
{
	struct pl_ulog_reader r;
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);
	for (unsigned s = 0; s < pl_ulog_reader_slots(&r); s++) {
		struct pl_ulog_slot_info si;
		unsigned yields = 0;
		do {
			CU_ASSERT_FATAL(++yields < MAX_YIELDS);
			sched_yield();
			pl_ulog_reader_slot(&r, s, &si);
		} while (si.pending);
	}
	pl_ulog_reader_close(&r);
}

/* The link fails part way (a file size limit stands in for a lost port): the rest spills, and
 * sending the spill later completes the trace byte for byte. With periodic drains the records
 * reach the spool before the link fails (the limit is set after, as it would cut the spool). */
static void spill_link_lost(bool periodic)
{
	char dir[] = "/tmp/panlab-spill-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char out[256], spill[256];
	snprintf(out, sizeof(out), "%s/trace.bin", dir);
	snprintf(spill, sizeof(spill), "%s/sdcard.spill", dir);
	struct pl_collect_opts o = { .out_path = out, .shm_dir = dir, .spill_path = spill,
				     .drain_period_ms = periodic ? 1 : 0 };
	struct pl_collector *c;
	struct pl_error err = { "" };
	CU_ASSERT_EQUAL_FATAL(pl_collector_start(&o, &c, &err), 0);
	size_t bytes = log_many(dir);
	if (periodic) {
		char log[256];
		snprintf(log, sizeof(log), "%s/panlab-log.%d", dir, (int)getpid());
		wait_drained(log);
	}
	const size_t link_takes = 400000;	/* more than half: the spill fits under the limit */

	struct rlimit old_limit, limit;
	getrlimit(RLIMIT_FSIZE, &old_limit);
	limit = old_limit;
	limit.rlim_cur = link_takes;
	void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
	CU_ASSERT_FATAL(setrlimit(RLIMIT_FSIZE, &limit) == 0);
	struct pl_collect_result res;
	int rc = pl_collector_finish(c, &res, &err);
	setrlimit(RLIMIT_FSIZE, &old_limit);
	signal(SIGXFSZ, old_handler);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(res.records, SPILL_EVENTS);
	CU_ASSERT_EQUAL(res.spooled, periodic ? SPILL_EVENTS : 0);
	CU_ASSERT_EQUAL(res.spilled_bytes, bytes - link_takes);
	struct stat st;
	CU_ASSERT_EQUAL(stat(out, &st), 0);
	CU_ASSERT_EQUAL((size_t)st.st_size, link_takes);
	CU_ASSERT_EQUAL(stat(spill, &st), 0);
	CU_ASSERT_EQUAL((size_t)st.st_size, sizeof(struct pl_spill_header) + bytes - link_takes);

	uint64_t sent = 0;
	CU_ASSERT_EQUAL_FATAL(pl_collect_send_spill(spill, out, &sent, &err), 0);
	CU_ASSERT_EQUAL(sent, bytes - link_takes);
	CU_ASSERT_EQUAL(stat(spill, &st), -1);	/* sent, so removed */
	check_many(out, bytes);
	unlink(out);
	rmdir(dir);
}

static void test_collect_spill_link_lost(void)
{
	spill_link_lost(false);
}

static void test_collect_spill_link_lost_periodic(void)
{
	spill_link_lost(true);
}

/* No link at all: the whole trace spills; a bad spill file is refused and kept. */
static void test_collect_spill_no_link(void)
{
	char dir[] = "/tmp/panlab-spill-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	char out[256], spill[256];
	snprintf(out, sizeof(out), "%s/trace.bin", dir);
	snprintf(spill, sizeof(spill), "%s/sdcard.spill", dir);
	size_t bytes = log_many(dir);
	struct pl_collect_opts o = { .out_path = "/nonexistent-dir/port", .shm_dir = dir,
				     .spill_path = spill };
	struct pl_collect_result res;
	struct pl_error err = { "" };
	CU_ASSERT_EQUAL_FATAL(pl_collect(&o, &res, &err), 0);
	CU_ASSERT_EQUAL(res.spilled_bytes, bytes);
	CU_ASSERT_EQUAL(pl_collect_send_spill(spill, out, NULL, &err), 0);
	check_many(out, bytes);

	FILE *f = fopen(spill, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("not a spill file", f);
	fclose(f);
	CU_ASSERT_EQUAL(pl_collect_send_spill(spill, out, NULL, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not a spill file, expected the magic PLSPILL1"));
	struct stat st;
	CU_ASSERT_EQUAL(stat(spill, &st), 0);
	unlink(spill);
	unlink(out);
	rmdir(dir);
}

/* Periodic drains: a thread logs ROUNDS x BATCH events into a ring of RING records, waiting for a
 * drain after each batch. One drain at the end would keep RING; the periodic ones keep all, in
 * order. A forked process's file is retired (removed) once it has exited, its records kept. */
static void test_collect_periodic(void)
{
	enum { RING = 64, BATCH = 48, ROUNDS = 50, CHILD_EVENTS = 10 };
	char dir[] = "/tmp/panlab-periodic-XXXXXX", spool_parent[] = "/tmp/panlab-spoolp-XXXXXX";
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(spool_parent));
	char log[256], out[256], child_log[256];
	snprintf(log, sizeof(log), "%s/panlab-log.%d", dir, (int)getpid());
	snprintf(out, sizeof(out), "%s/trace.bin", dir);
	CU_ASSERT_FATAL(pl_ulog_open(log, 4096 + 128 + 32 * RING, 1) == 0);

	struct pl_collect_opts o = { .out_path = out, .shm_dir = dir, .spool_dir = spool_parent,
				     .drain_period_ms = 1 };
	struct pl_collector *c;
	struct pl_error err = { "" };
	CU_ASSERT_EQUAL_FATAL(pl_collector_start(&o, &c, &err), 0);
	for (uint32_t round = 0; round < ROUNDS; round++) {
		for (uint32_t i = 0; i < BATCH; i++)
			pl_ulog(PL_EV_ENQUEUE_MSG, round * BATCH + i, 0, 0);
		wait_drained(log);
	}
	pid_t child = fork();
	CU_ASSERT_FATAL(child >= 0);
	if (child == 0) {
		pl_ulog_close();
		snprintf(child_log, sizeof(child_log), "%s/panlab-log.%d", dir, (int)getpid());
		if (pl_ulog_open(child_log, 4096 + 128 + 32 * RING, 1) != 0)
			_exit(1);
		for (uint32_t i = 0; i < CHILD_EVENTS; i++)
			pl_ulog(PL_EV_UI_UPDATE, i, 0, 0);
		_exit(0);
	}
	int status;
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	snprintf(child_log, sizeof(child_log), "%s/panlab-log.%d", dir, (int)child);
	struct stat st;
	for (unsigned yields = 0; stat(child_log, &st) == 0; yields++) {
		CU_ASSERT_FATAL(yields < MAX_YIELDS);	/* retired by a drain after the child exited */
		sched_yield();
	}
	pl_ulog_close();

	struct pl_collect_result res;
	CU_ASSERT_EQUAL_FATAL(pl_collector_finish(c, &res, &err), 0);
	/* A drain empties a ring in a loop, so one may take several batches: at least one ran. */
	CU_ASSERT(res.drains >= 1);
	CU_ASSERT_EQUAL(res.nsources, 2);
	CU_ASSERT_EQUAL(res.records, ROUNDS * BATCH + CHILD_EVENTS);
	CU_ASSERT_EQUAL(res.lost, 0);
	CU_ASSERT_EQUAL(rmdir(spool_parent), 0);	/* the spool was removed */

	FILE *f = fopen(out, "rb");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	struct pl_file_header h;
	struct pl_source src[2];
	CU_ASSERT_EQUAL(fread(&h, sizeof(h), 1, f), 1);
	CU_ASSERT_EQUAL(fread(src, sizeof(src), 1, f), 1);
	/* tid order: the parent (its main thread's tid is its pid) before the later child. */
	CU_ASSERT_EQUAL(src[0].id, (uint32_t)getpid());
	CU_ASSERT_EQUAL(src[0].records, ROUNDS * BATCH);
	CU_ASSERT_EQUAL(src[1].id, (uint32_t)child);
	CU_ASSERT_EQUAL(src[1].records, CHILD_EVENTS);
	uint32_t in_order = 0;
	struct pl_event ev;
	for (uint32_t i = 0; i < ROUNDS * BATCH && fread(&ev, sizeof(ev), 1, f) == 1; i++)
		in_order += ev.type == PL_EV_ENQUEUE_MSG && ev.a0 == in_order && ev.tid == src[0].id;
	CU_ASSERT_EQUAL(in_order, ROUNDS * BATCH);
	for (uint32_t i = 0; i < CHILD_EVENTS && fread(&ev, sizeof(ev), 1, f) == 1; i++)
		CU_ASSERT(ev.type == PL_EV_UI_UPDATE && ev.a0 == i && ev.tid == (uint32_t)child);
	CU_ASSERT_EQUAL(fgetc(f), EOF);
	fclose(f);
	unlink(out);
	CU_ASSERT_EQUAL(rmdir(dir), 0);	/* every logger file was removed */
}

/* Drain periods: digits only, within bounds; everything else is refused and *ms is untouched. */
static void test_parse_period_ms(void)
{
	uint32_t ms = 7;

	CU_ASSERT_EQUAL(pl_collect_parse_period_ms("100", 1, &ms), 0);
	CU_ASSERT_EQUAL(ms, 100);
	CU_ASSERT_EQUAL(pl_collect_parse_period_ms("0", 0, &ms), 0);
	CU_ASSERT_EQUAL(ms, 0);
	CU_ASSERT_EQUAL(pl_collect_parse_period_ms("3600000", 1, &ms), 0);
	CU_ASSERT_EQUAL(ms, 3600000);
	ms = 7;
	static const char *const bad[] = { "0", "", "-5", "+5", " 5", "5ms", "3600001",
					   "99999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(pl_collect_parse_period_ms(bad[i], 1, &ms), -1);
	CU_ASSERT_EQUAL(ms, 7);
}

void add_collect_suite(void)
{
	CU_pSuite s = CU_add_suite("collect", NULL, NULL);
	CU_add_test(s, "user rings to a trace v1 file", test_collect_user_only);
	CU_add_test(s, "drain periods in ms", test_parse_period_ms);
	CU_add_test(s, "recycled slots: one source per thread", test_collect_recycled_slots);
	CU_add_test(s, "unwritable output is one clear error", test_collect_bad_output);
	CU_add_test(s, "link lost part way: the rest spills, then is sent", test_collect_spill_link_lost);
	CU_add_test(s, "link lost after periodic drains: the spool spills, then is sent",
		    test_collect_spill_link_lost_periodic);
	CU_add_test(s, "no link: everything spills; a bad spill is kept", test_collect_spill_no_link);
	CU_add_test(s, "periodic drains: lossless past the ring size; exited processes retired",
		    test_collect_periodic);
}
