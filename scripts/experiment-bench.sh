#!/bin/bash
# `make bench`: the experiment runner's throughput. One matrix (BENCH_SPEC_WORKLOADS traced and
# untraced, twice: 4 phone runs of timer by default) run with --executor local --jobs 1, then the
# same matrix under another name with --jobs N (the default the runner picks), BENCH_REPEATS times
# (default 3) in turn, then the N-job one again, which must skip every run. Writes
# out/bench/experiments.json: runs, jobs, and for each repetition the wall and CPU seconds (user +
# system of the experiment and everything under it) and the 1-minute load average at its start,
# for 1 job and N jobs; parallel_speedup (the 1-job walls' sum over the N-job walls' sum),
# runs_per_hour, resume_skipped and resume_wall_s; then slurm_nodes_used, slurm_runs_per_hour and
# orphans_after_timeout (below). On a shared machine the load average says how far the walls
# are the runner's: the CPU seconds stay the same when the walls do not.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage_text="usage: $0
The experiment runner's benchmark (make bench): writes out/bench/experiments.json.
BENCH_SPEC_WORKLOADS picks the workloads (default timer), BENCH_REPEATS the repetitions (default 3).
Exit status: 0 ok, 1 a run failed, 2 a usage or input error."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
case "${1:-}" in -h | --help) cli_usage 0 ;; esac
[ $# = 0 ] || cli_usage 2
json=$top/out/bench/experiments.json
workloads=${BENCH_SPEC_WORKLOADS:-timer}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$json")"

# Runs the matrix as experiment NAME (afresh, or with resume its earlier run's results) with
# the given options; sets `wall` and `cpu` (s), `load` (the 1-minute load average at the start)
# and `log`.
run_matrix() {
	local name=$1 mode=$2 TIMEFORMAT='%R %U %S' times
	shift 2
	printf 'name %s\nworkloads %s\ntrace on off\nrepetitions 2\n' "$name" "$workloads" > "$work/$name.spec"
	log=$work/$name.log
	[ "$mode" = resume ] || rm -rf "${top:?}/out/$name"
	load=$(cut -d' ' -f1 /proc/loadavg)
	{ time "$top/scripts/experiment.sh" "$work/$name.spec" --no-report "$@" > "$log" 2>&1; } 2> "$work/$name.time" ||
		{ tail -n 20 "$log"; echo "experiment-bench: $name failed" >&2; exit 1; }
	read -r wall times < "$work/$name.time"
	cpu=$(jq -n "$(tr ' ' + <<<"$times")")
}
count() { sed -n "s/^experiment $1: \([0-9]*\) runs, \([0-9]*\) skipped.*/\\$2/p" "$log"; }

repeats=${BENCH_REPEATS:-3}
[[ "$repeats" =~ ^[1-9][0-9]?$ ]] || cli_error "BENCH_REPEATS takes 1-99, got '$repeats'"
jobs_n=$("$top/scripts/experiment.sh" --default-jobs)
: > "$work/repeats.jsonl"
for r in $(seq 1 "$repeats"); do
	run_matrix bench-exp-1 fresh --jobs 1
	runs=$(count bench-exp-1 1) one="{\"wall_s\": $wall, \"cpu_s\": $cpu, \"load_avg\": $load}"
	run_matrix bench-exp-n fresh --jobs "$jobs_n"
	echo "{\"repetition\": $r, \"jobs_1\": $one, \"jobs_n\": {\"wall_s\": $wall, \"cpu_s\": $cpu, \"load_avg\": $load}}" >> "$work/repeats.jsonl"
done
run_matrix bench-exp-n resume --jobs "$jobs_n"
resume_skipped=$(count bench-exp-n 2) resume_wall=$wall

jq -s --argjson runs "$runs" --argjson jobs "$jobs_n" --argjson skipped "$resume_skipped" \
	--argjson rw "$resume_wall" --arg workloads "$workloads" '
	(map(.jobs_1.wall_s) | add) as $w1 | (map(.jobs_n.wall_s) | add) as $wn | {
	matrix: "\($workloads) x trace on/off x 2 repetitions, phone", runs: $runs, jobs: $jobs,
	repetitions: ., parallel_speedup: ($w1 / $wn),
	speedup_per_repetition: map(.jobs_1.wall_s / .jobs_n.wall_s),
	runs_per_hour: ($runs * length * 3600 / $wn),
	resume_skipped: $skipped, resume_wall_s: $rw }' "$work/repeats.jsonl" > "$json"
# The cluster's and the cleanup's figures, from their tests: slurm_nodes_used,
# slurm_runs_per_hour (test_slurm_cluster.sh, three nodes) and orphans_after_timeout
# (test_run_all.sh, a suite that times out).
for t in test_slurm_cluster test_run_all; do
	"$top/tests/integration/$t.sh" > "$work/$t.log" 2>&1 ||
		{ tail -n 20 "$work/$t.log"; echo "experiment-bench: $t failed" >&2; exit 1; }
done
jq -s '.[0] + (.[1] | {slurm_nodes_used, slurm_runs_per_hour}) + .[2]' "$json" \
	"$top/out/bench/slurm-cluster.json" "$top/out/bench/run-all-timeout.json" > "$work/experiments.json"
mv "$work/experiments.json" "$json"
jq -r '"experiments: \(.runs) runs, 1 job against \(.jobs) jobs, \(.repetitions | length) times: speedup \(.parallel_speedup | . * 100 | round / 100)x (per repetition \(.speedup_per_repetition | map(. * 100 | round / 100) | join(", ")); load average at the starts \([.repetitions[] | .jobs_1.load_avg, .jobs_n.load_avg] | map(tostring) | join(", "))); resume skipped \(.resume_skipped) in \(.resume_wall_s | . * 10 | round / 10) s; Slurm: \(.slurm_nodes_used) nodes, \(.slurm_runs_per_hour) runs/hour; \(.orphans_after_timeout) orphans after a timeout"' "$json"
