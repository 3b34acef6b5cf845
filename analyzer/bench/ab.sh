#!/bin/bash
# The analyzer's A/B: this build's panlab-bench against an older build's on the same trace,
# BENCH_REPS rounds (default 5) in turns (this, older, this, older ...), so both see the same
# load. Rates are MB per CPU second (user + system): on a shared machine the wall clock mostly
# measures the other tenants. Medians, min-max spreads and the per-round ratio come from
# benchstat; the host's CPU and load average at the start and at the end go with them.
#   usage: ab.sh NEW_BENCH OLD_BENCH TRACE JSON
set -euo pipefail
new=$1 old=$2 trace=$3 json=$4
benchstat=$(dirname "$0")/../../build/emu/benchstat
[ -x "$benchstat" ] || { echo "ab.sh: $benchstat is missing; run 'make build'" >&2; exit 1; }
[ -x "$old" ] || { echo "ab.sh: $old: not an executable panlab-bench (BENCH_AB)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
host_start=$("$benchstat" host)
rates=()
for r in $(seq "${BENCH_REPS:-5}"); do
	for b in new old; do
		bin=$new
		[ "$b" = new ] || bin=$old
		"$bin" run --trace "$trace" --json "$work/$b.json" > /dev/null ||
			{ echo "ab.sh: round $r: $bin failed on $trace" >&2; exit 1; }
		rates+=("$(jq .mb_per_cpu_s "$work/$b.json")")
	done
done
jq -n --arg old "$old" --argjson s "$("$benchstat" pairs this older "${rates[@]}")" \
	--argjson h0 "$host_start" --argjson h1 "$("$benchstat" host)" \
	'{older_build: $old, unit: "MB per CPU second", host_start: $h0, host_end: $h1} + $s' > "$json"
jq -r '"analyzer A/B (MB per CPU second, \(.this.samples | length) rounds; load \(.host_start.loadavg[0]) -> \(.host_end.loadavg[0])):",
	(["this", .this], ["older", .older], ["this/older", .ratio] | "  \(.[0]): median \(.[1].median), \(.[1].min)-\(.[1].max)\(if .[1].stable then "" else " UNSTABLE" end)")' "$json"
echo "  older build: $old; wrote $json"
