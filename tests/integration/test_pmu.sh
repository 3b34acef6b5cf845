#!/bin/bash
# The phone's PMU (emu/cpu/pmu.c) under Linux's stock armv7 PMU driver: the guest test
# panlab-pmu (emu/tests/guest/pmu.c) checks that the driver probed, that perf_event_open's
# instructions:u and cycles:u (what `perf stat -e instructions:u,cycles:u` opens) count a loop
# of known length exactly (2N + 4 user instructions, and as many cycles at CPI 1), that a
# sampling event takes exactly one overflow interrupt per period with its pc in the loop, and,
# as a negative control, that counting the kernel too gives more.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/emu/pmu-test.$$
trap 'rm -rf "$work"' EXIT
"$top/tests/integration/guest-test.sh" panlab-pmu "$work" --timeout-s 300
grep -a "^panlab-pmu: " "$work/console.log" | tr -d '\r'
grep -aq '^panlab-pmu: ok' "$work/console.log" ||
	{ echo "test_pmu: no ok from the guest" >&2; exit 1; }
