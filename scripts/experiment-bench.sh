#!/bin/bash
# `make bench`: the experiment runner's throughput. One matrix (BENCH_SPEC_WORKLOADS traced and
# untraced, twice: 4 phone runs of timer by default) run with --executor local --jobs 1, then the
# same matrix under another name with --jobs N (the default the runner picks), BENCH_REPS rounds
# (default 5) in turns; then the N-job one again, which must skip every run. The runner keeps
# the phone's booted snapshot in a cache across experiments (scripts/README.md, "Resume,
# snapshots, failures"), so only the first experiment on a build boots: the bench gives it a
# cache of its own, fills it with an untimed first experiment (its wall, boot included, is
# warmup_wall_s), and the rounds measure what every later experiment on the build does, the
# runs restored from the snapshot. Writes
# out/bench/experiments.json: runs, jobs, the medians over the rounds of the walls, the
# speedup and runs_per_hour (emu/tests/benchstat.c: min-max spreads, stable), each round's wall
# and CPU seconds (user + system of the experiment and everything under it, summed by
# benchstat) and 1-minute load average at its start, resume_skipped and resume_wall_s; then
# slurm_nodes_used, slurm_runs_per_hour and orphans_after_timeout (below). On a shared machine
# the CPU seconds stay the same when the walls do not.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage_text="usage: $0
The experiment runner's benchmark (make bench): writes out/bench/experiments.json.
BENCH_SPEC_WORKLOADS picks the workloads (default timer), BENCH_REPS the rounds (default 5).
Exit status: 0 ok, 1 a run failed, 2 a usage or input error."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
case "${1:-}" in -h | --help) cli_usage 0 ;; esac
[ $# = 0 ] || cli_usage 2
json=$top/out/bench/experiments.json
workloads=${BENCH_SPEC_WORKLOADS:-timer}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PANLAB_SNAPSHOTS=$work/snapshots
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
	# shellcheck disable=SC2086 # user and system seconds, two arguments
	cpu=$("$benchstat" sum $times)
}
count() { sed -n "s/^experiment $1: \([0-9]*\) runs, \([0-9]*\) skipped.*/\\$2/p" "$log"; }

# BENCH_REPS rounds (default 5), 1 job then N jobs in turns, each from scratch; the speedup is
# taken round by round (emu/tests/benchstat.c: medians, spreads, stability).
reps=${BENCH_REPS:-5}
[[ "$reps" =~ ^[1-9][0-9]?$ ]] || cli_error "BENCH_REPS takes 1-99, got '$reps'"
benchstat=$top/build/emu/benchstat
host_start=$("$benchstat" host)
jobs_n=$("$top/scripts/experiment.sh" --default-jobs)
run_matrix bench-exp-n fresh --jobs "$jobs_n"
warmup_wall=$wall
echo "experiment-bench: warm-up (the snapshot's boot and $jobs_n jobs) $warmup_wall s"
walls=() walls_1=() walls_n=() rounds=()
for r in $(seq "$reps"); do
	run_matrix bench-exp-1 fresh --jobs 1
	runs=$(count bench-exp-1 1) wall_1=$wall one="{\"wall_s\": $wall, \"cpu_s\": $cpu, \"load_avg\": $load}"
	run_matrix bench-exp-n fresh --jobs "$jobs_n"
	walls+=("$wall_1" "$wall") walls_1+=("$wall_1") walls_n+=("$wall")
	rounds+=("{\"round\": $r, \"jobs_1\": $one, \"jobs_n\": {\"wall_s\": $wall, \"cpu_s\": $cpu, \"load_avg\": $load}}")
	echo "experiment-bench: round $r/$reps: 1 job $wall_1 s, $jobs_n jobs $wall s (load $load)"
done
run_matrix bench-exp-n resume --jobs "$jobs_n"
resume_skipped=$(count bench-exp-n 2) resume_wall=$wall
pairs=$("$benchstat" pairs wall_1 wall_n "${walls[@]}")
rph_1=$("$benchstat" per-hour "$runs" "${walls_1[@]}")
rph_n=$("$benchstat" per-hour "$runs" "${walls_n[@]}")
host_end=$("$benchstat" host)

jq -n --argjson runs "$runs" --argjson jobs "$jobs_n" --argjson p "$pairs" \
	--argjson rph_1 "$rph_1" --argjson rph_n "$rph_n" \
	--argjson skipped "$resume_skipped" --argjson rw "$resume_wall" --arg workloads "$workloads" \
	--argjson warmup "$warmup_wall" \
	--argjson h0 "$host_start" --argjson h1 "$host_end" --argjson reps "$reps" \
	--argjson each "[$(IFS=,; echo "${rounds[*]}")]" '{
	matrix: "\($workloads) x trace on/off x 2 repetitions, phone", runs: $runs,
	snapshot: "cached: restored by every run; booted once, by the untimed warm-up",
	warmup_wall_s: $warmup,
	jobs_1: { jobs: 1, wall_s: $p.wall_1.median, runs_per_hour: $rph_1.median },
	jobs_n: { jobs: $jobs, wall_s: $p.wall_n.median, runs_per_hour: $rph_n.median },
	wall_s: $p.wall_n.median, runs_per_hour: $rph_n.median,
	parallel_speedup: $p.ratio.median,
	rounds: { repetitions: $reps, wall_s_jobs_1: $p.wall_1, wall_s_jobs_n: $p.wall_n,
		parallel_speedup: $p.ratio, runs_per_hour_jobs_1: $rph_1, runs_per_hour_jobs_n: $rph_n,
		stable: $p.ratio.stable, each: $each },
	host: { cpu_model: $h0.cpu_model, loadavg_start: $h0.loadavg, loadavg_end: $h1.loadavg },
	resume_skipped: $skipped, resume_wall_s: $rw }' > "$json"
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
jq -r '"experiments: \(.runs) runs, median of \(.rounds.repetitions) rounds: 1 job \(.jobs_1.wall_s | . * 10 | round / 10) s, \(.jobs_n.jobs) jobs \(.jobs_n.wall_s | . * 10 | round / 10) s: speedup \(.parallel_speedup | . * 100 | round / 100)x (per round \(.rounds.parallel_speedup.min * 100 | round / 100)-\(.rounds.parallel_speedup.max * 100 | round / 100)\(if .rounds.stable then "" else ", UNSTABLE" end)); load \(.host.loadavg_start[0] * 100 | round / 100) to \(.host.loadavg_end[0] * 100 | round / 100); resume skipped \(.resume_skipped) in \(.resume_wall_s | . * 10 | round / 10) s; Slurm: \(.slurm_nodes_used) nodes, \(.slurm_runs_per_hour) runs/hour; \(.orphans_after_timeout) orphans after a timeout"' "$json"
