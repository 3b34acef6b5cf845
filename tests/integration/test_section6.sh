#!/bin/bash
# Section 6 end to end on the phone, short: scripts/section6.sh with
# scripts/experiments/section6-short.spec (8 taps in each of the four configurations, two at a
# time, then c1-on again) and checks what `panlab-analyze findings` wrote from the database:
#   - findings.json: the six findings, no null, each computed on the paper's definition with a
#     95% interval around its estimate and its rule's verdict; the determinism repeat identical;
#   - findings.md starts with the model-constants table, every group emitted; energy.md has a row per configuration;
#     breakdown.md a table per configuration; cdf.tsv and qq.tsv hold both definitions;
#   - the bench file: host seconds per virtual second, wall time, 8 taps per configuration;
#   - --report-only redoes the same findings.json byte for byte from the databases.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
spec=$top/scripts/experiments/section6-short.spec
dir=$top/out/section6-short
work=$(mktemp -d /tmp/panlab-section6.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "test_section6: $*" >&2; exit 1; }

rm -rf "$dir" "$dir-repeat"
"$top/scripts/section6.sh" --spec "$spec" --bench "$work/bench.json" > "$work/log" 2>&1 ||
	{ tail -n 30 "$work/log"; fail "section6.sh failed; log above"; }
grep -q 'ETA' "$work/log" || fail "no progress line with an ETA in the log"

json=$dir/findings.json
check() {
	[ "$(jq -r "$2" "$1")" = true ] || { cat "$1"; fail "$(basename "$1"): $3 does not hold: $2"; }
}
check "$json" '.findings | length == 6' "six findings"
check "$json" '[.. | select(. == null)] | length == 0' "no null"
check "$json" '[.findings[].id] == ["dvfs-p96-dual", "dvfs-p98-single", "qq-shape",
	"dvfs-short-negligible", "second-core-short-only", "reddit-cpu-wait"]' "the findings in order"
check "$json" 'all(.findings[]; .update.computed and .update.ci95[0] <= .update.estimate
	and .update.estimate <= .update.ci95[1] and (.reproduced | type) == "boolean")' \
	"every finding computed on the paper's definition, its estimate inside its interval"
check "$json" '.determinism.identical == true and .determinism.configuration == "c1-on"' "determinism"
check "$json" '.taps_per_configuration | all(.[]; .replayed == 8)' "8 taps per configuration"
check "$json" '.workload == "redditnews@section6-short"' "the workload from the runs"
check "$work/bench.json" '.host_s_per_virtual_s > 0 and .wall_s > 0
	and (.taps_per_configuration | length == 4 and all(.[]; . == 8))' "the bench"

head -n 3 "$dir/findings.md" | grep -q '^## Model constants' || fail "findings.md does not start with the constants table"
grep -q '^| Table 5 power | power at 1200 MHz | CPU 1600 mW, system 2260 mW |' "$dir/findings.md" ||
	fail "findings.md lacks Table 5's constants"
grep -q '^| governor tunables | min_sample_time | 60000 us |' "$dir/findings.md" ||
	fail "findings.md lacks the governor's tunables"
grep -q '^| writeback | dirty_expire_centisecs | 200 centisecs |' "$dir/findings.md" ||
	fail "findings.md lacks the writeback settings"
! grep -q 'not yet emitted' "$dir/findings.md" || fail "findings.md has a constants group no file emitted"
[ "$(grep -c '^| c[12]-o' "$dir/energy.md")" = 4 ] || fail "energy.md has no row for each configuration"
[ "$(grep -c '^### c[12]-o' "$dir/breakdown.md")" = 4 ] || fail "breakdown.md has no table for each configuration"
for def in update pixel; do
	grep -q "^$def	c1-on	" "$dir/cdf.tsv" || fail "cdf.tsv lacks the $def definition"
	grep -q "^$def	1.00	" "$dir/qq.tsv" || fail "qq.tsv lacks the $def definition"
done

cp "$json" "$work/first.json"
"$top/scripts/section6.sh" --spec "$spec" --report-only > "$work/again.log" 2>&1 ||
	{ cat "$work/again.log"; fail "--report-only failed"; }
cmp -s "$json" "$work/first.json" || fail "--report-only wrote another findings.json"
echo "test_section6: ok ($(jq -r '.reproduced' "$json") of 6 reproduce on 8 taps; $(jq -r '.host_s_per_virtual_s' "$work/bench.json") host s per virtual s)"
