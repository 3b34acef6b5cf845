/* SPDX-License-Identifier: MIT */
/* The id map behind every join: deletions must not lose entries that probed past them. */
#include "idmap.h"
#include "test_analyzer.h"

static void test_put_take(void)
{
	struct pl_idmap m = { 0 };
	uint64_t v;

	CU_ASSERT_FALSE(pl_idmap_get(&m, 1, 2, &v));
	CU_ASSERT_FALSE(pl_idmap_take(&m, 1, 2, &v));
	for (uint64_t i = 0; i < 5000; i++)
		pl_idmap_put(&m, i % 7, i, i * 3);
	CU_ASSERT_EQUAL(m.count, 5000);
	pl_idmap_put(&m, 3, 3, 99);	/* replaces */
	CU_ASSERT_EQUAL(m.count, 5000);
	CU_ASSERT(pl_idmap_get(&m, 3, 3, &v) && v == 99);
	/* Take every other entry, then every survivor must still be found. */
	for (uint64_t i = 0; i < 5000; i += 2)
		CU_ASSERT(pl_idmap_take(&m, i % 7, i, &v) && v == (i == 3 ? 99 : i * 3));
	CU_ASSERT_EQUAL(m.count, 2500);
	int lost = 0;

	for (uint64_t i = 0; i < 5000; i++) {
		int found = pl_idmap_get(&m, i % 7, i, &v);

		lost += (i % 2) ? !found || v != (i == 3 ? 99 : i * 3) : found;
	}
	CU_ASSERT_EQUAL(lost, 0);
	/* The two parts of the key are distinct: (1, 2) is not (2, 1). */
	pl_idmap_put(&m, 1, 2, 12);
	CU_ASSERT_FALSE(pl_idmap_get(&m, 2, 1, &v));
	pl_idmap_free(&m);
	CU_ASSERT_EQUAL(m.count, 0);
}

void add_idmap_tests(void)
{
	CU_pSuite s = CU_add_suite("idmap", NULL, NULL);

	CU_add_test(s, "put, get, take", test_put_take);
}
