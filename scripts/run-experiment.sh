#!/bin/bash
# Runs one experiment end to end: boot the guest on a backend, replay the
# workload's script, then analyze the trace against the ground truth.
# Everything lands in out/<run-id>/; out/latest points at the newest run.
set -euo pipefail

# usage [STATUS]: the help, on stdout for --help (status 0), else on stderr.
usage() {
	local status=${1:-2}
	{
		echo "usage: $0 [--backend phone|qemu|libvirt] [--via libvirt] [--workload NAME] [--trace on|off] [--run-id ID] [--display none|sdl]"
		echo "       [--cores 1|2] [--governor NAME | --freq-mhz 350|700|920|1200]   (governor, frequency: phone only)"
		echo "       [--snapshot-save FILE | --snapshot-load FILE]   (phone: boot once for many runs)"
		echo "       [--engine fast|ref]   (phone: the CPU engine; ref is the reference interpreter)"
		echo "       [--timeout-s S]   (the run's host-time limit; default: the backend's)"
		echo "Boots the guest on the backend (default phone), replays replay/scripts/NAME.rply"
		echo "(default asynctask), analyzes the trace against the ground truth and writes"
		echo "everything to out/ID/ (out/latest points at it). --trace off runs with the tracer"
		echo "switched off; --display sdl shows the guest's screen in a window; --via libvirt runs"
		echo "the qemu machine as a libvirt domain (LIBVIRT_DEFAULT_URI picks the host)."
	} >&$((status == 0 ? 1 : 2))
	exit "$status"
}

top=$(cd "$(dirname "$0")/.." && pwd)
backend=phone workload=asynctask trace=on run_id="" display=none snapshot=() engine=() via="" timeout=()
machine=()	# --cores, --governor, --freq-mhz: checked by the backend's script
while [ $# -gt 0 ]; do
	case "$1" in
	--cores|--governor|--freq-mhz) machine+=("$1" "${2:-}"); shift 2 ;;
	--backend) backend=${2:-}; shift 2 ;;
	--via) [ "${2:-}" = libvirt ] || { echo "$0: --via takes libvirt, got '${2:-}'" >&2; exit 2; }
		via=libvirt; shift 2 ;;
	--workload) workload=${2:-}; shift 2 ;;
	--trace) trace=${2:-}; shift 2 ;;
	--run-id) run_id=${2:-}; shift 2 ;;
	--display) display=${2:-}; shift 2 ;;
	--snapshot-save|--snapshot-load) snapshot=("$1" "${2:-}"); shift 2 ;;
	--engine) engine=(--engine "${2:-}"); shift 2 ;;
	--timeout-s) timeout=(--timeout-s "${2:-}"); shift 2 ;;
	-h | --help) usage 0 ;;
	*) echo "$0: unknown option '$1'" >&2; usage ;;
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
[ -n "$run_id" ] || run_id="$workload-$backend-$(date -u +%Y%m%dT%H%M%SZ)"
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
# analyzer check each transaction's graph shape, not just its latency.
expect=()
expect_file=$top/workloads/apps/${workload%%+*}.expect
[ -f "$expect_file" ] && expect=(--expect "$expect_file")

echo "run $run_id: analyzing"
"$top/build/analyzer/panlab-analyze" --trace "$out/trace.bin" --ground-truth "$out/ground_truth.txt" \
	--out "$out" --backend "$backend" --workload "$workload" --run-id "$run_id" "${expect[@]}" \
	--sqlite "$out/model.sqlite" --symbols "$top/build/guest/bin"
ln -sfn "$run_id" "$top/out/latest"
echo "run $run_id: results in out/$run_id/ (summary.json, transactions.csv, model.sqlite)"
