#!/bin/bash
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
# Several runs may pack at once in one checkout (two `make run`s): each stages
# in a private temporary folder, any cpio or gzip error fails the pack, and a
# finished archive is renamed into place, so a reader sees the old archive or
# the new one, never a part. An archive whose inputs (the files, their modes,
# this script, SOURCE_DATE_EPOCH) hash the same as when it was packed, in
# ARCHIVE.inputs, is not packed again.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage_text="usage: $0
Packs build/initramfs.cpio.gz and, when scripts/guest-debs.sh has unpacked them,
build/initramfs-oss.cpio.gz from the build (skipped when their inputs are unchanged).
Exit status: 0 ok, 1 a pack failed, 2 a usage or input error."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
case "${1:-}" in -h | --help) cli_usage 0 ;; esac
[ $# = 0 ] || cli_usage 2
cli_tool cpio cpio
build=$top/build
out=$build/initramfs.cpio.gz
stage=$(mktemp -d "$build/initramfs.XXXXXX")
trap 'rm -rf "$stage"' EXIT
root=$stage/root

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

# inputs_hash FILE-OR-DIR...: names, modes and contents of the inputs, this script and the date.
inputs_hash() {
	{
		echo "${SOURCE_DATE_EPOCH:-0}"
		sha256sum "$0"
		find "$@" -printf '%p %y %m %l\n' | LC_ALL=C sort
		find "$@" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
	} | sha256sum | cut -d' ' -f1
}

# DIR -> FILE: fixed modes and times, sorted, gzip'd; pipefail catches a cpio or gzip error.
pack() {
	find "$1" -exec touch -h -d "@${SOURCE_DATE_EPOCH:-0}" {} +
	(cd "$1" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --reproducible --quiet | gzip -n -9) > "$2"
}

# fresh ARCHIVE HASH: ARCHIVE exists and was packed from inputs that hash to HASH.
fresh() { [ -s "$1" ] && [ "$(cat "$1.inputs" 2>/dev/null)" = "$2" ]; }

# place ARCHIVE HASH FILE: FILE becomes ARCHIVE, and HASH its inputs' record.
place() {
	mv "$3" "$1"
	echo "$2" > "$stage/inputs"
	mv "$stage/inputs" "$1.inputs"
}

font=usr/share/fonts/truetype/dejavu/DejaVuSans.ttf
[ -f "$build/sysroot/$font" ] || { echo "mkinitramfs: no $build/sysroot/$font; run scripts/guest-debs.sh --sysroot" >&2; exit 1; }
inputs=("$busybox" "$top/scripts/guest/init" "$build/guest_abi.sh" "$top/scripts/guest/model-constants.tsv"
	"$build"/modules/*.ko
	"$top"/replay/scripts/*.rply "$build/sysroot/$font")
for d in "$build/guest/bin" "$build/klog-tests/bin"; do
	[ ! -d "$d" ] || inputs+=("$d")
done
hash=$(inputs_hash "${inputs[@]}")
# The platform's archive: busybox, /init, the guest's programs, modules, scripts and font.
pack_main() {
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
	mkdir -p "$root/$(dirname "$font")"
	cp "$build/sysroot/$font" "$root/$font"

	find "$root" -type d -exec chmod 755 {} +
	find "$root" -type f -exec chmod 644 {} +
	chmod 755 "$root/init" "$root"/bin/*
	pack "$root" "$stage/initramfs.cpio.gz"
	place "$out" "$hash" "$stage/initramfs.cpio.gz"
	echo "mkinitramfs: $out ($(wc -c < "$out") bytes, $(find "$root" -type f | wc -l) files)"
	rm -rf "$root"
}
if fresh "$out" "$hash"; then
	echo "mkinitramfs: $out is up to date"
else
	pack_main
fi

# The unmodified Debian programs (scripts/guest-debs.sh unpacked them), each
# app's launcher as /oss/bin/app-NAME and its content in /oss/NAME; they keep
# the packages' execute bits.
oss_out=$build/initramfs-oss.cpio.gz
[ -d "$build/oss-root" ] || { rm -f "$oss_out" "$oss_out.inputs"; exit 0; }
oss_hash=$( { echo "$hash"; inputs_hash "$build/oss-root" "$top/workloads/oss"; } | sha256sum | cut -d' ' -f1)
if fresh "$oss_out" "$oss_hash"; then
	echo "mkinitramfs: $oss_out is up to date"
	exit 0
fi
mkdir -p "$root/oss/bin"
cp -a "$build/oss-root/." "$root/"
cp "$top/workloads/oss/launch-common.sh" "$root/oss/bin/panlab-launch"
for d in "$top"/workloads/oss/*/; do
	app=$(basename "$d")
	cp "$d/launch" "$root/oss/bin/app-$app"
	[ ! -x "$d/make-content.sh" ] || "$d/make-content.sh" "$root/oss/$app"
done
find "$root" -type d -exec chmod 755 {} +
# Fixed modes; content a make-content.sh made executable (a script a program runs) stays so.
find "$root" -type f ! -perm -u+x -exec chmod 644 {} +
find "$root/oss" -type f -perm -u+x -exec chmod 755 {} +
find "$root" -path "$root/oss" -prune -o -type f -exec chmod 644 {} +
chmod 755 "$root"/oss/bin/*
(cd "$build/oss-root" && find . -type f -perm -u+x) | while read -r f; do
	chmod 755 "$root/$f"
done
pack "$root" "$stage/oss.part"
cat "$out" "$stage/oss.part" > "$stage/initramfs-oss.cpio.gz"
place "$oss_out" "$oss_hash" "$stage/initramfs-oss.cpio.gz"
echo "mkinitramfs: $oss_out ($(wc -c < "$oss_out") bytes, $(find "$root" -type f | wc -l) more files)"
