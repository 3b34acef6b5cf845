/* SPDX-License-Identifier: MIT */
/*
 * Clock skew between cpus. On the phone each core keeps its own virtual
 * clock and the cores meet at every quantum (emu/README.md), so one core can
 * act on another's work while its clock still reads a few microseconds
 * earlier: a binder service thread woken by a client on the other cpu logs
 * BINDER_CONSUME before the client's BINDER_PRODUCE_TWOWAY, and the causal
 * edge between them, which must point forward in time, is lost.
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

#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "idmap.h"

#define MAX_ROUNDS 16

/* The producer (1) or consumer (-1) side of a join by id, or 0; *k1, *k2 the id. */
static int join_side(const struct pl_event *ev, uint64_t *k1, uint64_t *k2)
{
	switch (ev->type) {
	case PL_EV_ENQUEUE_MSG:
	case PL_EV_DEQUEUE_MSG:
		*k1 = (uint64_t)PL_EV_ENQUEUE_MSG << 32 | ev->a1;
		*k2 = ev->a0;
		return ev->type == PL_EV_ENQUEUE_MSG ? 1 : -1;
	case PL_EV_SUBMIT_ASYNC_TASK:
	case PL_EV_CONSUME_ASYNC_TASK:
		*k1 = (uint64_t)PL_EV_SUBMIT_ASYNC_TASK << 32 | ev->a1;
		*k2 = ev->a0;
		return ev->type == PL_EV_SUBMIT_ASYNC_TASK ? 1 : -1;
	case PL_EV_BINDER_PRODUCE_ONEWAY:
	case PL_EV_BINDER_PRODUCE_TWOWAY:
	case PL_EV_BINDER_REPLY:
	case PL_EV_BINDER_CONSUME:
		*k1 = (uint64_t)PL_EV_BINDER_CONSUME << 32;
		*k2 = ev->a0;
		return ev->type == PL_EV_BINDER_CONSUME ? -1 : 1;
	default:
		return 0;
	}
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

/* One round: the floors that consumers ahead of their producers set; returns how many. */
static uint64_t find_floors(const struct pl_trace *t, struct floor **out)
{
	struct pl_idmap produced = { 0 }, waiting = { 0 };
	uint64_t n = 0, cap = 0, k1, k2, other;

	*out = NULL;
	for (uint64_t e = 0; e < t->nevents; e++) {
		const struct pl_event *ev = &t->events[e];
		int side = join_side(ev, &k1, &k2);

		if (side < 0 && !pl_idmap_take(&produced, k1, k2, &other))
			pl_idmap_put(&waiting, k1, k2, e);
		if (side <= 0)
			continue;
		if (!pl_idmap_take(&waiting, k1, k2, &other) ||
		    ev->ts_ns - t->events[other].ts_ns > PL_SKEW_MAX_NS) {
			pl_idmap_put(&produced, k1, k2, e);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = pl_xrealloc(*out, cap, sizeof(**out));
		}
		(*out)[n++] = (struct floor){ other, ev->ts_ns + 1 };
	}
	pl_idmap_free(&produced);
	pl_idmap_free(&waiting);
	return n;
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
		uint64_t n = find_floors(t, &floors);

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
