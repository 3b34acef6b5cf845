#!/bin/bash
# Runs scripts/run-suite.sh on two short workloads (a DiagDroid contention case and the timer's
# input-less updates) and checks out/test-suite.json: one object per workload with the fields
# issue 5 names, the declared transaction count met, precision and recall 1.0.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
json=$top/out/test-suite.json
mkdir -p "$top/out"
"$top/scripts/run-suite.sh" --out "$json" serialqueue timer > "$top/out/test-suite.log" 2>&1 ||
	{ cat "$top/out/test-suite.log"; echo "test_suite: the suite failed; log in out/test-suite.log"; exit 1; }

check() {
	local what=$1 expr=$2
	if [ "$(jq -r "$expr" "$json")" != true ]; then
		echo "test_suite: $what does not hold: $expr; suite.json:"
		cat "$json"
		exit 1
	fi
}
check "one object per workload" 'length == 2 and (map(.workload) == ["serialqueue", "timer"])'
check "every field present" 'all(.[]; has("transactions") and has("expected_transactions") and
	has("precision") and has("recall") and has("latency_error_ns_max") and has("shape_ok"))'
check "declared transaction counts" 'all(.[]; .transactions == .expected_transactions)'
check "precision and recall 1.0" 'all(.[]; .precision == 1 and .recall == 1)'
check "latency error bounded by two frames" 'all(.[]; .latency_error_ns_max < 40000000)'
check "one line per workload printed" "$(grep -cE '^(serialqueue|timer) ' "$top/out/test-suite.log") == 2"
echo "test_suite: ok ($(jq -r 'map("\(.workload) \(.transactions)/\(.expected_transactions)") | join(", ")' "$json"))"
