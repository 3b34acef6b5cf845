#!/bin/bash
# The interactive governor (guest-kernel/modules/cpufreq_interactive) on the phone: the guest
# test panlab-governor (emu/tests/guest/governor.c) plays a scripted load pattern on cpu0 (idle,
# a key press, idle, fixed CPU work, idle) and checks the kernel logger's CPU_FREQUENCY records
# against what Panappticon's rules predict (R1-R7: 20 ms timer, 700 MHz boost on input,
# go_hispeed_load after idle, 60 ms min_sample_time, raising immediate). It then plays the
# pattern once per wrong tunable (negative controls), each of which the rules must reject.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
work=$build/emu/governor-test.$$
trap 'rm -rf "$work"' EXIT
for f in "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz"; do
	[ -s "$f" ] || { echo "test_governor: $f is missing; run 'make build'" >&2; exit 1; }
done
mkdir -p "$work"
cat "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz" > "$work/initrd.gz"
"$top/scripts/run-phone.sh" --test panlab-governor --out "$work" --initrd "$work/initrd.gz" \
	--timeout-s 600 > "$work/run.log" 2>&1 || {
	grep -a '^panlab-governor' "$work/console.log" >&2 || tail -n 20 "$work/run.log" >&2
	echo "test_governor: the guest test failed" >&2
	exit 1
}
grep -a "^panlab-governor: phase '" "$work/console.log" | grep -a -v ' kHz$' | tr -d '\r'
grep -aq '^panlab-governor: ok' "$work/console.log" ||
	{ echo "test_governor: no ok from the guest" >&2; exit 1; }
echo "test_governor: $(grep -a '^panlab-governor: ok' "$work/console.log" | tr -d '\r')"
