/* SPDX-License-Identifier: MIT */
/*
 * Plots via gnuplot (run as a program, its script on a pipe, SVG out):
 *   latency_cdf.svg  detected and ground-truth latency CDFs
 *   breakdown.svg    each transaction's critical-path breakdown, stacked, with
 *                    the ground-truth input-dispatch and display-pipeline segments
 *   timeline.svg     the slowest transaction in the style of Panappticon's
 *                    Figure 7: a lane per thread, its intervals, causal hops and
 *                    the critical path drawn thick
 *   qq.svg           (overhead) Q-Q plot of untraced vs traced latency
 *   cdf.svg, qq.svg  (section 6) Fig. 9 and Fig. 10 from the cdf.tsv and
 *                    qq.tsv that pl_s6_write left in dir
 *   experiment report (experiment_report.c): CDFs of several series, one
 *                    Q-Q plot, and a stacked bar per row, each into dir/name
 * Each returns 0, 1 if gnuplot is not installed (nothing written; the caller
 * says so in one line), or -1 with err set.
 */
#ifndef PANLAB_PLOT_H
#define PANLAB_PLOT_H

#include "panlab/error.h"
#include "panlab/overhead.h"
#include "panlab/report.h"

int pl_plot_run(const struct pl_analysis *a, const char *dir, struct pl_error *err);
int pl_plot_overhead(const struct pl_overhead *o, const char *dir, struct pl_error *err);
int pl_plot_section6(const char *dir, struct pl_error *err);

/* One curve: n points (x[i], y[i]) and its title; the caller owns the arrays. */
struct pl_plot_series {
	const char *title;
	const double *x, *y;
	size_t n;
};

/* Step lines of ECDFs (x in ms, y the share), one per series. */
int pl_plot_cdfs(const char *dir, const char *name, const char *title,
		 const struct pl_plot_series *s, size_t ns, struct pl_error *err);
/* Q-Q points (x untraced, y traced, ms) against y = x. */
int pl_plot_qq_points(const char *dir, const char *name, const char *title,
		      const struct pl_plot_series *s, struct pl_error *err);
/* A stacked bar per row: values[r * ncols + c] ms of column c in row r. */
int pl_plot_stacked(const char *dir, const char *name, const char *title, const char *const *rows,
		    size_t nrows, const char *const *cols, size_t ncols, const double *values,
		    struct pl_error *err);

#endif /* PANLAB_PLOT_H */
