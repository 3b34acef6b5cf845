#!/bin/bash
# The phone's benchmark (issue 8): boot to /init and the parallel-core
# ratio on emu/ and on QEMU icount with the same kernel and initramfs plus
# the guest test panlab-parallel. Writes out/bench/phone.json.
#   usage: board_bench.sh TOP_DIR
set -euo pipefail
top=$1
build=$top/build
out=${BENCH_OUT:-$top/out/bench}
# A private work folder: two benches may run at once on a shared host.
work=$build/emu/bench-board.$$
trap 'rm -rf "$work"' EXIT
kernel=$build/kernel/arch/arm/boot/zImage
for f in "$kernel" "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz"; do
	[ -s "$f" ] || { echo "board_bench: $f is missing; run 'make build'" >&2; exit 1; }
done
mkdir -p "$out" "$work"
cat "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz" > "$work/initrd.gz"
cmdline="console=ttyAMA0 maxcpus=1 panic=-1 panlab.trace=0 panlab.test=panlab-parallel"

ratio() { grep -a '^PARALLEL-RATIO: ' "$1" | tail -n 1 | cut -d' ' -f2 || true; }

echo "board_bench: emu/ (panlab-phone)"
phone_error=""
"${PHONE:-$build/emu/panlab-phone}" --kernel "$kernel" --initrd "$work/initrd.gz" --append "$cmdline" \
	--console "$work/phone-console.log" --max-virtual-s 120 --hang-s 3 2> "$work/phone.err" ||
	phone_error=$(head -n 1 "$work/phone.err")
[ -z "$phone_error" ] || echo "board_bench: panlab-phone failed: $phone_error" >&2
init_line=$(grep '/init started at' "$work/phone.err" || true)
boot_virtual=$(echo "$init_line" | sed 's/.*started at \([0-9.]*\) s of virtual.*/\1/')
boot_host=$(echo "$init_line" | sed 's/.*virtual time, \([0-9.]*\) s of host.*/\1/')
mips=$(grep ' MIPS$' "$work/phone.err" | sed 's/.*; \([0-9.]*\) MIPS$/\1/' || true)
ratio_emu=$(ratio "$work/phone-console.log")

echo "board_bench: QEMU icount (same kernel, initramfs and guest test)"
: > "$work/qemu-console.log"
start=$(date +%s.%N)
qemu-system-arm -M virt -cpu cortex-a15 -smp 2 -m 1024 \
	-global virtio-mmio.force-legacy=false \
	-icount shift=2,sleep=off -seed 1 -rtc base=2020-01-01T00:00:00,clock=vm \
	-kernel "$kernel" -initrd "$work/initrd.gz" -append "$cmdline" \
	-no-reboot -monitor none -nic none -display none \
	-chardev file,id=console,path="$work/qemu-console.log" -serial chardev:console \
	< /dev/null &
qpid=$!
qemu_init=""
while kill -0 "$qpid" 2>/dev/null; do
	if [ -z "$qemu_init" ] && grep -aq 'Run /init as init process' "$work/qemu-console.log"; then
		qemu_init=$(echo "$(date +%s.%N) - $start" | bc)
	fi
	sleep 0.05
done
wait "$qpid" || true
ratio_qemu=$(ratio "$work/qemu-console.log")

num() { [ -n "$1" ] && echo "$1" || echo null; }
# The phone's error, as a JSON string (backslashes and quotes escaped).
err_json=null
[ -z "$phone_error" ] || err_json="\"$(printf '%s' "$phone_error" | sed 's/[\\"]/\\&/g')\""

cat > "$out/phone.json" <<JSON
{
  "boot_to_init_s": $(num "$boot_host"),
  "boot_to_init_virtual_s": $(num "$boot_virtual"),
  "restore_s": null,
  "boot_to_init_s_qemu": $(num "$qemu_init"),
  "parallel_ratio_emu": $(num "$ratio_emu"),
  "parallel_ratio_qemu": $(num "$ratio_qemu"),
  "emu_mips": $(num "$mips"),
  "emu_error": $err_json
}
JSON
cat "$out/phone.json"
[ -z "$phone_error" ]
