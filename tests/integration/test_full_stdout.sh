#!/bin/bash
# The main commands with stdout on a full disk (/dev/full): each must exit
# non-zero with one line on stderr that says stdout could not be written.
# Output lost without a failed exit status is the defect this catches; the
# phone boots the real guest, whose console goes to stdout, and must stop
# at its first failed flush rather than run on.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
data=$top/tests/unit/data/analyzer
analyze=$build/analyzer/panlab-analyze
replay=$build/replay/host/panlab-replay
phone=$build/emu/panlab-phone
work=$(mktemp -d /tmp/test_full_stdout.XXXXXX)
trap 'rm -rf "$work"' EXIT
for f in "$analyze" "$replay" "$phone" "$build/kernel/arch/arm/boot/zImage" \
	"$build/initramfs.cpio.gz"; do
	[ -s "$f" ] || { echo "test_full_stdout: $f is missing; run 'make build'" >&2; exit 1; }
done
failures=0

# expect NAME PATTERN COMMAND...: COMMAND with stdout on /dev/full exits
# non-zero, and its stderr is one line matching PATTERN.
expect() {
	local name=$1 pattern=$2 status=0
	shift 2
	"$@" > /dev/full 2> "$work/err" || status=$?
	if [ "$status" = 0 ]; then
		echo "test_full_stdout: FAIL: $name exited 0 with stdout on /dev/full" >&2
		failures=$((failures + 1))
	elif [ "$(wc -l < "$work/err")" != 1 ] || ! grep -q -- "$pattern" "$work/err"; then
		echo "test_full_stdout: FAIL: $name (exit $status): expected one line matching" \
			"'$pattern' on stderr, got:" >&2
		cat "$work/err" >&2
		failures=$((failures + 1))
	else
		echo "test_full_stdout: ok: $name: exit $status: $(cat "$work/err")"
	fi
}

stdout_error="stdout: cannot write"
run=(--trace "$data/qemu-asynctask.trace.bin" --ground-truth "$data/qemu-asynctask.gt"
	--backend qemu --workload asynctask --no-plots --no-trace-json)
expect "panlab-analyze (report)" "$stdout_error" "$analyze" "${run[@]}" --out "$work/run"
expect "panlab-analyze schema" "$stdout_error" "$analyze" schema
expect "panlab-analyze --help" "$stdout_error" "$analyze" --help
expect "panlab-analyze stream" "$stdout_error" \
	"$analyze" stream --trace "$data/qemu-asynctask.trace.bin" --out "$work/stream"
mkdir -p "$work/on" "$work/off"
cp "$data/qemu-asynctask.gt" "$work/on/ground_truth.txt"
cp "$data/qemu-asynctask.gt" "$work/off/ground_truth.txt"
expect "panlab-analyze overhead" "$stdout_error" \
	"$analyze" overhead --on "$work/on" --off "$work/off" --out "$work/overhead" --no-plots

script=$top/replay/scripts/asynctask.rply
expect "panlab-replay check" "$stdout_error" "$replay" check "$script"
expect "panlab-replay list" "$stdout_error" "$replay" list "$script"
expect "panlab-replay --help" "$stdout_error" "$replay" --help

expect "panlab-phone --help" "$stdout_error" "$phone" --help
expect "panlab-phone (the guest's console on stdout)" "stdout: cannot write the console" \
	"$phone" --kernel "$build/kernel/arch/arm/boot/zImage" \
	--initrd "$build/initramfs.cpio.gz" --append "console=ttyAMA0 panic=-1"
expect "scripts/run-experiment.sh --help" "write error: No space left on device" \
	"$top/scripts/run-experiment.sh" --help

[ "$failures" = 0 ] || { echo "test_full_stdout: $failures commands failed" >&2; exit 1; }
echo "test_full_stdout: ok"
