#!/bin/bash
# The phone's timing benchmark (issue 12): jobs are work, DVFS and the tracer's cost.
# Writes out/bench/dvfs.json:
#   job_ms_at_1200mhz            a 200 ms job (panlab-workbench --scaling) at 1.2 GHz, in ms
#   job_scaling_350_over_1200    its time at 350 MHz over its time at 1.2 GHz, / (1200/350): 1 is ideal
#   two_threads_one_core_ratio   its time sharing cpu0 with a CPU-bound thread over alone: about 2
#   overhead                     per workload, the tracer's end-to-end overhead (tracing on vs off,
#                                one replay, the phone at 1.2 GHz on 2 cores; ../../scripts/overhead.jq)
#   overhead_mean_pct            per workload, overhead.WORKLOAD.overhead_mean_pct
#   panappticon_overhead_pct     6.1, the paper's figure, for comparison
#   opp_switch_count             per governor, frequency changes of cpu 0 in asynctask's trace
# The workloads are BENCH_WORKLOADS (default below). About 20 minutes on an idle host.
#   usage: dvfs_bench.sh TOP_DIR
set -euo pipefail
top=$1
out=${BENCH_OUT:-$top/out/bench}
workloads=${BENCH_WORKLOADS:-asynctask@overhead service webview workerthread handlerthread}
mkdir -p "$out"
fail() { echo "dvfs_bench: $*" >&2; exit 1; }

declare -A solo shared
for mhz in 1200 350; do
	echo "dvfs_bench: panlab-workbench --scaling at $mhz MHz"
	freq=()
	[ "$mhz" = 1200 ] || freq=(--freq-mhz "$mhz")
	d=$out/dvfs-work-$mhz
	"$top/scripts/run-phone.sh" --test panlab-workbench --append panlab.test_arg=--scaling \
		--trace off "${freq[@]}" --out "$d" > "$d.log" 2>&1 || fail "the $mhz MHz run failed; see $d.log"
	line=$(grep -a '^panlab-workbench: scaling ' "$d/console.log" | tr -d '\r')
	solo[$mhz]=$(sed -n 's/.* solo_ns=\([0-9]*\).*/\1/p' <<< "$line")
	shared[$mhz]=$(sed -n 's/.* shared_ns=\([0-9]*\).*/\1/p' <<< "$line")
	[ -n "${solo[$mhz]}" ] && [ -n "${shared[$mhz]}" ] || fail "no result line in $d/console.log"
done

overhead='{}'
for w in $workloads; do
	for trace in on off; do
		echo "dvfs_bench: $w, tracing $trace"
		rm -f "$top/out/bench-dvfs-$w-$trace/ground_truth.txt"
		"$top/scripts/run-experiment.sh" --workload "$w" --trace "$trace" --run-id "bench-dvfs-$w-$trace" \
			> "$out/dvfs-$w-$trace.log" 2>&1 || true
		[ -s "$top/out/bench-dvfs-$w-$trace/ground_truth.txt" ] ||
			fail "the $w tracing-$trace run failed; see $out/dvfs-$w-$trace.log"
	done
	"$top/build/analyzer/panlab-analyze" overhead --on "$top/out/bench-dvfs-$w-on" \
		--off "$top/out/bench-dvfs-$w-off" --out "$out/dvfs-overhead-$w" --no-plots > /dev/null
	overhead=$(jq --arg w "$w" --slurpfile o <(jq -f "$top/scripts/overhead.jq" \
		"$out/dvfs-overhead-$w/overhead.json") '.[$w] = $o[0]' <<< "$overhead")
done

switches='{}'
for g in ondemand schedutil; do
	echo "dvfs_bench: asynctask under $g"
	run_id=bench-dvfs-asynctask-$g
	"$top/scripts/run-experiment.sh" --workload asynctask --governor "$g" --run-id "$run_id" \
		> "$out/dvfs-asynctask-$g.log" 2>&1 || fail "the $g run failed; see $out/dvfs-asynctask-$g.log"
	n=$(jq '[.traceEvents[] | select(.ph == "C" and .name == "cpu 0 frequency") | .args.kHz]
		| [range(1; length) as $i | select(.[$i] != .[$i - 1])] | length' \
		"$top/out/$run_id/trace.json")
	switches=$(jq --arg g "$g" --argjson n "$n" '.[$g] = $n' <<< "$switches")
done

jq -n --argjson s12 "${solo[1200]}" --argjson s35 "${solo[350]}" --argjson h12 "${shared[1200]}" \
	--argjson overhead "$overhead" --argjson switches "$switches" '
	def r4: . * 10000 | round / 10000;
	{
		job_ms_at_1200mhz: ($s12 / 1e6 | r4),
		job_scaling_350_over_1200: ($s35 / $s12 / (1200 / 350) | r4),
		two_threads_one_core_ratio: ($h12 / $s12 | r4),
		overhead: $overhead,
		overhead_mean_pct: ($overhead | map_values(.overhead_mean_pct)),
		panappticon_overhead_pct: 6.1,
		opp_switch_count: $switches,
		backend: "phone"
	}' > "$out/dvfs.json"
cat "$out/dvfs.json"
