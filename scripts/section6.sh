#!/bin/bash
# Panappticon section 6 on the phone (`make section6`). Orchestration only:
# 1. scripts/experiment.sh runs the spec (default scripts/experiments/section6.spec: one workload
#    in the four configurations, 1 or 2 cores x DVFS on or off), two configurations at a time,
#    with progress and an ETA, on the local or the Slurm executor, into out/NAME/results.sqlite;
# 2. the spec's c1-on configuration (1 core, interactive) runs once more as experiment
#    NAME-repeat, for the determinism check;
# 3. `panlab-analyze findings` computes everything from the database into out/NAME/:
#    findings.json and findings.md (the six findings with bootstrap CIs and the reproduction
#    rules, led by the model constants), energy.md (Table 5), breakdown.md (Table 4),
#    cdf.tsv/cdf.svg (Fig. 9), qq.tsv/qq.svg (Fig. 10); it fails if the two c1-on runs differ;
#    and the bench file (default out/bench/section6.json): host seconds per virtual second,
#    this command's wall time, taps per configuration.
# Model constants: the analyzer's own, plus every build/*/model-constants.tsv a component writes
# (analyzer/README.md "Section 6 findings").
# Usage: scripts/section6.sh [--spec FILE] [--executor local|slurm] [--bench FILE] [--report-only]
#   --report-only  the findings again from the databases, without running anything
# Exit status: 0 findings written (reproduced or not), 1 a run or the findings failed, 2 usage.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
analyze=$top/build/analyzer/panlab-analyze
spec=$top/scripts/experiments/section6.spec
executor=local
bench=$top/out/bench/section6.json
report_only=0

usage_text="usage: $0 [--spec FILE] [--executor local|slurm] [--bench FILE] [--report-only]
Runs Panappticon's section 6 (default scripts/experiments/section6.spec) and writes its findings,
tables and plots into out/NAME/ and the bench into out/bench/section6.json.
Exit status: 0 findings written (reproduced or not), 1 a run or the findings failed, 2 usage."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	-h | --help) cli_usage 0 ;;
	--spec) cli_need "$@"; spec=$2; shift 2 ;;
	--executor) cli_need "$@"; executor=$2; shift 2 ;;
	--bench) cli_need "$@"; bench=$2; shift 2 ;;
	--report-only) report_only=1; shift ;;
	*) cli_unknown "$1" ;;
	esac
done
case "$executor" in local | slurm) ;; *) cli_error "--executor must be local or slurm, got '$executor'" ;; esac
[ -f "$spec" ] || { echo "$spec: no such spec file" >&2; exit 2; }
# The experiment's name, which names its folder under out/ (experiment.sh checks the rest).
name=$(sed -n 's/^name[[:space:]]\{1,\}\([A-Za-z0-9._-]\{1,\}\).*/\1/p' "$spec")
[ -n "$name" ] || { echo "$spec: no 'name' line, expected one" >&2; exit 2; }
dir=$top/out/$name
repeat_dir=$top/out/$name-repeat

if [ "$report_only" = 0 ]; then
	"$top/scripts/experiment.sh" "$spec" --executor "$executor" --jobs 2 --no-report
	# The determinism repeat: the same spec narrowed to c1-on, as its own experiment.
	mkdir -p "$dir"
	{
		grep -Ev '^[[:space:]]*(name|cores|frequency)([[:space:]]|$)' "$spec"
		echo "name $name-repeat"
		echo "cores 1"
		echo "frequency interactive"
	} > "$dir/repeat.spec"
	"$top/scripts/experiment.sh" "$dir/repeat.spec" --executor "$executor" --jobs 1 --no-report
fi

# The c1-on run of each experiment: its folder under out/ is its run id.
c1_on() {
	sqlite3 "$1/results.sqlite" "SELECT run_id FROM runs WHERE experiment = '$2' AND status = 'ok'
		AND cores = 1 AND governor = 'interactive' ORDER BY run_id LIMIT 1"
}
[ -s "$dir/results.sqlite" ] || { echo "$0: $dir/results.sqlite is missing: run $0 without --report-only" >&2; exit 1; }
args=(--db "$dir/results.sqlite" --experiment "$name" --out "$dir")
if [ -s "$repeat_dir/results.sqlite" ]; then
	first=$(c1_on "$dir" "$name") again=$(c1_on "$repeat_dir" "$name-repeat")
	if [ -z "$first" ] || [ -z "$again" ]; then
		echo "$0: no ok c1-on run in $dir or $repeat_dir, expected one in each" >&2
		exit 1
	fi
	args+=(--repeat "c1-on:$top/out/$first:$top/out/$again")
fi
for k in "$top"/build/*/model-constants.tsv; do
	[ ! -f "$k" ] || args+=(--constants "$k")
done
if [ "$report_only" = 0 ]; then
	mkdir -p "$(dirname "$bench")"
	args+=(--bench "$bench" --runs-dir "$top/out" --wall-s "$SECONDS")
fi
"$analyze" findings "${args[@]}"
echo "section6: findings, tables and plots in ${dir#"$top"/}/$([ "$report_only" = 1 ] || echo "; bench in ${bench#"$top"/}")"
