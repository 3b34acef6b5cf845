#!/bin/bash
# An unmodified Debian program end to end on the phone: fbi (workloads/oss/fbi) from bookworm's
# armel package pages through pictures under replay/scripts/fbi.rply (6 keys through the console
# keyboard). It logs nothing itself, so its transactions come from kernel events alone
# (analyzer/kernel_only.c); checks them against the phone's ground truth at the issue's
# targets: precision and recall >= 0.95, mean latency error <= 1 ms, and the critical paths'
# shape replay/scripts/fbi.expect declares.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
run_id=test-oss-fbi
run_experiment "$run_id" --backend phone --workload fbi
summary=$top/out/$run_id/summary.json
check_summary "$summary" '.inference == "kernel-only"' '.inputs == 6' '.precision >= 0.95' \
	'.recall >= 0.95' '.latency_error_ns.mean <= 1000000' '.events_lost == 0' \
	'.breakdown_ns.running > 0' '.shape_ok == true'
echo "test_oss_fbi: $(jq -r '"\(.matched)/\(.inputs) matched, precision \(.precision), recall \(.recall), mean latency error \(.latency_error_ns.mean) ns"' "$summary")"
