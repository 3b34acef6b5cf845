#!/bin/bash
# The phone's PMU (emu/cpu/pmu.c) under Linux's stock armv7 PMU driver: the guest test
# panlab-pmu (emu/tests/guest/pmu.c) checks that the driver probed, that perf_event_open's
# instructions:u and cycles:u (what `perf stat -e instructions:u,cycles:u` opens) count a loop
# of known length exactly (2N + 4 user instructions, and as many cycles at CPI 1), that a
# sampling event takes exactly one overflow interrupt per period with its pc in the loop, and,
# as a negative control, that counting the kernel too gives more. It runs on both CPU engines,
# whose lines, the kernel-inclusive count among them, must be identical. Then perf itself, built
# from the kernel's tools/perf (panlab-perf, emu/tests/guest/perf.sh, on the fast engine): perf
# stat -e instructions:u counts a program of known length exactly, perf record / perf report
# put its loop's symbol on top, and a pipe bench counts more instructions with the kernel logger
# on than off (what it adds per switch). Last, panlab-perf-dvfs (emu/tests/guest/perf-dvfs.sh)
# counts the program at 1200 and at 350 MHz: the same instructions, taken branches (raw event
# 0x0C), loads (0x06) and cycles, exactly (the fast engine; CUnit and the difftest compare
# the engines' counts of these events).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$top/build/emu/pmu-test.$$
trap 'rm -rf "$work"' EXIT
for engine in fast ref; do
	"$top/tests/integration/guest-test.sh" panlab-pmu "$work/$engine" --timeout-s 300 \
		--engine "$engine"
	grep -a "^panlab-pmu: " "$work/$engine/console.log" | tr -d '\r' > "$work/$engine.txt"
	grep -q '^panlab-pmu: ok' "$work/$engine.txt" ||
		{ echo "test_pmu: no ok from the guest on the $engine engine" >&2; exit 1; }
done
cat "$work/fast.txt"
cmp -s "$work/fast.txt" "$work/ref.txt" ||
	{ echo "test_pmu: the engines counted differently:" >&2; diff "$work/fast.txt" "$work/ref.txt" >&2; exit 1; }
echo "test_pmu: both engines counted the same"
"$top/tests/integration/guest-test.sh" panlab-perf "$work/perf" \
	--append "$top/build/emu/guest-perf.cpio.gz" --timeout-s 300
grep -a "^panlab-perf: " "$work/perf/console.log" | tr -d '\r' > "$work/perf.txt"
cat "$work/perf.txt"
grep -q '^panlab-perf: ok' "$work/perf.txt" || { echo "test_pmu: no ok from panlab-perf" >&2; exit 1; }
"$top/tests/integration/guest-test.sh" panlab-perf-dvfs "$work/dvfs" \
	--append "$top/build/emu/guest-perf.cpio.gz" --timeout-s 300
grep -a "^panlab-perf-dvfs: " "$work/dvfs/console.log" | tr -d '\r' > "$work/dvfs.txt"
cat "$work/dvfs.txt"
grep -q '^panlab-perf-dvfs: ok' "$work/dvfs.txt" || { echo "test_pmu: no ok from panlab-perf-dvfs" >&2; exit 1; }
echo "test_pmu: perf stat exact, perf report names the loop, the logger adds instructions," \
	"loads and branches exact at two operating points"
