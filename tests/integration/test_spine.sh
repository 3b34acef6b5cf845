#!/bin/bash
# Boots the guest on the qemu backend, replays the default asynctask script
# and checks the analyzer's summary: every injected tap is detected as one
# transaction and matched to its ground truth.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
run_id=test-spine
run_experiment "$run_id" --backend qemu --workload asynctask
summary=$top/out/$run_id/summary.json

check() { check_json "$summary" "$2" "$1"; }
check "at least 20 ground-truth inputs" '.inputs >= 20'
check "one detected transaction per input" '.transactions == .inputs'
check "every input matched" '.matched == .inputs'
check "precision 1.0" '.precision == 1'
check "recall 1.0" '.recall == 1'
check "events recorded" '.events > 0'
check "no events lost" '.events_lost == 0'
# Both ends measured the same way (input to pixels; the compositor reads the frame marker after
# the same flush): 7 us here on 25 Nov, where a frame slip moves trace and truth alike.
check "latency error within 1 ms" '.latency_error_ns.max < 1000000'
check "every input's ground truth by its frame marker" \
	'.match_rule_counts.marker == .inputs and .match_rule_counts.window == 0 and .unreadable_frames == 0'
echo "test_spine: ok ($(jq -r '.transactions' "$summary") transactions, max latency error $(jq -r '.latency_error_ns.max' "$summary") ns)"
