#!/bin/bash
# The phone's SD card on the real guest: panlab-sdcard (emu/tests/guest/sdcard.c) waits for
# /dev/mmcblk0 (Linux's mmci driver on the PL181), writes 4 MiB to it with O_DIRECT, reads it
# back and compares, and checks that the PIO kept the CPUs busy at least 350 ms
# (2 x 1 Mi FIFO words at 200 ns of bus time each).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
work=$build/emu/sdcard-test.$$
trap 'rm -rf "$work"' EXIT
for f in "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz"; do
	[ -s "$f" ] || { echo "test_sdcard: $f is missing; run 'make build'" >&2; exit 1; }
done
mkdir -p "$work"
cat "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz" > "$work/initrd.gz"
"$top/scripts/run-phone.sh" --test panlab-sdcard --out "$work" --initrd "$work/initrd.gz" \
	--trace off --timeout-s 900 > "$work/run.log" 2>&1 ||
	{ tail -n 20 "$work/run.log" >&2; echo "test_sdcard: the guest test failed" >&2; exit 1; }
grep -aq '^panlab-sdcard: ok' "$work/console.log" ||
	{ grep -a 'panlab-sdcard' "$work/console.log" >&2; echo "test_sdcard: no ok from the guest" >&2; exit 1; }
echo "test_sdcard: $(grep -a '^panlab-sdcard: wrote' "$work/console.log" | tr -d '\r')"
