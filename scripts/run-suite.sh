#!/bin/bash
# Runs the workload suite (issue 5 item 8) on the phone (default) or qemu: every workload with
# a replay script, one run-experiment.sh run each; then scripts/suite-verdict.sh prints one line
# per workload and writes out/suite.json (or --out FILE). `make run WORKLOAD=all` runs the suite
# through the experiment runner instead (scripts/experiments/suite.spec), and this script when a
# machine setting is given; tests/integration/test_suite.sh runs it on a few workloads. A
# workload's run log is out/<run-id>/run.log; stderr says which workload is running (a stress
# load can take minutes). With --snapshot (phone only) the first run saves the booted machine
# and every later run restores it instead of booting (emu/README.md, "Snapshots"); run-phone.sh
# refuses a snapshot of another guest build, and a refused restore (restore-refused.sh) boots
# that workload cold and saves a fresh snapshot; a run that fails after its restore is not rerun.
#
# Exit status: suite-verdict.sh's (0 when every workload met its targets, 1 otherwise), 2 usage.
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

stamp=$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$(dirname "$suite_json")"
snapshot=$top/out/suite-$stamp.snap
trap 'rm -f "$snapshot" "$snapshot.guest"' EXIT
runs=()	# TSV lines for suite-verdict.sh
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
	[ ! -e "$top/out/$run_id" ] || run_id=suite-$stamp-$n-$w	# the same workload again
	out=$top/out/$run_id
	mkdir -p "$out"
	reason=-
	boot=()
	if [ "$backend" = phone ] && [ "$use_snapshot" = 1 ]; then
		if [ -s "$snapshot" ]; then boot=(--snapshot-load "$snapshot"); else boot=(--snapshot-save "$snapshot"); fi
	fi
	echo "run-suite: [$n/${#workloads[@]}] $w on $backend${boot[0]:+ (${boot[0]#--})}" >&2
	if ! run_one "${boot[@]}" && [ "${boot[0]:-}" = --snapshot-load ] &&
		"$top/scripts/restore-refused.sh" "$out/run.log" "$snapshot"; then
		# A restore is refused where a boot need not be, e.g. when panlab-phone was rebuilt
		# since the save with another snapshot format: boot, and save again for the rest.
		echo "run-suite: the snapshot was refused (out/$run_id/run-restore.log); $w boots again" >&2
		mv "$out/run.log" "$out/run-restore.log"
		rm -f "$snapshot" "$snapshot.guest"
		run_one --snapshot-save "$snapshot" || true
	fi
	[ -f "$out/summary.json" ] || reason="run failed (out/$run_id/run.log)"
	runs+=("$w	$backend	$out	$reason")
done
printf '%s\n' "${runs[@]}" | "$top/scripts/suite-verdict.sh" --out "$suite_json"
