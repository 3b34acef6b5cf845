/* SPDX-License-Identifier: MIT */
/*
 * An experiment's HTML report from its results database (scripts/experiment.sh):
 *   - a table per configuration (workload, backend, cores, frequency,
 *     tracing): runs ok and failed, transactions, the lowest precision and
 *     recall, ground-truth latency p50/p90/p99 (type 7, panlab/stats.h) and
 *     the mean over runs of their mean |error|;
 *   - per workload, the ground-truth latency ECDFs of its configurations;
 *   - per workload and configuration run both ways, the Q-Q plot of latency
 *     untraced against traced (as many levels as the smaller sample has);
 *   - the mean critical-path breakdown per transaction of each configuration
 *     (stacked, with the ground-truth input dispatch and display pipeline, so
 *     a bar is the mean ground-truth latency);
 *   - the failed runs with their reasons.
 * Plots are gnuplot SVG inlined in the page, which needs no other file;
 * without gnuplot the page has the tables and says there are no plots.
 *
 * Ownership: the function opens and closes the database itself; the page
 * is written to html.tmp and renamed, so a failure leaves no partial file.
 */
#ifndef PANLAB_EXPERIMENT_REPORT_H
#define PANLAB_EXPERIMENT_REPORT_H

#include "panlab/error.h"

/* 0, or -1 with err set (not a results database; the page cannot be written). */
int pl_experiment_report(const char *db, const char *html, struct pl_error *err);

#endif /* PANLAB_EXPERIMENT_REPORT_H */
