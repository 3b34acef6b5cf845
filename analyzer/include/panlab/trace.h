/* SPDX-License-Identifier: MIT */
/*
 * Stage 1 (trace_read.c): trace file bytes -> events, strictly checked
 * against include/FORMAT.md, merged in time order and with the cpus' clock
 * skew repaired (skew.c); the stages after it never change the trace. trace_write.c is the inverse, used by the unit
 * tests and meant for a trace synthesizer.
 *
 * Ownership: pl_trace_parse/pl_trace_read_file fill a caller-provided
 * struct pl_trace whose arrays they allocate; pl_trace_free releases them.
 * On error nothing stays allocated and err holds the one-line message.
 */
#ifndef PANLAB_TRACE_H
#define PANLAB_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/error.h"
#include "panlab/trace_format.h"

/*
 * The largest count or time (ns) the reader accepts: every number the reports
 * write, sums and differences included, then fits JSON's signed 64-bit integers.
 */
#define PL_COUNT_MAX ((uint64_t)INT64_MAX)

/* The causal edges between events of different threads (skew.c). */
enum pl_causal_kind {
	PL_CAUSAL_MESSAGE,	/* ENQUEUE_MSG -> DEQUEUE_MSG */
	PL_CAUSAL_TASK,		/* SUBMIT_ASYNC_TASK -> CONSUME_ASYNC_TASK */
	PL_CAUSAL_BINDER,	/* BINDER_PRODUCE_* / BINDER_REPLY -> BINDER_CONSUME */
	PL_CAUSAL_FORK,		/* FORK -> the child's first event */
	PL_CAUSAL_NOTIFY,	/* <lock>_NOTIFY -> the woken thread's <lock>_WAKE */
	PL_CAUSAL_WAKEUP,	/* WAKEUP -> the CONTEXT_SWITCH that runs the sleeper */
	PL_CAUSAL_KINDS,
};

/* Producer-consumer pairs per kind, as logged (before any repair). */
struct pl_causal_pairs {
	uint64_t pairs[PL_CAUSAL_KINDS];
	uint64_t out_of_order[PL_CAUSAL_KINDS];	/* consumer timestamped before its producer */
	uint64_t beyond_skew[PL_CAUSAL_KINDS];	/* of those, more than PL_SKEW_MAX_NS before */
	/* The furthest of those, if any: its kind and the two events as logged. */
	enum pl_causal_kind furthest_kind;
	struct pl_event furthest_producer, furthest_consumer;
};

/* Events as decoded into host byte order; same fields as the file record. */
struct pl_trace {
	uint16_t version; /* the file's, PL_TRACE_VERSION_MIN .. PL_TRACE_VERSION */
	uint32_t ncpus;
	uint32_t nsources;
	struct pl_source *sources;	/* nsources entries, as in the file */
	uint64_t nevents;
	/*
	 * All records merged in time order: by ts_ns, ties broken by file
	 * order, so the result is deterministic and each source keeps its
	 * own order.
	 */
	struct pl_event *events;
	uint64_t events_lost;		/* sum of sources[i].lost */
	uint64_t skew_repaired;		/* consumers pl_trace_repair_skew moved after their producers */
	uint64_t kernel_only_presses;	/* KEY_REPORTs (kernel_only.h) */
	uint64_t kernel_only_inputs;	/* KEY_READs that took the input role */
	uint64_t skew_repaired_by_kind[PL_CAUSAL_KINDS];
	struct pl_causal_pairs causal;	/* set by pl_trace_repair_skew */
};

/* name is used only in error messages. Repairs clock skew (pl_trace_repair_skew) last. */
int pl_trace_parse(const char *name, const void *buf, size_t len,
		   struct pl_trace *out, struct pl_error *err);
int pl_trace_read_file(const char *path, struct pl_trace *out,
		       struct pl_error *err);
void pl_trace_free(struct pl_trace *trace);

/*
 * Reading a trace as a stream, for traces too large to hold: open checks
 * the header and source table (the same checks as pl_trace_parse) and fills
 * head (sources, counts; no events); next yields the events one at a time
 * in the merged order of struct pl_trace.events, checking each record: 1
 * with *ev set, 0 at the end, -1 with err set. Memory is a small buffer per
 * source. The stream borrows head: close the stream, then pl_trace_free(head).
 */
struct pl_trace_stream;

int pl_trace_stream_open(const char *path, struct pl_trace *head, struct pl_trace_stream **out,
			 struct pl_error *err);
int pl_trace_stream_next(struct pl_trace_stream *st, struct pl_event *ev, struct pl_error *err);
void pl_trace_stream_close(struct pl_trace_stream *st);

/*
 * skew.c: the cpus' clocks may disagree by a little (on the phone with
 * --quantum-policy fixed the cores meet only every quantum), so a consumer
 * can be logged before its producer on another source, on any causal edge
 * (enum pl_causal_kind). Counts every pair and those out of order into
 * trace->causal; each consumer up to PL_SKEW_MAX_NS ahead moves its source's
 * events from there up to just after the producer, and the timeline is
 * merged again; times stay in ns and each source keeps its order. Returns
 * the consumers moved (also added to trace->skew_repaired, and by kind).
 */
#define PL_SKEW_MAX_NS 100000u
uint64_t pl_trace_repair_skew(struct pl_trace *trace);

/*
 * After pl_trace_repair_skew: a consumer logged more than PL_SKEW_MAX_NS
 * before its producer is no skew the repair can undo but sources on clocks
 * that disagree (one shifted by seconds), and every latency across them is
 * wrong. Each lost event can leave one consumer joined to a later producer
 * of the same key, so the trace is refused when such pairs outnumber its
 * lost events (any, in a trace that lost none): -1 with err set to one
 * line, "name: ...", naming the furthest pair.
 */
int pl_trace_check_clocks(const char *name, const struct pl_trace *trace, struct pl_error *err);

/* "message", "task", "binder", "fork", "notify", "wakeup". */
const char *pl_causal_kind_name(enum pl_causal_kind kind);

/* Short lower-case name of an event type ("ui_input"), or NULL if unknown. */
const char *pl_event_type_name(uint32_t type);

/*
 * Writer: collect events per source, then serialize. The builder owns
 * copies of everything added; pl_trace_builder_free releases them.
 */
struct pl_trace_builder {
	uint32_t ncpus;
	uint32_t nsources;
	struct pl_trace_builder_source {
		struct pl_source src;		/* src.records is kept up to date */
		struct pl_event *events;
		uint64_t cap;
	} *sources;
};

/*
 * Encoders for writers that stream (the bench synthesizer): the header and
 * source table into out (PL_HEADER_BYTES + PL_SOURCE_BYTES * nsources
 * bytes), and one record into out (PL_RECORD_BYTES bytes).
 */
void pl_trace_encode_header(uint8_t *out, uint32_t ncpus, const struct pl_source *sources,
			    uint32_t nsources);
void pl_trace_encode_event(uint8_t *out, const struct pl_event *ev);

void pl_trace_builder_init(struct pl_trace_builder *b, uint32_t ncpus);
/* Returns the new source's index. Out of memory aborts, as in the model. */
uint32_t pl_trace_builder_add_source(struct pl_trace_builder *b, uint32_t kind,
				     uint32_t id, uint64_t lost);
void pl_trace_builder_add_event(struct pl_trace_builder *b, uint32_t source,
				const struct pl_event *ev);
/* Serialized file bytes in *buf (malloc'd, caller frees) and *len. */
void pl_trace_builder_serialize(const struct pl_trace_builder *b, uint8_t **buf,
				size_t *len);
int pl_trace_builder_write_file(const struct pl_trace_builder *b,
				const char *path, struct pl_error *err);
void pl_trace_builder_free(struct pl_trace_builder *b);

/* Byte offsets of the file layout (include/FORMAT.md), shared by reader and writer. */
enum {
	PL_HEADER_BYTES = 32,
	PL_SOURCE_BYTES = 24,
	PL_RECORD_BYTES = 32,
};

#endif /* PANLAB_TRACE_H */
