/* SPDX-License-Identifier: MIT */
/* CUnit runner for the analyzer tests; exits non-zero if any assertion failed. */
#include "cunit_run.h"
#include "test_analyzer.h"

int main(void)
{
	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	add_trace_io_tests();
	add_overhead_tests();
	add_verdict_tests();
	add_report_tests();
	add_findings_tests();
	add_ground_truth_tests();
	add_transaction_tests();
	add_critical_path_tests();
	add_validate_tests();
	add_queueing_tests();
	add_diagnosis_tests();
	add_aggregate_tests();
	add_native_tests();
	add_kernel_only_tests();
	add_animation_tests();
	add_display_tests();
	add_skew_tests();
	add_fixture_tests();
	add_stream_tests();
	add_energy_tests();
	add_idmap_tests();
	add_export_tests();
	add_sqlite_tests();
	add_cli_tests();
	return pl_cunit_run(CU_BRM_VERBOSE);
}
