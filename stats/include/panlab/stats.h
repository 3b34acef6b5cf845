/* SPDX-License-Identifier: MIT */
/*
 * Statistics shared by the analyzer (the section 6 findings, the experiment
 * report, the overhead comparisons) and the emulator's benchmarks
 * (emu/tests/benchstat.c): the mean and standard deviation, quantiles, the
 * empirical CDF, Q-Q points and a seeded percentile bootstrap. Host code only:
 * build/stats/libpanlab_stats.a (stats/README.md).
 *
 * - Quantiles are Hyndman and Fan's type 7 (R's and NumPy's default): for p in
 *   [0, 1] over n sorted values, h = (n - 1) p, and Q(p) = x[floor h] +
 *   (h - floor h) (x[floor h + 1] - x[floor h]). Q(0) is the minimum, Q(1) the
 *   maximum.
 * - The PRNG is splitmix64 (Steele, Lea and Flood, OOPSLA 2014), integers
 *   only, and indices are drawn by rejection, so a seed gives the same
 *   resamples, and byte-identical results, on every host.
 * - The bootstrap is Efron's percentile bootstrap: each sample (or each
 *   pair, for paired samples) is resampled with replacement to its own
 *   size, the statistic is computed on each replicate, and the interval is the type 7 quantiles (1 - level) / 2 and
 *   (1 + level) / 2 of the replicates.
 *
 * Ownership: the caller owns every array; nothing here allocates memory it
 * keeps. Units are the caller's (the findings use ms).
 */
#ifndef PANLAB_STATS_H
#define PANLAB_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/error.h"

/* The arithmetic mean of n >= 1 values. */
double pl_mean(const double *x, size_t n);
/* The sample standard deviation (divisor n - 1) of n >= 2 values around their mean. */
double pl_sd(const double *x, size_t n);
/* Sorts ascending (NaN is not allowed). */
void pl_stats_sort(double *x, size_t n);
/* Type 7 quantile of n >= 1 sorted values; p is clamped to [0, 1]. */
double pl_quantile(const double *sorted, size_t n, double p);
/* The share of the n >= 1 sorted values that are <= x. */
double pl_ecdf(const double *sorted, size_t n, double x);
/*
 * Q-Q points at the levels p_i = i / levels, i = 1..levels: qx[i - 1] and
 * qy[i - 1] are the type 7 quantiles of xs and ys at p_i.
 */
void pl_qq(const double *xs_sorted, size_t nx, const double *ys_sorted, size_t ny, size_t levels,
	   double *qx, double *qy);

/* splitmix64: the state is the seed; any seed is fine. */
struct pl_rng {
	uint64_t state;
};

uint64_t pl_rng_next(struct pl_rng *r);
/* Uniform in [0, n), n >= 1, without modulo bias. */
uint64_t pl_rng_below(struct pl_rng *r, uint64_t n);

/*
 * A statistic of two samples, each sorted ascending (b may be empty for a
 * one-sample statistic). Returns 0 and *out, or -1 with err set when it is
 * not defined on these samples.
 */
typedef int (*pl_statistic_fn)(const double *a, size_t na, const double *b, size_t nb,
			       const void *ctx, double *out, struct pl_error *err);

struct pl_ci {
	double estimate; /* the statistic on the samples themselves */
	double lo, hi;	 /* percentile bootstrap interval */
	double level;	 /* e.g. 0.95 */
	unsigned replicates;
	uint64_t seed;
};

/*
 * The statistic f on a and b (unsorted; not changed) and its percentile
 * bootstrap interval at level over `replicates` resamples from seed. Returns
 * 0, or -1 with err set (na == 0, replicates < 2, or f undefined on the
 * samples or on a replicate).
 */
int pl_bootstrap(const double *a, size_t na, const double *b, size_t nb, pl_statistic_fn f,
		 const void *ctx, unsigned replicates, uint64_t seed, double level,
		 struct pl_ci *out, struct pl_error *err);
/*
 * The same for paired samples: a[i] and b[i] are one unit measured twice
 * (one replayed input in two configurations), and a resample draws units,
 * keeping each pair together. Differences between the configurations then
 * vary only as much as the units' own differences do.
 */
int pl_bootstrap_paired(const double *a, const double *b, size_t n, pl_statistic_fn f,
			const void *ctx, unsigned replicates, uint64_t seed, double level,
			struct pl_ci *out, struct pl_error *err);

#endif /* PANLAB_STATS_H */
