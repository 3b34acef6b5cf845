/* SPDX-License-Identifier: MIT */
/*
 * stats.c: quantiles, ECDF, Q-Q points and the seeded percentile bootstrap
 * (see panlab/stats.h for the definitions).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/stats.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double pl_mean(const double *x, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += x[i];
	return sum / (double)n;
}

double pl_sd(const double *x, size_t n)
{
	double m = pl_mean(x, n), ss = 0;

	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

void pl_stats_sort(double *x, size_t n)
{
	if (n > 1)
		qsort(x, n, sizeof(*x), cmp_double);
}

double pl_quantile(const double *sorted, size_t n, double p)
{
	if (p <= 0 || n == 1)
		return sorted[0];
	if (p >= 1)
		return sorted[n - 1];
	double h = (double)(n - 1) * p;
	size_t k = (size_t)h;

	if (k + 1 >= n)
		return sorted[n - 1];
	return sorted[k] + (h - (double)k) * (sorted[k + 1] - sorted[k]);
}

double pl_ecdf(const double *sorted, size_t n, double x)
{
	size_t lo = 0, hi = n;

	/* The first index whose value exceeds x. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sorted[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (double)lo / (double)n;
}

void pl_qq(const double *xs_sorted, size_t nx, const double *ys_sorted, size_t ny, size_t levels,
	   double *qx, double *qy)
{
	for (size_t i = 1; i <= levels; i++) {
		double p = (double)i / (double)levels;

		qx[i - 1] = pl_quantile(xs_sorted, nx, p);
		qy[i - 1] = pl_quantile(ys_sorted, ny, p);
	}
}

uint64_t pl_rng_next(struct pl_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t pl_rng_below(struct pl_rng *r, uint64_t n)
{
	/* Reject the top partial block of 2^64 so that every residue is equally likely. */
	uint64_t limit = UINT64_MAX - UINT64_MAX % n;
	uint64_t v;

	do
		v = pl_rng_next(r);
	while (v >= limit);
	return v % n;
}

static void resample(struct pl_rng *r, const double *from, size_t n, double *to)
{
	for (size_t i = 0; i < n; i++)
		to[i] = from[pl_rng_below(r, n)];
	pl_stats_sort(to, n);
}

/* Draws pairs: one index for both samples, so a[i] and b[i] stay together. */
static void resample_pairs(struct pl_rng *r, const double *a, const double *b, size_t n, double *ra,
			   double *rb)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t j = pl_rng_below(r, n);

		ra[i] = a[j];
		rb[i] = b[j];
	}
	pl_stats_sort(ra, n);
	pl_stats_sort(rb, n);
}

static int bootstrap(const double *a, size_t na, const double *b, size_t nb, int paired,
		     pl_statistic_fn f, const void *ctx, unsigned replicates, uint64_t seed,
		     double level, struct pl_ci *out, struct pl_error *err)
{
	if (na == 0)
		return pl_fail(err, "bootstrap of an empty sample, expected at least one value");
	if (replicates < 2)
		return pl_fail(err, "bootstrap with %u replicates, expected at least 2",
			       replicates);
	double *sa = pl_xcalloc(na, sizeof(*sa)), *sb = pl_xcalloc(nb, sizeof(*sb));
	double *ra = pl_xcalloc(na, sizeof(*ra)), *rb = pl_xcalloc(nb, sizeof(*rb));
	double *rep = pl_xcalloc(replicates, sizeof(*rep));
	struct pl_rng rng = { seed };
	int rc;

	memcpy(sa, a, na * sizeof(*a));
	if (nb)
		memcpy(sb, b, nb * sizeof(*b));
	pl_stats_sort(sa, na);
	pl_stats_sort(sb, nb);
	rc = f(sa, na, sb, nb, ctx, &out->estimate, err);
	for (unsigned i = 0; rc == 0 && i < replicates; i++) {
		if (paired) {
			resample_pairs(&rng, a, b, na, ra, rb);
		} else {
			resample(&rng, sa, na, ra);
			resample(&rng, sb, nb, rb);
		}
		rc = f(ra, na, rb, nb, ctx, &rep[i], err);
	}
	if (rc == 0) {
		pl_stats_sort(rep, replicates);
		out->lo = pl_quantile(rep, replicates, (1 - level) / 2);
		out->hi = pl_quantile(rep, replicates, (1 + level) / 2);
		out->level = level;
		out->replicates = replicates;
		out->seed = seed;
	}
	free(sa);
	free(sb);
	free(ra);
	free(rb);
	free(rep);
	return rc;
}

int pl_bootstrap(const double *a, size_t na, const double *b, size_t nb, pl_statistic_fn f,
		 const void *ctx, unsigned replicates, uint64_t seed, double level,
		 struct pl_ci *out, struct pl_error *err)
{
	return bootstrap(a, na, b, nb, 0, f, ctx, replicates, seed, level, out, err);
}

int pl_bootstrap_paired(const double *a, const double *b, size_t n, pl_statistic_fn f,
			const void *ctx, unsigned replicates, uint64_t seed, double level,
			struct pl_ci *out, struct pl_error *err)
{
	return bootstrap(a, n, b, n, 1, f, ctx, replicates, seed, level, out, err);
}
