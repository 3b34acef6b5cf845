#!/bin/bash
# Bad boot images on the phone (emu/): each is one line naming the file and
# a byte offset, exit 1, before the guest runs; and a guest that dies before
# /init names the image most likely at fault.
#   - a zImage whose compressed kernel has a flipped byte;
#   - an initramfs cut in half, and one cut inside a cpio entry;
#   - an initramfs with no /init: the kernel panics, the line names it.
# And the other kernel forms QEMU's -kernel takes boot the same guest to its result line: the raw
# Image and the ELF vmlinux (3 s each).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
build=$top/build
phone=$build/emu/panlab-phone
kernel=$build/kernel/arch/arm/boot/zImage
initrd=$build/initramfs.cpio.gz
forms=("$build/kernel/arch/arm/boot/Image" "$build/kernel/vmlinux")
for f in "$phone" "$kernel" "$initrd" "${forms[@]}"; do
	[ -s "$f" ] || fail "$f is missing; run 'make build'"
done
work=$(mktemp -d /tmp/panlab-boot-images.XXXXXX)
trap 'rm -rf "$work"' EXIT

# expect IMAGE PATTERN ARGS...: the phone exits 1 with one stderr line matching PATTERN.
expect() {
	local image=$1 pattern=$2 rc=0
	shift 2
	"$phone" "$@" --console "$work/$image.console" > /dev/null 2> "$work/$image.err" || rc=$?
	[ "$rc" = 1 ] || fail "$image: exit $rc, expected 1: $(head -n 3 "$work/$image.err")"
	grep -v '^\(core [0-9]:\|r[0-9 ]\|r1[0-5]\|cpsr\)' "$work/$image.err" |
		grep -v 'windows ended early\|of virtual time;' > "$work/$image.line" || true
	[ "$(wc -l < "$work/$image.line")" = 1 ] && grep -q -- "$pattern" "$work/$image.line" ||
		fail "$image: expected one line matching '$pattern', got: $(cat "$work/$image.err")"
	echo "$name: $image: $(cat "$work/$image.line")"
}

size=$(stat -c %s "$kernel")
cp "$kernel" "$work/zImage.bad"
# A byte in the middle of the compressed kernel (past the decompressor's code).
printf '\x55' | dd of="$work/zImage.bad" bs=1 seek=$((size / 2)) conv=notrunc status=none
cmp -s "$kernel" "$work/zImage.bad" && fail "the flipped byte did not change the zImage"
expect kernel "zImage.bad@[0-9]*: the compressed kernel (gzip at byte [0-9]*) is corrupt" \
	--kernel "$work/zImage.bad" --initrd "$initrd"

head -c $(($(stat -c %s "$initrd") / 2)) "$initrd" > "$work/half.cpio.gz"
expect initrd-half "half.cpio.gz@[0-9]*: the gzip data at byte 0 is corrupt: truncated" \
	--kernel "$kernel" --initrd "$work/half.cpio.gz"

gzip -dc "$initrd" > "$work/full.cpio"
head -c 100000 "$work/full.cpio" > "$work/cut.cpio"
expect initrd-cut "cut.cpio@[0-9]*: truncated cpio entry" \
	--kernel "$kernel" --initrd "$work/cut.cpio"

mkdir "$work/noinit"
echo hello > "$work/noinit/hello"
(cd "$work/noinit" && echo hello | cpio -o -H newc --quiet | gzip -n) > "$work/noinit.cpio.gz"
expect no-init "guest kernel panic at .*; before /init: most likely the initramfs $work/noinit.cpio.gz" \
	--kernel "$kernel" --initrd "$work/noinit.cpio.gz" --append "console=ttyAMA0 quiet panic=-1" \
	--max-virtual-s 60

for form in "${forms[@]}"; do
	rc=0
	"$phone" --kernel "$form" --initrd "$initrd" --console "$work/form.console" --max-virtual-s 60 \
		--append "console=ttyAMA0 quiet panic=-1 panlab.test=true" > "$work/form.err" 2>&1 || rc=$?
	[ "$rc" = 0 ] && grep -aq "OK guest test true" "$work/form.console" ||
		fail "$form: exit $rc and no 'OK guest test true' on the console: $(tail -n 3 "$work/form.err")"
	echo "$name: $(basename "$form") boots to the guest's result line"
done
echo "$name: ok"
