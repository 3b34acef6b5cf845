/* SPDX-License-Identifier: MIT */
/*
 * Reports of one run: the text table on a stream, summary.json (via jansson)
 * and transactions.csv. summary.json holds only results derived from the
 * input files, so two runs on identical inputs give identical files apart
 * from run_id; host timings stay out of it.
 *
 * Ownership: struct pl_analysis only borrows the stage results; the caller
 * owns and frees them. pl_report_summary returns a new reference the
 * caller must json_decref.
 */
#ifndef PANLAB_REPORT_H
#define PANLAB_REPORT_H

#include <jansson.h>
#include <stdio.h>

#include "panlab/energy.h"
#include "panlab/error.h"
#include "panlab/expect.h"
#include "panlab/ground_truth.h"
#include "panlab/model.h"
#include "panlab/overhead.h"
#include "panlab/symbols.h"
#include "panlab/trace.h"
#include "panlab/validate.h"

struct pl_analysis {
	const char *backend;
	const char *workload;
	const char *run_id;
	/* The graph-shape check against the workload's declared structure, or NULL. */
	const struct pl_expect_result *expect;
	const struct pl_trace *trace;
	const struct pl_ground_truth *gt;
	const struct pl_intervals *iv;
	const struct pl_graph *graph;
	const struct pl_transactions *tx;
	const struct pl_critical_paths *cp;
	const struct pl_breakdowns *bd;
	const struct pl_queueing *qs;
	const struct pl_aggregates *ag;
	const struct pl_top_edges *te;	/* may be NULL: no top edges in the summary */
	const struct pl_validation *val;
	const struct pl_energy *energy;	/* may be NULL: no energy in the reports */
	/* DiagDroid's diagnosis; may be NULL: none in the reports (then so may symbols be). */
	const struct pl_tasks *tasks;
	const struct pl_diagnosis *diag;
	const struct pl_symbols *symbols;
};

/*
 * The analysis of one run whose stages pl_model_build ran: every field but
 * backend, workload, run_id and expect (left NULL, for the caller) points
 * into m or at the other results given.
 */
struct pl_analysis pl_analysis_of(const struct pl_model *m, const struct pl_trace *trace,
				  const struct pl_ground_truth *gt, const struct pl_validation *val,
				  const struct pl_energy *energy, const struct pl_symbols *symbols);

void pl_report_text(FILE *out, const struct pl_analysis *a);
/* report_diagnosis.c: the diagnosis section (a->diag, a->tasks and a->symbols set). */
void pl_report_diagnosis_text(FILE *out, const struct pl_analysis *a);
json_t *pl_report_diagnosis_json(const struct pl_analysis *a);
/*
 * The validation's part of summary.json (inputs, transactions, matched,
 * precision, recall, latency_error_ns, ... inputs_without_frame) as a new
 * object the caller must json_decref; the stream mode writes it too.
 */
json_t *pl_report_validation_json(const struct pl_validation *v);
json_t *pl_report_summary(const struct pl_analysis *a);
int pl_report_write_summary(const struct pl_analysis *a, const char *path,
			    struct pl_error *err);
/* The overhead comparison as text: one row per input, then mean, p50 and p95. */
void pl_report_overhead_text(FILE *out, const struct pl_overhead *o, const char *on_name,
			     const char *off_name);
int pl_report_write_csv(const struct pl_analysis *a, const char *path,
			struct pl_error *err);

#endif /* PANLAB_REPORT_H */
