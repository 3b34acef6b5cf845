/* SPDX-License-Identifier: MIT */
/*
 * The analysis model, built once from a struct pl_trace in stages
 * (Panappticon section 4.3), each in its own file with its own header:
 *
 *   trace_read.c    bytes -> events, clock skew repaired        panlab/trace.h
 *   intervals.c     events -> threads and per-thread execution   panlab/intervals.h
 *                   intervals
 *   graph.c         intervals -> causal edges between events     panlab/graph.h
 *   transactions.c  graph -> transactions, animations            panlab/transactions.h
 *   display.c       transactions -> input to pixels: the kernel's  panlab/display.h
 *                   delivery of the input, the flush that first
 *                   showed the last update
 *   critical_path.c transaction -> its critical path             panlab/critical_path.h
 *   breakdown.c     critical path -> time per resource category  panlab/breakdown.h
 *   queueing.c      graph -> per queue and executor waits, runs  panlab/queueing.h
 *   tasks.c         graph -> DiagDroid's tasks: context, unit,    panlab/tasks.h
 *                   capacity, queue length, dependency
 *   diagnosis.c     tasks -> groups by context, ranked; causes    panlab/diagnosis.h
 *   aggregate.c     transactions -> groups of equal shape,       panlab/aggregate.h
 *                   outliers; top edges
 *
 * stream.c (panlab/stream.h) runs the same stages over windows of a trace
 * too large to hold. Each stage reads the ones before it, and the reports
 * read them all; nothing re-parses, and no stage changes the trace.
 *
 * Ownership: pl_model_build fills a caller-provided struct pl_model;
 * pl_model_free releases what it allocated, not the trace, which must
 * outlive the model. Out of memory aborts.
 */
#ifndef PANLAB_MODEL_H
#define PANLAB_MODEL_H

#include "panlab/aggregate.h"
#include "panlab/breakdown.h"
#include "panlab/critical_path.h"
#include "panlab/diagnosis.h"
#include "panlab/display.h"
#include "panlab/graph.h"
#include "panlab/intervals.h"
#include "panlab/queueing.h"
#include "panlab/tasks.h"
#include "panlab/trace.h"
#include "panlab/transactions.h"

/* Every stage above over one trace, in data-flow order. */
struct pl_model {
	struct pl_intervals iv;
	struct pl_graph graph;
	struct pl_transactions tx;
	struct pl_critical_paths cp;
	struct pl_breakdowns bd;
	struct pl_queueing qs;
	struct pl_tasks tasks;
	struct pl_diagnosis diag;
	struct pl_aggregates ag;
	struct pl_top_edges te;
};

/* Runs the stages over a trace as pl_trace_parse left it (skew already repaired). */
void pl_model_build(const struct pl_trace *trace, struct pl_model *m);
/* Frees the stages' results, not the trace. */
void pl_model_free(struct pl_model *m);

#endif /* PANLAB_MODEL_H */
