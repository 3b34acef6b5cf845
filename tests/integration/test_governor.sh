#!/bin/bash
# The interactive governor (guest-kernel/modules/cpufreq_interactive) on the phone: the guest
# test panlab-governor (emu/tests/guest/governor.c) plays a scripted load pattern on cpu0 (idle,
# a key press, idle, fixed CPU work, idle) and checks the kernel logger's CPU_FREQUENCY records
# against what Panappticon's rules predict (R1-R7: 20 ms timer, 700 MHz boost on input,
# go_hispeed_load after idle, 60 ms min_sample_time, raising immediate). It then plays the
# pattern once per wrong tunable (negative controls), each of which the rules must reject.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/emu/governor-test.$$
trap 'rm -rf "$work"' EXIT
"$top/tests/integration/guest-test.sh" panlab-governor "$work" --timeout-s 600
grep -a "^panlab-governor: phase '" "$work/console.log" | grep -a -v ' kHz$' | tr -d '\r'
grep -aq '^panlab-governor: ok' "$work/console.log" ||
	{ echo "test_governor: no ok from the guest" >&2; exit 1; }
echo "test_governor: $(grep -a '^panlab-governor: ok' "$work/console.log" | tr -d '\r')"
