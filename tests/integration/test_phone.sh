#!/bin/bash
# Runs the default experiment twice on the phone backend (emu/) and checks
# that every tap is one matched transaction and that the two runs are
# byte-identical: trace, ground truth, transactions.csv and summary.json
# (apart from the run id).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/out"

for run in test-phone-a test-phone-b; do
	"$top/scripts/run-experiment.sh" --backend phone --workload asynctask --run-id "$run" \
		> "$top/out/$run.log" 2>&1 ||
		{ tail -n 30 "$top/out/$run.log"; echo "test_phone: run $run failed; log in out/$run.log"; exit 1; }
done
a=$top/out/test-phone-a
b=$top/out/test-phone-b

summary=$a/summary.json
for check in '.inputs >= 20' '.transactions == .inputs' '.matched == .inputs' \
	'.precision == 1' '.recall == 1' '.events_lost == 0'; do
	[ "$(jq -r "$check" "$summary")" = true ] ||
		{ echo "test_phone: $check does not hold in $summary"; exit 1; }
done
for f in trace.bin ground_truth.txt transactions.csv; do
	cmp "$a/$f" "$b/$f" || { echo "test_phone: two runs gave different $f"; exit 1; }
done
if ! diff <(jq 'del(.run_id)' "$a/summary.json") <(jq 'del(.run_id)' "$b/summary.json") > /dev/null; then
	echo "test_phone: two runs gave different summary.json"
	exit 1
fi
echo "test_phone: ok ($(jq -r .transactions "$summary") transactions, precision and recall 1, two runs byte-identical)"
