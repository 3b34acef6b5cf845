/* SPDX-License-Identifier: MIT */
/*
 * Streaming analysis of traces too large to hold: the
 * trace is read as a stream (pl_trace_stream_*) and cut into windows of
 * window_events events; each window, with context_ns of events on either
 * side, goes through the same stages as a whole trace (intervals, graph,
 * transactions, critical paths, breakdowns), and only the transactions
 * whose input falls inside the window proper are counted. Memory is bounded
 * by the window and its context, not by the trace; a transaction longer
 * than context_ns is cut at the window's end (none is in real runs, whose
 * scripts leave each input's work under a second).
 *
 * Ownership: pl_stream_analyze fills a caller-provided result and allocates
 * its latency array; pl_stream_result_free releases it. Times in ns.
 */
#ifndef PANLAB_STREAM_H
#define PANLAB_STREAM_H

#include <jansson.h>
#include <stdint.h>

#include "panlab/error.h"
#include "panlab/breakdown.h"
#include "panlab/validate.h"

struct pl_stream_options {
	uint64_t window_events;		/* events per window proper */
	uint64_t context_ns;		/* events kept before and read after each window */
	/*
	 * Keep every transaction (about 100 bytes each) in the result, for
	 * validation against ground truth; off, memory stays bounded by a window.
	 */
	int keep_transactions;
};

#define PL_STREAM_WINDOW_EVENTS 262144ull
#define PL_STREAM_CONTEXT_NS 2000000000ull

struct pl_stream_result {
	uint64_t events, events_lost;
	uint64_t windows;
	uint64_t max_window_events;	/* largest window with its context: what memory is sized by */
	uint64_t inputs;		/* UI_INPUT + UI_KEY events */
	uint64_t transactions, animations;
	uint64_t breakdown_ns[PL_CATEGORIES];
	uint64_t *latency_ns;		/* per transaction, sorted (percentiles) */
	struct pl_percentiles latency;
	/*
	 * With keep_transactions: the transactions in input order, as
	 * pl_validate reads them (their members and path are not kept).
	 */
	struct pl_transactions tx;
};

int pl_stream_analyze(const char *path, const struct pl_stream_options *opt,
		      struct pl_stream_result *out, struct pl_error *err);
void pl_stream_result_free(struct pl_stream_result *r);
/*
 * The result as a JSON object (a new reference the caller must json_decref):
 * events, events_lost, windows, max_window_events, window_events,
 * context_ns, inputs, transactions, animations, latency_ns {p50, p90, p95,
 * p99, max} (null without transactions), breakdown_ns per category.
 */
json_t *pl_stream_result_json(const struct pl_stream_result *r,
			      const struct pl_stream_options *opt);

#endif /* PANLAB_STREAM_H */
