#!/bin/bash
# The suite's verdict: one object per workload in a JSON file (default out/suite.json), one
# line per workload on stdout, and the exit status. `make run WORKLOAD=all` calls it on the
# experiment it ran (--experiment out/suite); scripts/run-suite.sh feeds it its own runs.
#
#   scripts/suite-verdict.sh [--out FILE] --experiment DIR   the runs of DIR/results.sqlite
#   scripts/suite-verdict.sh [--out FILE] < RUNS             TSV lines: workload, backend,
#                                                            run folder, - or what went wrong
#
# A workload is `ok` when its run gave a summary.json with precision = recall = 1, the
# transaction count its workloads/apps/NAME.expect declares and its declared structure, and, on
# the phone, the targets of issues 13 and 18: |detected - ground truth| mean <= 100 us and
# max <= 1 ms, no causal pair out of order and nothing moved by skew repair (a kernel-only app,
# workloads/oss: P and R >= 0.95 and error mean <= 1 ms, issue 14's targets). Otherwise its
# status names each target missed ("mismatch: recall 0.917 < 1; error max 1.2 ms > 1 ms"), or
# what went wrong with the run ("run failed: REASON"). The file is an array; every object carries the fields below, and a
# field the summary adds later (e.g. `inference`) is copied when present.
#
# Exit status: 0 every workload ok, 1 otherwise (file and table written either way), 2 usage.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage() {
	echo "usage: $0 [--out FILE] [--experiment DIR]  (without --experiment: runs as TSV on stdin)" >&2
	exit 2
}
out=$top/out/suite.json experiment=""
while [ $# -gt 0 ]; do
	case "$1" in
	--out) out=${2:-}; [ -n "$out" ] || usage; shift 2 ;;
	--experiment) experiment=${2:-}; [ -n "$experiment" ] || usage; shift 2 ;;
	*) echo "$0: unknown argument '$1'" >&2; usage ;;
	esac
done

# The runs, as TSV: workload, backend, run folder, and "-" or what went wrong.
runs() {
	if [ -z "$experiment" ]; then
		cat
		return
	fi
	local db=$experiment/results.sqlite
	# The experiment's own runs: out/<run_id>/ (scripts/experiment.sh), one per workload.
	sqlite3 -separator $'\t' "$db" "SELECT workload, backend, '$top/out/' || run_id,
		CASE status WHEN 'ok' THEN '-' WHEN 'failed' THEN 'run failed: ' || coalesce(reason, '?')
		ELSE 'not finished (' || status || ')' END
		FROM runs WHERE experiment = (SELECT experiment FROM runs WHERE run_id LIKE
		'$(basename "$experiment")/%' LIMIT 1) ORDER BY workload, run_id" ||
		{ echo "$db: not a panlab results database" >&2; exit 1; }
}

[ -z "$experiment" ] || [ -s "$experiment/results.sqlite" ] ||
	{ echo "$experiment/results.sqlite: no such results database" >&2; exit 1; }

# The count a workload declares (workloads/README.md, "Expected structure"), or null.
expected_transactions() {
	local f=$top/workloads/apps/${1%%+*}.expect	# APP+LOAD: the app's
	[ -f "$f" ] || { echo null; return; }
	awk '$1 == "transactions" { print $2; found = 1 } END { if (!found) print "null" }' "$f"
}

# One object from a run's summary.json, its status naming every target it missed.
verdict_ok() {
	jq -c --arg w "$1" --arg id "${3#"$top"/out/}" --argjson expect "$2" '
	def us: . / 1e3 | round;
	{ workload: $w, run_id: $id, backend, transactions, expected_transactions: $expect,
	  precision, recall,
	  latency_error_ns_mean: .latency_error_ns.mean, latency_error_ns_max: .latency_error_ns.max,
	  match_rule_counts, unreadable_frames, shape_ok,
	  causal_pairs: ([.model.causal_pairs[]?] | add),
	  causal_pairs_out_of_order: .model.causal_pairs_out_of_order,
	  causal_pairs_out_of_order_by_kind: .model.causal_pairs_out_of_order_by_kind,
	  skew_repaired: .model.skew_repaired }
	+ (if has("inference") then { inference } else {} end)
	# Kernel-only inference (the unmodified apps of workloads/oss) is held to issue 14 targets:
	# P and R >= 0.95, error mean <= 1 ms; the platform apps to exact matching and issue 13.
	| (.inference == "kernel-only") as $native
	| (if $native then 0.95 else 1 end) as $pr
	| (if $native then 1000000 else 100000 end) as $mean
	| .missed = [
		(if .precision < $pr then "precision \(.precision) < \($pr)" else empty end),
		(if .recall < $pr then "recall \(.recall) < \($pr)" else empty end),
		(if $expect != null and .transactions != $expect
		 then "\(.transactions) transactions, \($expect) declared" else empty end),
		(if .shape_ok == false then "structure not as declared" else empty end),
		(if .backend == "phone" then
			(if .latency_error_ns_mean == null then "no latency error measured"
			 elif .latency_error_ns_mean > $mean then "error mean \(.latency_error_ns_mean | us) us > \($mean | us) us"
			 else empty end),
			(if ($native | not) and (.latency_error_ns_max // 0) > 1000000 then "error max \(.latency_error_ns_max | us) us > 1000 us" else empty end),
			(if .causal_pairs_out_of_order != 0 then "\(.causal_pairs_out_of_order) causal pairs out of order" else empty end),
			(if .skew_repaired != 0 then "\(.skew_repaired) skew repaired" else empty end)
		 else empty end) ]
	| .status = (if .missed == [] then "ok" else "mismatch: " + (.missed | join("; ")) end)
	| del(.missed)' "$3/summary.json"
}

verdict_failed() {
	jq -nc --arg w "$1" --argjson expect "$2" --arg id "${3#"$top"/out/}" --arg b "$4" --arg r "$5" '
	{ workload: $w, run_id: $id, backend: $b, transactions: null, expected_transactions: $expect,
	  precision: null, recall: null, latency_error_ns_mean: null, latency_error_ns_max: null,
	  match_rule_counts: null, unreadable_frames: null, shape_ok: null, causal_pairs: null,
	  causal_pairs_out_of_order: null, causal_pairs_out_of_order_by_kind: null,
	  skew_repaired: null, status: $r }'
}

# One table line per object.
line() {
	jq -r 'def n3: if . == null then "-" else . * 1000 | round / 1000 | tostring end;
		def us: if . == null then "-" else . / 1e3 | round | tostring end;
		[.workload, "\(.transactions // "-")/\(.expected_transactions // "?")",
		(.precision | n3), (.recall | n3),
		"\(.latency_error_ns_mean | us)/\(.latency_error_ns_max | us)",
		(if .match_rule_counts == null then "-" else
			"\(.match_rule_counts.marker)/\(.match_rule_counts.window)" end),
		(if .shape_ok == null then "-" elif .shape_ok then "ok" else "FAIL" end),
		"\(.causal_pairs_out_of_order // "-")/\(.skew_repaired // "-")",
		.status] | @tsv' <<<"$1" |
		awk -F'\t' '{ printf "%-22s %7s %5s %5s %13s %8s %5s %7s  %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }'
}

printf '%-22s %7s %5s %5s %13s %8s %5s %7s  %s\n' workload tx P R "err mean/max" \
	marker/w shape causal status
printf '%-22s %7s %5s %5s %13s %8s %5s %7s\n' "" "" "" "" "us" "window" "" "ooo/rep"
results=() bad=0 n=0
while IFS=$'\t' read -r w backend dir reason; do
	[ -n "$w" ] || continue
	[ -n "${reason:-}" ] || { echo "$0: run line '$w' has no reason field (expected 4 TSV fields)" >&2; exit 2; }
	n=$((n + 1))
	expect=$(expected_transactions "$w")
	if [ "$reason" = - ] && [ -s "$dir/summary.json" ]; then
		obj=$(verdict_ok "$w" "$expect" "$dir") ||
			{ echo "$dir/summary.json: not a panlab summary" >&2; exit 1; }
	else
		[ "$reason" != - ] || reason="run failed: no summary.json in ${dir#"$top"/}"
		obj=$(verdict_failed "$w" "$expect" "$dir" "$backend" "$reason")
	fi
	[ "$(jq -r .status <<<"$obj")" = ok ] || bad=$((bad + 1))
	results+=("$obj")
	line "$obj"
done < <(runs)
[ "$n" -gt 0 ] || { echo "$0: no runs to judge" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
printf '%s\n' "${results[@]}" | jq -s . > "$out"
if [ "$bad" = 0 ]; then
	echo "suite: all $n workloads ok; ${out#"$top"/}"
else
	echo "suite: $bad of $n workloads missed a target (status column); ${out#"$top"/}"
fi
[ "$bad" = 0 ]
