/* SPDX-License-Identifier: MIT */
/*
 * The real runs in the fixtures: qemu runs, one per app pattern, and the
 * start of phone runs (tests/unit/make-phone-fixtures.sh) with the events
 * only the phone's kernel logs. For every transaction: its critical path
 * tiles its latency from the input to the last update, each causal hop
 * joins the two records its edge kind names, and its breakdown equals one
 * computed here from the records alone (a scan of the thread's switches,
 * wake-ups and blocking records, apart from the analyzer's stages); the
 * parts sum to the detected latency, and with the ground-truth
 * input-dispatch and display-pipeline segments to the ground-truth latency.
 * The phone runs' breakdowns are also held against one golden file.
 */
#include "test_analyzer.h"

#include <stdio.h>
#include <stdlib.h>
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

/* Running time by frequency (kHz): a handful of operating points. */
#define MAX_KHZ 8

struct khz_tally {
	uint32_t n;
	uint32_t khz[MAX_KHZ];
	uint64_t ns[MAX_KHZ];
};

static void khz_add(struct khz_tally *t, uint32_t khz, uint64_t ns)
{
	uint32_t i;

	for (i = 0; i < t->n && t->khz[i] != khz; i++)
		;
	CU_ASSERT_FATAL(i < MAX_KHZ);
	if (i == t->n)
		t->khz[t->n++] = khz, t->ns[i] = 0;
	t->ns[i] += ns;
}

static int is_notify(uint16_t type)
{
	return type == PL_EV_FUTEX_NOTIFY || type == PL_EV_MUTEX_NOTIFY ||
	       type == PL_EV_SEM_NOTIFY || type == PL_EV_WAITQUEUE_NOTIFY;
}

/* The sleep a thread's record announces (or, sleeping, ends), as breakdown.h names them. */
static int announces(uint16_t type, enum pl_category *reason)
{
	static const struct {
		uint16_t type;
		enum pl_category reason;
	} table[] = {
		{ PL_EV_IO_BLOCK, PL_CAT_IO }, { PL_EV_SOCK_BLOCK, PL_CAT_NETWORK },
		{ PL_EV_DATAGRAM_BLOCK, PL_CAT_NETWORK }, { PL_EV_STREAM_BLOCK, PL_CAT_NETWORK },
		{ PL_EV_FUTEX_WAIT, PL_CAT_LOCK }, { PL_EV_MUTEX_WAIT, PL_CAT_LOCK },
		{ PL_EV_SEM_WAIT, PL_CAT_LOCK }, { PL_EV_WAITQUEUE_WAIT, PL_CAT_LOCK },
		{ PL_EV_IO_RESUME, PL_CAT_SLEEPING }, { PL_EV_SOCK_RESUME, PL_CAT_SLEEPING },
		{ PL_EV_DATAGRAM_RESUME, PL_CAT_SLEEPING }, { PL_EV_STREAM_RESUME, PL_CAT_SLEEPING },
		{ PL_EV_FUTEX_WAKE, PL_CAT_SLEEPING }, { PL_EV_MUTEX_WAKE, PL_CAT_SLEEPING },
		{ PL_EV_SEM_WAKE, PL_CAT_SLEEPING }, { PL_EV_WAITQUEUE_WAKE, PL_CAT_SLEEPING },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].type == type) {
			*reason = table[i].reason;
			return 1;
		}
	return 0;
}

/* Does a causal hop join the two records its edge kind names (graph.h)? */
static int hop_joins(const struct pl_event *from, const struct pl_event *to, enum pl_edge_kind kind)
{
	enum pl_category wait;

	switch (kind) {
	case PL_EDGE_MESSAGE:
		return from->type == PL_EV_ENQUEUE_MSG && to->type == PL_EV_DEQUEUE_MSG &&
		       from->a0 == to->a0 && from->a1 == to->a1;
	case PL_EDGE_TASK:
		return from->type == PL_EV_SUBMIT_ASYNC_TASK &&
		       to->type == PL_EV_CONSUME_ASYNC_TASK && from->a0 == to->a0 &&
		       from->a1 == to->a1;
	case PL_EDGE_BINDER:
		return (from->type == PL_EV_BINDER_PRODUCE_ONEWAY ||
			from->type == PL_EV_BINDER_PRODUCE_TWOWAY || from->type == PL_EV_BINDER_REPLY) &&
		       to->type == PL_EV_BINDER_CONSUME && from->a0 == to->a0;
	case PL_EDGE_FORK:
		return from->type == PL_EV_FORK && to->tid == from->a0;
	case PL_EDGE_INVALIDATE:
		return from->type == PL_EV_UI_INVALIDATE && to->type == PL_EV_UI_UPDATE &&
		       to->tid == from->tid;
	case PL_EDGE_NOTIFY:
		return is_notify(from->type) && to->tid == from->a1;
	case PL_EDGE_LOCK:
		return announces(from->type, &wait) && wait == PL_CAT_LOCK && to->tid == from->tid;
	default:
		return 0;
	}
}

/* What a causal hop's time is in the breakdown: what its consumer waited on (breakdown.h). */
static const enum pl_category hop_category[PL_EDGE_KINDS] = {
	[PL_EDGE_MESSAGE] = PL_CAT_QUEUE_MESSAGE, [PL_EDGE_TASK] = PL_CAT_QUEUE_TASK,
	[PL_EDGE_BINDER] = PL_CAT_BINDER,	  [PL_EDGE_FORK] = PL_CAT_THREAD_START,
	[PL_EDGE_NOTIFY] = PL_CAT_RUNNABLE,	  [PL_EDGE_LOCK] = PL_CAT_LOCK,
};

/*
 * What tid did before the records first say: a thread first seen leaving a cpu was on it, one
 * first seen switched in or woken was off it for a reason they do not show, and one never
 * switched ran throughout if the kernel was traced at all.
 */
static enum pl_category state_before(const struct pl_trace *t, uint32_t tid, uint32_t *cpu)
{
	*cpu = UINT32_MAX;
	for (uint64_t i = 0; i < t->nevents; i++) {
		const struct pl_event *e = &t->events[i];

		if (e->type == PL_EV_CONTEXT_SWITCH && e->tid == tid) {
			*cpu = e->cpu;
			return PL_CAT_RUNNING;
		}
		if ((e->type == PL_EV_CONTEXT_SWITCH && e->a0 == tid) ||
		    (e->type == PL_EV_WAKEUP && e->a0 == tid) || (is_notify(e->type) && e->a1 == tid))
			return PL_CAT_UNKNOWN;
	}
	for (uint32_t s = 0; s < t->nsources; s++)
		if (t->sources[s].kind == PL_SRC_KERNEL_CPU)
			return PL_CAT_RUNNING;
	return PL_CAT_UNKNOWN;
}

/*
 * Thread tid's time over [from_ns, to_ns) by state, straight from the records in one scan: on a
 * cpu from a switch in to a switch out (its time split by that cpu's CPU_FREQUENCY); preempted,
 * or woken (WAKEUP, or a lock's NOTIFY naming it) while off a cpu, until switched in; switched
 * out asleep, for the reason its last *_BLOCK or *_WAIT announced and no *_RESUME or *_WAKE
 * ended, else io for an uninterruptible sleep and sleeping for any other.
 */
static void thread_states(const struct pl_trace *t, uint32_t tid, uint64_t from_ns, uint64_t to_ns,
			  uint64_t ns[PL_CATEGORIES], struct khz_tally *by_khz)
{
	uint32_t *khz = calloc(t->ncpus, sizeof(*khz));
	uint32_t cpu;
	enum pl_category state = state_before(t, tid, &cpu), reason = PL_CAT_SLEEPING;
	int on_cpu = 0;
	uint64_t at = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(khz);
	for (uint64_t i = 0; i <= t->nevents; i++) {
		const struct pl_event *e = i < t->nevents ? &t->events[i] : NULL;
		uint64_t until = e && e->ts_ns < to_ns ? e->ts_ns : to_ns;
		uint64_t since = at > from_ns ? at : from_ns;

		if (until > since) {
			ns[state] += until - since;
			if (state == PL_CAT_RUNNING)
				khz_add(by_khz, cpu < t->ncpus ? khz[cpu] : 0, until - since);
		}
		if (until == to_ns)
			break;
		at = until;
		if (e->tid == tid && announces(e->type, &reason))
			continue;
		if (e->type == PL_EV_CONTEXT_SWITCH && e->tid == tid) {
			state = e->a1 == PL_STATE_RUNNABLE ? PL_CAT_RUNNABLE
				: reason != PL_CAT_SLEEPING ? reason
				: e->a1 == PL_STATE_BLOCKED ? PL_CAT_IO : PL_CAT_SLEEPING;
			on_cpu = 0;
		}
		if (e->type == PL_EV_CONTEXT_SWITCH && e->a0 == tid) {
			state = PL_CAT_RUNNING;
			cpu = e->cpu;
			on_cpu = 1;
		}
		if (!on_cpu && ((e->type == PL_EV_WAKEUP && e->a0 == tid) ||
				(is_notify(e->type) && e->a1 == tid)))
			state = PL_CAT_RUNNABLE;
		if (e->type == PL_EV_CPU_FREQUENCY && e->a1 < t->ncpus)
			khz[e->a1] = e->a0 > UINT32_MAX ? UINT32_MAX : (uint32_t)e->a0;
	}
	free(khz);
}

/*
 * Path k against the records: it starts at the input and ends at the last update, each step
 * starts where the one before ended and does not go back in time, a temporal step stays on one
 * thread, and a causal hop joins a producer and its consumer. Its breakdown computed from the
 * steps and the records goes to ns[] and by_khz.
 */
static void check_path(const char *name, const struct pl_trace *t, const struct pl_transaction *tx,
		       const struct pl_critical_paths *cp, uint64_t k, uint64_t ns[PL_CATEGORIES],
		       struct khz_tally *by_khz)
{
	uint64_t first = cp->first_step[k], end = cp->first_step[k + 1], sum_ns = 0;

	CU_ASSERT_FATAL(end > first);
	CU_ASSERT_EQUAL(cp->steps[first].from_event, tx->input_event);
	CU_ASSERT_EQUAL(cp->steps[end - 1].to_event, tx->last_update_event);
	for (uint64_t i = first; i < end; i++) {
		const struct pl_step *st = &cp->steps[i];
		const struct pl_event *from = &t->events[st->from_event];
		const struct pl_event *to = &t->events[st->to_event];

		CU_ASSERT_FATAL(to->ts_ns >= from->ts_ns);
		if (i > first)
			CU_ASSERT_EQUAL(st->from_event, cp->steps[i - 1].to_event);
		sum_ns += to->ts_ns - from->ts_ns;
		if (st->kind == PL_EDGE_TEMPORAL) {
			CU_ASSERT_EQUAL(from->tid, to->tid);
			thread_states(t, from->tid, from->ts_ns, to->ts_ns, ns, by_khz);
		} else if (st->kind == PL_EDGE_INVALIDATE && hop_joins(from, to, st->kind)) {
			/* The vsync, then the frame: the update's thread from the frame
			 * message's dequeue on (the platform draws a frame as a message). */
			uint64_t drawn_ns = from->ts_ns;

			for (uint64_t e = st->to_event; e-- > st->from_event;)
				if (t->events[e].tid == to->tid &&
				    t->events[e].type == PL_EV_DEQUEUE_MSG) {
					drawn_ns = t->events[e].ts_ns;
					break;
				}
			ns[PL_CAT_FRAME_WAIT] += drawn_ns - from->ts_ns;
			thread_states(t, to->tid, drawn_ns, to->ts_ns, ns, by_khz);
		} else if (hop_joins(from, to, st->kind)) {
			ns[hop_category[st->kind]] += to->ts_ns - from->ts_ns;
		} else {
			fprintf(stderr, "\n  %s transaction %llu: a %s hop from a %s record to a %s one",
				name, (unsigned long long)k, pl_edge_kind_name(st->kind),
				pl_event_type_name(from->type), pl_event_type_name(to->type));
			CU_FAIL("a causal hop that joins no producer and consumer");
		}
	}
	CU_ASSERT_EQUAL(sum_ns, tx->latency_ns);
}

/* Every transaction's breakdown and running time by frequency against the records'. */
static void check_breakdowns(const char *name, const struct model *m)
{
	const struct pl_breakdowns *bd = &m->s.bd;

	for (uint64_t k = 0; k < m->s.tx.count; k++) {
		uint64_t ns[PL_CATEGORIES] = { 0 };
		struct khz_tally by_khz = { 0 };

		check_path(name, &m->trace, &m->s.tx.items[k], &m->s.cp, k, ns, &by_khz);
		for (int c = 0; c < PL_CATEGORIES; c++)
			if (bd->ns[k][c] != ns[c]) {
				fprintf(stderr, "\n  %s transaction %llu: %s %llu ns, the records say %llu",
					name, (unsigned long long)k, pl_category_name(c),
					(unsigned long long)bd->ns[k][c], (unsigned long long)ns[c]);
				CU_FAIL("a breakdown differs from the records");
			}
		/* Every frequency the records give time at is there with that time, and no other. */
		uint32_t matched = 0;

		for (uint64_t i = bd->tx_freq_first[k]; i < bd->tx_freq_first[k + 1]; i++) {
			uint64_t want_ns = 0;

			for (uint32_t j = 0; j < by_khz.n; j++)
				if (by_khz.khz[j] == bd->tx_freq_khz[i])
					want_ns = by_khz.ns[j], matched += by_khz.ns[j] > 0;
			CU_ASSERT_EQUAL(bd->tx_running_ns[i], want_ns);
		}
		for (uint32_t j = 0; j < by_khz.n; j++)
			matched -= by_khz.ns[j] > 0;
		CU_ASSERT_EQUAL(matched, 0);
	}
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
	check_breakdowns(f->name, &m);

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

/* The event types a phone fixture is there for, with their record counts in it. */
#define MAX_COVERED 6

struct phone_fixture {
	const char *name;
	struct {
		uint16_t type;
		uint64_t count;
	} covers[MAX_COVERED];
};

static const struct phone_fixture phone_fixtures[] = {
	/* configd takes cpu1 offline for taps 2, 3, 5 and 6; in 6 the clock is at 700 MHz. */
	{ "phone-configd",
	  { { PL_EV_CPU_OFFLINE, 2 }, { PL_EV_CPU_ONLINE, 2 }, { PL_EV_CPU_FREQUENCY, 8 },
	    { PL_EV_SEM_WAIT, 4 }, { PL_EV_SEM_NOTIFY, 4 }, { PL_EV_SEM_WAKE, 4 } } },
	/* A 32 KiB TCP fetch, then the fsync of its cache file (io), and a contended lock. */
	{ "phone-sdcache",
	  { { PL_EV_SOCK_BLOCK, 1 }, { PL_EV_STREAM_BLOCK, 24 }, { PL_EV_IO_BLOCK, 9 } } },
	{ "phone-netdgram", { { PL_EV_DATAGRAM_BLOCK, 33 } } },
	/* B's worker waits 300 ms for the lock A's housekeeping thread holds. */
	{ "phone-lockcontention",
	  { { PL_EV_FUTEX_WAIT, 1 }, { PL_EV_FUTEX_NOTIFY, 1 }, { PL_EV_FUTEX_WAKE, 1 } } },
	/*
	 * A one-way note (64 KiB to svc-compute's O_DSYNC journal; one more, empty, at start),
	 * then a two-way call whose handler waits on the journal file's f_pos_lock (a kernel
	 * mutex) for the note's write, which is on the path: its card writes are io, and lock the
	 * mmc driver's waits for the card's previous request (a wait queue an interrupt wakes).
	 */
	{ "phone-svcjournal",
	  { { PL_EV_BINDER_PRODUCE_ONEWAY, 2 }, { PL_EV_MUTEX_WAIT, 1 }, { PL_EV_MUTEX_NOTIFY, 1 },
	    { PL_EV_MUTEX_WAKE, 1 } } },
};

/* The categories each phone fixture is there for: time on some critical path in it. */
static const struct {
	const char *name;
	enum pl_category cat;
} phone_categories[] = {
	{ "phone-sdcache", PL_CAT_NETWORK }, { "phone-sdcache", PL_CAT_IO },
	{ "phone-sdcache", PL_CAT_LOCK }, { "phone-netdgram", PL_CAT_NETWORK },
	{ "phone-lockcontention", PL_CAT_LOCK }, { "phone-lockcontention", PL_CAT_THREAD_START },
	{ "phone-svcjournal", PL_CAT_BINDER }, { "phone-svcjournal", PL_CAT_IO },
	{ "phone-svcjournal", PL_CAT_LOCK },
};

static void check_fixture_covers(const struct phone_fixture *want, const struct model *m,
				 uint64_t *seen)
{
	uint64_t here[PL_EV_TYPE_MAX + 1] = { 0 };

	for (uint64_t i = 0; i < m->trace.nevents; i++)
		here[m->trace.events[i].type]++;
	for (int c = 0; c < MAX_COVERED && want->covers[c].type; c++)
		if (here[want->covers[c].type] != want->covers[c].count) {
			fprintf(stderr, "\n  %s: %llu records of type %s, expected %llu", want->name,
				(unsigned long long)here[want->covers[c].type],
				pl_event_type_name(want->covers[c].type),
				(unsigned long long)want->covers[c].count);
			CU_FAIL("a phone fixture lost the events it is there for");
		}
	for (int type = 0; type <= PL_EV_TYPE_MAX; type++)
		seen[type] += here[type];
	for (size_t i = 0; i < sizeof(phone_categories) / sizeof(phone_categories[0]); i++)
		if (!strcmp(phone_categories[i].name, want->name) &&
		    !m->s.bd.total_ns[phone_categories[i].cat]) {
			fprintf(stderr, "\n  %s: no %s time on any critical path", want->name,
				pl_category_name(phone_categories[i].cat));
			CU_FAIL("a phone fixture lost the time it is there for");
		}
}

/*
 * The golden file: the phone fixtures' breakdowns as the analyzer gave them when it was
 * written, to notice any change. Not an oracle: check_breakdowns is.
 */
#define GOLDEN PANLAB_TEST_DATA "/phone-breakdowns.golden"

static void golden_rows(FILE *out, const char *name, const struct model *m)
{
	for (uint64_t k = 0; k < m->s.tx.count; k++) {
		fprintf(out, "%s %llu", name, (unsigned long long)k);
		for (int c = 0; c < PL_CATEGORIES; c++)
			fprintf(out, " %llu", (unsigned long long)m->s.bd.ns[k][c]);
		fputc('\n', out);
	}
}

/* With PANLAB_WRITE_GOLDEN=1 in the environment (`make -C analyzer golden`), rewrites it. */
static void check_golden(const char *text)
{
	if (getenv("PANLAB_WRITE_GOLDEN")) {
		write_text(GOLDEN, text);
		fprintf(stderr, "\n  wrote %s", GOLDEN);
		return;
	}
	char *golden = read_text(GOLDEN);

	CU_ASSERT_PTR_NOT_NULL_FATAL(golden);
	const char *a = golden, *b = text;
	unsigned line = 1;

	for (; *a && *a == *b; a++, b++)
		line += *a == '\n';
	if (*a || *b) {
		fprintf(stderr, "\n  %s:%u: the analyzer's breakdowns differ from the golden file"
			" (if the change is meant, `make -C analyzer golden` and review the diff)",
			GOLDEN, line);
		CU_FAIL("phone breakdowns differ from the golden file");
	}
	free(golden);
}

static void test_phone_fixtures(void)
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
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	fputs("# The phone fixtures' critical-path breakdowns (ns) as panlab's analyzer computes them,\n"
	      "# one row per transaction. A record to notice any change by, not an oracle: the\n"
	      "# cross-checks against the records in tests/unit/test_analyzer_fixtures.c are that.\n"
	      "# Produced by `make -C analyzer golden` (the analyzer's unit tests with\n"
	      "# PANLAB_WRITE_GOLDEN=1); review the diff before committing it.\n"
	      "# fixture transaction", out);
	for (int c = 0; c < PL_CATEGORIES; c++)
		fprintf(out, " %s", pl_category_name(c));
	fputc('\n', out);
	for (size_t f = 0; f < sizeof(phone_fixtures) / sizeof(phone_fixtures[0]); f++) {
		const struct phone_fixture *want = &phone_fixtures[f];
		char path[512];
		struct pl_error err;
		struct model m;

		snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.trace.bin", want->name);
		CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(path, &m.trace, &err), 0);
		pl_model_build(&m.trace, &m.s);
		check_fixture_covers(want, &m, seen);
		golden_rows(out, want->name, &m);
		model_free(&m);
	}
	fclose(out);
	check_golden(text);
	free(text);
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		if (!seen[wanted[i]]) {
			fprintf(stderr, "\n  no phone fixture has event type %s",
				pl_event_type_name(wanted[i]));
			CU_FAIL("an event type missing from the phone fixtures");
		}
}

/*
 * configd's DVFS: its last tap runs partly at 700 MHz, the rest at 1.2 GHz as every tap before
 * (the times are check_breakdowns's).
 */
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
	CU_ASSERT(m.s.bd.tx_running_ns[i] > 0);
	CU_ASSERT_EQUAL(m.s.bd.tx_freq_khz[i + 1], 1200000);
	CU_ASSERT(m.s.bd.tx_running_ns[i + 1] > 0);
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

	CU_add_test(s, "every transaction of every real run: path and breakdown against the records,"
		    " sums, shapes, animations", test_fixtures);
	CU_add_test(s, "phone runs: the events and categories they hold, the golden breakdowns",
		    test_phone_fixtures);
	CU_add_test(s, "phone run: running time by frequency across a DVFS change",
		    test_phone_frequencies);
	CU_add_test(s, "phone run: a one-way binder call and a kernel mutex on a critical path",
		    test_phone_oneway_and_mutex);
}
