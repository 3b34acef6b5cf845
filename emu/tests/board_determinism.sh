#!/bin/bash
# Runs the default experiment twice on the phone and checks that the
# console, the trace and the ground truth are byte-identical.
#   usage: board_determinism.sh TOP_DIR [WORKLOAD]
set -euo pipefail
top=$1
workload=${2:-asynctask}
build=$top/build
phone=${PHONE:-$build/emu/panlab-phone}
work=$build/emu/determinism
for f in "$build/kernel/arch/arm/boot/zImage" "$build/initramfs.cpio.gz" "$build/guest_abi.sh"; do
	[ -s "$f" ] || { echo "board_determinism: $f is missing; run 'make build'" >&2; exit 1; }
done
# shellcheck source=/dev/null
. "$build/guest_abi.sh"
# Both runs use the same copies, even if a build replaces the originals.
mkdir -p "$work"
cp "$build/kernel/arch/arm/boot/zImage" "$build/initramfs.cpio.gz" "$build/kernel/System.map" "$work/"
for run in a b; do
	d=$work/$run
	mkdir -p "$d"
	"$phone" --kernel "$work/zImage" --initrd "$work/initramfs.cpio.gz" \
		--append "console=ttyAMA0 maxcpus=1 panic=-1 panlab.trace=1 panlab.workload=$workload" \
		--console "$d/console.log" --port "$PL_PORT_TRACE=$d/trace.bin" \
		--port "$PL_PORT_INPUT=$d/gt-input.txt" --port "$PL_PORT_DISPLAY=$d/gt-display.txt" \
		--ground-truth "$d/ground_truth.txt" --system-map "$work/System.map" \
		--max-virtual-s 120 2> "$d/stderr" ||
		{ echo "board_determinism: run $run failed:" >&2; head -n 3 "$d/stderr" >&2; exit 1; }
done
status=0
for f in console.log trace.bin gt-input.txt gt-display.txt ground_truth.txt; do
	if cmp -s "$work/a/$f" "$work/b/$f"; then
		echo "board_determinism: $f identical ($(wc -c < "$work/a/$f") bytes)"
	else
		echo "board_determinism: $f differs: $(cmp "$work/a/$f" "$work/b/$f" | head -n 1)" >&2
		status=1
	fi
done
exit $status
