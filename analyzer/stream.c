/* SPDX-License-Identifier: MIT */
/* Windowed streaming analysis (see panlab/stream.h). */
#include "panlab/kernel_only.h"
#include "panlab/stream.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/display.h"
#include "panlab/error.h"

/*
 * Freed memory glibc keeps in the process rather than handing back: each window allocates and
 * frees the same working set (a few tens of MB for PL_STREAM_WINDOW_EVENTS), which by default
 * goes back to the kernel at a window's end and is faulted in again at the next one (three
 * times the page faults, a fifth of the run in the kernel).
 */
#define STREAM_KEEP_BYTES (256 << 20)

struct window {
	struct pl_event *ev;
	uint64_t n, cap;
};

static void append(struct window *w, const struct pl_event *ev)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 4096;
		w->ev = pl_xrealloc(w->ev, w->cap, sizeof(*w->ev));
	}
	w->ev[w->n++] = *ev;
}

/*
 * The stages over one window; counts the transactions whose input is in [lo_ns, hi_ns).
 * Returns -1 with err set if the window shows sources on clocks that disagree.
 */
static int analyze_window(const char *path, const struct pl_trace *head, const struct window *w,
			  struct window *copy, uint64_t lo_ns, uint64_t hi_ns, int keep,
			  struct pl_stream_result *out, uint64_t *lat_cap, struct pl_error *err)
{
	struct pl_trace t = *head;
	struct pl_intervals iv;
	struct pl_graph g;
	struct pl_transactions tx;
	struct pl_critical_paths cp;
	struct pl_breakdowns bd;

	/*
	 * A copy: the skew repair re-merges it, and the window keeps the stream's order. One
	 * buffer serves every window, so its pages are not given back and faulted in again.
	 */
	if (copy->cap < w->n || !copy->ev) {
		copy->cap = w->cap > w->n ? w->cap : w->n ? w->n : 1;
		free(copy->ev);
		/* Not zeroed: the copy below fills what is used. */
		copy->ev = pl_xrealloc(NULL, copy->cap, sizeof(*copy->ev));
	}
	if (w->n)	/* an empty window (a trace with no records) has no buffer yet */
		memcpy(copy->ev, w->ev, w->n * sizeof(*copy->ev));
	t.events = copy->ev;
	t.nevents = w->n;
	pl_trace_repair_skew(&t);
	if (pl_trace_check_clocks(path, &t, err) < 0)
		return -1;
	pl_intervals_build(&t, &iv);
	pl_graph_build(&t, &iv, &g);
	pl_transactions_extract(&t, &iv, &g, &tx);
	pl_display_attach(&t, &tx);
	pl_critical_paths_build(&t, &iv, &g, &tx, &cp);
	pl_breakdowns_build(&t, &iv, &cp, &bd);
	for (uint64_t k = 0; k < tx.count; k++) {
		const struct pl_transaction *x = &tx.items[k];

		if (x->input_ns < lo_ns || x->input_ns >= hi_ns)
			continue;
		if (out->transactions == *lat_cap) {
			*lat_cap = *lat_cap ? *lat_cap * 2 : 1024;
			out->latency_ns = pl_xrealloc(out->latency_ns, *lat_cap, sizeof(uint64_t));
			if (keep)
				out->tx.items = pl_xrealloc(out->tx.items, *lat_cap, sizeof(*x));
		}
		if (keep) {
			out->tx.items[out->transactions] = *x;
			out->tx.items[out->transactions].first_member = 0;	/* members are not kept */
			out->tx.count++;
		}
		out->latency_ns[out->transactions++] = x->pixels.latency_ns;
		out->animations += (uint64_t)x->animation;
		for (int c = 0; c < PL_CATEGORIES; c++)
			out->breakdown_ns[c] += bd.ns[k][c];
	}
	if (w->n > out->max_window_events)
		out->max_window_events = w->n;
	out->windows++;
	pl_breakdowns_free(&bd);
	pl_critical_paths_free(&cp);
	pl_transactions_free(&tx);
	pl_graph_free(&g);
	pl_intervals_free(&iv);
	return 0;
}

int pl_stream_analyze(const char *path, const struct pl_stream_options *opt,
		      struct pl_stream_result *out, struct pl_error *err)
{
	struct pl_trace head;
	struct pl_trace_stream *st;
	struct window w = { 0 }, copy = { 0 };
	struct pl_event ev;
	uint64_t lo_ns = 0, lat_cap = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	mallopt(M_MMAP_THRESHOLD, STREAM_KEEP_BYTES);
	mallopt(M_TRIM_THRESHOLD, STREAM_KEEP_BYTES);
	if (pl_trace_stream_open(path, &head, &st, err) < 0)
		return -1;
	out->events_lost = head.events_lost;
	for (;;) {
		/* The window proper: window_events new events; then context after its end. */
		uint64_t fresh = 0, cut_ns = UINT64_MAX;

		while (fresh < opt->window_events && (rc = pl_trace_stream_next(st, &ev, err)) == 1) {
			append(&w, &ev);
			out->events++;
			out->inputs += pl_event_is_input(&ev, NULL);
			if (ev.ts_ns >= lo_ns)
				fresh++;
		}
		if (rc == 1) {
			cut_ns = ev.ts_ns + 1;
			while ((rc = pl_trace_stream_next(st, &ev, err)) == 1) {
				append(&w, &ev);
				out->events++;
				out->inputs += pl_event_is_input(&ev, NULL);
				if (ev.ts_ns >= cut_ns + opt->context_ns)
					break;
			}
		}
		if (rc < 0)
			break;
		if (analyze_window(path, &head, &w, &copy, lo_ns, cut_ns, opt->keep_transactions,
				   out, &lat_cap, err) < 0) {
			rc = -1;
			break;
		}
		if (cut_ns == UINT64_MAX)
			break;
		/* Keep context_ns before the next window proper, and what was read past the cut. */
		uint64_t keep_from = cut_ns > opt->context_ns ? cut_ns - opt->context_ns : 0, k = 0;

		while (k < w.n && w.ev[k].ts_ns < keep_from)
			k++;
		memmove(w.ev, w.ev + k, (w.n - k) * sizeof(*w.ev));
		w.n -= k;
		lo_ns = cut_ns;
		/* Events after the cut that are already in the buffer count toward the next window. */
		if (rc == 0 && w.n == 0)
			break;
		if (rc == 0) {
			rc = analyze_window(path, &head, &w, &copy, lo_ns, UINT64_MAX,
					    opt->keep_transactions, out, &lat_cap, err);
			break;
		}
	}
	free(w.ev);
	free(copy.ev);
	pl_trace_stream_close(st);
	pl_trace_free(&head);
	if (rc < 0) {
		pl_stream_result_free(out);
		return -1;
	}
	out->latency = pl_percentiles_of(out->latency_ns, out->transactions);
	out->tx.inputs = out->inputs;
	out->tx.animations = out->animations;
	return 0;
}

void pl_stream_result_free(struct pl_stream_result *r)
{
	free(r->latency_ns);
	free(r->tx.items);
	memset(r, 0, sizeof(*r));
}

json_t *pl_stream_result_json(const struct pl_stream_result *r,
			      const struct pl_stream_options *opt)
{
	json_t *bd = json_object();
	const struct pl_percentiles *p = &r->latency;

	for (int c = 0; c < PL_CATEGORIES; c++)
		json_object_set_new(bd, pl_category_name(c), json_integer((json_int_t)r->breakdown_ns[c]));
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
		"events", (json_int_t)r->events, "events_lost", (json_int_t)r->events_lost,
		"windows", (json_int_t)r->windows, "max_window_events", (json_int_t)r->max_window_events,
		"window_events", (json_int_t)opt->window_events, "context_ns", (json_int_t)opt->context_ns,
		"inputs", (json_int_t)r->inputs, "transactions", (json_int_t)r->transactions,
		"animations", (json_int_t)r->animations,
		"latency_ns", p->n ? json_pack("{s:I, s:I, s:I, s:I, s:I}", "p50", (json_int_t)p->p50,
					       "p90", (json_int_t)p->p90, "p95", (json_int_t)p->p95,
					       "p99", (json_int_t)p->p99, "max", (json_int_t)p->max)
			       : json_null(),
		"breakdown_ns", bd);
}
