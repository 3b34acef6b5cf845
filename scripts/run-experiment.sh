#!/bin/bash
# Runs one experiment end to end: boot the guest on a backend, replay the
# workload's script, then analyze the trace against the ground truth.
# Everything lands in out/<run-id>/; out/latest points at the newest run.
# Exit status: 0 ok, 1 failed, 2 usage, and the phone's 3 (PL_EXIT_SNAPSHOT_REFUSED,
# include/panlab/error.h) for a --snapshot-load snapshot refused before the guest ran.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
usage_text="usage: $0 [--backend phone|qemu|libvirt] [--via libvirt] [--workload NAME] [--trace on|off] [--run-id ID] [--display none|sdl]
       [--cores 1|2] [--governor NAME | --freq-mhz 350|700|920|1200]   (governor, frequency: phone only)
       [--snapshot-save FILE | --snapshot-load FILE]   (phone: boot once for many runs)
       [--engine fast|ref]   (phone: the CPU engine; ref is the reference interpreter)
       [--timeout-s S]   (the run's host-time limit; default: the backend's)
Boots the guest on the backend (default phone), replays replay/scripts/NAME.rply
(default asynctask), analyzes the trace against the ground truth and writes
everything to out/ID/ (out/latest points at it). --trace off runs with the tracer
switched off; --display sdl shows the guest's screen in a window; --via libvirt runs
the qemu machine as a libvirt domain (LIBVIRT_DEFAULT_URI picks the host).
Exit status: 0 the run passed, 1 it failed, 2 a usage or input error."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
backend=phone workload=asynctask trace=on run_id="" display=none snapshot=() engine=() via="" timeout=()
machine=()	# --cores, --governor, --freq-mhz: checked by the backend's script
while [ $# -gt 0 ]; do
	case "$1" in
	--cores|--governor|--freq-mhz) cli_need "$@"; machine+=("$1" "$2"); shift 2 ;;
	--backend) cli_need "$@"; backend=$2; shift 2 ;;
	--via) cli_need "$@"; [ "$2" = libvirt ] || cli_error "--via takes libvirt, got '$2'"
		via=libvirt; shift 2 ;;
	--workload) cli_need "$@"; workload=$2; shift 2 ;;
	--trace) cli_need "$@"; trace=$2; shift 2 ;;
	--run-id) cli_need "$@"; run_id=$2; shift 2 ;;
	--display) cli_need "$@"; display=$2; shift 2 ;;
	--snapshot-save|--snapshot-load) cli_need "$@"; snapshot=("$1" "$2"); shift 2 ;;
	--engine) cli_need "$@"; engine=(--engine "$2"); shift 2 ;;
	--timeout-s) cli_need "$@"; timeout=(--timeout-s "$2"); shift 2 ;;
	-h | --help) cli_usage 0 ;;
	*) cli_unknown "$1" ;;
	esac
done
case "$backend" in
qemu | phone | libvirt) ;;
*) echo "$0: unknown backend '$backend', expected qemu, phone or libvirt" >&2; exit 2 ;;
esac
# The qemu machine through libvirt (scripts/run-libvirt.sh; LIBVIRT_DEFAULT_URI picks the host).
if [ -n "$via" ]; then
	[ "$backend" = qemu ] || [ "$backend" = libvirt ] || { echo "$0: --via libvirt needs --backend qemu" >&2; exit 2; }
	backend=libvirt
fi
[ "${#snapshot[@]}" = 0 ] || [ "$backend" = phone ] ||
	{ echo "$0: ${snapshot[0]} needs --backend phone" >&2; exit 2; }
[ "${#engine[@]}" = 0 ] || [ "$backend" = phone ] ||
	{ echo "$0: --engine needs --backend phone" >&2; exit 2; }
[ -f "$top/replay/scripts/$workload.rply" ] ||
	{ echo "$0: unknown workload '$workload': no replay/scripts/$workload.rply" >&2; exit 2; }
# A default run-id is the workload, backend and time; a second run started in the same second in
# this checkout gets -2 (mkdir is atomic, so two runs never share a folder).
if [ -z "$run_id" ]; then
	base="$workload-$backend-$(date -u +%Y%m%dT%H%M%SZ)" n=1
	mkdir -p "$top/out"
	run_id=$base
	until mkdir "$top/out/$run_id" 2>/dev/null; do
		n=$((n + 1))
		run_id=$base-$n
	done
	# A run refused before it wrote anything leaves no empty folder.
	trap 'rmdir "$top/out/$run_id" 2>/dev/null || true' EXIT
fi
out=$top/out/$run_id

echo "run $run_id: booting the guest on $backend, workload $workload, tracing $trace${machine[*]:+, ${machine[*]}}"
"$top/scripts/run-$backend.sh" --workload "$workload" --out "$out" --trace "$trace" --display "$display" \
	"${machine[@]}" "${snapshot[@]}" "${engine[@]}" "${timeout[@]}"

# On qemu the two ground-truth ports are written by different guest
# processes: the injector's (which starts with the format line) and the
# compositor's; the analyzer orders the lines by time. The phone writes
# ground_truth.txt itself, from its devices.
if [ "$backend" != phone ]; then
	cat "$out/gt-input.txt" "$out/gt-display.txt" > "$out/ground_truth.txt"
fi

# A workload's declared structure (APP+LOAD runs use the app's) lets the
# analyzer check each transaction's graph shape, not just its latency. An
# untraced run has no transactions to check.
expect=()
expect_file=$top/replay/scripts/$("$top/build/replay/host/panlab-replay" workload "$workload" expect).expect
[ -f "$expect_file" ] && [ "$trace" = on ] && expect=(--expect "$expect_file")

echo "run $run_id: analyzing"
# The run's model holds this run only: a reused folder's older file (perhaps another build's schema) goes.
rm -f "$out/model.sqlite"
"$top/build/analyzer/panlab-analyze" --trace "$out/trace.bin" --ground-truth "$out/ground_truth.txt" \
	--out "$out" --backend "$backend" --workload "$workload" --run-id "$run_id" "${expect[@]}" \
	--sqlite "$out/model.sqlite" --symbols "$top/build/guest/bin"
ln -sfn "$run_id" "$top/out/latest"
echo "run $run_id: results in out/$run_id/ (summary.json, transactions.csv, model.sqlite)"
