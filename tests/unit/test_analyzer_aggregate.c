/* SPDX-License-Identifier: MIT */
/* Groups of equal critical-path shape and their outliers above mean + 3 SD. */
#include "test_analyzer.h"

/* 21 transactions of shape "task" at 100..120 ns, the 11th at 1000 ns instead; one of shape "message". */
static void test_groups_and_outliers(void)
{
	enum { N = 22 };
	struct pl_transaction items[N] = { 0 };
	struct pl_step steps[N];
	uint64_t first[N + 1];
	struct pl_aggregates ag;

	for (uint64_t k = 0; k < N; k++) {
		items[k].latency_ns = k == 10 ? 1000 : 100 + k;
		steps[k] = (struct pl_step){ k == 21 ? PL_EDGE_MESSAGE : PL_EDGE_TASK, 0, 0 };
		first[k] = k;
	}
	first[N] = N;
	struct pl_transactions tx = { .count = N, .items = items };
	struct pl_critical_paths cp = { .count = N, .first_step = first, .steps = steps };

	pl_aggregates_build(&tx, &cp, &ag);
	CU_ASSERT_EQUAL_FATAL(ag.ngroups, 2);
	CU_ASSERT_STRING_EQUAL(ag.groups[0].shape, "task");
	CU_ASSERT_EQUAL(ag.groups[0].transactions, 21);
	CU_ASSERT_STRING_EQUAL(ag.groups[1].shape, "message");
	CU_ASSERT_EQUAL(ag.groups[1].transactions, 1);
	CU_ASSERT_EQUAL(ag.groups[1].sd_latency_ns, 0);
	CU_ASSERT_EQUAL(ag.group_of[21], 1);
	/* 100..120 with 1000 in place of 110: (2310 - 110 + 1000) / 21 = 152.38; SD 189.63. */
	CU_ASSERT_EQUAL(ag.groups[0].mean_latency_ns, 152);
	CU_ASSERT_EQUAL(ag.groups[0].sd_latency_ns, 190);
	CU_ASSERT_EQUAL(ag.outliers, 1);
	CU_ASSERT_EQUAL(ag.outlier[10], 1);
	CU_ASSERT_EQUAL(ag.groups[0].outliers, 1);
	CU_ASSERT_EQUAL(ag.outlier[21], 0);	/* a group of one is never its own outlier */
	pl_aggregates_free(&ag);
}

/*
 * The sequential scenario's two paths: input, task hop 100 us to the worker,
 * its work, message hop back, invalidate hop to the vsync's update. The
 * worker's work (300 + 800 us) tops the list; the edges sum to the latencies.
 */
static void test_top_edges(void)
{
	struct tb t;
	struct model m;
	uint64_t sum_ns = 0;

	scenario_sequential(&t);
	model_build(&t, &m);
	CU_ASSERT_FATAL(m.s.te.count > 0);
	CU_ASSERT_EQUAL(m.s.te.edges[0].kind, PL_EDGE_TEMPORAL);
	CU_ASSERT_EQUAL(m.s.te.edges[0].from_tid, 101);
	CU_ASSERT_EQUAL(m.s.te.edges[0].steps, 2);
	CU_ASSERT_EQUAL(m.s.te.edges[0].total_ns, 1100000);
	CU_ASSERT_EQUAL(m.s.te.edges[0].max_ns, 800000);
	for (uint64_t i = 0; i < m.s.te.count; i++)
		sum_ns += m.s.te.edges[i].total_ns;
	CU_ASSERT_EQUAL(sum_ns, m.s.tx.items[0].latency_ns + m.s.tx.items[1].latency_ns);
	model_free(&m);
}

void add_aggregate_tests(void)
{
	CU_pSuite s = CU_add_suite("aggregate", NULL, NULL);

	CU_add_test(s, "shape groups and outliers", test_groups_and_outliers);
	CU_add_test(s, "top critical-path edges", test_top_edges);
}
