/* SPDX-License-Identifier: MIT */
/* Chrome/Perfetto trace.json from the model (see panlab/export_json.h). */
#include "panlab/kernel_only.h"
#include "panlab/export_json.h"
#include "panlab/read_file.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* The format counts in microseconds; keep the ns as three decimals. */
static json_t *us(uint64_t ns)
{
	return json_real((double)ns / 1000.0);
}

static json_int_t pid_of(const struct pl_thread *t)
{
	return t->tgid ? t->tgid : t->tid;
}

/*
 * Where events go: into a json array (small traces, tests), or straight to
 * a file one event at a time, so a large trace never exists as one tree.
 * jansson encodes every event; only the fixed envelope and the commas
 * between events are written here, because jansson has no streaming encoder.
 */
struct sink {
	json_t *array;		/* or NULL: write to f */
	FILE *f;
	uint64_t n;
	int failed;
};

/* 15 digits keep ns resolution (as us with 3 decimals) for runs of up to about 10^6 s. */
#define DUMP_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(15))

static void emit(struct sink *s, json_t *ev)
{
	if (s->array) {
		json_array_append_new(s->array, ev);
		return;
	}
	if ((s->n++ && fputc(',', s->f) == EOF) || json_dumpf(ev, s->f, DUMP_FLAGS) != 0)
		s->failed = 1;
	json_decref(ev);
}

/* A common event skeleton: phase, name, category, thread, time. */
static json_t *event(const char *ph, const char *name, const char *cat,
		     const struct pl_thread *t, uint64_t ts_ns)
{
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:o}", "ph", ph, "name", name, "cat", cat,
			 "pid", pid_of(t), "tid", (json_int_t)t->tid, "ts", us(ts_ns));
}

static const struct pl_thread *thread_of_event(const struct pl_analysis *a, uint64_t e)
{
	return &a->iv->threads[a->iv->intervals[a->iv->event_interval[e]].thread];
}

static void add_threads(struct sink *out, const struct pl_analysis *a)
{
	char name[32];

	for (uint32_t i = 0; i < a->iv->nthreads; i++) {
		const struct pl_thread *t = &a->iv->threads[i];

		if (t->name[0])
			snprintf(name, sizeof(name), "%s", t->name);
		else
			snprintf(name, sizeof(name), "tid %" PRIu32, t->tid);
		/* Thread names come from the guest: keep them valid UTF-8 by quoting. */
		char quoted[80];

		pl_quote(quoted, sizeof(quoted), name, strlen(name));
		emit(out, json_pack("{s:s, s:s, s:I, s:I, s:{s:s}}", "ph", "M",
			"name", "thread_name", "pid", pid_of(t), "tid", (json_int_t)t->tid,
			"args", "name", quoted));
		/* A process is named after its main thread (tid = pid), as the kernel does. */
		if (pid_of(t) == t->tid)
			emit(out, json_pack("{s:s, s:s, s:I, s:I, s:{s:s}}", "ph", "M",
				"name", "process_name", "pid", pid_of(t), "tid", (json_int_t)t->tid,
				"args", "name", quoted));
	}
}

static void add_intervals(struct sink *out, const struct pl_analysis *a)
{
	char name[64];

	for (uint64_t i = 0; i < a->iv->nintervals; i++) {
		const struct pl_interval *iv = &a->iv->intervals[i];

		switch (iv->kind) {
		case PL_IV_MESSAGE:
			snprintf(name, sizeof(name), "message %" PRIu64, iv->item_id);
			break;
		case PL_IV_TASK:
			snprintf(name, sizeof(name), "task %" PRIu64, iv->item_id);
			break;
		case PL_IV_BINDER:
			snprintf(name, sizeof(name), "binder %" PRIu64, iv->item_id);
			break;
		case PL_IV_INPUT:
			snprintf(name, sizeof(name), "input");
			break;
		case PL_IV_NATIVE:
			snprintf(name, sizeof(name), "native (woken)");
			break;
		case PL_IV_RESUMED:
			snprintf(name, sizeof(name), "resumed after a lock wait");
			break;
		default:
			snprintf(name, sizeof(name), "thread");
			break;
		}
		json_t *x = event("X", name, "interval", &a->iv->threads[iv->thread], iv->start_ns);

		json_object_set_new(x, "dur", us(iv->end_ns - iv->start_ns));
		if (iv->kind == PL_IV_MESSAGE || iv->kind == PL_IV_TASK)
			json_object_set_new(x, "args", json_pack("{s:I}",
				iv->kind == PL_IV_MESSAGE ? "queue" : "executor",
				(json_int_t)iv->queue_id));
		emit(out, x);
	}
}

static void add_instants(struct sink *out, const struct pl_analysis *a)
{
	char name[64];
	uint64_t id;

	for (uint64_t e = 0; e < a->trace->nevents; e++) {
		const struct pl_event *ev = &a->trace->events[e];
		const char *cat = "display";

		if (pl_event_is_input(ev, &id))
			snprintf(name, sizeof(name), "input %" PRIu64, id);
		else if (pl_event_is_update(ev))
			snprintf(name, sizeof(name), "frame %" PRIu64, ev->a0);
		else if (pl_event_is_invalidate(ev))
			snprintf(name, sizeof(name), "invalidate");
		else if (ev->type == PL_EV_INPUT_READ)
			snprintf(name, sizeof(name), "read input %" PRIu64, ev->a0);
		else if (ev->type == PL_EV_INPUT_DISPATCH)
			snprintf(name, sizeof(name), "dispatch input %" PRIu64, ev->a0);
		else if (ev->type == PL_EV_FRAME_LATCH)
			snprintf(name, sizeof(name), "latch frame %" PRIu64 " of %" PRIu32 " for display %"
				 PRIu32, ev->a0, ev->a1, ev->a2);
		else if (ev->type == PL_EV_DISPLAY_SUBMIT)
			snprintf(name, sizeof(name), "submit display %" PRIu64, ev->a0);
		else if (ev->type == PL_EV_DISPLAY_FLUSHED)
			snprintf(name, sizeof(name), "flushed display %" PRIu64, ev->a0);
		else
			continue;
		if (ev->type < PL_EV_INPUT_READ)
			cat = "ui";
		json_t *i = event("i", name, cat, thread_of_event(a, e), ev->ts_ns);

		json_object_set_new(i, "s", json_string("t"));
		emit(out, i);
	}
}

/* One flow arrow from event `from` to event `to`; "bp":"e" binds its head to the slice enclosing it. */
static void flow(struct sink *out, const struct pl_analysis *a, const char *name, const char *cat,
		 uint64_t id, uint64_t from, uint64_t to)
{
	json_t *s = event("s", name, cat, thread_of_event(a, from), a->trace->events[from].ts_ns);
	json_t *f = event("f", name, cat, thread_of_event(a, to), a->trace->events[to].ts_ns);

	json_object_set_new(s, "id", json_integer((json_int_t)id));
	json_object_set_new(f, "id", json_integer((json_int_t)id));
	json_object_set_new(f, "bp", json_string("e"));
	emit(out, s);
	emit(out, f);
}

/*
 * A flow per causal edge (ids 0 .. nedges - 1), then the causal hops of each
 * critical path again in their own category, so the path stands out.
 */
static void add_flows(struct sink *out, const struct pl_analysis *a)
{
	uint64_t id = a->graph->nedges;

	for (uint64_t k = 0; k < a->graph->nedges; k++) {
		const struct pl_edge *edge = &a->graph->edges[k];

		flow(out, a, pl_edge_kind_name(edge->kind), "causal", k, edge->from_event,
		     edge->to_event);
	}
	for (uint64_t i = 0; i < a->cp->first_step[a->cp->count]; i++) {
		const struct pl_step *step = &a->cp->steps[i];

		if (step->kind != PL_EDGE_TEMPORAL)
			flow(out, a, pl_edge_kind_name(step->kind), "critical_path", id++,
			     step->from_event, step->to_event);
	}
}

/* A cpu's slice (from its last switch) and the kHz x ns it ran since then. */
struct slice_clock {
	int started;
	uint64_t start_ns, mark_ns, khz_ns;
	uint32_t khz;
};

static void counter(struct sink *out, const char *name, uint64_t ts_ns, const char *key,
		    json_int_t value)
{
	emit(out, json_pack("{s:s, s:s, s:i, s:i, s:o, s:{s:I}}", "ph", "C", "name", name, "pid", 0,
			    "tid", 0, "ts", us(ts_ns), "args", key, value));
}

/*
 * Counter tracks of the guest kernel (pid 0): each cpu's frequency and whether it is online, and
 * per slice (switch to switch) the instructions it executed (SWITCH_COUNTS) and its cycles
 * (time x frequency, where known), each from the slice's start.
 */
static void add_counters(struct sink *out, const struct pl_analysis *a)
{
	char name[48];
	uint32_t ncpus = a->trace->ncpus;
	struct slice_clock *sc = pl_xcalloc(ncpus + 1, sizeof(*sc));
	uint64_t *counted_from = pl_xcalloc(ncpus + 1, sizeof(*counted_from));

	for (uint64_t e = 0; e < a->trace->nevents; e++) {
		const struct pl_event *ev = &a->trace->events[e];
		struct slice_clock *c = ev->cpu < ncpus ? &sc[ev->cpu] : NULL;

		if (ev->type == PL_EV_CPU_FREQUENCY) {
			struct slice_clock *f = ev->a1 < ncpus ? &sc[ev->a1] : NULL;

			if (f) {
				f->khz_ns += (uint64_t)f->khz * (ev->ts_ns - f->mark_ns);
				f->mark_ns = ev->ts_ns;
				f->khz = (uint32_t)ev->a0;
			}
			snprintf(name, sizeof(name), "cpu %" PRIu32 " frequency", ev->a1);
			counter(out, name, ev->ts_ns, "kHz", (json_int_t)ev->a0);
		} else if (ev->type == PL_EV_CPU_ONLINE || ev->type == PL_EV_CPU_OFFLINE) {
			snprintf(name, sizeof(name), "cpu %" PRIu32 " online", ev->a1);
			counter(out, name, ev->ts_ns, "online", ev->type == PL_EV_CPU_ONLINE);
		} else if (ev->type == PL_EV_CONTEXT_SWITCH && c) {
			c->khz_ns += (uint64_t)c->khz * (ev->ts_ns - c->mark_ns);
			if (c->started && c->khz_ns) {
				snprintf(name, sizeof(name), "cpu %" PRIu32 " cycles", ev->cpu);
				counter(out, name, c->start_ns, "cycles",
					(json_int_t)(c->khz_ns / 1000000));
			}
			/* The SWITCH_COUNTS just after counts the slice that ends here. */
			counted_from[ev->cpu] = c->started ? c->start_ns + 1 : 0;
			c->started = 1;
			c->start_ns = c->mark_ns = ev->ts_ns;
			c->khz_ns = 0;
		} else if (ev->type == PL_EV_SWITCH_COUNTS && c && counted_from[ev->cpu]) {
			snprintf(name, sizeof(name), "cpu %" PRIu32 " instructions", ev->cpu);
			counter(out, name, counted_from[ev->cpu] - 1, "instructions",
				(json_int_t)ev->a0);
			counted_from[ev->cpu] = 0;
		}
	}
	free(sc);
	free(counted_from);
}

static void add_transactions(struct sink *out, const struct pl_analysis *a)
{
	char name[48];

	for (uint64_t k = 0; k < a->tx->count; k++) {
		const struct pl_transaction *t = &a->tx->items[k];
		const struct pl_thread *th = thread_of_event(a, t->input_event);
		json_t *b, *e;

		snprintf(name, sizeof(name), "transaction %" PRIu64 " (input %" PRIu64 ")", k,
			 t->input_id);
		/* Input to pixels: both ends of the pipeline, not only the critical path's. */
		b = event("b", name, "transaction", th, t->pixels.delivered_ns);
		e = event("e", name, "transaction", th, t->pixels.shown_ns);
		json_object_set_new(b, "id", json_integer((json_int_t)k));
		json_object_set_new(e, "id", json_integer((json_int_t)k));
		char shape[256];

		json_object_set_new(b, "args", json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}",
			"latency_ns", (json_int_t)t->pixels.latency_ns,
			"critical_path_ns", (json_int_t)t->latency_ns,
			"input_dispatch_ns", (json_int_t)t->pixels.input_dispatch_ns,
			"vsync_queue_ns", (json_int_t)t->pixels.vsync_queue_ns,
			"composition_ns", (json_int_t)t->pixels.composition_ns,
			"flush_ns", (json_int_t)t->pixels.flush_ns,
			"updates", (json_int_t)t->nupdates,
			"intervals", (json_int_t)t->nintervals, "critical_path",
			pl_critical_path_shape(a->cp, k, shape, sizeof(shape))));
		emit(out, b);
		emit(out, e);
	}
}

static void add_all(struct sink *out, const struct pl_analysis *a)
{
	add_threads(out, a);
	add_intervals(out, a);
	add_instants(out, a);
	add_flows(out, a);
	add_counters(out, a);
	add_transactions(out, a);
}

json_t *pl_export_trace_json(const struct pl_analysis *a)
{
	struct sink out = { .array = json_array() };

	add_all(&out, a);
	return json_pack("{s:s, s:o}", "displayTimeUnit", "ns", "traceEvents", out.array);
}

int pl_export_write_trace_json(const struct pl_analysis *a, const char *path,
			       struct pl_error *err)
{
	struct sink out = { .f = fopen(path, "w") };

	if (!out.f) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	/* The same object as pl_export_trace_json, in the same key order. */
	if (fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out.f) == EOF)
		out.failed = 1;
	add_all(&out, a);
	if (fputs("]}\n", out.f) == EOF)
		out.failed = 1;
	if (fclose(out.f) != 0 || out.failed) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}
