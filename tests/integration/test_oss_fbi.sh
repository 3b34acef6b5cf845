#!/bin/bash
# An unmodified Debian program end to end on the phone: fbi (workloads/oss/fbi) from bookworm's
# armel package pages through pictures under replay/scripts/fbi.rply (6 keys through the console
# keyboard). It logs nothing itself, so its transactions come from kernel events alone
# (analyzer/kernel_only.c); checks them against the phone's ground truth at the issue's
# targets: precision and recall >= 0.95, mean latency error <= 1 ms.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
run_id=test-oss-fbi
mkdir -p "$top/out"
"$top/scripts/run-experiment.sh" --backend phone --workload fbi --run-id "$run_id" > "$top/out/$run_id.log" 2>&1 ||
	{ tail -n 30 "$top/out/$run_id.log"; echo "test_oss_fbi: the run failed; log in out/$run_id.log"; exit 1; }
summary=$top/out/$run_id/summary.json
for check in '.inference == "kernel-only"' '.inputs == 6' '.precision >= 0.95' '.recall >= 0.95' \
	'.latency_error_ns.mean <= 1000000' '.events_lost == 0' '.breakdown_ns.running > 0'; do
	[ "$(jq -r "$check" "$summary")" = true ] ||
		{ echo "test_oss_fbi: $check does not hold in $summary"; exit 1; }
done
echo "test_oss_fbi: $(jq -r '"\(.matched)/\(.inputs) matched, precision \(.precision), recall \(.recall), mean latency error \(.latency_error_ns.mean) ns"' "$summary")"
