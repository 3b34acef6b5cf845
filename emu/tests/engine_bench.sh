#!/bin/bash
# The CPU engines on a whole workload: the CPU-stress workload
# asynctask+cpu on the phone, once on the reference interpreter and once on
# the fast engine, one after the other in this one invocation. Checks that
# both runs are byte-identical (trace, ground truth, console) and ran the
# same instructions, then adds to out/bench/emu-cpu.json (written by
# `bench`, the guest loop) the workload speedup, the boot figures of
# out/bench/phone.json (board_bench.sh), the peak RSS of emu/ and QEMU and
# section 6's host s per virtual s (out/bench/section6.json, when present).
#   usage: engine_bench.sh TOP_DIR [WORKLOAD]
set -euo pipefail
top=$1
workload=${2:-asynctask+cpu}
out=${BENCH_OUT:-$top/out/bench}
json=$out/emu-cpu.json
work=$top/build/emu/bench-engines.$$
trap 'rm -rf "$work"' EXIT
[ -s "$json" ] || { echo "engine_bench: $json is missing; run build/emu/bench first" >&2; exit 1; }
mkdir -p "$work"

# Host wall time as the issue asks, and CPU time, which the other tenants
# of a shared host disturb less.
for engine in ref fast; do
	echo "engine_bench: $workload on the $engine engine"
	"$top/scripts/run-phone.sh" --workload "$workload" --out "$work/$engine" --engine "$engine" \
		> "$work/$engine.log" 2>&1 ||
		{ tail -n 20 "$work/$engine.log" >&2; echo "engine_bench: the $engine run failed" >&2; exit 1; }
done
for f in trace.bin ground_truth.txt console.log; do
	cmp "$work/ref/$f" "$work/fast/$f" ||
		{ echo "engine_bench: the engines gave different $f" >&2; exit 1; }
done
exit_line() { grep 'instructions; peak RSS' "$work/$1.log" | tail -n 1; }
field() { exit_line "$1" | sed "s/.*$2.*/\\1/"; }
insns_ref=$(field ref '; \([0-9]*\) instructions;')
insns_fast=$(field fast '; \([0-9]*\) instructions;')
[ -n "$insns_fast" ] && [ "$insns_fast" = "$insns_ref" ] ||
	{ echo "engine_bench: instructions differ: fast '$insns_fast', ref '$insns_ref'" >&2; exit 1; }
wall_ref=$(cat "$work/ref/host-wall-s.txt")
wall_fast=$(cat "$work/fast/host-wall-s.txt")
cpu_ref=$(field ref '(\([0-9.]*\) s CPU)')
cpu_fast=$(field fast '(\([0-9.]*\) s CPU)')
rss_fast=$(field fast 'peak RSS \([0-9.]*\) MB')
rss_ref=$(field ref 'peak RSS \([0-9.]*\) MB')
phone=$out/phone.json
pj() { [ -s "$phone" ] && jq -r "$1 // empty" "$phone" || true; }
num() { [ -n "$1" ] && echo "$1" || echo null; }
ratio() { [ -n "$1" ] && [ -n "$2" ] && "$top/build/emu/benchstat" pairs a b "$1" "$2" | jq .ratio.median || echo null; }

# Section 6's host seconds per virtual second, over its configurations (make section6 writes
# section6.json; at an hour a run, the bench reads it rather than running it).
s6=$out/section6.json section6=null
if [ -s "$s6" ]; then
	mapfile -t per_config < <(jq -r '.by_configuration[].host_s_per_virtual_s' "$s6")
	section6=$("$top/build/emu/benchstat" figure "${per_config[@]}" |
		jq --arg w "$(jq -r .workload "$s6")" '. + {samples_are: "the configurations of the last make section6", workload: $w}')
fi
jq --argjson section6 "$section6" --argjson wall_speedup "$(ratio "$wall_ref" "$wall_fast")" \
	--argjson cpu_speedup "$(ratio "$cpu_ref" "$cpu_fast")" \
	--argjson wall_ref "$(num "$wall_ref")" --argjson wall_fast "$(num "$wall_fast")" \
	--argjson insns "$(num "$insns_fast")" \
	--argjson rss "$(num "$rss_fast")" --argjson rss_ref "$(num "$rss_ref")" \
	--argjson rss_qemu "$(num "$(pj .peak_rss_mb_qemu)")" \
	--argjson boot_emu "$(num "$(pj .boot_to_init_s)")" \
	--argjson boot_qemu "$(num "$(pj .boot_to_init_s_qemu)")" \
	--arg workload "$workload" \
	'. + {stress_workload: $workload, stress_workload_speedup: $wall_speedup,
	      stress_workload_speedup_cpu: $cpu_speedup,
	      stress_workload_s_ref: $wall_ref, stress_workload_s_fast: $wall_fast,
	      stress_workload_instructions: $insns,
	      boot_s_emu: $boot_emu, boot_s_qemu: $boot_qemu,
	      peak_rss_mb: $rss, peak_rss_mb_ref: $rss_ref, peak_rss_mb_qemu: $rss_qemu,
	      section6_host_s_per_virtual_s: $section6}' \
	"$json" > "$work/emu-cpu.json"
mv "$work/emu-cpu.json" "$json"
cat "$json"
fix() { if [ -n "$2" ] && [ "$2" != null ]; then printf "%.${1}f" "$2"; else echo -; fi; }
printf 'engine_bench: %-30s %10s %10s\n' "$workload (host s)" "ref" "fast"
printf 'engine_bench: %-30s %10s %10s\n' "wall" "$(fix 1 "$wall_ref")" "$(fix 1 "$wall_fast")"
printf 'engine_bench: %-30s %10s %10s\n' "CPU" "$(fix 1 "$cpu_ref")" "$(fix 1 "$cpu_fast")"
printf 'engine_bench: %-30s %10s %10s\n' "peak RSS (MB)" "$(fix 0 "$rss_ref")" "$(fix 0 "$rss_fast")"
[ "$section6" = null ] || jq -r '"engine_bench: section 6, host s per virtual s: \(.median * 1000 | round / 1000) (\(.min * 1000 | round / 1000)-\(.max * 1000 | round / 1000) over \(.samples | length) configurations\(if .stable then "" else ", UNSTABLE" end))"' <<<"$section6"
echo "engine_bench: speedup $(ratio "$wall_ref" "$wall_fast")x wall, $(ratio "$cpu_ref" "$cpu_fast")x CPU; $insns_fast instructions on both; load $(cut -d' ' -f1-3 /proc/loadavg)"
