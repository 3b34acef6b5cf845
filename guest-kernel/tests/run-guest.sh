#!/bin/bash
# Boots the kernel logger's test initramfs on qemu-system-arm (the same
# machine and icount settings as scripts/run-qemu.sh) with a scratch
# virtio-blk disk, runs one guest program and checks PANLAB-RESULT.
# The initramfs holds busybox, guest-kernel/tests/init, panlab_klog.ko and
# the programs in build/klog-tests/bin. Leaves OUT/console.log.
set -euo pipefail

usage() {
	echo "usage: $0 --prog NAME [--arg ARG] [--bytes N] [--cpu1 0|1] --out DIR [--timeout-s N]" >&2
	exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$top/build
prog="" arg="" bytes=31457280 cpu1=1 out="" timeout_s=900
while [ $# -gt 0 ]; do
	case "$1" in
	--prog) prog=${2:-}; shift 2 ;;
	--arg) arg=${2:-}; shift 2 ;;
	--bytes) bytes=${2:-}; shift 2 ;;
	--cpu1) cpu1=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--timeout-s) timeout_s=${2:-}; shift 2 ;;
	*) echo "$0: unknown option '$1'" >&2; usage ;;
	esac
done
[ -n "$prog" ] && [ -n "$out" ] || usage

kernel=$build/kernel/arch/arm/boot/zImage
for f in "$kernel" "$build/modules/panlab_klog.ko" "$build/klog-tests/bin/$prog" /bin/busybox; do
	[ -s "$f" ] || { echo "$0: $f is missing; run 'make -C guest-kernel all tests'" >&2; exit 1; }
done
mkdir -p "$out"
root=$out/root
rm -rf "$root" && mkdir -p "$root/bin" "$root/lib/modules" "$root/proc" "$root/sys" "$root/dev" "$root/tmp"
cp /bin/busybox "$root/bin/busybox"
cp "$here/init" "$root/init" && chmod 755 "$root/init"
cp "$build"/klog-tests/bin/* "$root/bin/"
cp "$build/modules/panlab_klog.ko" "$root/lib/modules/"
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -n -1) > "$out/initrd.gz"
# A sparse scratch disk: the tests read it (disk IO).
# faults). qemu completes some requests before the reader gets to sleep.
# Not throttled: under icount with sleep=off, a guest waiting on a slow host
# request sees its clock jump to the next timer, even far ones.
rm -f "$out/disk.img" && truncate -s 128M "$out/disk.img"

cmdline="console=ttyAMA0 maxcpus=1 panic=-1 quiet panlab.klog_prog=$prog panlab.klog_bytes=$bytes panlab.cpu1=$cpu1"
[ -n "$arg" ] && cmdline="$cmdline panlab.klog_arg=$arg"
set +e
timeout --foreground "$timeout_s" qemu-system-arm \
	-M virt -cpu cortex-a15 -smp 2 -m 1024 \
	-global virtio-mmio.force-legacy=false \
	-icount shift=2,sleep=off \
	-kernel "$kernel" -initrd "$out/initrd.gz" -append "$cmdline" \
	-no-reboot -monitor none -serial stdio -nic none -display none \
	-drive file="$out/disk.img",if=none,format=raw,id=disk0 \
	-device virtio-blk-device,drive=disk0 \
	< /dev/null > "$out/console.log" 2>&1
status=$?
set -e
if [ "$status" = 124 ]; then
	echo "$0: no end after $timeout_s s of host time; see $out/console.log" >&2
	exit 1
fi
if grep -aq 'Kernel panic\|BUG:\|WARNING:\|Oops' "$out/console.log"; then
	echo "$0: guest kernel trouble: $(grep -a -m1 'Kernel panic\|BUG:\|WARNING:\|Oops' "$out/console.log"); see $out/console.log" >&2
	exit 1
fi
result=$(grep -a '^PANLAB-RESULT: ' "$out/console.log" | tail -n 1 || true)
case "$result" in
"PANLAB-RESULT: OK"*) exit 0 ;;
"") echo "$0: the guest stopped without a result (qemu status $status); see $out/console.log" >&2; exit 1 ;;
*) echo "$0: guest reported ${result#PANLAB-RESULT: }; see $out/console.log" >&2; exit 1 ;;
esac
