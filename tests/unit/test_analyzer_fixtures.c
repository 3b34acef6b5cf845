/* SPDX-License-Identifier: MIT */
/*
 * The real qemu runs in the fixtures, one per app pattern: the breakdown
 * invariant for every transaction (its parts sum to the detected latency,
 * and with the ground-truth input-dispatch and display-pipeline segments to
 * the ground-truth latency), and what each pattern must give.
 */
#include "test_analyzer.h"

#include <stdio.h>
#include <string.h>

#include "panlab/error.h"
#include "panlab/ground_truth.h"
#include "panlab/validate.h"

struct fixture {
	const char *name;
	/* every transaction's critical-path shape, or alternatives separated by '|', or NULL */
	const char *shape;
	uint64_t animations;
};

static const struct fixture fixtures[] = {
	{ "qemu-asynctask", "task>message>invalidate", 0 },
	{ "qemu-webview", "notify>message>invalidate", 0 },
	{ "qemu-service", "task>binder>binder>message>invalidate", 0 },
	/* Animations: the path runs through the task that ends the spinner, not its frames. */
	{ "qemu-animation", "task>message>invalidate", 8 },
	{ "qemu-workerthread", "fork>message>invalidate", 0 },
	{ "qemu-asyncpool", "task>message>invalidate", 0 },
	{ "qemu-handlerthread", "message>message>invalidate", 0 },
	/* A's worker takes the lock; B's worker waits for it (a lock hop); the key draws at once. */
	{ "qemu-lockcontention",
	  "fork>message>invalidate|fork>lock>message>invalidate|invalidate", 0 },
};

/* Is shape one of the '|'-separated alternatives? */
static int one_of(const char *shape, const char *alternatives)
{
	size_t n = strlen(shape);

	for (const char *p = alternatives; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
		if (!strncmp(p, shape, n) && (p[n] == '\0' || p[n] == '|'))
			return 1;
	return 0;
}

static void check_fixture(const struct fixture *f)
{
	char path[512];
	struct pl_error err;
	struct model m;
	struct pl_ground_truth gt;
	struct pl_validation v;

	snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.trace.bin", f->name);
	CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(path, &m.trace, &err), 0);
	snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.gt", f->name);
	CU_ASSERT_EQUAL_FATAL(pl_ground_truth_read_file(path, &gt, &err), 0);
	pl_model_build(&m.trace, &m.s);
	pl_validate(&m.s.tx, &gt, &v);

	CU_ASSERT(m.s.tx.count > 0);
	CU_ASSERT_EQUAL(v.matched, v.inputs);
	CU_ASSERT_EQUAL(v.matched, m.s.tx.count);
	CU_ASSERT_EQUAL(m.s.tx.animations, f->animations);
	/* The top edges share out all critical-path time, most first. */
	uint64_t edges_ns = 0, latency_ns = 0;

	for (uint64_t i = 0; i < m.s.te.count; i++) {
		edges_ns += m.s.te.edges[i].total_ns;
		if (i)
			CU_ASSERT(m.s.te.edges[i - 1].total_ns >= m.s.te.edges[i].total_ns);
	}
	for (uint64_t k = 0; k < m.s.tx.count; k++)
		latency_ns += m.s.tx.items[k].latency_ns;
	CU_ASSERT_EQUAL(edges_ns, latency_ns);
	for (uint64_t k = 0; k < m.s.tx.count; k++) {
		uint64_t sum_ns = 0;
		char shape[128];

		for (int c = 0; c < PL_CATEGORIES; c++)
			sum_ns += m.s.bd.ns[k][c];
		CU_ASSERT_EQUAL(sum_ns, m.s.tx.items[k].latency_ns);
		sum_ns = 0;
		for (uint64_t i = m.s.bd.tx_freq_first[k]; i < m.s.bd.tx_freq_first[k + 1]; i++)
			sum_ns += m.s.bd.tx_running_ns[i];
		CU_ASSERT_EQUAL(sum_ns, m.s.bd.ns[k][PL_CAT_RUNNING]);
		if (f->shape)
			CU_ASSERT(one_of(pl_critical_path_shape(&m.s.cp, k, shape, sizeof(shape)),
					 f->shape));
	}
	for (uint64_t i = 0; i < v.nrows; i++) {
		const struct pl_row *r = &v.rows[i];

		if (r->tx == PL_NONE || !r->has_truth)
			continue;
		/* Input dispatch, the critical path and the display pipeline tile the detected
		 * latency; what ground truth differs by is the difference. */
		int64_t sum_ns = r->input_dispatch_ns + r->display_pipeline_ns;
		const struct pl_transaction *t = &m.s.tx.items[r->tx];

		for (int c = 0; c < PL_CATEGORIES; c++)
			sum_ns += (int64_t)m.s.bd.ns[r->tx][c];
		CU_ASSERT_EQUAL(sum_ns, (int64_t)t->pixels.latency_ns);
		CU_ASSERT_EQUAL((int64_t)t->pixels.latency_ns - r->difference_ns,
				(int64_t)r->truth_latency_ns);
	}
	pl_validation_free(&v);
	pl_ground_truth_free(&gt);
	model_free(&m);
}

static void test_fixtures(void)
{
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++)
		check_fixture(&fixtures[i]);
}

void add_fixture_tests(void)
{
	CU_pSuite s = CU_add_suite("fixtures", NULL, NULL);

	CU_add_test(s, "every transaction of every real run: breakdown sums, shapes, animations",
		    test_fixtures);
}
