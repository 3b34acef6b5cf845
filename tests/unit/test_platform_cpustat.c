/* /proc/stat utilisation (include/panlab/cpustat.h): the idle-window rule and a real read. */
#include <CUnit/Basic.h>

#include "panlab/cpustat.h"
#include "test_platform.h"

static void test_idle_between(void)
{
	struct pl_cpu_ticks a = { .idle = 100, .total = 200 };
	struct pl_cpu_ticks b = { .idle = 195, .total = 300 };	/* 95 of 100 idle */
	CU_ASSERT_TRUE(pl_cpu_idle_between(&a, &b, 95));
	CU_ASSERT_FALSE(pl_cpu_idle_between(&a, &b, 96));
	CU_ASSERT_FALSE(pl_cpu_idle_between(&a, &a, 0));	/* no tick: no verdict */
}

static void test_read(void)
{
	struct pl_cpu_ticks t;
	CU_ASSERT_EQUAL(pl_cpu_ticks_read(&t), 0);
	CU_ASSERT(t.total >= t.idle);
}

void add_cpustat_suite(void)
{
	CU_pSuite s = CU_add_suite("cpustat", NULL, NULL);
	CU_add_test(s, "idle window", test_idle_between);
	CU_add_test(s, "read /proc/stat", test_read);
}
