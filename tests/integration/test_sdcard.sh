#!/bin/bash
# The phone's SD card on the real guest: panlab-sdcard (emu/tests/guest/sdcard.c) waits for
# /dev/mmcblk0 (Linux's mmci driver on the PL181), writes 4 MiB to it with O_DIRECT, reads it
# back and compares, and checks that the PIO kept the CPUs busy at least 350 ms
# (2 x 1 Mi FIFO words at 200 ns of bus time each).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/emu/sdcard-test.$$
trap 'rm -rf "$work"' EXIT
"$top/tests/integration/guest-test.sh" panlab-sdcard "$work" --trace off --timeout-s 900
grep -aq '^panlab-sdcard: ok' "$work/console.log" ||
	{ grep -a 'panlab-sdcard' "$work/console.log" >&2; echo "test_sdcard: no ok from the guest" >&2; exit 1; }
echo "test_sdcard: $(grep -a '^panlab-sdcard: wrote' "$work/console.log" | tr -d '\r')"
