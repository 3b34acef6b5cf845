/* SPDX-License-Identifier: MIT */
/*
 * Stage 6: resource breakdown along each critical path (Panappticon 4.4).
 * A per-thread timeline of scheduling states is built once from the kernel
 * events; each temporal step of a path is cut along its thread's timeline,
 * and each causal hop is charged whole to what it waited for. The steps
 * tile the latency, so every transaction's parts sum to it exactly.
 */
#include "panlab/breakdown.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "panlab/kernel_only.h"
#include "idmap.h"

#define NO_CPU UINT32_MAX

struct transition {
	uint64_t ts_ns;
	enum pl_category cat;	/* the thread's state from ts_ns on */
	uint32_t cpu;		/* where it runs, if cat is PL_CAT_RUNNING */
	uint32_t by_tid;	/* who preempted it, if it was switched out runnable */
	/* A slice on a cpu that SWITCH_COUNTS counted: up to the next transition. */
	int counted;
	uint64_t instructions;
};

/* Who runs on a cpu from ts_ns on (CONTEXT_SWITCH's next tid; 0 the idle task). */
struct holder {
	uint64_t ts_ns;
	uint32_t tid;
};

/*
 * h: who runs on a cpu. idle: while its idle task runs, which handler holds
 * it (IRQ_ENTRY/EXIT: a PL_TID_IS_HOLDER id from ts_ns on), with the
 * handlers entered and not yet left (a softirq interrupted by a device).
 */
#define IRQ_NESTING 4

struct cpu_timeline {
	struct holder *h;
	uint64_t n, cap;
	struct holder *idle;
	uint64_t nidle, capidle;
	uint32_t depth;
	uint32_t entered[IRQ_NESTING];
};

struct timeline {
	struct transition *t;
	uint64_t n, cap;
	struct transition before;	/* state before the first transition */
	enum pl_category reason;	/* why the next sleep happens, from *_BLOCK / *_WAIT */
	enum pl_category files;		/* what the next sleep waits on, from FILE_WAIT */
	int on_cpu;
	/*
	 * Woken on its way into a sleep (sched_waking of a thread still on its
	 * cpu): the sleep its switch out then logs is a wait for a cpu.
	 */
	int woken;
	uint64_t slice; /* 1 + the transition of its last switch-in; 0 none */
};

/* A cpu's frequency from ts_ns on (CPU_FREQUENCY). */
struct freq_change {
	uint64_t ts_ns;
	uint32_t khz;
};

struct freq_timeline {
	struct freq_change *c;
	uint64_t n, cap;
};

/*
 * Adds a state change. `before` is what the change tells of the time before
 * it, used if it is the thread's first: a thread first seen leaving a cpu
 * was running, one first seen woken or arriving was off cpu for a reason
 * the trace does not show.
 */
static void push(struct timeline *tl, uint64_t ts_ns, enum pl_category cat, uint32_t cpu,
		 uint32_t by_tid, enum pl_category before)
{
	if (tl->n == 0)
		tl->before = (struct transition){ .cat = before,
						  .cpu = before == PL_CAT_RUNNING ? cpu : NO_CPU };
	else if (tl->t[tl->n - 1].cat == cat && tl->t[tl->n - 1].cpu == cpu &&
		 tl->t[tl->n - 1].by_tid == by_tid)
		return;
	if (tl->n == tl->cap) {
		tl->cap = tl->cap ? tl->cap * 2 : 8;
		tl->t = pl_xrealloc(tl->t, tl->cap, sizeof(*tl->t));
	}
	tl->t[tl->n++] = (struct transition){ .ts_ns = ts_ns,
					      .cat = cat,
					      .cpu = cat == PL_CAT_RUNNING ? cpu : NO_CPU,
					      .by_tid = by_tid };
}

/* The blocking reason an event announces or ends for its thread, if any. */
static int reason_of(uint16_t type, enum pl_category *reason)
{
	switch (type) {
	case PL_EV_IO_BLOCK:
		*reason = PL_CAT_IO;
		return 1;
	case PL_EV_SOCK_BLOCK:
	case PL_EV_DATAGRAM_BLOCK:
	case PL_EV_STREAM_BLOCK:
		*reason = PL_CAT_NETWORK;
		return 1;
	case PL_EV_FUTEX_WAIT:
	case PL_EV_MUTEX_WAIT:
	case PL_EV_SEM_WAIT:
	case PL_EV_WAITQUEUE_WAIT:
		*reason = PL_CAT_LOCK;
		return 1;
	case PL_EV_IO_RESUME:
	case PL_EV_SOCK_RESUME:
	case PL_EV_DATAGRAM_RESUME:
	case PL_EV_STREAM_RESUME:
	case PL_EV_FUTEX_WAKE:
	case PL_EV_MUTEX_WAKE:
	case PL_EV_SEM_WAKE:
	case PL_EV_WAITQUEUE_WAKE:
		*reason = PL_CAT_SLEEPING;	/* no specific reason any more */
		return 1;
	default:
		return 0;
	}
}

/* The category of a sleep on a file of this kind (enum pl_file_kind). */
static enum pl_category file_category(uint64_t kind)
{
	switch (kind & PL_WAKE_KIND) { /* without kernel_only.c's mark */
	case PL_FILE_NETWORK:
		return PL_CAT_NETWORK;
	case PL_FILE_IPC:
		return PL_CAT_IPC;
	case PL_FILE_INPUT:
		return PL_CAT_INPUT;
	case PL_FILE_TIMER:
		return PL_CAT_TIMER;
	case PL_FILE_DISPLAY:
		return PL_CAT_DISPLAY;
	case PL_FILE_DISK:
		return PL_CAT_IO;
	default:
		return PL_CAT_SLEEPING;
	}
}

/* FILE_WAIT's kinds (bit 1 << kind) name a sleep when they are of one kind. */
static enum pl_category files_category(uint64_t kinds)
{
	if (kinds == 0 || (kinds & (kinds - 1)))
		return PL_CAT_SLEEPING;
	return file_category((uint64_t)__builtin_ctzll(kinds));
}

/* Whether a sleep's category is only what its files said, which its wake may correct. */
static int named_by_files(enum pl_category c)
{
	return c == PL_CAT_SLEEPING || c == PL_CAT_NETWORK || c == PL_CAT_IPC ||
	       c == PL_CAT_INPUT || c == PL_CAT_TIMER || c == PL_CAT_DISPLAY;
}

static void push_holder(struct holder **h, uint64_t *n, uint64_t *cap, uint64_t ts_ns, uint32_t tid)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*h = pl_xrealloc(*h, *cap, sizeof(**h));
	}
	(*h)[(*n)++] = (struct holder){ ts_ns, tid };
}

/* The holder id of an IRQ_ENTRY or IRQ_EXIT's handler. */
static uint32_t irq_holder(const struct pl_event *ev)
{
	if (ev->a1 == PL_IRQ_SOFT)
		return ev->a0 < PL_SOFTIRQS ? PL_TID_SOFTIRQ_BASE + (uint32_t)ev->a0 : PL_TID_IDLE_CPU;
	return ev->a0 < PL_TID_SOFTIRQ_BASE - PL_TID_IRQ_BASE ? PL_TID_IRQ_BASE + (uint32_t)ev->a0 :
								PL_TID_IDLE_CPU;
}

/* An idle cpu enters (or leaves) a handler: from now on it holds the cpu (or what it interrupted). */
static void note_irq(struct cpu_timeline *c, const struct pl_event *ev)
{
	if (ev->type == PL_EV_IRQ_ENTRY) {
		if (c->depth < IRQ_NESTING)
			c->entered[c->depth] = irq_holder(ev);
		c->depth++;
	} else if (c->depth) {	/* an exit whose entry came before tracing is ignored */
		c->depth--;
	} else {
		return;
	}
	uint32_t top = c->depth ? c->entered[(c->depth < IRQ_NESTING ? c->depth : IRQ_NESTING) - 1] :
				  PL_TID_IDLE_CPU;
	push_holder(&c->idle, &c->nidle, &c->capidle, ev->ts_ns, top);
}

static struct timeline *timeline_of(struct timeline *tls, const struct pl_idmap *tids, uint64_t tid)
{
	uint64_t th;

	return tid && pl_idmap_get(tids, tid, 0, &th) ? &tls[th] : NULL;
}

/*
 * One pass over the kernel events: every thread's scheduling states, and
 * every cpu's frequency and running thread, in time order.
 */
static struct timeline *build_timelines(const struct pl_trace *trace, const struct pl_intervals *iv,
					struct freq_timeline *freqs, struct cpu_timeline *cpus)
{
	struct timeline *tls = pl_xcalloc(iv->nthreads, sizeof(*tls));
	struct pl_idmap tids = { 0 };
	int kernel_traced = 0;

	for (uint32_t i = 0; i < trace->nsources; i++)
		kernel_traced |= trace->sources[i].kind == PL_SRC_KERNEL_CPU;
	for (uint32_t t = 0; t < iv->nthreads; t++) {
		pl_idmap_put(&tids, iv->threads[t].tid, 0, t);
		/* Without kernel events nothing says when a thread ran. */
		tls[t].before =
			(struct transition){ .cat = kernel_traced ? PL_CAT_RUNNING : PL_CAT_UNKNOWN,
					     .cpu = NO_CPU };
		tls[t].reason = PL_CAT_SLEEPING;
		tls[t].files = PL_CAT_SLEEPING;
	}
	for (uint64_t e = 0; e < trace->nevents; e++) {
		const struct pl_event *ev = &trace->events[e];
		/* An event of a thread is in one of its intervals: no lookup by tid. */
		struct timeline *self =
			ev->tid ? &tls[iv->intervals[iv->event_interval[e]].thread] : NULL;
		struct timeline *other;
		enum pl_category reason;

		if (self && !pl_event_goes_with_switch(ev->type))
			self->woken = 0; /* it went on running: no sleep followed */

		if (self && reason_of(ev->type, &reason))
			self->reason = reason;
		switch (ev->type) {
		case PL_EV_CONTEXT_SWITCH:
			if (ev->cpu < trace->ncpus) {
				struct cpu_timeline *c = &cpus[ev->cpu];

				push_holder(&c->h, &c->n, &c->cap, ev->ts_ns,
					    ev->a0 > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->a0);
				/* Handlers left open by a lost exit end with the idle task. */
				if (c->depth) {
					c->depth = 0;
					push_holder(&c->idle, &c->nidle, &c->capidle, ev->ts_ns,
						    PL_TID_IDLE_CPU);
				}
			}
			if (self) {
				/* A file wait is logged only for a sleep on no lock, futex or disk. */
				enum pl_category cat =
					ev->a1 == PL_STATE_RUNNABLE || self->woken ?
						PL_CAT_RUNNABLE :
					self->files != PL_CAT_SLEEPING	? self->files :
					self->reason != PL_CAT_SLEEPING ? self->reason :
					ev->a1 == PL_STATE_BLOCKED	? PL_CAT_IO :
									  PL_CAT_SLEEPING;

				push(self, ev->ts_ns, cat, ev->cpu,
				     cat == PL_CAT_RUNNABLE ? (uint32_t)ev->a0 : 0, PL_CAT_RUNNING);
				self->on_cpu = 0;
				self->woken = 0;
				self->files = PL_CAT_SLEEPING;
			}
			other = timeline_of(tls, &tids, ev->a0);
			if (other) {
				push(other, ev->ts_ns, PL_CAT_RUNNING, ev->cpu, 0, PL_CAT_UNKNOWN);
				other->on_cpu = 1;
				other->slice = other->n;
			}
			break;
		case PL_EV_SWITCH_COUNTS:
			/* Right after the CONTEXT_SWITCH that ended the slice it counts. */
			if (self && self->slice && self->slice < self->n &&
			    self->t[self->slice - 1].cpu == ev->cpu) {
				struct transition *run = &self->t[self->slice - 1];

				run->counted = 1;
				run->instructions = ev->a0;
			}
			if (self)
				self->slice = 0;
			break;
		case PL_EV_WAKEUP:
		case PL_EV_FUTEX_NOTIFY:
		case PL_EV_MUTEX_NOTIFY:
		case PL_EV_SEM_NOTIFY:
		case PL_EV_WAITQUEUE_NOTIFY:
			/*
			 * Woken (or just forked): from now on it waits for a cpu, not for its
			 * event. A lock's NOTIFY stands in for the WAKEUP of its waiter (a1).
			 */
			other = timeline_of(tls, &tids, ev->type == PL_EV_WAKEUP ? ev->a0 : ev->a1);
			if (other && other->on_cpu)
				other->woken = 1;
			if (!other || other->on_cpu)
				break;
			/* What woke a poll or a timed sleep (a2) names what it waited for. */
			if ((ev->type == PL_EV_WAKEUP || ev->type == PL_EV_WAITQUEUE_NOTIFY) &&
			    file_category(ev->a2) != PL_CAT_SLEEPING && other->n &&
			    named_by_files(other->t[other->n - 1].cat))
				other->t[other->n - 1].cat = file_category(ev->a2);
			push(other, ev->ts_ns, PL_CAT_RUNNABLE, NO_CPU, 0, PL_CAT_UNKNOWN);
			break;
		case PL_EV_IRQ_ENTRY:
		case PL_EV_IRQ_EXIT:
			if (ev->cpu < trace->ncpus)
				note_irq(&cpus[ev->cpu], ev);
			break;
		case PL_EV_FILE_WAIT:
			if (self)
				self->files = files_category(ev->a0);
			break;
		case PL_EV_CPU_FREQUENCY:
			/* a1 is the cpu concerned; a value from the trace, so checked. */
			if (ev->a1 < trace->ncpus) {
				struct freq_timeline *f = &freqs[ev->a1];

				if (f->n == f->cap) {
					f->cap = f->cap ? f->cap * 2 : 8;
					f->c = pl_xrealloc(f->c, f->cap, sizeof(*f->c));
				}
				f->c[f->n++] = (struct freq_change){ ev->ts_ns,
					ev->a0 > UINT32_MAX ? UINT32_MAX : (uint32_t)ev->a0 };
			}
			break;
		default:
			break;
		}
	}
	pl_idmap_free(&tids);
	return tls;
}

/* Index of the first of n sorted times after ts_ns: the entry before it is in force at ts_ns. */
#define UPPER_BOUND(arr, n, ts, result)                         \
	do {                                                    \
		uint64_t lo_ = 0, hi_ = (n);                    \
		while (lo_ < hi_) {                             \
			uint64_t mid_ = lo_ + (hi_ - lo_) / 2;  \
			if ((arr)[mid_].ts_ns <= (ts))          \
				lo_ = mid_ + 1;                 \
			else                                    \
				hi_ = mid_;                     \
		}                                               \
		(result) = lo_;                                 \
	} while (0)

/* Time per key (a frequency in kHz, a preempting tid): a short list, searched linearly. */
struct tally {
	uint32_t n, cap; /* cap: room in key and ns, kept when n is reset for reuse */
	uint32_t *key;
	uint64_t *ns;
};

static void tally_add(struct tally *t, uint32_t key, uint64_t ns)
{
	uint32_t k;

	for (k = 0; k < t->n && t->key[k] != key; k++)
		;
	if (k == t->n) {
		if (k == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 4;
			t->key = pl_xrealloc(t->key, t->cap, sizeof(*t->key));
			t->ns = pl_xrealloc(t->ns, t->cap, sizeof(*t->ns));
		}
		t->key[k] = key;
		t->ns[k] = 0;
		t->n++;
	}
	t->ns[k] += ns;
}

/*
 * By key ascending, or by time descending then key, so reports do not
 * depend on the order the keys were met in. Lists are short: insertion sort.
 */
static void tally_sort(struct tally *t, int by_ns)
{
	for (uint32_t i = 1; i < t->n; i++)
		for (uint32_t j = i; j > 0; j--) {
			int swap = by_ns ? t->ns[j - 1] < t->ns[j] ||
					   (t->ns[j - 1] == t->ns[j] && t->key[j - 1] > t->key[j])
					 : t->key[j - 1] > t->key[j];

			if (!swap)
				break;
			uint32_t k = t->key[j];
			uint64_t v = t->ns[j];

			t->key[j] = t->key[j - 1];
			t->ns[j] = t->ns[j - 1];
			t->key[j - 1] = k;
			t->ns[j - 1] = v;
		}
}

/*
 * Adds running time [from_ns, to_ns) on cpu to the per-frequency tally (if any), cut at frequency
 * changes, and its kHz x ns, where the frequency is known, to counts.
 */
static void charge_running(struct tally *by_khz, struct pl_counts *counts,
			   const struct freq_timeline *freqs, uint32_t ncpus, uint32_t cpu,
			   uint64_t from_ns, uint64_t to_ns)
{
	const struct freq_timeline *f = cpu < ncpus ? &freqs[cpu] : NULL;
	uint64_t i = 0, at = from_ns;

	if (f)
		UPPER_BOUND(f->c, f->n, from_ns, i);
	uint32_t khz = f && i ? f->c[i - 1].khz : 0;

	for (;;) {
		uint64_t until = f && i < f->n && f->c[i].ts_ns < to_ns ? f->c[i].ts_ns : to_ns;

		if (by_khz)
			tally_add(by_khz, khz, until - at);
		counts->khz_ns += (uint64_t)khz * (until - at);
		counts->clocked_ns += khz ? until - at : 0;
		if (until == to_ns)
			return;
		at = until;
		khz = f->c[i++].khz;
	}
}

/* Adds [from_ns, to_ns) of an idle task's time on c to the handlers that held it. */
static void charge_idle(struct tally *by_holder, const struct cpu_timeline *c, uint64_t from_ns,
			uint64_t to_ns)
{
	uint64_t i, at = from_ns;

	UPPER_BOUND(c->idle, c->nidle, from_ns, i);
	for (;; i++) {
		uint64_t until = i < c->nidle && c->idle[i].ts_ns < to_ns ? c->idle[i].ts_ns : to_ns;

		if (until > at)
			tally_add(by_holder, i ? c->idle[i - 1].tid : PL_TID_IDLE_CPU, until - at);
		if (until == to_ns)
			return;
		at = until;
	}
}

/*
 * Adds a woken thread's wait [from_ns, to_ns) for cpu to the tally of who held
 * that cpu meanwhile; before the cpu's first switch nothing says who did.
 */
static void charge_holders(struct tally *by_holder, const struct cpu_timeline *c, uint64_t from_ns,
			   uint64_t to_ns)
{
	uint64_t i, at = from_ns;

	UPPER_BOUND(c->h, c->n, from_ns, i);
	if (i == 0) {
		if (c->n == 0 || c->h[0].ts_ns >= to_ns)
			return;
		at = c->h[0].ts_ns;
		i = 1;
	}
	for (;; i++) {
		uint64_t until = i < c->n && c->h[i].ts_ns < to_ns ? c->h[i].ts_ns : to_ns;
		uint32_t tid = c->h[i - 1].tid;

		if (tid)
			tally_add(by_holder, tid, until - at);
		else
			charge_idle(by_holder, c, at, until);
		if (until == to_ns)
			return;
		at = until;
	}
}

/*
 * A transaction's running time by frequency, its wait for a cpu by the cpu's
 * holder, and the hardware counts of its running time.
 */
struct tx_tallies {
	struct tally by_khz, by_preempter;
	struct pl_counts counts;
};

/*
 * Adds the part [from_ns, to_ns) of a counted slice [t->ts_ns, end_ns): a
 * whole slice exactly, a part by its share of the slice's cycles (the core
 * runs a fixed number of cycles per instruction, so a share of cycles is a
 * share of instructions, whatever the clock did in the slice), or of its
 * time where the frequency is not known throughout.
 */
static void charge_counts(struct pl_counts *c, const struct freq_timeline *freqs, uint32_t ncpus,
			  const struct transition *t, uint64_t end_ns, uint64_t from_ns,
			  uint64_t to_ns)
{
	uint64_t part = to_ns - from_ns, whole = end_ns - t->ts_ns;

	if (!t->counted || whole == 0)
		return;
	if (part < whole) {
		struct pl_counts p = { 0 }, w = { 0 };

		charge_running(NULL, &w, freqs, ncpus, t->cpu, t->ts_ns, end_ns);
		if (w.clocked_ns == whole) {
			charge_running(NULL, &p, freqs, ncpus, t->cpu, from_ns, to_ns);
			part = p.khz_ns;
			whole = w.khz_ns;
		}
	}
	c->instructions += (uint64_t)((unsigned __int128)t->instructions * part / whole);
	c->counted_ns += to_ns - from_ns;
}

/* Adds the thread's states over [from_ns, to_ns] to ns[] and to the transaction's tallies. */
static void charge_thread(struct tx_tallies *tx, const struct freq_timeline *freqs,
			  const struct cpu_timeline *cpus, uint32_t ncpus,
			  const struct timeline *tl, uint64_t from_ns, uint64_t to_ns, uint64_t *ns)
{
	uint64_t i;

	UPPER_BOUND(tl->t, tl->n, from_ns, i);
	struct transition cur = i ? tl->t[i - 1] : tl->before;
	uint64_t at = from_ns;

	for (;; i++) {
		uint64_t until = i < tl->n && tl->t[i].ts_ns < to_ns ? tl->t[i].ts_ns : to_ns;

		ns[cur.cat] += until - at;
		if (cur.cat == PL_CAT_RUNNING)
			charge_running(&tx->by_khz, &tx->counts, freqs, ncpus, cur.cpu, at, until);
		if (cur.cat == PL_CAT_RUNNING && i < tl->n)
			charge_counts(&tx->counts, freqs, ncpus, &cur, tl->t[i].ts_ns, at, until);
		if (cur.cat == PL_CAT_RUNNABLE && cur.by_tid && until > at)
			tally_add(&tx->by_preempter, cur.by_tid, until - at);
		/* Woken: held up by whatever ran on the cpu it went on to run on. */
		else if (cur.cat == PL_CAT_RUNNABLE && until > at && i < tl->n &&
			 tl->t[i].cat == PL_CAT_RUNNING && tl->t[i].cpu < ncpus)
			charge_holders(&tx->by_preempter, &cpus[tl->t[i].cpu], at, until);
		if (until == to_ns)
			return;
		at = until;
		cur = tl->t[i];
	}
}

static enum pl_category hop_category(enum pl_edge_kind kind)
{
	switch (kind) {
	case PL_EDGE_MESSAGE:
		return PL_CAT_QUEUE_MESSAGE;
	case PL_EDGE_TASK:
		return PL_CAT_QUEUE_TASK;
	case PL_EDGE_BINDER:
		return PL_CAT_BINDER;
	case PL_EDGE_FORK:
		return PL_CAT_THREAD_START;
	case PL_EDGE_NOTIFY:
		return PL_CAT_RUNNABLE;	/* notified, not yet back on a cpu */
	case PL_EDGE_LOCK:
		return PL_CAT_LOCK;	/* a one-shot worker held up by a contended lock */
	default:
		return PL_CAT_FRAME_WAIT;
	}
}

/* IRQ_NAME: a0 = irq | part << 16 | bytes 0-3 << 32, a1 = bytes 4-7, a2 = bytes 8-11 of the
 * part (trace_format.h); the last one of a part wins. */
static void name_irq(struct pl_breakdowns *out, const struct pl_event *ev)
{
	uint32_t irq = (uint32_t)ev->a0 & 0xffff, part = (uint32_t)ev->a0 >> 16, i;
	uint32_t words[3] = { (uint32_t)(ev->a0 >> 32), ev->a1, ev->a2 };

	for (i = 0; i < out->nirqs && out->irqs[i] != irq; i++)
		;
	if (i == out->nirqs) {
		out->irqs = pl_xrealloc(out->irqs, i + 1, sizeof(*out->irqs));
		out->irq_name = pl_xrealloc(out->irq_name, i + 1, sizeof(*out->irq_name));
		memset(out->irq_name[i], 0, sizeof(out->irq_name[i]));
		out->irqs[i] = irq;
		out->nirqs++;
	}
	for (int k = 0; k < 12; k++)
		out->irq_name[i][12 * part + k] = (char)(words[k / 4] >> (8 * (k % 4)));
}

void pl_breakdowns_build(const struct pl_trace *trace, const struct pl_intervals *iv,
			 const struct pl_critical_paths *cp, struct pl_breakdowns *out)
{
	struct freq_timeline *freqs = pl_xcalloc(trace->ncpus, sizeof(*freqs));
	struct cpu_timeline *cpus = pl_xcalloc(trace->ncpus, sizeof(*cpus));
	struct timeline *tls = build_timelines(trace, iv, freqs, cpus);
	struct tally all_khz = { 0 }, all_preempters = { 0 };
	struct tx_tallies tx = { 0 };
	uint64_t shares_cap = 0, preempt_cap = 0;

	memset(out, 0, sizeof(*out));
	out->count = cp->count;
	out->ns = pl_xcalloc(cp->count, sizeof(*out->ns));
	out->top_preempter_tid = pl_xcalloc(cp->count, sizeof(*out->top_preempter_tid));
	out->tx_freq_first = pl_xcalloc(cp->count + 1, sizeof(*out->tx_freq_first));
	out->tx_preempt_first = pl_xcalloc(cp->count + 1, sizeof(*out->tx_preempt_first));
	out->step_counts = pl_xcalloc(cp->first_step[cp->count], sizeof(*out->step_counts));
	out->tx_counts = pl_xcalloc(cp->count, sizeof(*out->tx_counts));
	for (uint64_t e = 0; e < trace->nevents; e++) {
		const struct pl_event *ev = &trace->events[e];

		out->counted |= ev->type == PL_EV_SWITCH_COUNTS;
		if (ev->type == PL_EV_IRQ_NAME)
			name_irq(out, ev);
	}
	for (uint64_t k = 0; k < cp->count; k++) {
		tx.by_khz.n = tx.by_preempter.n = 0;
		for (uint64_t i = cp->first_step[k]; i < cp->first_step[k + 1]; i++) {
			const struct pl_step *s = &cp->steps[i];
			uint64_t from_ns = trace->events[s->from_event].ts_ns;
			uint64_t to_ns = trace->events[s->to_event].ts_ns;

			tx.counts = (struct pl_counts){ 0 };
			if (s->kind == PL_EDGE_TEMPORAL) {
				uint32_t th = iv->intervals[iv->event_interval[s->from_event]].thread;

				charge_thread(&tx, freqs, cpus, trace->ncpus, &tls[th], from_ns,
					      to_ns, out->ns[k]);
			} else if (s->kind == PL_EDGE_INVALIDATE) {
				/* The wait for the frame, then the frame itself: its interval on
				 * the drawing thread, up to the update, is that thread's time. */
				const struct pl_interval *f =
					&iv->intervals[iv->event_interval[s->to_event]];
				uint64_t drawn_ns = f->start_ns > from_ns ? f->start_ns : from_ns;

				out->ns[k][PL_CAT_FRAME_WAIT] += drawn_ns - from_ns;
				charge_thread(&tx, freqs, cpus, trace->ncpus, &tls[f->thread],
					      drawn_ns, to_ns, out->ns[k]);
			} else {
				out->ns[k][hop_category(s->kind)] += to_ns - from_ns;
			}
			out->step_counts[i] = tx.counts;
			out->tx_counts[k].instructions += tx.counts.instructions;
			out->tx_counts[k].counted_ns += tx.counts.counted_ns;
			out->tx_counts[k].khz_ns += tx.counts.khz_ns;
			out->tx_counts[k].clocked_ns += tx.counts.clocked_ns;
		}
		for (int c = 0; c < PL_CATEGORIES; c++)
			out->total_ns[c] += out->ns[k][c];
		tally_sort(&tx.by_khz, 0);
		tally_sort(&tx.by_preempter, 1);
		if (tx.by_preempter.n)
			out->top_preempter_tid[k] = tx.by_preempter.key[0];
		uint64_t at = out->tx_preempt_first[k];

		if (at + tx.by_preempter.n > preempt_cap) {
			preempt_cap = (at + tx.by_preempter.n) * 2;
			out->tx_preempter_tid = pl_xrealloc(out->tx_preempter_tid, preempt_cap,
							    sizeof(uint32_t));
			out->tx_preempted_ns = pl_xrealloc(out->tx_preempted_ns, preempt_cap,
							   sizeof(uint64_t));
		}
		for (uint32_t i = 0; i < tx.by_preempter.n; i++) {
			tally_add(&all_preempters, tx.by_preempter.key[i], tx.by_preempter.ns[i]);
			out->tx_preempter_tid[at + i] = tx.by_preempter.key[i];
			out->tx_preempted_ns[at + i] = tx.by_preempter.ns[i];
		}
		out->tx_preempt_first[k + 1] = at + tx.by_preempter.n;
		at = out->tx_freq_first[k];

		if (at + tx.by_khz.n > shares_cap) {
			shares_cap = (at + tx.by_khz.n) * 2;
			out->tx_freq_khz = pl_xrealloc(out->tx_freq_khz, shares_cap, sizeof(uint32_t));
			out->tx_running_ns = pl_xrealloc(out->tx_running_ns, shares_cap, sizeof(uint64_t));
		}
		for (uint32_t i = 0; i < tx.by_khz.n; i++) {
			tally_add(&all_khz, tx.by_khz.key[i], tx.by_khz.ns[i]);
			out->tx_freq_khz[at + i] = tx.by_khz.key[i];
			out->tx_running_ns[at + i] = tx.by_khz.ns[i];
		}
		out->tx_freq_first[k + 1] = at + tx.by_khz.n;
	}
	out->interval_counts = pl_xcalloc(iv->nintervals + 1, sizeof(*out->interval_counts));
	/* Without SWITCH_COUNTS or a cpu's frequency every interval's counts stay zero. */
	int countable = out->counted;

	for (uint32_t c = 0; c < trace->ncpus; c++)
		countable |= freqs[c].n > 0;
	for (uint64_t i = 0; countable && i < iv->nintervals; i++) {
		const struct pl_interval *v = &iv->intervals[i];
		uint64_t scratch[PL_CATEGORIES] = { 0 };

		tx.counts = (struct pl_counts){ 0 };
		tx.by_khz.n = tx.by_preempter.n = 0;
		charge_thread(&tx, freqs, cpus, trace->ncpus, &tls[v->thread], v->start_ns, v->end_ns,
			      scratch);
		out->interval_counts[i] = tx.counts;
	}
	free(tx.by_khz.key);
	free(tx.by_khz.ns);
	free(tx.by_preempter.key);
	free(tx.by_preempter.ns);
	tally_sort(&all_khz, 0);
	tally_sort(&all_preempters, 1);
	out->nfreqs = all_khz.n;
	out->freq_khz = all_khz.key;
	out->running_ns_by_freq = all_khz.ns;
	out->npreempters = all_preempters.n;
	out->preempter_tid = all_preempters.key;
	out->preempted_ns = all_preempters.ns;
	for (uint32_t t = 0; t < iv->nthreads; t++)
		free(tls[t].t);
	free(tls);
	for (uint32_t c = 0; c < trace->ncpus; c++) {
		free(freqs[c].c);
		free(cpus[c].h);
		free(cpus[c].idle);
	}
	free(freqs);
	free(cpus);
}

double pl_counts_mhz(const struct pl_counts *c)
{
	return c->clocked_ns ? (double)c->khz_ns / 1e3 / (double)c->clocked_ns : 0;
}

void pl_breakdowns_free(struct pl_breakdowns *b)
{
	free(b->ns);
	free(b->freq_khz);
	free(b->running_ns_by_freq);
	free(b->preempter_tid);
	free(b->preempted_ns);
	free(b->top_preempter_tid);
	free(b->tx_freq_first);
	free(b->tx_freq_khz);
	free(b->tx_preempt_first);
	free(b->tx_preempter_tid);
	free(b->tx_preempted_ns);
	free(b->tx_running_ns);
	free(b->step_counts);
	free(b->tx_counts);
	free(b->interval_counts);
	free(b->irqs);
	free(b->irq_name);
	memset(b, 0, sizeof(*b));
}

const char *pl_holder_name(const struct pl_breakdowns *bd, const struct pl_intervals *iv,
			   uint32_t tid, char *buf, size_t size)
{
	static const char *const softirqs[PL_SOFTIRQS] = PL_SOFTIRQ_NAMES;

	if (tid == PL_TID_IDLE_CPU) {
		snprintf(buf, size, "idle cpu");
	} else if (tid >= PL_TID_SOFTIRQ_BASE) {
		snprintf(buf, size, "idle cpu: softirq %s", softirqs[tid - PL_TID_SOFTIRQ_BASE]);
	} else if (tid >= PL_TID_IRQ_BASE) {
		uint32_t irq = tid - PL_TID_IRQ_BASE, i;

		for (i = 0; i < bd->nirqs && bd->irqs[i] != irq; i++)
			;
		const char *name = i < bd->nirqs ? bd->irq_name[i] : "";

		/* A name that fills its PL_IRQ_NAME_BYTES was cut. */
		snprintf(buf, size, "idle cpu: irq %" PRIu32 "%s%s%s", irq, *name ? " " : "", name,
			 strlen(name) == PL_IRQ_NAME_BYTES ? "..." : "");
	} else {
		uint32_t t;

		for (t = 0; t < iv->nthreads && iv->threads[t].tid != tid; t++)
			;
		snprintf(buf, size, "%s", t < iv->nthreads ? iv->threads[t].name : "");
	}
	return buf;
}

const char *pl_category_name(enum pl_category c)
{
	static const char *const names[PL_CATEGORIES] = {
		[PL_CAT_RUNNING] = "running",
		[PL_CAT_RUNNABLE] = "runnable",
		[PL_CAT_IO] = "io",
		[PL_CAT_NETWORK] = "network",
		[PL_CAT_LOCK] = "lock",
		[PL_CAT_SLEEPING] = "sleeping",
		[PL_CAT_UNKNOWN] = "unknown",
		[PL_CAT_QUEUE_MESSAGE] = "queue_message",
		[PL_CAT_QUEUE_TASK] = "queue_task",
		[PL_CAT_BINDER] = "binder",
		[PL_CAT_THREAD_START] = "thread_start",
		[PL_CAT_FRAME_WAIT] = "frame_wait",
		[PL_CAT_IPC] = "ipc",
		[PL_CAT_INPUT] = "input_wait",
		[PL_CAT_TIMER] = "timer",
		[PL_CAT_DISPLAY] = "display",
	};

	return (unsigned)c < PL_CATEGORIES ? names[c] : "?";
}
