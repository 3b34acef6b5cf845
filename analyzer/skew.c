/* SPDX-License-Identifier: MIT */
/*
 * Clock skew between cpus, a safety net for traces whose clocks disagree
 * (real devices, other backends; the phone with --quantum-policy fixed,
 * where the cores meet only every quantum and one core can act on
 * another's work while its clock still reads a few microseconds earlier: a
 * binder service thread logged BINDER_CONSUME before the client's
 * BINDER_PRODUCE_TWOWAY, a forked worker its first task before the FORK).
 * A causal edge, which must point forward in time, is then lost. Every kind
 * of edge is checked (the rule table below, enum pl_causal_kind); the
 * phone's default policy delivers cross-core effects at the sender's time,
 * so there it finds none.
 *
 * A consumer never precedes its producer, so each consumer logged up to
 * PL_SKEW_MAX_NS before its producer shows that its source's clock was
 * behind: from that event on, the events of its source and of its thread
 * (whose user events were logged on the same late cpu) are moved up to just
 * after the producer (an event already later keeps its time), and the
 * timeline is merged again, ties in the previous order. That can leave a
 * producer of the moved source behind its own consumer, so the pass repeats
 * until nothing moves (a few rounds at most; a round limit bounds it).
 * A consumer whose producer is lost, or is further away, is left alone.
 */
#include "panlab/trace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "idmap.h"

#define MAX_ROUNDS 16

/*
 * The causal edges a trace shows, as joins of a producer and a consumer
 * event on a key (k1, k2); k1 carries the kind so the kinds share one map.
 * Each rule says which side an event is on (1 producer, -1 consumer, 0
 * neither) and may forget stale candidates of the other side (a thread that
 * sleeps again was not woken by an older wake), so that a consumer is
 * joined only to the producer that caused it.
 */
/* A join point kept with its thread: the last unjoined producer and consumer. */
struct join {
	bool produced, waiting;
	uint64_t producer, consumer; /* event indices */
};

struct thread {
	struct join fork, wakeup; /* joined on this thread's tid */
	bool seen;		  /* fork: an event of it was seen */
	bool slept;		  /* wakeup: switched out asleep, not yet back */
	bool on_cpu;		  /* wakeup: from its switch-in to its switch-out */
	bool raced;		  /* wakeup: woken while on a cpu, at raced_ns */
	bool ran;		  /* wakeup: its first own event after that, at ran_ns */
	uint64_t raced_ns, ran_ns;
};

/*
 * The threads' states live in one array, found by tid (a direct-mapped cache
 * in front of the map) once per event: the event's thread and the thread a
 * switch runs. The fork and wakeup joins, keyed by a tid, live there too;
 * the other kinds join in the maps.
 */
#define THREAD_CACHE 256 /* a power of two, above a phone run's threads */
/* The most threads one event creates: its own, a switch's incoming one (by
 * a0 and by its low 32 bits) and the one a FORK or a wakeup names. */
#define THREADS_PER_EVENT 4

struct pairing {
	struct pl_idmap produced, waiting;	/* key -> event */
	struct pl_idmap tids;			/* tid -> index in threads */
	struct thread *threads;
	uint64_t nthreads, cap;
	uint64_t cache_tid[THREAD_CACHE];
	uint64_t cache_index[THREAD_CACHE]; /* index + 1; 0 empty */
	struct join *joined;	 /* the join of a fork or wakeup rule's side: its thread's */
	struct thread *self;	 /* the event's thread (tid), NULL for tid 0 */
	struct thread *next;	 /* a switch's incoming thread (a0), NULL for 0 or other events */
	struct thread *next_tid; /* the same by a0's low 32 bits, the tid fork joins on */
};

/* Room for an event's new threads, so that pointers taken during it stay valid. */
static void reserve_threads(struct pairing *p)
{
	if (p->cap - p->nthreads >= THREADS_PER_EVENT)
		return;
	p->cap = p->cap ? p->cap * 2 : 64;
	p->threads = pl_xrealloc(p->threads, p->cap, sizeof(*p->threads));
}

/* thread_of's way past the cache: the map, and the thread created there if asked. */
static struct thread *thread_missed(struct pairing *p, uint64_t tid, bool create)
{
	uint64_t c = tid & (THREAD_CACHE - 1), i;

	if (!pl_idmap_get(&p->tids, tid, 0, &i)) {
		if (!create)
			return NULL;
		i = p->nthreads++;
		p->threads[i] = (struct thread){ 0 };
		pl_idmap_put(&p->tids, tid, 0, i);
	}
	p->cache_tid[c] = tid;
	p->cache_index[c] = i + 1;
	return &p->threads[i];
}

/* tid's state, created (all false) on first use when create is set; else NULL if it has none. */
static inline struct thread *thread_of(struct pairing *p, uint64_t tid, bool create)
{
	uint64_t c = tid & (THREAD_CACHE - 1);

	if (p->cache_index[c] && p->cache_tid[c] == tid)
		return &p->threads[p->cache_index[c] - 1];
	return thread_missed(p, tid, create);
}

static uint64_t key1(enum pl_causal_kind kind, uint64_t id)
{
	return (uint64_t)kind << 40 | id;
}

/* Spends the unjoined candidates of a key joined in the maps. */
static void forget(struct pairing *p, uint64_t k1, uint64_t k2)
{
	uint64_t unused;

	pl_idmap_take(&p->produced, k1, k2, &unused);
	pl_idmap_take(&p->waiting, k1, k2, &unused);
}

/*
 * A consumer (side < 0) joins the last unjoined producer of its key, else
 * waits; a producer joins the last waiting consumer, else stays. j is the
 * key's join when a thread keeps it, else NULL for the maps. Returns whether
 * it joined, and the other side's event in *other.
 */
static bool join(struct pairing *p, int side, uint64_t k1, uint64_t k2, struct join *j, uint64_t e,
		 uint64_t *other)
{
	if (!j) {
		if (pl_idmap_take(side < 0 ? &p->produced : &p->waiting, k1, k2, other))
			return true;
		pl_idmap_put(side < 0 ? &p->waiting : &p->produced, k1, k2, e);
		return false;
	}
	bool *have = side < 0 ? &j->produced : &j->waiting;

	if (*have) {
		*other = side < 0 ? j->producer : j->consumer;
		*have = false;
		return true;
	}
	if (side < 0) {
		j->waiting = true;
		j->consumer = e;
	} else {
		j->produced = true;
		j->producer = e;
	}
	return false;
}

/* ENQUEUE_MSG -> DEQUEUE_MSG, SUBMIT_ASYNC_TASK -> CONSUME_ASYNC_TASK, on (queue, item). */
static int queued_side(const struct pl_event *ev, struct pairing *p, uint64_t *k1, uint64_t *k2)
{
	(void)p;
	*k2 = ev->a0;
	switch (ev->type) {
	case PL_EV_ENQUEUE_MSG:
	case PL_EV_DEQUEUE_MSG:
		*k1 = key1(PL_CAUSAL_MESSAGE, ev->a1);
		return ev->type == PL_EV_ENQUEUE_MSG ? 1 : -1;
	case PL_EV_SUBMIT_ASYNC_TASK:
	case PL_EV_CONSUME_ASYNC_TASK:
		*k1 = key1(PL_CAUSAL_TASK, ev->a1);
		return ev->type == PL_EV_SUBMIT_ASYNC_TASK ? 1 : -1;
	default:
		return 0;
	}
}

/* BINDER_PRODUCE_* and BINDER_REPLY -> BINDER_CONSUME, on the transaction id. */
static int binder_side(const struct pl_event *ev, struct pairing *p, uint64_t *k1, uint64_t *k2)
{
	(void)p;
	*k1 = key1(PL_CAUSAL_BINDER, 0);
	*k2 = ev->a0;
	switch (ev->type) {
	case PL_EV_BINDER_PRODUCE_ONEWAY:
	case PL_EV_BINDER_PRODUCE_TWOWAY:
	case PL_EV_BINDER_REPLY:
		return 1;
	case PL_EV_BINDER_CONSUME:
		return -1;
	default:
		return 0;
	}
}

/* FORK -> the child's first event, or the switch that first runs it. */
static int fork_side(const struct pl_event *ev, struct pairing *p, uint64_t *k1, uint64_t *k2)
{
	bool is_switch = ev->type == PL_EV_CONTEXT_SWITCH;
	struct thread *th = is_switch ? p->next_tid : p->self;

	*k1 = key1(PL_CAUSAL_FORK, 0);
	if (ev->type == PL_EV_FORK) {
		*k2 = ev->a0;
		p->joined = &thread_of(p, ev->a0, true)->fork;
		return 1;
	}
	if (!th || th->seen)
		return 0;
	th->seen = true;
	p->joined = &th->fork;
	*k2 = is_switch ? (uint32_t)ev->a0 : ev->tid;
	return -1;
}

/* <lock>_NOTIFY -> the woken thread's <lock>_WAKE of that lock. */
static int notify_side(const struct pl_event *ev, struct pairing *p, uint64_t *k1, uint64_t *k2)
{
	switch (ev->type) {
	case PL_EV_FUTEX_NOTIFY:
	case PL_EV_MUTEX_NOTIFY:
	case PL_EV_SEM_NOTIFY:
	case PL_EV_WAITQUEUE_NOTIFY:
		*k1 = key1(PL_CAUSAL_NOTIFY, (uint64_t)ev->type << 32 | ev->a1);
		*k2 = ev->a0;
		return 1;
	case PL_EV_FUTEX_WAKE:
	case PL_EV_MUTEX_WAKE:
	case PL_EV_SEM_WAKE:
	case PL_EV_WAITQUEUE_WAKE:
		/* <lock>_NOTIFY is <lock>_WAKE + 1 (trace_format.h). */
		*k1 = key1(PL_CAUSAL_NOTIFY, (uint64_t)(ev->type + 1) << 32 | ev->tid);
		*k2 = ev->a0;
		return -1;
	case PL_EV_FUTEX_WAIT:
	case PL_EV_MUTEX_WAIT:
	case PL_EV_SEM_WAIT:
	case PL_EV_WAITQUEUE_WAIT:
		/* A new wait: notifies and wakes of the last one are spent. */
		forget(p, key1(PL_CAUSAL_NOTIFY, (uint64_t)(ev->type + 2) << 32 | ev->tid), ev->a0);
		return 0;
	default:
		return 0;
	}
}

/*
 * A wakeup logged while its wakee is still on a cpu, followed by the wakee's
 * switch-out asleep with nothing of the wakee's own in between (the events
 * its switch-out logs share the switch's time), raced with that sleep: the
 * wakee had set its sleeping state (sched_waking is logged only then) and
 * was inside __schedule(), so try_to_wake_up() queued it on its cpu to run
 * again after the switch. That wakeup causes the next run. (A wakeup that
 * instead finds the wakee still queued keeps it running; should it then
 * sleep again without logging anything first, its next run is joined to
 * this older wakeup.)
 */
static bool raced_with_sleep(struct thread *th, const struct pl_event *switch_out)
{
	bool raced = th->raced, ran = th->ran;

	th->raced = th->ran = false;
	return raced && (!ran || th->ran_ns >= switch_out->ts_ns);
}

/* The thread a wakeup wakes: WAKEUP's, or that of a <lock>_NOTIFY, which the
 * kernel logs instead of WAKEUP for a waiter on a lock or wait queue; 0 for
 * other events. */
static uint64_t wakee_of(const struct pl_event *ev)
{
	switch (ev->type) {
	case PL_EV_WAKEUP:
		return ev->a0;
	case PL_EV_FUTEX_NOTIFY:
	case PL_EV_MUTEX_NOTIFY:
	case PL_EV_SEM_NOTIFY:
	case PL_EV_WAITQUEUE_NOTIFY:
		return ev->a1;
	default:
		return 0;
	}
}

/*
 * WAKEUP (or a <lock>_NOTIFY) -> the CONTEXT_SWITCH that runs the wakee,
 * when it had gone to sleep (a preempted thread runs again without a
 * wakeup).
 */
static int wakeup_side(const struct pl_event *ev, struct pairing *p, uint64_t *k1, uint64_t *k2)
{
	uint64_t wakee = wakee_of(ev);
	struct thread *self = p->self, *next = p->next, *woken;

	*k1 = key1(PL_CAUSAL_WAKEUP, 0);
	if (ev->type != PL_EV_CONTEXT_SWITCH && self && self->raced && ev->ts_ns > self->raced_ns &&
	    !self->ran) {
		self->ran = true;
		self->ran_ns = ev->ts_ns;
	}
	if (wakee) {
		*k2 = wakee;
		woken = thread_of(p, wakee, true);
		p->joined = &woken->wakeup;
		if (woken->on_cpu) {
			woken->raced = true;
			woken->raced_ns = ev->ts_ns;
			woken->ran = false;
		}
		return 1;
	}
	if (ev->type != PL_EV_CONTEXT_SWITCH)
		return 0;
	if (self) {
		bool raced = raced_with_sleep(self, ev);

		self->on_cpu = false;
		if (ev->a1 != PL_STATE_RUNNABLE) {
			/* Asleep from here: an earlier wakeup or switch-in is no cause of the next run. */
			self->slept = true;
			if (!raced)
				self->wakeup.produced = self->wakeup.waiting = false;
		}
	}
	*k2 = ev->a0;
	if (!next)
		return 0;
	next->on_cpu = true;
	if (!next->slept)
		return 0;
	next->slept = false;
	p->joined = &next->wakeup;
	return -1;
}

/* Whether an event of this type is a side of some rule's edges, or changes what a rule keeps
 * (a wait spends earlier notifies); any event can also be a thread's first (fork) or its own
 * first after a raced wakeup. */
static bool in_rules(uint16_t type)
{
	switch (type) {
	case PL_EV_ENQUEUE_MSG:
	case PL_EV_DEQUEUE_MSG:
	case PL_EV_SUBMIT_ASYNC_TASK:
	case PL_EV_CONSUME_ASYNC_TASK:
	case PL_EV_BINDER_PRODUCE_ONEWAY:
	case PL_EV_BINDER_PRODUCE_TWOWAY:
	case PL_EV_BINDER_REPLY:
	case PL_EV_BINDER_CONSUME:
	case PL_EV_FORK:
	case PL_EV_CONTEXT_SWITCH:
	case PL_EV_WAKEUP:
	case PL_EV_FUTEX_NOTIFY:
	case PL_EV_MUTEX_NOTIFY:
	case PL_EV_SEM_NOTIFY:
	case PL_EV_WAITQUEUE_NOTIFY:
	case PL_EV_FUTEX_WAKE:
	case PL_EV_MUTEX_WAKE:
	case PL_EV_SEM_WAKE:
	case PL_EV_WAITQUEUE_WAKE:
	case PL_EV_FUTEX_WAIT:
	case PL_EV_MUTEX_WAIT:
	case PL_EV_SEM_WAIT:
	case PL_EV_WAITQUEUE_WAIT:
		return true;
	default:
		return false;
	}
}

const char *pl_causal_kind_name(enum pl_causal_kind kind)
{
	static const char *const names[PL_CAUSAL_KINDS] = {
		[PL_CAUSAL_MESSAGE] = "message", [PL_CAUSAL_TASK] = "task",
		[PL_CAUSAL_BINDER] = "binder", [PL_CAUSAL_FORK] = "fork",
		[PL_CAUSAL_NOTIFY] = "notify", [PL_CAUSAL_WAKEUP] = "wakeup",
	};

	return kind < PL_CAUSAL_KINDS ? names[kind] : "?";
}

/* The buffer an event came from: a kernel cpu's, or a user thread's. */
static uint64_t source_key(const struct pl_event *ev)
{
	return ev->cpu != PL_CPU_NONE ? (uint64_t)1 << 32 | ev->cpu : (uint64_t)2 << 32 | ev->tid;
}

/* The thread an event belongs to, as a key apart from the source keys. */
static uint64_t thread_key(const struct pl_event *ev)
{
	return (uint64_t)3 << 32 | ev->tid;
}

struct floor {
	uint64_t event;		/* from this event on, its source's clock */
	uint64_t ns;		/* reads at least this */
	enum pl_causal_kind kind;	/* of the edge that showed it */
};

static int by_event(const void *a, const void *b)
{
	const struct floor *x = a, *y = b;

	return x->event < y->event ? -1 : x->event > y->event;
}

/* An event's place in the merge: its (raised) time, then its previous index. */
struct place {
	uint64_t ns, event;
};

static int by_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->event < y->event ? -1 : x->event > y->event;
}

/* One pass's state: the pairing, the pairs by kind and the floors found so far. */
struct pass {
	const struct pl_trace *t;
	struct pairing p;
	struct pl_causal_pairs *pairs;
	struct floor *floors;
	uint64_t n, cap;
};

/* Event e is a side (1 producer, -1 consumer) of an edge of key (k1, k2): join it, count the
 * pair, and note a floor for a consumer logged up to PL_SKEW_MAX_NS before its producer. */
static void on_side(struct pass *s, uint64_t e, int side, uint64_t k1, uint64_t k2)
{
	const struct pl_event *ev = &s->t->events[e];
	enum pl_causal_kind kind = (enum pl_causal_kind)(k1 >> 40);
	struct join *j = kind == PL_CAUSAL_FORK || kind == PL_CAUSAL_WAKEUP ? s->p.joined : NULL;
	struct pl_causal_pairs *pairs = s->pairs;
	uint64_t other;

	if (!join(&s->p, side, k1, k2, j, e, &other))
		return;
	pairs->pairs[kind]++;
	if (side < 0)
		return;
	pairs->out_of_order[kind]++;
	uint64_t ahead_ns = ev->ts_ns - s->t->events[other].ts_ns;

	if (ahead_ns > PL_SKEW_MAX_NS) {
		const struct pl_event *c = &s->t->events[other];
		bool first = true;

		for (int k = 0; k < PL_CAUSAL_KINDS; k++)
			first &= pairs->beyond_skew[k] == 0;
		if (first ||
		    ahead_ns > pairs->furthest_producer.ts_ns - pairs->furthest_consumer.ts_ns) {
			pairs->furthest_kind = kind;
			pairs->furthest_producer = *ev;
			pairs->furthest_consumer = *c;
		}
		pairs->beyond_skew[kind]++;
		return;
	}
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->floors = pl_xrealloc(s->floors, s->cap, sizeof(*s->floors));
	}
	s->floors[s->n++] = (struct floor){ other, ev->ts_ns + 1, kind };
}

/*
 * One pass over the timeline: every causal pair by kind, with the number
 * whose consumer is timestamped before its producer (pairs), and the floors
 * that those up to PL_SKEW_MAX_NS apart set; returns how many floors.
 */
static uint64_t find_floors(const struct pl_trace *t, struct floor **out,
			    struct pl_causal_pairs *pairs)
{
	struct pass s = { .t = t, .pairs = pairs };
	struct pairing *p = &s.p;
	uint64_t k1, k2;
	int side;

	memset(pairs, 0, sizeof(*pairs));
	for (uint64_t e = 0; e < t->nevents; e++) {
		const struct pl_event *ev = &t->events[e];
		bool is_switch = ev->type == PL_EV_CONTEXT_SWITCH;

		reserve_threads(p);
		p->next = is_switch && ev->a0 ? thread_of(p, ev->a0, true) : NULL;
		/* A tid fits 32 bits: then a0's low half is a0, the same thread. */
		p->next_tid = !is_switch || !(uint32_t)ev->a0 ? NULL :
			      ev->a0 >> 32 ? thread_of(p, (uint32_t)ev->a0, true) :
					     p->next;
		p->self = ev->tid ? thread_of(p, ev->tid, true) : NULL;
		/* Most events are no rule's side: skip the rules when the fork and wakeup rules
		 * would find nothing new of their thread either. */
		if (!in_rules(ev->type) &&
		    (!p->self || (p->self->seen && !(p->self->raced && !p->self->ran))))
			continue;
		/* The rules in order, each of its own kinds (queued_side serves message and
		 * task); called one by one, so that each inlines here. A switch or a wakeup,
		 * most of the events, is a side of fork and wakeup edges only. */
		bool sched = is_switch || ev->type == PL_EV_WAKEUP;

		if (!sched && (side = queued_side(ev, p, &k1, &k2)))
			on_side(&s, e, side, k1, k2);
		if (!sched && (side = binder_side(ev, p, &k1, &k2)))
			on_side(&s, e, side, k1, k2);
		if ((side = fork_side(ev, p, &k1, &k2)))
			on_side(&s, e, side, k1, k2);
		if (!sched && (side = notify_side(ev, p, &k1, &k2)))
			on_side(&s, e, side, k1, k2);
		if ((side = wakeup_side(ev, p, &k1, &k2)))
			on_side(&s, e, side, k1, k2);
	}
	pl_idmap_free(&p->produced);
	pl_idmap_free(&p->waiting);
	pl_idmap_free(&p->tids);
	free(p->threads);
	*out = s.floors;
	return s.n;
}

/*
 * Raises each source's events to its floors, then merges the timeline again.
 * A floor holds for the rest of its source and of the thread of each event it
 * raised, so a thread's user events, logged on the same late cpu as its
 * kernel consume, follow the consume.
 */
static void apply_floors(struct pl_trace *t, struct floor *floors, uint64_t n)
{
	struct pl_idmap raised = { 0 };	/* floors per source and per thread */
	uint64_t next = 0, thread_ns;
	struct place *order = pl_xcalloc(t->nevents, sizeof(*order));
	struct pl_event *merged = pl_xcalloc(t->nevents, sizeof(*merged));

	qsort(floors, n, sizeof(*floors), by_event);
	for (uint64_t e = 0; e < t->nevents; e++) {
		struct pl_event *ev = &t->events[e];
		uint64_t key = source_key(ev), ns = 0;

		pl_idmap_get(&raised, key, 0, &ns);
		if (ev->tid && pl_idmap_get(&raised, thread_key(ev), 0, &thread_ns) && thread_ns > ns)
			ns = thread_ns;
		for (; next < n && floors[next].event == e; next++)
			ns = floors[next].ns > ns ? floors[next].ns : ns;
		if (ns) {
			pl_idmap_put(&raised, key, 0, ns);
			if (ev->tid)
				pl_idmap_put(&raised, thread_key(ev), 0, ns);
			if (ev->ts_ns < ns)
				ev->ts_ns = ns;
		}
		order[e] = (struct place){ ev->ts_ns, e };
	}
	qsort(order, t->nevents, sizeof(*order), by_place);
	for (uint64_t e = 0; e < t->nevents; e++)
		merged[e] = t->events[order[e].event];
	memcpy(t->events, merged, t->nevents * sizeof(*merged));
	free(merged);
	free(order);
	pl_idmap_free(&raised);
}

uint64_t pl_trace_repair_skew(struct pl_trace *t)
{
	uint64_t repaired = 0;

	for (int round = 0; round < MAX_ROUNDS; round++) {
		struct floor *floors;
		struct pl_causal_pairs pairs;
		uint64_t n = find_floors(t, &floors, &pairs);

		/* The first pass sees the trace as it was logged. */
		if (round == 0)
			t->causal = pairs;
		for (uint64_t i = 0; i < n; i++)
			t->skew_repaired_by_kind[floors[i].kind]++;
		if (n)
			apply_floors(t, floors, n);
		free(floors);
		repaired += n;
		if (!n)
			break;
	}
	t->skew_repaired += repaired;
	return repaired;
}

/* Where an event was logged, for messages: its cpu's buffer or its thread's. */
static const char *source_name(const struct pl_event *ev, char *buf, size_t size)
{
	if (ev->cpu != PL_CPU_NONE)
		snprintf(buf, size, "cpu %u", (unsigned)ev->cpu);
	else
		snprintf(buf, size, "thread %u's buffer", (unsigned)ev->tid);
	return buf;
}

int pl_trace_check_clocks(const char *name, const struct pl_trace *t, struct pl_error *err)
{
	const struct pl_causal_pairs *c = &t->causal;
	uint64_t beyond = 0, pairs = 0;
	char producer[48], consumer[48];

	for (int k = 0; k < PL_CAUSAL_KINDS; k++) {
		beyond += c->beyond_skew[k];
		pairs += c->pairs[k];
	}
	if (beyond <= t->events_lost)
		return 0;
	pl_error_file(err, name,
		      "%llu of %llu causal pairs have their consumer logged more than %u us before its producer, the furthest a %s pair %.6f s apart (producer at %llu ns on %s, consumer at %llu ns on %s), more than the %llu lost events explain; expected the sources on one clock",
		      (unsigned long long)beyond, (unsigned long long)pairs, PL_SKEW_MAX_NS / 1000,
		      pl_causal_kind_name(c->furthest_kind),
		      (double)(c->furthest_producer.ts_ns - c->furthest_consumer.ts_ns) / 1e9,
		      (unsigned long long)c->furthest_producer.ts_ns,
		      source_name(&c->furthest_producer, producer, sizeof(producer)),
		      (unsigned long long)c->furthest_consumer.ts_ns,
		      source_name(&c->furthest_consumer, consumer, sizeof(consumer)),
		      (unsigned long long)t->events_lost);
	return -1;
}
