#!/bin/bash
# Boots the panlab guest on stock qemu-system-arm (virt, cortex-a15, 2 cpus,
# 1 GiB) in deterministic icount mode and runs one workload session.
# Leaves in OUT: console.log, trace.bin, gt-input.txt, gt-display.txt.
set -euo pipefail

usage() {
	echo "usage: $0 (--workload NAME | --test PROGRAM) --out DIR [--trace on|off] [--display none|sdl]" >&2
	echo "       [--timeout-s N] [--append 'KERNEL ARGS']" >&2
	exit 2
}

top=$(cd "$(dirname "$0")/.." && pwd)
workload="" guest_test="" out="" trace=1 display=none timeout_s=900 append=""
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

kernel=$top/build/kernel/arch/arm/boot/zImage
initrd=$top/build/initramfs.cpio.gz
for f in "$kernel" "$initrd"; do
	[ -s "$f" ] || { echo "$0: $f is missing; run 'make build'" >&2; exit 1; }
done
mkdir -p "$out"
rm -f "$out"/{console.log,trace.bin,gt-input.txt,gt-display.txt,sdcard.img}

"$top/scripts/make-sdcard.sh" "$out/sdcard.img"

port() { echo "-chardev file,id=$1,path=$out/$2 -device virtserialport,chardev=$1,name=panlab.$1"; }

# virtio-gpu and virtio-input need virtio 1.x, which QEMU's virtio-mmio
# only offers with force-legacy off.
# icount shift=2 makes every instruction 4 ns of guest time, whatever the
# host does; sleep=off jumps over idle time instead of waiting for it.
# maxcpus=1 plus a hotplug of cpu1 in /init avoids the slow SMP bring-up.
cmdline="console=ttyAMA0 maxcpus=1 panic=-1 quiet panlab.trace=$trace"
[ -n "$workload" ] && cmdline="$cmdline panlab.workload=$workload"
[ -n "$guest_test" ] && cmdline="$cmdline panlab.test=$guest_test"
cmdline="$cmdline $append"
# Determinism: -seed fixes the random seed QEMU puts in the device tree,
# the RTC follows guest time from a fixed date, and the console goes to a
# file, which never pushes back on the guest as a pipe can.
start=$(date +%s.%N)
: > "$out/console.log"
tail -n +1 -f "$out/console.log" &
tail_pid=$!
set +e
timeout --foreground "$timeout_s" qemu-system-arm \
	-M virt -cpu cortex-a15 -smp 2 -m 1024 \
	-global virtio-mmio.force-legacy=false \
	-icount shift=2,sleep=off -seed 1 -rtc base=2020-01-01T00:00:00,clock=vm \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-no-reboot -monitor none -nic none \
	-chardev file,id=console,path="$out/console.log" -serial chardev:console \
	-display "$display" \
	-device virtio-gpu-device,xres=480,yres=800 \
	-device virtio-tablet-device -device virtio-keyboard-device \
	-drive file="$out/sdcard.img",if=none,format=raw,id=sdcard -device virtio-blk-device,drive=sdcard \
	-device virtio-serial-device \
	$(port trace trace.bin) $(port input gt-input.txt) $(port display gt-display.txt) \
	< /dev/null
status=$?
set -e
kill "$tail_pid" 2>/dev/null
wait "$tail_pid" 2>/dev/null || true
end=$(date +%s.%N)
wall=$(echo "$end - $start" | bc)
echo "$wall" > "$out/host-wall-s.txt"

if [ "$status" = 124 ]; then
	echo "$0: the guest made no progress for $timeout_s s of host time; see $out/console.log" >&2
	exit 1
fi
result=$(grep -a '^PANLAB-RESULT: ' "$out/console.log" | tail -n 1 || true)
if grep -aq 'Kernel panic' "$out/console.log"; then
	echo "$0: guest kernel panic: $(grep -a -m1 'Kernel panic' "$out/console.log"); see $out/console.log" >&2
	exit 1
fi
case "$result" in
"PANLAB-RESULT: OK"*) echo "qemu: run finished in ${wall} s of host time" ;;
"") echo "$0: the guest stopped without a result (qemu status $status); see $out/console.log" >&2; exit 1 ;;
*) echo "$0: guest reported ${result#PANLAB-RESULT: }; see $out/console.log" >&2; exit 1 ;;
esac
