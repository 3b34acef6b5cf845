#!/bin/bash
# Runs the workload suite (issue 5 item 8) on the phone (default) or qemu: every workload with
# a replay script, one run-experiment.sh run each, then one line per workload (transactions
# against the count its workloads/apps/NAME.expect declares, precision, recall, latency error)
# and out/suite.json, an array with one object per workload. A workload's run log is
# out/<run-id>/run.log; stderr says which workload is running (a stress load can take minutes).
# With --snapshot (phone only) the first run saves the booted machine and every later run
# restores it instead of booting (emu/README.md, "Snapshots": 0.12-0.16 s against 6.5-23 s of
# host time); `make run WORKLOAD=all` uses it. Restored runs of the network workloads once
# stopped before their scripts ended: the snapshot held an older initramfs, with older scripts.
# run-phone.sh now refuses a snapshot of another guest build, and a refused or failed restore
# boots that workload cold and saves a fresh snapshot.
#
# Each line also shows the causal pairs whose consumer the trace timestamps before its producer
# and the consumers the analyzer's skew repair moved (summary.json model.causal_pairs_out_of_order
# and model.skew_repaired); on the phone both must be 0 (emu/README.md, "Virtual time").
#
# Exit status: 0 when every run finished with precision = recall = 1, the declared number of
# transactions and (on the phone) no causal pair out of order, 1 otherwise (the table and
# suite.json are written either way), 2 usage.
set -euo pipefail

usage() {
	echo "usage: $0 [--backend phone|qemu] [--snapshot] [--out FILE] [--cores 1|2] [--governor NAME | --freq-mhz MHZ] [WORKLOAD...]" >&2
	exit 2
}

top=$(cd "$(dirname "$0")/.." && pwd)
backend=phone suite_json=$top/out/suite.json use_snapshot=0
workloads=()
machine=()	# --cores, --governor, --freq-mhz for every run (run-experiment.sh)
while [ $# -gt 0 ]; do
	case "$1" in
	--cores|--governor|--freq-mhz) machine+=("$1" "${2:-}"); shift 2 ;;
	--backend) backend=${2:-}; shift 2 ;;
	--out) suite_json=${2:-}; shift 2 ;;
	--snapshot) use_snapshot=1; shift ;;
	-*) echo "$0: unknown option '$1'" >&2; usage ;;
	*) workloads+=("$1"); shift ;;
	esac
done
[ -n "$backend" ] && [ -n "$suite_json" ] || usage
if [ ${#workloads[@]} = 0 ]; then
	for s in "$top"/replay/scripts/*.rply; do
		workloads+=("$(basename "$s" .rply)")
	done
fi

# shape_ok: the analyzer's summary.json "shape_ok" (its check of the .expect file; null when it
# did not check). Taken as is: jq's // would turn false into null.
# The count a workload declares (workloads/README.md, "Expected structure"), or null.
expected_transactions() {
	local f=$top/workloads/apps/${1%%+*}.expect	# APP+LOAD: the app's
	[ -f "$f" ] || { echo null; return; }
	awk '$1 == "transactions" { print $2; found = 1 } END { if (!found) print "null" }' "$f"
}

stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$(dirname "$suite_json")"
snapshot=$top/out/suite-$stamp.snap
trap 'rm -f "$snapshot" "$snapshot.guest"' EXIT
results=()
failed=0
printf '%-20s %12s %9s %9s %24s %6s %9s  %s\n' workload transactions precision recall \
	"latency error max/mean" shape causal status
# One run of workload $w into $out (with the given snapshot option): whether it gave a summary.
run_one() {
	rm -f "$out/summary.json"
	"$top/scripts/run-experiment.sh" --backend "$backend" --workload "$w" --run-id "$run_id" \
		"${machine[@]}" "$@" >"$out/run.log" 2>&1 && [ -f "$out/summary.json" ]
}

n=0
for w in "${workloads[@]}"; do
	n=$((n + 1))
	run_id=suite-$stamp-$w
	out=$top/out/$run_id
	mkdir -p "$out"
	expect=$(expected_transactions "$w")
	status=ok
	boot=()
	if [ "$backend" = phone ] && [ "$use_snapshot" = 1 ]; then
		if [ -s "$snapshot" ]; then boot=(--snapshot-load "$snapshot"); else boot=(--snapshot-save "$snapshot"); fi
	fi
	echo "run-suite: [$n/${#workloads[@]}] $w on $backend${boot[0]:+ (${boot[0]#--})}" >&2
	if ! run_one "${boot[@]}" && [ "${boot[0]:-}" = --snapshot-load ]; then
		# A restore fails where a boot need not, e.g. when panlab-phone was rebuilt since
		# the save with another snapshot format: boot, and save again for the rest.
		echo "run-suite: restoring failed (out/$run_id/run-restore.log); $w boots again" >&2
		mv "$out/run.log" "$out/run-restore.log"
		rm -f "$snapshot" "$snapshot.guest"
		run_one --snapshot-save "$snapshot" || true
	fi
	[ -f "$out/summary.json" ] || status="run failed (out/$run_id/run.log)"
	if [ "$status" = ok ]; then
		obj=$(jq -c --arg w "$w" --arg id "$run_id" --argjson expect "$expect" '{
			workload: $w, run_id: $id, inference, transactions, expected_transactions: $expect,
			precision, recall, latency_error_ns_max: .latency_error_ns.max,
			latency_error_ns_mean: .latency_error_ns.mean,
			match_rule_counts, unreadable_frames,
			shape_ok: .shape_ok,
			causal_pairs_out_of_order: .model.causal_pairs_out_of_order,
			skew_repaired: .model.skew_repaired,
			status: "ok" }' "$out/summary.json")
		# Kernel-only inference (the unmodified apps of workloads/oss) is held to
		# the issue's target, 0.95; the platform's apps to exact matching.
		if ! jq -e --arg b "$backend" '(if .inference == "kernel-only" then .precision >= 0.95 and .recall >= 0.95
			else .precision == 1 and .recall == 1 end) and
			(.expected_transactions == null or .expected_transactions == .transactions) and
			.shape_ok != false and ($b != "phone" or
			(.causal_pairs_out_of_order == 0 and .skew_repaired == 0))' <<<"$obj" >/dev/null; then
			status="mismatch"
			obj=$(jq -c '.status = "mismatch"' <<<"$obj")
		fi
	else
		obj=$(jq -nc --arg w "$w" --arg id "$run_id" --argjson expect "$expect" --arg s "$status" '{
			workload: $w, run_id: $id, inference: null, transactions: null, expected_transactions: $expect,
			precision: null, recall: null, latency_error_ns_max: null,
			latency_error_ns_mean: null, match_rule_counts: null, unreadable_frames: null,
			shape_ok: null, causal_pairs_out_of_order: null, skew_repaired: null, status: $s }')
	fi
	[ "$status" = ok ] || failed=1
	results+=("$obj")
	jq -r '[.workload,
		"\(.transactions // "-")/\(.expected_transactions // "?")",
		(if .precision == null then "-" else "\(.precision * 1000 | round / 1000)" end),
		(if .recall == null then "-" else "\(.recall * 1000 | round / 1000)" end),
		(if .latency_error_ns_max == null then "-" else
			"\(.latency_error_ns_max / 1e3 | round)/\(.latency_error_ns_mean / 1e3 | round) us" end),
		(if .shape_ok == null then "-" elif .shape_ok then "ok" else "FAIL" end),
		"\(.causal_pairs_out_of_order // "-")/\(.skew_repaired // "-")",
		.status] | @tsv' <<<"$obj" |
		awk -F'\t' '{ printf "%-20s %12s %9s %9s %24s %6s %9s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }'
done
printf '%s\n' "${results[@]}" | jq -s . >"$suite_json"
echo "suite: ${#workloads[@]} workloads, results in ${suite_json#"$top"/}"
exit $failed
