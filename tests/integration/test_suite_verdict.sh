#!/bin/bash
# scripts/suite-verdict.sh on made-up summaries (no guest): a workload that meets every target
# is ok; one that misses the phone's latency and causality targets is a mismatch naming each;
# the same summary from qemu is ok (no such targets there); a run without a summary is a
# failure with its reason; a kernel-only app is held to P, R >= 0.95 and error mean <= 1 ms;
# out/suite.json has the fields, `inference` copied; the exit status
# is 1 when any workload is not ok, 0 when all are; a malformed run line or summary is one line
# naming it, never a verdict.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
verdict=$top/scripts/suite-verdict.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "test_suite_verdict: $*" >&2; fails=$((fails + 1)); }

# summary DIR BACKEND ERR_MEAN ERR_MAX OUT_OF_ORDER [EXTRA_JSON]
summary() {
	mkdir -p "$1"
	jq -n --arg b "$2" --argjson mean "$3" --argjson max "$4" --argjson ooo "$5" \
		--argjson extra "${6:-{\}}" '{schema: "panlab-summary 1", backend: $b, transactions: 24,
		precision: 1, recall: 1, latency_error_ns: {mean: $mean, max: $max},
		match_rule_counts: {marker: 24, window: 0}, unreadable_frames: 0, shape_ok: true,
		model: {causal_pairs: {message: 10, wakeup: 90}, causal_pairs_out_of_order: $ooo,
			causal_pairs_out_of_order_by_kind: {message: 0, wakeup: $ooo}, skew_repaired: $ooo}}
		+ $extra' > "$1/summary.json"
}
summary "$work/good" phone 8000 9000 0 '{"inference": "kernel-only"}'
summary "$work/slow" phone 379000 1200000 2
summary "$work/qemu" qemu 379000 1200000 2
printf '%s\t%s\t%s\t%s\n' asynctask phone "$work/good" - asynctask+io phone "$work/slow" - \
	asynctask qemu "$work/qemu" - timer phone "$work/none" "run failed: no result" > "$work/runs"
out=$("$verdict" --out "$work/suite.json" < "$work/runs")
status=$?
[ "$status" = 1 ] || fail "exit $status with a mismatch, expected 1"
expect_status() {
	local i=$1 want=$2 got
	got=$(jq -r ".[$i].status" "$work/suite.json")
	[ "$got" = "$want" ] || fail "workload $i: status '$got', expected '$want'"
}
expect_status 0 ok
expect_status 1 "mismatch: error mean 379 us > 100 us; error max 1200 us > 1000 us; 2 causal pairs out of order; 2 skew repaired"
expect_status 2 ok
expect_status 3 "run failed: no result"
jq -e '.[0] | .inference == "kernel-only" and .causal_pairs == 100 and .expected_transactions == 24
	and .latency_error_ns_mean == 8000 and .match_rule_counts.marker == 24
	and .causal_pairs_out_of_order_by_kind.wakeup == 0' "$work/suite.json" > /dev/null ||
	fail "the first object lacks a field: $(jq -c '.[0]' "$work/suite.json")"
jq -e '.[1] | has("inference") | not' "$work/suite.json" > /dev/null || fail "inference made up"
[ "$(grep -c '^asynctask' <<<"$out")" = 3 ] || fail "not one table line per workload: $out"
grep -q 'error mean 379 us > 100 us' <<<"$out" || fail "the table does not name the missed target"
printf '%s\t%s\t%s\t%s\n' asynctask phone "$work/good" - |
	"$verdict" --out "$work/one.json" > /dev/null || fail "exit $? when every workload is ok"

# Kernel-only apps (workloads/oss) are held to issue 14's targets: P, R >= 0.95, error mean <= 1 ms.
summary "$work/native-ok" phone 800000 1500000 0 '{"inference": "kernel-only", "precision": 0.96}'
summary "$work/native-bad" phone 1200000 1500000 0 '{"inference": "kernel-only", "precision": 0.9}'
printf '%s\t%s\t%s\t%s\n' fbi phone "$work/native-ok" - links2 phone "$work/native-bad" - |
	"$verdict" --out "$work/native.json" > /dev/null
[ "$(jq -r '.[0].status' "$work/native.json")" = ok ] ||
	fail "kernel-only within its targets: $(jq -r '.[0].status' "$work/native.json")"
[ "$(jq -r '.[1].status' "$work/native.json")" = "mismatch: precision 0.9 < 0.95; error mean 1200 us > 1000 us" ] ||
	fail "kernel-only outside its targets: $(jq -r '.[1].status' "$work/native.json")"

# Bad input: one line naming it, exit 1 or 2, no verdict file.
printf 'asynctask\tphone\t%s\n' "$work/good" | "$verdict" --out "$work/bad1.json" > /dev/null 2> "$work/err"
status=$?
[ "$status" = 2 ] && grep -q "no reason field" "$work/err" && [ ! -e "$work/bad1.json" ] ||
	fail "a 3-field run line: exit $status, $(cat "$work/err")"
mkdir -p "$work/corrupt" && echo '{"precision": ' > "$work/corrupt/summary.json"
printf 'x\tphone\t%s\t-\n' "$work/corrupt" | "$verdict" --out "$work/bad2.json" > /dev/null 2> "$work/err"
status=$?
[ "$status" = 1 ] && grep -q "$work/corrupt/summary.json: not a panlab summary" "$work/err" &&
	[ ! -e "$work/bad2.json" ] || fail "a corrupt summary: exit $status, $(cat "$work/err")"
"$verdict" --experiment "$work/nowhere" > /dev/null 2> "$work/err"
status=$?
[ "$status" = 1 ] && grep -q "nowhere/results.sqlite: no such results database" "$work/err" ||
	fail "a missing experiment: exit $status, $(cat "$work/err")"
[ "$fails" = 0 ] && echo "test_suite_verdict: ok (targets, fields, table, exit status, bad input)"
[ "$fails" = 0 ]
