#!/bin/bash
# Boots the panlab guest on stock qemu-system-arm (virt, cortex-a15, 2 cpus,
# 1 GiB) in deterministic icount mode and runs one workload session.
# Leaves in OUT: console.log, trace.bin, gt-input.txt, gt-display.txt.
set -euo pipefail
backend=qemu timeout_s=900
source "$(dirname "$0")/backend-common.sh"
cli_tool qemu-system-arm qemu-system-arm

require_built
mkdir -p "$out"
rm -f "$out"/{console.log,trace.bin,gt-input.txt,gt-display.txt}
"$top/scripts/make-sdcard.sh" "$out/sdcard.img"

# ID PORT FILE: a guest ABI port (build/guest_abi.sh) written to FILE in the run directory.
port() { echo "-chardev file,id=$1,path=$out/$3 -device virtserialport,chardev=$1,name=$2"; }

# virtio-gpu and virtio-input need virtio 1.x, which QEMU's virtio-mmio
# only offers with force-legacy off.
# icount shift=2 makes every instruction 4 ns of guest time, whatever the
# host does; sleep=off jumps over idle time instead of waiting for it.
# Determinism: -seed fixes the random seed QEMU puts in the device tree,
# the RTC follows guest time from a fixed date, and the console goes to a
# file, which never pushes back on the guest as a pipe can.
# shellcheck disable=SC2046
run_with_console qemu-system-arm \
	-M virt -cpu cortex-a15 -smp 2 -m 1024 \
	-global virtio-mmio.force-legacy=false \
	-icount shift=2,sleep=off -seed 1 -rtc base=2020-01-01T00:00:00,clock=vm \
	-kernel "$kernel" -initrd "$initrd" -append "$(guest_cmdline)" \
	-no-reboot -monitor none -nic none \
	-chardev file,id=console,path="$out/console.log" -serial chardev:console \
	-display "$display" \
	-device virtio-gpu-device,xres=480,yres=800 \
	-device virtio-tablet-device -device virtio-keyboard-device \
	-drive file="$out/sdcard.img",if=none,format=raw,id=sdcard -device virtio-blk-device,drive=sdcard \
	-device virtio-serial-device \
	$(port trace "$PL_PORT_TRACE" trace.bin) $(port input "$PL_PORT_INPUT" gt-input.txt) \
	$(port display "$PL_PORT_DISPLAY" gt-display.txt)
check_result
