#!/bin/bash
# Runs the default experiment twice on the phone backend (emu/) and checks
# that every tap is one matched transaction and that the two runs are
# byte-identical: trace, ground truth, transactions.csv and summary.json
# (apart from the run id). A third run on the reference CPU engine
# (--engine ref) must match them too, down to the instruction count.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

for run in test-phone-a test-phone-b test-phone-ref; do
	engine=fast
	[ "$run" = test-phone-ref ] && engine=ref
	run_experiment "$run" --backend phone --workload asynctask --engine "$engine"
done
a=$top/out/test-phone-a
b=$top/out/test-phone-b

summary=$a/summary.json
check_summary "$summary" '.inputs >= 20' '.transactions == .inputs' '.matched == .inputs' \
	'.precision == 1' '.recall == 1' '.events_lost == 0'
ref=$top/out/test-phone-ref
for other in "$b" "$ref"; do
	for f in trace.bin ground_truth.txt transactions.csv console.log; do
		cmp "$a/$f" "$other/$f" || { echo "test_phone: $(basename "$other") gave a different $f"; exit 1; }
	done
	if ! diff <(jq 'del(.run_id)' "$a/summary.json") <(jq 'del(.run_id)' "$other/summary.json") > /dev/null; then
		echo "test_phone: $(basename "$other") gave a different summary.json"
		exit 1
	fi
done
# The phone's exit line counts the instructions both cores ran.
insns() { grep -o '[0-9]* instructions;' "$top/out/$1.log" | tail -n 1; }
[ -n "$(insns test-phone-a)" ] && [ "$(insns test-phone-a)" = "$(insns test-phone-ref)" ] ||
	{ echo "test_phone: fast engine ran '$(insns test-phone-a)', reference engine '$(insns test-phone-ref)'"; exit 1; }
echo "test_phone: ok ($(jq -r .transactions "$summary") transactions, precision and recall 1, two runs and the reference engine's byte-identical, $(insns test-phone-a | tr -d ";") on both engines)"
