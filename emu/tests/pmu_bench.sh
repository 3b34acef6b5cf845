#!/bin/bash
# `make bench`, after the CPU bench wrote out/bench/pmu.json (the PMU's cost): adds
# perf_stat_exact, whether the guest tests panlab-pmu (emu/tests/guest/pmu.c: the
# instructions:u and cycles:u counts perf_event_open gives exact, its overflow samples where
# they belong) and panlab-perf (emu/tests/guest/perf.sh: perf stat itself exact, perf report
# naming the loop) passed; and tracer_extra_instructions_per_switch, what the kernel logger
# adds to the threads it traces per context switch (panlab-perf's pipe bench, logger on against
# off; null if it did not run). Its exit status is the verdict.
#   usage: pmu_bench.sh TOP
set -euo pipefail
top=$1
json=$top/out/bench/pmu.json
[ -s "$json" ] || { echo "pmu_bench: $json is missing; the CPU bench writes it" >&2; exit 1; }
work=$top/build/emu/pmu-bench.$$
trap 'rm -rf "$work"' EXIT
exact=false
"$top/tests/integration/guest-test.sh" panlab-pmu "$work/pmu" --timeout-s 300 &&
	"$top/tests/integration/guest-test.sh" panlab-perf "$work/perf" \
		--append "$top/build/emu/guest-perf.cpio.gz" --timeout-s 300 && exact=true
extra=$(grep -a '^panlab-perf: pipe bench:' "$work/perf/console.log" 2>/dev/null |
	sed 's/.*: \([0-9-]*\) more per switch.*/\1/') || true
jq --argjson e "$exact" --argjson x "${extra:-null}" \
	'. + {perf_stat_exact: $e, tracer_extra_instructions_per_switch: $x}' "$json" > "$work/pmu.json"
mv "$work/pmu.json" "$json"
echo "pmu_bench: perf_stat_exact $exact, tracer_extra_instructions_per_switch ${extra:-null} in $json"
