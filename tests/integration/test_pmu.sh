#!/bin/bash
# The phone's PMU (emu/cpu/pmu.c) under Linux's stock armv7 PMU driver: the guest test
# panlab-pmu (emu/tests/guest/pmu.c) checks that the driver probed, that perf_event_open's
# instructions:u and cycles:u (what `perf stat -e instructions:u,cycles:u` opens) count a loop
# of known length exactly (2N + 4 user instructions, and as many cycles at CPI 1), that a
# sampling event takes exactly one overflow interrupt per period with its pc in the loop, and,
# as a negative control, that counting the kernel too gives more. It runs on both CPU engines,
# whose lines, the kernel-inclusive count among them, must be identical.
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
