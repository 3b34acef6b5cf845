#!/bin/bash
# The phone's profile: `perf record` of panlab-phone on the default run (the asynctask replay,
# or PROFILE_WORKLOAD), then the top of `perf report` by symbol into out/bench/phone-profile.txt.
# Translated guest code has no symbols: perf lists it under the JIT's anonymous mapping.
#   usage: profile.sh TOP_DIR
set -euo pipefail
top=$1
out=${BENCH_OUT:-$top/out/bench}
workload=${PROFILE_WORKLOAD:-asynctask}
command -v perf > /dev/null ||
	{ echo "profile: perf is missing; install it with 'scripts/install-deps.sh perf' (Debian linux-perf)" >&2; exit 1; }
work=$top/build/emu/profile.$$
trap 'rm -rf "$work"' EXIT
mkdir -p "$work" "$out"
echo "profile: perf record of $workload on the phone"
# User-space samples only (perf_event_paranoid 2 allows no more to a user), at 999 Hz.
perf record -e cpu-clock:u -F 999 -o "$work/perf.data" -- \
	"$top/scripts/run-phone.sh" --workload "$workload" --out "$work/run" > "$work/run.log" 2>&1 ||
	{ tail -n 20 "$work/run.log" >&2; echo "profile: the run failed" >&2; exit 1; }
{
	echo "# perf report --comm panlab-phone --sort dso,symbol: $workload, $(grep -a ' MIPS$' "$work/run.log" | tail -n 1)"
	perf report -i "$work/perf.data" --stdio --comm panlab-phone --sort dso,symbol \
		--percent-limit 0.5 2> /dev/null | grep -v '^$'
} > "$out/phone-profile.txt"
grep -v '^#' "$out/phone-profile.txt" | head -n 25
echo "profile: $out/phone-profile.txt"
