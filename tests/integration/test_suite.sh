#!/bin/bash
# Runs the experiment runner (scripts/experiment.sh, one boot and a snapshot restored per
# workload) on the phone over seven workloads that exercise what only the phone models, then
# `panlab-analyze verdict`, and checks out/test-suite.json: one object per workload
# with the fields a verdict has, the declared transaction count met, precision and recall 1.0,
# and the declared critical-path structure (shape_ok). The six:
#   animation  the spinner is labelled an animation and its path crosses the task that ends it;
#   netfetch   TCP fetches blocking on the network (a network edge on every path);
#   sdcache    the fetched image fsync'ed to the phone's SD card through sdcardd (FUSE: a notify
#              hop to its request thread on every path, whose card I/O may be on it too);
#   service    binder calls between the cores: the phone delivers each at the sender's time,
#              so no consumer is logged before its producer and nothing needs repair;
#   condjoin   two pool tasks joined through a condition variable: the path crosses the
#              signaller's work (a notify hop; its .expect);
#   asynctask@noupdate  two taps on no view mid-script: true negatives, precision = recall = 1.
# On every one, no causal pair is out of order and the skew repair moves nothing.
#   asynctask@overlap  a second tap while the first one's AsyncTask runs: ground truth by the
#              frame marker, not by time window, and the detected latency (input to pixels)
#              within 1 ms of it on every input.
# `make run WORKLOAD=all` runs the whole suite.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
json=$top/out/test-suite.json
log=$top/out/test-suite.log
spec=$top/out/test-suite.spec
workloads=(animation netfetch sdcache service condjoin asynctask@noupdate asynctask@overlap)
printf 'name test-suite\nbackend phone\nworkloads %s\n' "${workloads[*]}" > "$spec"
rm -f "$top/out/test-suite/results.sqlite"
"$top/scripts/experiment.sh" "$spec" --jobs 1 --no-report > "$log" 2>&1 ||
	{ tail -n 30 "$log"; echo "test_suite: the suite failed on the phone; log in out/test-suite.log"; exit 1; }
"$top/build/analyzer/panlab-analyze" verdict --db "$top/out/test-suite/results.sqlite" \
	--experiment test-suite --runs-dir "$top/out" --out "$json" >> "$log" 2>&1 ||
	{ tail -n 30 "$log"; echo "test_suite: a workload missed a target; log in out/test-suite.log"; exit 1; }

check() { check_json "$json" "$2" "$1"; }
check "one object per workload" \
	'map(.workload) == ["animation", "asynctask@noupdate", "asynctask@overlap", "condjoin", "netfetch", "sdcache", "service"]'
check "every field present" 'all(.[]; has("transactions") and has("expected_transactions") and
	has("precision") and has("recall") and has("latency_error_ns_max") and has("shape_ok"))'
check "declared transaction counts" 'all(.[]; .expected_transactions != null and
	.transactions == .expected_transactions)'
check "precision and recall 1.0" 'all(.[]; .precision == 1 and .recall == 1)'
check "declared structure on every path" 'all(.[]; .shape_ok == true)'
check "no causal pair out of order, nothing repaired" \
	'all(.[]; .causal_pairs_out_of_order == 0 and .skew_repaired == 0)'
check "latency error within 1 ms" 'all(.[]; .latency_error_ns_max <= 1000000)'
check "every input's ground truth by its frame marker" \
	'all(.[]; .match_rule_counts.window == 0 and .match_rule_counts.marker == .transactions and
	.unreadable_frames == 0)'
check "one line per workload printed" \
	"$(grep -cE '^(animation|netfetch|sdcache|service|condjoin|asynctask@noupdate|asynctask@overlap) ' "$log") == ${#workloads[@]}"
echo "test_suite: ok on the phone ($(jq -r 'map("\(.workload) \(.transactions)/\(.expected_transactions)") | join(", ")' "$json"), shapes as declared)"
