/* SPDX-License-Identifier: MIT */
/*
 * The shared statistics (stats/stats.c) on known samples and known distributions; exits
 * non-zero if any assertion failed.
 */
#include <math.h>
#include <string.h>

#include "cunit_run.h"
#include "panlab/stats.h"

static void test_quantile_type7(void)
{
	const double x[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };

	/* R: quantile(1:10, c(0, .25, .5, .9, .96, 1)) */
	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(x, 10, 0), 1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(x, 10, 0.25), 3.25, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(x, 10, 0.5), 5.5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(x, 10, 0.9), 9.1, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(x, 10, 0.96), 9.64, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(x, 10, 1), 10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(x, 10, 1.5), 10, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(x, 1, 0.7), 1, 1e-12);
	const double two[] = { 10, 20 };

	CU_ASSERT_DOUBLE_EQUAL(pl_quantile(two, 2, 0.98), 19.8, 1e-12);
}

static void test_sort_ecdf_qq(void)
{
	double x[] = { 3, 1, 2, 2, 5 };
	double qx[4], qy[4];

	pl_stats_sort(x, 5);
	CU_ASSERT(x[0] == 1 && x[1] == 2 && x[2] == 2 && x[3] == 3 && x[4] == 5);
	CU_ASSERT_DOUBLE_EQUAL(pl_ecdf(x, 5, 0.5), 0, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_ecdf(x, 5, 2), 0.6, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_ecdf(x, 5, 4.9), 0.8, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(pl_ecdf(x, 5, 5), 1, 1e-12);
	const double y[] = { 10, 20, 30, 40, 50 };

	pl_qq(x, 5, y, 5, 4, qx, qy);
	/* Levels .25 .5 .75 1: x 2 2 3 5, y 20 30 40 50. */
	CU_ASSERT_DOUBLE_EQUAL(qx[0], 2, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(qx[2], 3, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(qx[3], 5, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(qy[0], 20, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(qy[1], 30, 1e-12);
	CU_ASSERT_DOUBLE_EQUAL(qy[3], 50, 1e-12);
}

static void test_splitmix64(void)
{
	struct pl_rng r = { 0 };

	/* The reference sequence of splitmix64 from state 0 (Vigna's splitmix64.c). */
	CU_ASSERT_EQUAL(pl_rng_next(&r), 0xe220a8397b1dcdafull);
	CU_ASSERT_EQUAL(pl_rng_next(&r), 0x6e789e6aa1b965f4ull);
	CU_ASSERT_EQUAL(pl_rng_next(&r), 0x06c45d188009454full);
	/* Uniform below 3: each residue about a third of 30000 draws. */
	unsigned count[3] = { 0 };

	for (int i = 0; i < 30000; i++) {
		uint64_t v = pl_rng_below(&r, 3);

		CU_ASSERT_FATAL(v < 3);
		count[v]++;
	}
	for (int i = 0; i < 3; i++)
		CU_ASSERT(count[i] > 9700 && count[i] < 10300);
}

static double uniform01(struct pl_rng *r)
{
	return ((double)(pl_rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

/* Box-Muller: one standard normal value. */
static double normal(struct pl_rng *r)
{
	return sqrt(-2 * log(uniform01(r))) * cos(6.283185307179586 * uniform01(r));
}

static int stat_mean(const double *a, size_t na, const double *b, size_t nb, const void *ctx,
		     double *out, struct pl_error *err)
{
	double s = 0;

	(void)b, (void)nb, (void)ctx, (void)err;
	for (size_t i = 0; i < na; i++)
		s += a[i];
	*out = s / (double)na;
	return 0;
}

static int stat_median(const double *a, size_t na, const double *b, size_t nb, const void *ctx,
		       double *out, struct pl_error *err)
{
	(void)b, (void)nb, (void)ctx, (void)err;
	*out = pl_quantile(a, na, 0.5);
	return 0;
}

static int stat_median_difference(const double *a, size_t na, const double *b, size_t nb,
				  const void *ctx, double *out, struct pl_error *err)
{
	(void)ctx, (void)err;
	*out = pl_quantile(a, na, 0.5) - pl_quantile(b, nb, 0.5);
	return 0;
}

/*
 * Coverage: of 100 samples of 100 values, how many 95% intervals hold the
 * true value. With a fixed seed the count is fixed; a correct percentile
 * bootstrap covers about 95 (a little less at n = 100), a broken one (swapped
 * ends, no resampling, a biased index) far fewer.
 */
static unsigned coverage(int exponential, pl_statistic_fn f, double truth)
{
	struct pl_rng r = { 2013 };
	unsigned covered = 0;
	double x[100];
	struct pl_error err;

	for (int trial = 0; trial < 100; trial++) {
		struct pl_ci ci;

		for (int i = 0; i < 100; i++)
			x[i] = exponential ? -log(uniform01(&r)) : normal(&r);
		CU_ASSERT_FATAL(pl_bootstrap(x, 100, NULL, 0, f, NULL, 400, 1000 + trial, 0.95, &ci,
					     &err) == 0);
		CU_ASSERT(ci.lo <= ci.estimate && ci.estimate <= ci.hi);
		covered += ci.lo <= truth && truth <= ci.hi;
	}
	return covered;
}

static void test_bootstrap_coverage(void)
{
	unsigned normal_mean = coverage(0, stat_mean, 0);
	unsigned exp_median = coverage(1, stat_median, log(2));

	CU_ASSERT(normal_mean >= 88 && normal_mean <= 99);
	CU_ASSERT(exp_median >= 88 && exp_median <= 99);
}

static void test_bootstrap_two_samples_deterministic(void)
{
	struct pl_rng r = { 7 };
	double a[300], b[200];
	struct pl_ci one, two;
	struct pl_error err;

	for (int i = 0; i < 300; i++)
		a[i] = 50 + 10 * normal(&r);
	for (int i = 0; i < 200; i++)
		b[i] = 40 + 10 * normal(&r);
	CU_ASSERT_FATAL(pl_bootstrap(a, 300, b, 200, stat_median_difference, NULL, 1000, 25, 0.95,
				     &one, &err) == 0);
	CU_ASSERT_FATAL(pl_bootstrap(a, 300, b, 200, stat_median_difference, NULL, 1000, 25, 0.95,
				     &two, &err) == 0);
	CU_ASSERT(memcmp(&one.estimate, &two.estimate, sizeof(double)) == 0);
	CU_ASSERT(memcmp(&one.lo, &two.lo, sizeof(double)) == 0);
	CU_ASSERT(memcmp(&one.hi, &two.hi, sizeof(double)) == 0);
	/* Medians 10 apart, each with a standard error near 0.8 (sampled: 11.4): the interval holds 10, not 0. */
	CU_ASSERT(one.lo > 6 && one.lo < 10 && one.hi > 10 && one.hi < 16);
	CU_ASSERT_EQUAL(one.replicates, 1000);
	CU_ASSERT_EQUAL(one.seed, 25);
	/* Another seed: another interval, the same estimate. */
	CU_ASSERT_FATAL(pl_bootstrap(a, 300, b, 200, stat_median_difference, NULL, 1000, 26, 0.95,
				     &two, &err) == 0);
	CU_ASSERT_DOUBLE_EQUAL(two.estimate, one.estimate, 0);
	CU_ASSERT(two.lo != one.lo || two.hi != one.hi);
}

/* Pairs b = a + 10: a paired resample keeps the difference exact, an unpaired one does not. */
static void test_bootstrap_paired(void)
{
	struct pl_rng r = { 9 };
	double a[200], b[200];
	struct pl_ci paired, unpaired;
	struct pl_error err;

	for (int i = 0; i < 200; i++) {
		a[i] = 100 * uniform01(&r);
		b[i] = a[i] + 10;
	}
	CU_ASSERT_FATAL(pl_bootstrap_paired(b, a, 200, stat_median_difference, NULL, 500, 3, 0.95,
					    &paired, &err) == 0);
	CU_ASSERT_FATAL(pl_bootstrap(b, 200, a, 200, stat_median_difference, NULL, 500, 3, 0.95,
				     &unpaired, &err) == 0);
	CU_ASSERT_DOUBLE_EQUAL(paired.estimate, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(paired.lo, 10, 1e-9);
	CU_ASSERT_DOUBLE_EQUAL(paired.hi, 10, 1e-9);
	CU_ASSERT(unpaired.hi - unpaired.lo > 5);
}

static void test_bootstrap_errors(void)
{
	double a[] = { 1, 2 };
	struct pl_ci ci;
	struct pl_error err;

	CU_ASSERT(pl_bootstrap(a, 0, NULL, 0, stat_mean, NULL, 100, 1, 0.95, &ci, &err) < 0);
	CU_ASSERT(strstr(err.msg, "empty sample") != NULL);
	CU_ASSERT(pl_bootstrap(a, 2, NULL, 0, stat_mean, NULL, 1, 1, 0.95, &ci, &err) < 0);
	CU_ASSERT(strstr(err.msg, "at least 2") != NULL);
}

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	CU_pSuite s = CU_add_suite("stats", NULL, NULL);

	CU_add_test(s, "type 7 quantiles of known samples", test_quantile_type7);
	CU_add_test(s, "sort, ECDF and Q-Q points", test_sort_ecdf_qq);
	CU_add_test(s, "splitmix64 reference values, unbiased draws", test_splitmix64);
	CU_add_test(s, "bootstrap CI coverage: normal mean, exponential median",
		    test_bootstrap_coverage);
	CU_add_test(s, "bootstrap of two samples is seeded and deterministic",
		    test_bootstrap_two_samples_deterministic);
	CU_add_test(s, "paired bootstrap keeps pairs together", test_bootstrap_paired);
	CU_add_test(s, "bootstrap refuses an empty sample and too few replicates",
		    test_bootstrap_errors);
	return pl_cunit_run(CU_BRM_VERBOSE);
}
