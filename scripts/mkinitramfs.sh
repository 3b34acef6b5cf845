#!/bin/sh
# Packs the guest root filesystem into a gzip'd newc cpio archive:
# busybox, /init, the armel programs in build/guest/bin, the kernel modules,
# the replay scripts and the unmodified Debian programs of workloads/oss.
# The archive is bit-identical for identical inputs,
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
for f in "$build"/modules/*.ko; do
	[ -f "$f" ] || { echo "mkinitramfs: no kernel modules in $build/modules; build guest-kernel first" >&2; exit 1; }
done

rm -rf "$root"
mkdir -p "$root/bin" "$root/lib/modules" "$root/replay" "$root/proc" "$root/sys" "$root/dev" "$root/run" "$root/tmp"
cp "$busybox" "$root/bin/busybox"
cp "$top/scripts/guest/init" "$root/init"
# The platform and apps, and the kernel logger's guest tests.
for d in "$build/guest/bin" "$build/klog-tests/bin"; do
	if [ -d "$d" ]; then
		cp "$d"/* "$root/bin/"
	fi
done
cp "$build"/modules/*.ko "$root/lib/modules/"
cp "$top"/replay/scripts/*.rply "$root/replay/" 2>/dev/null || true
# The unmodified Debian programs (scripts/guest-debs.sh unpacked them), each
# app's launcher as /oss/bin/app-NAME and its content in /oss/NAME.
if [ -d "$build/oss-root" ]; then
	cp -a "$build/oss-root/." "$root/"
	mkdir -p "$root/oss/bin"
	cp "$top/workloads/oss/launch-common.sh" "$root/oss/bin/panlab-launch"
	for d in "$top"/workloads/oss/*/; do
		app=$(basename "$d")
		cp "$d/launch" "$root/oss/bin/app-$app"
		[ ! -x "$d/make-content.sh" ] || "$d/make-content.sh" "$root/oss/$app"
	done
fi

find "$root" -type d -exec chmod 755 {} +
find "$root" -type f -exec chmod 644 {} +
chmod 755 "$root/init" "$root"/bin/*
# The Debian programs, their loader and helpers keep the package's execute bits.
if [ -d "$build/oss-root" ]; then
	chmod 755 "$root"/oss/bin/*
	(cd "$build/oss-root" && find . -type f -perm -u+x) | while read -r f; do
		chmod 755 "$root/$f"
	done
fi
find "$root" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
(cd "$root" && find . | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --reproducible --quiet | gzip -n -9) > "$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $out ($(wc -c < "$out") bytes, $(find "$root" -type f | wc -l) files)"
