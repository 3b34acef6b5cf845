#!/bin/bash
# The guest image rebuilds bit for bit: the tree's sources are copied into a second
# directory, at a longer path, and built there from scratch (replay library, platform and apps,
# kernel logger module and its guest tests, the guest ABI's shell values, initramfs, SD card);
# the initramfs and SD card must hash the same as this tree's, and so must the snapshot guard's
# hash of kernel, initramfs and System.map (run-phone.sh FILE.guest), so a snapshot saved from
# one build loads in the other.
# The kernel is the copy's own: this tree's kernel objects are copied, and the copy builds init/
# and links vmlinux, System.map and zImage again from them (make relink-kernel); the fixed
# KBUILD_BUILD_* in guest-kernel/Makefile keep the banner the same. Compiling every kernel
# object again would take minutes: that is make repro-check.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
for f in "$build/initramfs.cpio.gz" "$build/kernel/arch/arm/boot/zImage" "$build/src.stamp" \
	"$build/kernel.stamp"; do
	[ -s "$f" ] || [ -f "$f" ] || { echo "test_reproducible: $f is missing; run 'make build'" >&2; exit 1; }
done
work=$(mktemp -d /tmp/panlab-repro.XXXXXX)
trap 'rm -rf "$work"' EXIT
copy=$work/another/checkout/of/panlab
mkdir -p "$copy/build"
# Tracked and new source files as they are now, with their times, so the kernel stamps below
# stay newer than the patches and config and make does not rebuild the kernel.
(cd "$top" && git ls-files -z --cached --others --exclude-standard |
	xargs -0 cp -p --parents -t "$copy")
ln -s "$build/src" "$copy/build/src"
cp -a "$build/kernel" "$copy/build/kernel"
cp -p "$build/src.stamp" "$build/kernel.stamp" "$copy/build/"

echo "test_reproducible: building the guest image again in $copy"
log=$work/build.log
start=$(date +%s)
{
	make --no-print-directory -C "$copy/guest-kernel" relink-kernel JOBS=2 &&
	make --no-print-directory -C "$copy/guest-kernel" modules tests JOBS=2 &&
	make --no-print-directory -C "$copy/replay" all &&
	make --no-print-directory -C "$copy/workloads" all &&
	make --no-print-directory -C "$copy" build/guest_abi.sh &&
	"$copy/scripts/mkinitramfs.sh"
} > "$log" 2>&1 || { tail -n 20 "$log"; echo "test_reproducible: the second build failed" >&2; exit 1; }
# The copy's kernel image and map were written by this build, not copied.
for f in arch/arm/boot/zImage System.map; do
	[ "$(stat -c %Y "$copy/build/kernel/$f")" -ge "$start" ] ||
		{ echo "test_reproducible: the copy's $f was not built again" >&2; exit 1; }
done
"$top/scripts/make-sdcard.sh" "$work/sdcard-a.img"
"$copy/scripts/make-sdcard.sh" "$work/sdcard-b.img"

status=0
same() {
	local what=$1 a=$2 b=$3 ha hb
	ha=$(sha256sum < "$a" | cut -c1-64)
	hb=$(sha256sum < "$b" | cut -c1-64)
	if [ "$ha" = "$hb" ]; then
		echo "test_reproducible: $what identical ($(wc -c < "$a") bytes, sha256 ${ha:0:16})"
	else
		echo "test_reproducible: $what differs: ${ha:0:16} here, ${hb:0:16} in the copy" >&2
		status=1
	fi
}
same "kernel logger module" "$build/modules/panlab_klog.ko" "$copy/build/modules/panlab_klog.ko"
same initramfs "$build/initramfs.cpio.gz" "$copy/build/initramfs.cpio.gz"
same "SD card" "$work/sdcard-a.img" "$work/sdcard-b.img"
guard() { cat "$1/kernel/arch/arm/boot/zImage" "$1/initramfs.cpio.gz" "$1/kernel/System.map"; }
guard "$build" > "$work/guard-a"
guard "$copy/build" > "$work/guard-b"
same zImage "$build/kernel/arch/arm/boot/zImage" "$copy/build/kernel/arch/arm/boot/zImage"
same System.map "$build/kernel/System.map" "$copy/build/kernel/System.map"
same "snapshot guard input" "$work/guard-a" "$work/guard-b"
# No path of either tree is inside the image.
if zcat "$copy/build/initramfs.cpio.gz" | grep -aqF -e "$copy" -e "$top/"; then
	echo "test_reproducible: the initramfs holds a host path" >&2
	status=1
fi
exit $status
