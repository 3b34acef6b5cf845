#!/bin/bash
# Boots the panlab guest on the phone emulator (emu/, build/emu/panlab-phone)
# and runs one workload. The phone plays the replay script through its
# virtio-input touchscreen at exact virtual times and writes the ground
# truth at its devices, so the guest only announces when the app is ready.
# Leaves in OUT: console.log, trace.bin, ground_truth.txt.
set -euo pipefail

usage() {
	echo "usage: $0 (--workload NAME | --test PROGRAM) --out DIR [--trace on|off] [--display none|sdl]" >&2
	echo "       [--timeout-s N] [--append 'KERNEL ARGS']" >&2
	exit 2
}

top=$(cd "$(dirname "$0")/.." && pwd)
workload="" guest_test="" out="" trace=1 display=none timeout_s=1800 append=""
while [ $# -gt 0 ]; do
	case "$1" in
	--workload) workload=${2:-}; shift 2 ;;
	--test) guest_test=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--append) append=${2:-}; shift 2 ;;
	--trace) case "${2:-}" in on) trace=1 ;; off) trace=0 ;; *) usage ;; esac; shift 2 ;;
	--display) case "${2:-}" in none|sdl) display=$2 ;; *) usage ;; esac; shift 2 ;;
	--timeout-s) timeout_s=${2:-}; shift 2 ;;
	*) echo "$0: unknown option '$1'" >&2; usage ;;
	esac
done
[ -n "$workload$guest_test" ] && [ -n "$out" ] || usage
[[ "$timeout_s" =~ ^[0-9]+$ ]] || { echo "$0: --timeout-s takes whole seconds, got '$timeout_s'" >&2; exit 2; }

phone=$top/build/emu/panlab-phone
kernel=$top/build/kernel/arch/arm/boot/zImage
initrd=$top/build/initramfs.cpio.gz
for f in "$phone" "$kernel" "$initrd"; do
	[ -s "$f" ] || { echo "$0: $f is missing; run 'make build'" >&2; exit 1; }
done
mkdir -p "$out"
rm -f "$out"/{console.log,trace.bin,ground_truth.txt}
"$top/scripts/make-sdcard.sh" "$out/sdcard.img"

cmdline="console=ttyAMA0 maxcpus=1 panic=-1 quiet panlab.trace=$trace panlab.injector=host"
replay=()
if [ -n "$workload" ]; then
	cmdline="$cmdline panlab.workload=$workload"
	replay=(--replay "$top/replay/scripts/$workload.rply" --ground-truth "$out/ground_truth.txt")
fi
[ -n "$guest_test" ] && cmdline="$cmdline panlab.test=$guest_test"
cmdline="$cmdline $append"

start=$(date +%s.%N)
: > "$out/console.log"
tail -n +1 -f "$out/console.log" &
tail_pid=$!
set +e
timeout --foreground "$timeout_s" "$phone" --kernel "$kernel" --initrd "$initrd" --append "$cmdline" \
	--console "$out/console.log" --port panlab.trace="$out/trace.bin" --disk "$out/sdcard.img" \
	--system-map "$top/build/kernel/System.map" --display "$display" \
	"${replay[@]}" < /dev/null
status=$?
set -e
kill "$tail_pid" 2>/dev/null
wait "$tail_pid" 2>/dev/null || true
wall=$(echo "$(date +%s.%N) - $start" | bc)
echo "$wall" > "$out/host-wall-s.txt"

if [ "$status" = 124 ]; then
	echo "$0: the phone did not finish within $timeout_s s of host time; see $out/console.log" >&2
	exit 1
fi
result=$(grep -a '^PANLAB-RESULT: ' "$out/console.log" | tail -n 1 || true)
case "$result" in
"PANLAB-RESULT: OK"*) echo "phone: run finished in ${wall} s of host time" ;;
"") echo "$0: the guest stopped without a result (panlab-phone status $status); see $out/console.log" >&2; exit 1 ;;
*) echo "$0: guest reported ${result#PANLAB-RESULT: }; see $out/console.log" >&2; exit 1 ;;
esac
