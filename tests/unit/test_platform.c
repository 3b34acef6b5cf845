/* CUnit runner for the platform tests: logger, looper, executors, collector. */
#include "cunit_run.h"
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
	return pl_cunit_run(CU_BRM_VERBOSE);
}
