/* SPDX-License-Identifier: MIT */
/*
 * The end every tests/unit runner shares: runs the registered suites through CUnit's basic
 * interface in the given mode, frees the registry and returns the runner's exit status, 0 when
 * every test ran and passed, 1 otherwise.
 */
#ifndef TEST_CUNIT_RUN_H
#define TEST_CUNIT_RUN_H

#include <CUnit/Basic.h>

static inline int pl_cunit_run(CU_BasicRunMode mode)
{
	CU_basic_set_mode(mode);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	int ok = CU_get_error() == CUE_SUCCESS && failed == 0;

	CU_cleanup_registry();
	return ok ? 0 : 1;
}

#endif /* TEST_CUNIT_RUN_H */
