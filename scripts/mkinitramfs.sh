#!/bin/sh
# Packs the guest root filesystem into a gzip'd newc cpio archive:
# busybox, /init and the guest ABI's values it reads (build/guest_abi.sh),
# the armel programs in build/guest/bin, the kernel modules and the replay
# scripts (build/initramfs.cpio.gz); and, when
# scripts/guest-debs.sh has unpacked them, build/initramfs-oss.cpio.gz: the
# same archive followed by a second one with the unmodified Debian programs
# of workloads/oss (the kernel unpacks concatenated archives in turn). Their
# 80 MiB would slow every other boot, so only those apps' runs load them
# (backend-common.sh). Each archive is bit-identical for identical inputs,
# wherever the tree lives and whatever the host: entries sorted by name,
# inode numbers renumbered in that order and device numbers zero
# (cpio --reproducible; the host's inode numbers used to leak in), owner 0:0,
# modes set here rather than by the umask, every mtime SOURCE_DATE_EPOCH
# (default 0), names relative to the root, and gzip -n (no name or time).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/build
out=$build/initramfs.cpio.gz
root=$build/initramfs

busybox=/bin/busybox
# ELF e_machine (offset 18) is 0x28 for ARM.
if [ "$(od -An -tx1 -j18 -N2 "$busybox" 2>/dev/null | tr -d ' ')" != 2800 ]; then
	echo "mkinitramfs: $busybox is not busybox-static:armel; run scripts/install-deps.sh" >&2
	exit 1
fi
[ -s "$build/guest_abi.sh" ] || { echo "mkinitramfs: no $build/guest_abi.sh; run make build" >&2; exit 1; }
for f in "$build"/modules/*.ko; do
	[ -f "$f" ] || { echo "mkinitramfs: no kernel modules in $build/modules; build guest-kernel first" >&2; exit 1; }
done

rm -rf "$root"
mkdir -p "$root/bin" "$root/etc/panlab" "$root/lib/modules" "$root/replay" "$root/proc" "$root/sys" "$root/dev" "$root/run" "$root/tmp"
cp "$busybox" "$root/bin/busybox"
cp "$top/scripts/guest/init" "$root/init"
cp "$build/guest_abi.sh" "$root/etc/panlab/guest_abi.sh"
cp "$top/scripts/guest/model-constants.tsv" "$root/etc/panlab/model-constants.tsv"
# The platform and apps, and the kernel logger's guest tests.
for d in "$build/guest/bin" "$build/klog-tests/bin"; do
	if [ -d "$d" ]; then
		cp "$d"/* "$root/bin/"
	fi
done
cp "$build"/modules/*.ko "$root/lib/modules/"
cp "$top"/replay/scripts/*.rply "$root/replay/" 2>/dev/null || true
# The font app-redditnews lays its text out in (fonts-dejavu-core from workloads/sysroot).
font=usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
[ -f "$build/sysroot/$font" ] || { echo "mkinitramfs: no $build/sysroot/$font; run scripts/guest-debs.sh --sysroot" >&2; exit 1; }
mkdir -p "$root/$(dirname "$font")"
cp "$build/sysroot/$font" "$root/$font"

# DIR -> FILE: fixed modes and times, sorted, gzip'd.
pack() {
	find "$1" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
	(cd "$1" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet | gzip -n -9) > "$2"
}

find "$root" -type d -exec chmod 755 {} +
find "$root" -type f -exec chmod 644 {} +
chmod 755 "$root/init" "$root"/bin/*
pack "$root" "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(wc -c < "$out") bytes, $(find "$root" -type f | wc -l) files)"

# The unmodified Debian programs (scripts/guest-debs.sh unpacked them), each
# app's launcher as /oss/bin/app-NAME and its content in /oss/NAME; they keep
# the packages' execute bits.
oss_out=$build/initramfs-oss.cpio.gz
rm -rf "$root"
[ -d "$build/oss-root" ] || { rm -f "$oss_out"; exit 0; }
mkdir -p "$root/oss/bin"
cp -a "$build/oss-root/." "$root/"
cp "$top/workloads/oss/launch-common.sh" "$root/oss/bin/panlab-launch"
for d in "$top"/workloads/oss/*/; do
	app=$(basename "$d")
	cp "$d/launch" "$root/oss/bin/app-$app"
	[ ! -x "$d/make-content.sh" ] || "$d/make-content.sh" "$root/oss/$app"
done
find "$root" -type d -exec chmod 755 {} +
find "$root" -type f -exec chmod 644 {} +
chmod 755 "$root"/oss/bin/*
(cd "$build/oss-root" && find . -type f -perm -u+x) | while read -r f; do
	chmod 755 "$root/$f"
done
pack "$root" "$oss_out.part"
cat "$out" "$oss_out.part" > "$oss_out.tmp"
rm -f "$oss_out.part"
mv "$oss_out.tmp" "$oss_out"
echo "mkinitramfs: $oss_out ($(wc -c < "$oss_out") bytes, $(find "$root" -type f | wc -l) more files)"
rm -rf "$root"
