#!/bin/bash
# The phone's timing benchmark: jobs are work, DVFS and the tracer's cost.
# Writes out/bench/dvfs.json:
#   job_ns_at_1200mhz            a 200 ms job (panlab-workbench --scaling) at 1.2 GHz, in ns
#   job_time_350_over_1200       its time at 350 MHz over its time at 1.2 GHz: ideally 1200/350,
#                                3.43 (job_time_350_over_1200_ideal)
#   two_threads_one_core_ratio   its time sharing cpu0 with a CPU-bound thread over alone: about 2
# (the ratios are build/emu/benchstat's; the shell computes nothing)
#   overhead                     per workload, the tracer's overhead, tracing on vs off, one replay,
#                                the phone at 1.2 GHz on 2 cores, two ways:
#                                  cpu_time: the CPU time the cores spent per tap (cpu_time.txt):
#                                  mean, p95, 95% bound;
#                                  latency: end-to-end ground-truth latency, which moves only when
#                                  a frame misses a vsync; both are `panlab-analyze overhead`'s
#                                  (analyzer/include/panlab/overhead.h)
#   overhead_mean_pct, overhead_p95_pct, overhead_mean_bound_pct
#                                per workload, overhead.WORKLOAD.cpu_time's
#   panappticon_overhead_pct     6.1, the paper's figure, for comparison
#   opp_switch_count             per governor, frequency changes of cpu 0 in asynctask's trace
#                                (summary.json energy.cores.cpu0.frequency_changes)
#   energy_mj_per_run            asynctask's energy per run (summary.json's energy stage) in
#                                section 6's four configurations: 1 or 2 cores, DVFS on (the
#                                interactive governor) or off (1200 MHz fixed)
# The workloads are BENCH_WORKLOADS (default below). About 30 minutes on an idle host.
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
		--off "$top/out/bench-dvfs-$w-off" --out "$out/dvfs-overhead-$w" --no-plots > /dev/null ||
		fail "no overhead to compare for $w"
	overhead=$(jq --arg w "$w" --slurpfile o "$out/dvfs-overhead-$w/overhead.json" \
		'.[$w] = {cpu_time: $o[0].cpu_time, latency: $o[0].latency_bound}' <<< "$overhead")
done

switches='{}'
for g in ondemand schedutil; do
	echo "dvfs_bench: asynctask under $g"
	run_id=bench-dvfs-asynctask-$g
	"$top/scripts/run-experiment.sh" --workload asynctask --governor "$g" --run-id "$run_id" \
		> "$out/dvfs-asynctask-$g.log" 2>&1 || fail "the $g run failed; see $out/dvfs-asynctask-$g.log"
	switches=$(jq --arg g "$g" --slurpfile s "$top/out/$run_id/summary.json" \
		'.[$g] = $s[0].energy.cores.cpu0.frequency_changes' <<< "$switches")
done

# Section 6's four configurations (scripts/section6.sh) on asynctask: energy per run.
energy='{}'
for cores in 1 2; do
	for dvfs in on off; do
		config=c$cores-$dvfs
		machine=(--freq-mhz 1200)
		[ "$dvfs" = off ] || machine=(--governor interactive)
		echo "dvfs_bench: asynctask, $cores core(s), DVFS $dvfs"
		run_id=bench-dvfs-asynctask-$config
		"$top/scripts/run-experiment.sh" --workload asynctask --cores "$cores" "${machine[@]}" \
			--run-id "$run_id" > "$out/dvfs-asynctask-$config.log" 2>&1 ||
			fail "the $config run failed; see $out/dvfs-asynctask-$config.log"
		energy=$(jq --arg c "$config" --slurpfile s "$top/out/$run_id/summary.json" \
			'.[$c] = $s[0].energy.energy_mj' <<< "$energy")
	done
done

scaling=$("$top/build/emu/benchstat" pairs at_350 at_1200 "${solo[350]}" "${solo[1200]}")
sharing=$("$top/build/emu/benchstat" pairs shared alone "${shared[1200]}" "${solo[1200]}")
jq -n --argjson s12 "${solo[1200]}" --argjson scaling "$scaling" --argjson sharing "$sharing" \
	--argjson overhead "$overhead" --argjson switches "$switches" --argjson energy "$energy" '
	{
		job_ns_at_1200mhz: $s12,
		job_time_350_over_1200: $scaling.ratio.median,
		job_time_350_over_1200_ideal: 3.43,
		two_threads_one_core_ratio: $sharing.ratio.median,
		overhead: $overhead,
		overhead_mean_pct: ($overhead | map_values(.cpu_time.overhead_mean_pct)),
		overhead_p95_pct: ($overhead | map_values(.cpu_time.overhead_p95_pct)),
		overhead_mean_bound_pct: ($overhead | map_values(.cpu_time.overhead_mean_bound_pct)),
		panappticon_overhead_pct: 6.1,
		opp_switch_count: $switches,
		energy_mj_per_run: $energy,
		backend: "phone"
	}' > "$out/dvfs.json"
cat "$out/dvfs.json"
echo
echo "tracer overhead, tracing on against off (Panappticon: 6.1%):"
jq -r '.overhead | to_entries[] | [.key, .value.cpu_time.overhead_mean_pct, .value.cpu_time.overhead_p95_pct,
	.value.cpu_time.overhead_mean_bound_pct, .value.latency.overhead_mean_pct,
	.value.latency.overhead_mean_bound_pct, .value.cpu_time.taps] | @tsv' "$out/dvfs.json" |
	awk -F'\t' 'BEGIN { printf "%-22s %28s %22s %5s\n", "workload", "CPU time mean/p95/bound %", "latency mean/bound %", "taps" }
		{ printf "%-22s %9s %8s %9s %11s %10s %5s\n", $1, $2, $3, $4, $5, $6, $7 }
		END { printf "%-22s %9s\n", "Panappticon", "6.1" }'
echo "energy per asynctask run (mJ): $(jq -c .energy_mj_per_run "$out/dvfs.json")"
