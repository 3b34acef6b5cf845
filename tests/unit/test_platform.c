/* CUnit runner for the platform tests: logger, looper, executors, collector. */
#include <CUnit/Basic.h>

#include "test_platform.h"

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	add_ulog_suite();
	add_looper_suite();
	add_executor_suite();
	add_collect_suite();
	add_app_suite();
	add_redraw_suite();
	add_binder_suite();
	add_evdev_suite();
	add_spawn_suite();
	add_cpustat_suite();
	add_sdcardd_suite();
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
	CU_cleanup_registry();
	return failed || CU_get_error() != CUE_SUCCESS ? 1 : 0;
}
