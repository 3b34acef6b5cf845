#!/bin/bash
# The userspace logger's benchmark, run by `make -C workloads bench`:
#  1. cost per event: panlab-ulog-bench (100,000 events) in the guest on QEMU, whose
#     -icount shift=2 makes one guest instruction exactly 4 ns of virtual time, so
#     instructions = ns / 4. The steady state (the ring's pages already touched, as after a
#     ring's first lap) and the first lap (a tmpfs page fault every 128 records) are both kept,
#     and the cost of a task submit with its execution context (two records and a frame walk).
#  2. end-to-end overhead: the asynctask@overhead replay (200 taps) on the phone backend with
#     tracing on and off. The phone is deterministic, so the two runs differ only by tracing;
#     `panlab-analyze overhead` compares each input's ground-truth latency (include/FORMAT.md:
#     T_in to the last frame before the next input, taken at the devices), so the tracer measures
#     nothing. See README.md for why the mean over 200 vsync-quantised latencies is sound and its
#     resolution (overhead_mean_ci95_pct).
# Writes out/bench/userspace-logger.json and prints it. About 4 minutes on an idle host.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/out/bench
workload=${BENCH_WORKLOAD:-asynctask@overhead}
ns_per_instruction=4	# -icount shift=2 in scripts/run-qemu.sh
mkdir -p "$out"

echo "userspace-logger bench: cost per event (QEMU, icount)"
"$top/scripts/run-qemu.sh" --test panlab-ulog-bench --out "$out/ulog-guest" >"$out/ulog-guest.log" 2>&1 ||
	{ echo "$0: the QEMU run failed, see $out/ulog-guest.log" >&2; exit 1; }
line=$(grep -a -o 'events=[0-9]* ns_per_event=[0-9.]* first_touch_ns_per_event=[0-9.]* off_ns_per_event=[0-9.]* submit_ns_per_submit=[0-9.]*' \
	"$out/ulog-guest/console.log" | tail -1)
[ -n "$line" ] || { echo "$0: no result line in $out/ulog-guest/console.log" >&2; exit 1; }
ns_per_event=$(sed 's/.* ns_per_event=\([0-9.]*\).*/\1/' <<<"$line")
first_ns_per_event=$(sed 's/.* first_touch_ns_per_event=\([0-9.]*\).*/\1/' <<<"$line")
submit_ns=$(sed 's/.* submit_ns_per_submit=\([0-9.]*\).*/\1/' <<<"$line")

# Only the ground truth is used: with tracing off the analysis has nothing to find.
for trace in on off; do
	echo "userspace-logger bench: $workload on the phone, tracing $trace"
	rm -f "$top/out/bench-ulog-trace-$trace/ground_truth.txt"
	"$top/scripts/run-experiment.sh" --backend phone --workload "$workload" --trace "$trace" \
		--run-id "bench-ulog-trace-$trace" >"$out/ulog-trace-$trace.log" 2>&1 || true
	[ -s "$top/out/bench-ulog-trace-$trace/ground_truth.txt" ] ||
		{ echo "$0: the tracing-$trace run failed, see $out/ulog-trace-$trace.log" >&2; exit 1; }
done
"$top/build/analyzer/panlab-analyze" overhead --on "$top/out/bench-ulog-trace-on" \
	--off "$top/out/bench-ulog-trace-off" --out "$out/ulog-overhead" --no-plots >/dev/null

# The overhead's statistics and their resolution: overhead.json's latency_bound
# (analyzer/include/panlab/overhead.h).
jq --argjson ns "$ns_per_event" --argjson first "$first_ns_per_event" --argjson submit "$submit_ns" \
	--argjson per_insn "$ns_per_instruction" --arg workload "$workload" \
	--slurpfile o "$out/ulog-overhead/overhead.json" -n '
	{
		instructions_per_event: ($ns / $per_insn | round),
		ns_per_event: $ns,
		first_touch_instructions_per_event: ($first / $per_insn | round),
		submit_instructions_per_submit: ($submit / $per_insn | round)
	} + $o[0].latency_bound + { backend: "phone", workload: $workload }' >"$out/userspace-logger.json"
cat "$out/userspace-logger.json"
