/* SPDX-License-Identifier: MIT */
/*
 * The real runs in the fixtures: qemu runs, one per app pattern, and the
 * start of phone runs (tests/unit/make-phone-fixtures.sh) with the events
 * only the phone's kernel logs. For every transaction, the breakdown
 * invariant (its parts sum to the detected latency, and with the
 * ground-truth input-dispatch and display-pipeline segments to the
 * ground-truth latency) and what each pattern must give; for the phone
 * runs, every transaction's exact breakdown.
 */
#include "test_analyzer.h"

#include <stdio.h>
#include <string.h>

#include "panlab/error.h"
#include "panlab/ground_truth.h"
#include "panlab/validate.h"

struct fixture {
	const char *name;
	/* every transaction's critical-path shape, or alternatives separated by '|', or NULL */
	const char *shape;
	uint64_t animations;
};

static const struct fixture fixtures[] = {
	{ "qemu-asynctask", "task>message>invalidate", 0 },
	{ "qemu-webview", "notify>message>invalidate", 0 },
	{ "qemu-service", "task>binder>binder>message>invalidate", 0 },
	/* Animations: the path runs through the task that ends the spinner, not its frames. */
	{ "qemu-animation", "task>message>invalidate", 8 },
	{ "qemu-workerthread", "fork>message>invalidate", 0 },
	{ "qemu-asyncpool", "task>message>invalidate", 0 },
	{ "qemu-handlerthread", "message>message>invalidate", 0 },
	/* A's worker takes the lock; B's worker waits for it (a lock hop); the key draws at once. */
	{ "qemu-lockcontention",
	  "fork>message>invalidate|fork>lock>message>invalidate|invalidate", 0 },
	{ "phone-configd", "task>message>invalidate", 0 },
	{ "phone-sdcache", "task>message>invalidate", 0 },
	{ "phone-netdgram", "task>message>invalidate", 0 },
	{ "phone-lockcontention", "fork>message>invalidate|fork>lock>message>invalidate", 0 },
	/* The note's handler holds the journal's kernel mutex the call's handler waits for. */
	{ "phone-svcjournal", "task>binder>notify>binder>message>invalidate", 0 },
};

/* Is shape one of the '|'-separated alternatives? */
static int one_of(const char *shape, const char *alternatives)
{
	size_t n = strlen(shape);

	for (const char *p = alternatives; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
		if (!strncmp(p, shape, n) && (p[n] == '\0' || p[n] == '|'))
			return 1;
	return 0;
}

static void check_fixture(const struct fixture *f)
{
	char path[512];
	struct pl_error err;
	struct model m;
	struct pl_ground_truth gt;
	struct pl_validation v;

	snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.trace.bin", f->name);
	CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(path, &m.trace, &err), 0);
	snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.gt", f->name);
	CU_ASSERT_EQUAL_FATAL(pl_ground_truth_read_file(path, &gt, &err), 0);
	pl_model_build(&m.trace, &m.s);
	pl_validate(&m.s.tx, &gt, &v);

	CU_ASSERT(m.s.tx.count > 0);
	CU_ASSERT_EQUAL(v.matched, v.inputs);
	CU_ASSERT_EQUAL(v.matched, m.s.tx.count);
	CU_ASSERT_EQUAL(m.s.tx.animations, f->animations);
	/* The top edges share out all critical-path time, most first. */
	uint64_t edges_ns = 0, latency_ns = 0;

	for (uint64_t i = 0; i < m.s.te.count; i++) {
		edges_ns += m.s.te.edges[i].total_ns;
		if (i)
			CU_ASSERT(m.s.te.edges[i - 1].total_ns >= m.s.te.edges[i].total_ns);
	}
	for (uint64_t k = 0; k < m.s.tx.count; k++)
		latency_ns += m.s.tx.items[k].latency_ns;
	CU_ASSERT_EQUAL(edges_ns, latency_ns);
	for (uint64_t k = 0; k < m.s.tx.count; k++) {
		uint64_t sum_ns = 0;
		char shape[128];

		for (int c = 0; c < PL_CATEGORIES; c++)
			sum_ns += m.s.bd.ns[k][c];
		CU_ASSERT_EQUAL(sum_ns, m.s.tx.items[k].latency_ns);
		sum_ns = 0;
		for (uint64_t i = m.s.bd.tx_freq_first[k]; i < m.s.bd.tx_freq_first[k + 1]; i++)
			sum_ns += m.s.bd.tx_running_ns[i];
		CU_ASSERT_EQUAL(sum_ns, m.s.bd.ns[k][PL_CAT_RUNNING]);
		if (f->shape)
			CU_ASSERT(one_of(pl_critical_path_shape(&m.s.cp, k, shape, sizeof(shape)),
					 f->shape));
	}
	for (uint64_t i = 0; i < v.nrows; i++) {
		const struct pl_row *r = &v.rows[i];

		if (r->tx == PL_NONE || !r->has_truth)
			continue;
		/* Input dispatch, the critical path and the display pipeline tile the detected
		 * latency; what ground truth differs by is the difference. */
		int64_t sum_ns = r->input_dispatch_ns + r->display_pipeline_ns;
		const struct pl_transaction *t = &m.s.tx.items[r->tx];

		for (int c = 0; c < PL_CATEGORIES; c++)
			sum_ns += (int64_t)m.s.bd.ns[r->tx][c];
		CU_ASSERT_EQUAL(sum_ns, (int64_t)t->pixels.latency_ns);
		CU_ASSERT_EQUAL((int64_t)t->pixels.latency_ns - r->difference_ns,
				(int64_t)r->truth_latency_ns);
	}
	pl_validation_free(&v);
	pl_ground_truth_free(&gt);
	model_free(&m);
}

static void test_fixtures(void)
{
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		check_fixture(&fixtures[i]);
}

#define MAX_PHONE_TX 7
#define MAX_COVERED 6

/* A phone fixture's transactions: each one's breakdown (enum pl_category order), exact. */
struct phone_fixture {
	const char *name;
	uint64_t count;
	uint64_t ns[MAX_PHONE_TX][PL_CATEGORIES];
	/* The thread that fetches: its network sleeps are all on the critical path. */
	uint32_t fetch_tid;
	/* The event types the fixture is there for, with their exact record counts. */
	struct {
		uint16_t type;
		uint64_t count;
	} covers[MAX_COVERED];
};

/*
 * running, runnable, io, network, lock, sleeping, unknown, queue_message, queue_task, binder,
 * thread_start, frame_wait (ns).
 */
static const struct phone_fixture phone_fixtures[] = {
	/* configd takes cpu1 offline for 2, 3, 5 and 6; in 6 the clock is at 700 MHz for 18 ms. */
	{ "phone-configd", 7, {
		{ 10024128, 5216, 0, 0, 0, 0, 0, 4656, 52400, 0, 0, 6238720 },
		{ 500854176, 32608, 0, 0, 0, 0, 0, 4720, 5328, 0, 0, 16103120 },
		{ 20045456, 645776, 0, 0, 0, 0, 0, 4640, 6656, 0, 0, 14066416 },
		{ 400684064, 1284048, 0, 0, 0, 0, 0, 4432, 12016, 0, 0, 2339440 },
		{ 50122768, 1071648, 0, 0, 0, 0, 0, 4448, 12032, 0, 0, 16443904 },
		{ 300520896, 1159488, 0, 0, 0, 0, 0, 4432, 12016, 0, 0, 9293968 },
		{ 107832464, 1938720, 0, 0, 0, 0, 0, 4672, 20592, 0, 0, 10833568 } }, 0,
	  { { PL_EV_CPU_OFFLINE, 2 }, { PL_EV_CPU_ONLINE, 2 }, { PL_EV_CPU_FREQUENCY, 8 },
	    { PL_EV_SEM_WAIT, 4 }, { PL_EV_SEM_NOTIFY, 4 }, { PL_EV_SEM_WAKE, 4 } } },
	/* A 32 KiB TCP fetch, then the fsync of its cache file (io), and a contended lock. */
	{ "phone-sdcache", 1, {
		{ 8459840, 194000, 1064176, 327509664, 203408, 0, 0, 5488, 65952, 0, 0, 10832288 } },
	  68, { { PL_EV_SOCK_BLOCK, 1 }, { PL_EV_STREAM_BLOCK, 24 }, { PL_EV_IO_BLOCK, 9 } } },
	{ "phone-netdgram", 1, {
		{ 440480, 73136, 0, 172320928, 0, 0, 0, 5488, 65952, 0, 0, 8763200 } }, 68,
	  { { PL_EV_DATAGRAM_BLOCK, 33 } } },
	/* B's worker waits 300 ms for the lock A's housekeeping thread holds. */
	{ "phone-lockcontention", 2, {
		{ 10072576, 16400, 0, 0, 0, 0, 1216, 4656, 0, 0, 208, 6227488 },
		{ 100223184, 29856, 0, 0, 300128464, 0, 1232, 4720, 0, 0, 208, 4606624 } }, 0,
	  { { PL_EV_FUTEX_WAIT, 1 }, { PL_EV_FUTEX_NOTIFY, 1 }, { PL_EV_FUTEX_WAKE, 1 } } },
	/*
	 * A one-way note (64 KiB to svc-compute's O_DSYNC journal; one more, empty, at start),
	 * then a two-way call whose handler waits on the journal file's f_pos_lock (a kernel
	 * mutex) for the note's write, which is on the path: its card writes are io, and lock the
	 * mmc driver's waits for the card's previous request (a wait queue an interrupt wakes).
	 */
	{ "phone-svcjournal", 1, {
		{ 20374448, 60016, 2675472, 0, 5823184, 0, 0, 4496, 66032, 9056, 0, 3895872 } }, 0,
	  { { PL_EV_BINDER_PRODUCE_ONEWAY, 2 }, { PL_EV_MUTEX_WAIT, 1 }, { PL_EV_MUTEX_NOTIFY, 1 },
	    { PL_EV_MUTEX_WAKE, 1 } } },
};

static int is_network_block(uint16_t type)
{
	return type == PL_EV_SOCK_BLOCK || type == PL_EV_DATAGRAM_BLOCK || type == PL_EV_STREAM_BLOCK;
}

static int is_network_resume(uint16_t type)
{
	return type == PL_EV_SOCK_RESUME || type == PL_EV_DATAGRAM_RESUME ||
	       type == PL_EV_STREAM_RESUME;
}

/*
 * The network time of tid straight from the records, apart from the analyzer's stages: from
 * each switch-out inside one of its SOCK/DATAGRAM/STREAM_BLOCK .. _RESUME spans to the WAKEUP
 * that ends that sleep.
 */
static uint64_t network_sleep_ns(const struct pl_trace *t, uint32_t tid)
{
	uint64_t sum = 0, out_ns = 0;
	int in_span = 0, out_in_span = 0;

	for (uint64_t i = 0; i < t->nevents; i++) {
		const struct pl_event *e = &t->events[i];

		if (e->tid == tid && is_network_block(e->type))
			in_span = 1;
		else if (e->tid == tid && is_network_resume(e->type))
			in_span = 0;
		else if (e->type == PL_EV_CONTEXT_SWITCH && e->tid == tid)
			out_ns = e->ts_ns, out_in_span = in_span;
		else if (e->type == PL_EV_WAKEUP && e->a0 == tid && out_ns) {
			sum += out_in_span ? e->ts_ns - out_ns : 0;
			out_ns = 0;
		}
	}
	return sum;
}

static void test_phone_breakdowns(void)
{
	/* The kernel events the phone fixtures hold together: all an app's run logs. */
	static const uint16_t wanted[] = {
		PL_EV_BINDER_PRODUCE_ONEWAY, PL_EV_BINDER_PRODUCE_TWOWAY, PL_EV_BINDER_REPLY,
		PL_EV_BINDER_CONSUME, PL_EV_MUTEX_WAIT, PL_EV_MUTEX_WAKE, PL_EV_MUTEX_NOTIFY,
		PL_EV_FUTEX_WAIT, PL_EV_FUTEX_WAKE, PL_EV_FUTEX_NOTIFY, PL_EV_SEM_WAIT, PL_EV_SEM_WAKE,
		PL_EV_SEM_NOTIFY, PL_EV_WAITQUEUE_WAIT, PL_EV_WAITQUEUE_WAKE, PL_EV_WAITQUEUE_NOTIFY,
		PL_EV_SOCK_BLOCK, PL_EV_SOCK_RESUME, PL_EV_DATAGRAM_BLOCK, PL_EV_DATAGRAM_RESUME,
		PL_EV_STREAM_BLOCK, PL_EV_STREAM_RESUME, PL_EV_IO_BLOCK, PL_EV_IO_RESUME,
		PL_EV_CPU_FREQUENCY, PL_EV_CPU_ONLINE, PL_EV_CPU_OFFLINE, PL_EV_CPU_IDLE_ENTER,
		PL_EV_CPU_IDLE_EXIT, PL_EV_INPUT_READ, PL_EV_INPUT_DISPATCH, PL_EV_FRAME_LATCH,
		PL_EV_DISPLAY_SUBMIT, PL_EV_DISPLAY_FLUSHED,
	};
	uint64_t seen[PL_EV_TYPE_MAX + 1] = { 0 };

	for (size_t f = 0; f < sizeof(phone_fixtures) / sizeof(phone_fixtures[0]); f++) {
		const struct phone_fixture *want = &phone_fixtures[f];
		char path[512];
		struct pl_error err;
		struct model m;

		snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.trace.bin", want->name);
		CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(path, &m.trace, &err), 0);
		pl_model_build(&m.trace, &m.s);
		CU_ASSERT_EQUAL_FATAL(m.s.tx.count, want->count);
		for (uint64_t k = 0; k < want->count; k++)
			for (int c = 0; c < PL_CATEGORIES; c++)
				if (m.s.bd.ns[k][c] != want->ns[k][c]) {
					fprintf(stderr, "\n  %s transaction %llu: %s %llu ns, expected %llu",
						want->name, (unsigned long long)k, pl_category_name(c),
						(unsigned long long)m.s.bd.ns[k][c],
						(unsigned long long)want->ns[k][c]);
					CU_FAIL("breakdown differs");
				}
		if (want->fetch_tid)
			CU_ASSERT_EQUAL(network_sleep_ns(&m.trace, want->fetch_tid),
					want->ns[0][PL_CAT_NETWORK]);
		uint64_t here[PL_EV_TYPE_MAX + 1] = { 0 };

		for (uint64_t i = 0; i < m.trace.nevents; i++)
			here[m.trace.events[i].type]++;
		for (int c = 0; c < MAX_COVERED && want->covers[c].type; c++)
			if (here[want->covers[c].type] != want->covers[c].count) {
				fprintf(stderr, "\n  %s: %llu records of type %u, expected %llu",
					want->name,
					(unsigned long long)here[want->covers[c].type],
					want->covers[c].type,
					(unsigned long long)want->covers[c].count);
				CU_FAIL("a phone fixture lost the events it is there for");
			}
		for (int type = 0; type <= PL_EV_TYPE_MAX; type++)
			seen[type] += here[type];
		model_free(&m);
	}
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (!seen[wanted[i]]) {
			fprintf(stderr, "\n  no phone fixture has event type %u", wanted[i]);
			CU_FAIL("an event type missing from the phone fixtures");
		}
}

/* configd's DVFS: its last tap runs 18 ms at 700 MHz, the rest at 1.2 GHz as every tap before. */
static void test_phone_frequencies(void)
{
	struct pl_error err;
	struct model m;

	CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(PANLAB_TEST_DATA "/phone-configd.trace.bin",
						 &m.trace, &err), 0);
	pl_model_build(&m.trace, &m.s);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 7);
	for (uint64_t k = 0; k < 6; k++) {
		CU_ASSERT_EQUAL(m.s.bd.tx_freq_first[k + 1] - m.s.bd.tx_freq_first[k], 1);
		CU_ASSERT_EQUAL(m.s.bd.tx_freq_khz[m.s.bd.tx_freq_first[k]], 1200000);
	}
	uint64_t i = m.s.bd.tx_freq_first[6];

	CU_ASSERT_EQUAL_FATAL(m.s.bd.tx_freq_first[7] - i, 2);
	CU_ASSERT_EQUAL(m.s.bd.tx_freq_khz[i], 700000);
	CU_ASSERT_EQUAL(m.s.bd.tx_running_ns[i], 18318000);
	CU_ASSERT_EQUAL(m.s.bd.tx_freq_khz[i + 1], 1200000);
	CU_ASSERT_EQUAL(m.s.bd.tx_running_ns[i + 1], 89514464);
	model_free(&m);
}

/* svcjournal's tap: its path takes the one-way call into the note's handler, and the kernel
 * mutex's notify from there into the two-way call's handler. */
static void test_phone_oneway_and_mutex(void)
{
	struct pl_error err;
	struct model m;
	uint64_t oneway = 0, mutex = 0;

	CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(PANLAB_TEST_DATA "/phone-svcjournal.trace.bin",
						 &m.trace, &err), 0);
	pl_model_build(&m.trace, &m.s);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	for (uint64_t i = m.s.cp.first_step[0]; i < m.s.cp.first_step[1]; i++) {
		const struct pl_step *st = &m.s.cp.steps[i];
		uint16_t from = m.trace.events[st->from_event].type;

		oneway += st->kind == PL_EDGE_BINDER && from == PL_EV_BINDER_PRODUCE_ONEWAY;
		mutex += st->kind == PL_EDGE_NOTIFY && from == PL_EV_MUTEX_NOTIFY;
	}
	CU_ASSERT_EQUAL(oneway, 1);
	CU_ASSERT_EQUAL(mutex, 1);
	model_free(&m);
}

void add_fixture_tests(void)
{
	CU_pSuite s = CU_add_suite("fixtures", NULL, NULL);

	CU_add_test(s, "every transaction of every real run: breakdown sums, shapes, animations",
		    test_fixtures);
	CU_add_test(s, "phone runs: exact breakdowns, network time from the records, event types",
		    test_phone_breakdowns);
	CU_add_test(s, "phone run: running time by frequency across a DVFS change",
		    test_phone_frequencies);
	CU_add_test(s, "phone run: a one-way binder call and a kernel mutex on a critical path",
		    test_phone_oneway_and_mutex);
}
