#!/bin/bash
# The userspace logger's benchmark (issue 4 item 7), run by `make -C workloads bench`:
#  1. cost per event: panlab-ulog-bench (100,000 events) in the guest on QEMU (icount shift=2: one guest
#     instruction is 4 ns of virtual time, so instructions = ns / 4);
#  2. end-to-end overhead: the asynctask replay with tracing on and off; each input's latency is
#     taken from the ground truth alone (analyzer/FORMAT.md: T_in to the last frame before the
#     next input), so the two runs are measured the same way and the tracer measures nothing.
# Writes out/bench/userspace-logger.json {instructions_per_event, ns_per_event,
# overhead_mean_pct, overhead_p95_pct, transactions} and prints it. Takes three QEMU runs.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/out/bench
workload=${BENCH_WORKLOAD:-asynctask}
ns_per_instruction=4	# -icount shift=2 in scripts/run-qemu.sh
mkdir -p "$out"

"$top/scripts/run-qemu.sh" --test panlab-ulog-bench --out "$out/ulog-guest" >/dev/null
line=$(grep -a -o 'events=[0-9]* ns_per_event=[0-9.]* off_ns_per_event=[0-9.]*' \
	"$out/ulog-guest/console.log" | tail -1)
[ -n "$line" ] || { echo "$0: no result line in $out/ulog-guest/console.log" >&2; exit 1; }
ns_per_event=$(sed 's/.* ns_per_event=\([0-9.]*\).*/\1/' <<<"$line")

# Only the ground truth is used: with tracing off the analysis has nothing to find.
for trace in on off; do
	rm -f "$top/out/bench-ulog-trace-$trace/ground_truth.txt"
	"$top/scripts/run-experiment.sh" --backend qemu --workload "$workload" --trace "$trace" \
		--run-id "bench-ulog-trace-$trace" >"$out/ulog-trace-$trace.log" 2>&1 || true
	[ -s "$top/out/bench-ulog-trace-$trace/ground_truth.txt" ] ||
		{ echo "$0: the tracing-$trace run failed, see $out/ulog-trace-$trace.log" >&2; exit 1; }
done

# Ground-truth latency of every input, one per line, in input order.
truth_latencies() {
	awk '
		$1 == "input" { n++; t_in[n] = $3 }
		$1 == "frame" { nf++; f[nf] = $3 }
		$1 == "end" { end_ns = $2 }
		END {
			for (i = 1; i <= n; i++) {
				until = i < n ? t_in[i + 1] : end_ns
				last = 0
				for (k = 1; k <= nf; k++) if (f[k] >= t_in[i] && f[k] < until) last = f[k]
				print (last ? last - t_in[i] : -1)
			}
		}' "$1"
}
truth_latencies "$top/out/bench-ulog-trace-on/ground_truth.txt" >"$out/ulog-latency-on.txt"
truth_latencies "$top/out/bench-ulog-trace-off/ground_truth.txt" >"$out/ulog-latency-off.txt"

paste "$out/ulog-latency-on.txt" "$out/ulog-latency-off.txt" |
	jq -R -s --argjson ns "$ns_per_event" --argjson per_insn "$ns_per_instruction" '
		def cents: . * 100 | round / 100 | if . == 0 then 0 else . end;
		[split("\n")[] | select(length > 0) | split("\t") | map(tonumber)
		 | select(.[0] > 0 and .[1] > 0) | (.[0] - .[1]) * 100 / .[1]] as $pct
		| ($pct | sort) as $s
		| {
			instructions_per_event: ($ns / $per_insn | round),
			ns_per_event: $ns,
			overhead_mean_pct: (($pct | add) / ($pct | length) | cents),
			# nearest rank, as analyzer/validate.c computes percentiles
			overhead_p95_pct: ($s[(($s | length) * 95 + 99) / 100 - 1 | floor] | cents),
			transactions: ($pct | length)
		}' >"$out/userspace-logger.json"
cat "$out/userspace-logger.json"
