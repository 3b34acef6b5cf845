#!/bin/bash
# Panappticon section 6 on the phone: the newsreader mix (replay/scripts/newsreader.rply) run
# in the study's four configurations, 1 or 2 cores x DVFS on (the interactive governor) or off
# (fixed at 1.2 GHz), then the figures, tables and findings under out/experiments/section6/:
#   cdf.svg           Fig. 9: latency CDFs of the four configurations, upper percentiles inset
#   qq.svg            Fig. 10: Q-Q plot, 1 core, DVFS off (x) against on (y)
#   energy.md         Table 5-style energy per configuration (from each summary.json)
#   breakdown.md      Table 4-style breakdown of the longest front-page refreshes
#   findings.md/.json each section 6 finding beside what panlab measured, reproduced or not
# Usage: scripts/section6.sh [--report-only]   (--report-only redoes the outputs from the runs)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$top/out/experiments/section6
workload=newsreader
configs="c1-on c1-off c2-on c2-off"
report_only=0
case "${1:-}" in
"") ;;
--report-only) report_only=1 ;;
*) echo "usage: $0 [--report-only]" >&2; exit 2 ;;
esac

# The run options of each configuration (scripts/run-experiment.sh).
options() {
	case "$1" in
	c1-on) echo "--cores 1 --governor interactive" ;;
	c1-off) echo "--cores 1 --freq-mhz 1200" ;;
	c2-on) echo "--cores 2 --governor interactive" ;;
	c2-off) echo "--cores 2 --freq-mhz 1200" ;;
	esac
}

mkdir -p "$dir"
if [ "$report_only" = 0 ]; then
	n=0
	for c in $configs; do
		n=$((n + 1))
		echo "section6: configuration $n of 4: $c ($(options "$c"))"
		# shellcheck disable=SC2046
		"$top/scripts/run-experiment.sh" --backend phone --workload "$workload" \
			--run-id "experiments/section6/$c" $(options "$c")
	done
fi
for c in $configs; do
	for f in transactions.csv summary.json; do
		[ -s "$dir/$c/$f" ] || { echo "$0: $dir/$c/$f is missing: run $0 without --report-only" >&2; exit 1; }
	done
done

# Each tap's action from the script: input id -> param (keys get -1).
awk '$1 == "tap" { for (i = 4; i <= NF; i++) if ($i ~ /^param=/) p = substr($i, 7); print n++, p; p = 0 }
     $1 == "key" { print n++, -1 }' "$top/replay/scripts/$workload.rply" > "$dir/params.txt"

# Latency (ms) of every tap as the analyzer detects it (input to last update), as the paper's
# figures are Panappticon's own; sorted, per configuration. Ground truth is not used here: a tap
# whose job outlasts the next tap (a fetch the network stalls) has its code overdrawn by the
# next one, so its ground-truth frame is the first one, not the last.
for c in $configs; do
	awk -F, 'NR == FNR { param[$1] = $2; next }
		 FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		 param[$col["input_id"]] >= 0 && $col["detected_latency_ns"] != "" {
			printf "%.3f\n", $col["detected_latency_ns"] / 1e6 }' \
		FS=' ' "$dir/params.txt" FS=, "$dir/$c/transactions.csv" | sort -g > "$dir/$c.latency.txt"
	[ -s "$dir/$c.latency.txt" ] || { echo "$0: $dir/$c/transactions.csv: no detected tap" >&2; exit 1; }
done

# Quantile q (0..1) of a sorted file, nearest rank.
quantile() { awk -v q="$2" '{ v[NR] = $1 } END { k = int(q * NR + 0.999999); if (k < 1) k = 1; if (k > NR) k = NR; print v[k] }' "$1"; }
# Q-Q pairs of two sorted files at 100 levels: "x y".
qq_pairs() { paste <(for i in $(seq 1 100); do quantile "$1" "$(echo "$i / 100" | bc -l)"; done) \
	<(for i in $(seq 1 100); do quantile "$2" "$(echo "$i / 100" | bc -l)"; done) | tr '\t' ' '; }

# ---- Fig. 9 and Fig. 10 ----
cdf_data() { awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' "$1"; }
{
	echo "set terminal svg size 900,560 dynamic font 'sans,11' background '#ffffff'"
	echo "set termoption noenhanced"
	echo "set output '$dir/cdf.svg'"
	for c in $configs; do echo "\$${c/-/_} << EOD"; cdf_data "$dir/$c.latency.txt"; echo "EOD"; done
	echo "set multiplot"
	echo "set title 'newsreader on the phone: user transaction latency (Panappticon Fig. 9)'"
	echo "set xlabel 'latency (ms)'; set ylabel 'share of transactions'; set logscale x; set grid"
	echo "set key bottom right; set yrange [0:1.02]"
	echo "plot \$c1_on using 1:2 with steps lw 2 title '1 core, DVFS on', \$c1_off using 1:2 with steps lw 2 title '1 core, DVFS off', \$c2_on using 1:2 with steps lw 2 title '2 cores, DVFS on', \$c2_off using 1:2 with steps lw 2 title '2 cores, DVFS off'"
	echo "set origin 0.12,0.45; set size 0.42,0.4; unset title; unset key; unset xlabel; unset ylabel"
	echo "set yrange [0.9:1.001]; set object 1 rectangle from graph 0,0 to graph 1,1 behind fc rgb '#ffffff' fs solid"
	echo "plot \$c1_on using 1:2 with steps lw 2, \$c1_off using 1:2 with steps lw 2, \$c2_on using 1:2 with steps lw 2, \$c2_off using 1:2 with steps lw 2"
	echo "unset multiplot"
} | gnuplot
qq_pairs "$dir/c1-off.latency.txt" "$dir/c1-on.latency.txt" > "$dir/qq-c1.txt"
qq_pairs "$dir/c2-off.latency.txt" "$dir/c2-on.latency.txt" > "$dir/qq-c2.txt"
qq_pairs "$dir/c2-off.latency.txt" "$dir/c1-off.latency.txt" > "$dir/qq-cores.txt"
{
	echo "set terminal svg size 700,620 dynamic font 'sans,11' background '#ffffff'"
	echo "set termoption noenhanced"
	echo "set output '$dir/qq.svg'"
	echo "set title 'Q-Q plot, 1 core: DVFS off (x) against on (y) (Panappticon Fig. 10)'"
	echo "set xlabel 'DVFS off: latency (ms)'; set ylabel 'DVFS on: latency (ms)'"
	echo "set logscale xy; set grid; set key top left"
	echo "plot '$dir/qq-c1.txt' using 1:2 with points pt 7 title 'percentiles 1..100', x with lines dt 2 title 'y = x', 1.75 * x with lines dt 3 title 'y = 1.75 x'"
} | gnuplot

# ---- Table 5: energy ----
{
	echo "| configuration | taps | energy (mJ) | mean power (mW) | CPU energy (mJ) | mean energy per tap (mJ) | cpu0 busy time at 350/700/920/1200 MHz (s) |"
	echo "|---|---|---|---|---|---|---|"
	for c in $configs; do
		jq -r --arg c "$c" '.energy as $e
			| ($e.transaction_energy_mj | length) as $n
			| [350000, 700000, 920000, 1200000]
			| map(tostring) | map(($e.cores.cpu0.residency_by_khz[.].busy_ns // 0) / 1e9 * 100 | round / 100 | tostring) | join(" / ") as $res
			| "| \($c) | \($n) | \($e.energy_mj * 10 | round / 10) | \($e.mean_power_mw | round) | \($e.cpu_energy_mj * 10 | round / 10) | \(if $n > 0 then ($e.transaction_energy_mj | add / $n * 10 | round / 10) else "-" end) | \($res) |"' \
			"$dir/$c/summary.json"
	done
} > "$dir/energy.md"

# ---- Table 4: the longest refreshes (param 2nnn), by detected latency ----
breakdown_rows() {
	awk -F, 'NR == FNR { param[$1] = $2; next }
		 FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		 $col["transaction_id"] != "" && param[$col["input_id"]] >= 2000 {
			printf "%s %.1f %.1f %.1f %.1f %.1f\n", $col["input_id"], $col["detected_latency_ns"] / 1e6,
				$col["network_ns"] / 1e6, $col["io_ns"] / 1e6, $col["runnable_ns"] / 1e6, $col["running_ns"] / 1e6 }' \
		FS=' ' "$dir/params.txt" FS=, "$1" | sort -k2,2gr | head -n 5
}
{
	for c in $configs; do
		echo "### $c"
		echo
		echo "| input | total (ms) | network block (ms) | IO block (ms) | waiting for CPU (ms) | running (ms) |"
		echo "|---|---|---|---|---|---|"
		breakdown_rows "$dir/$c/transactions.csv" | awk '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6 }'
		echo
	done
} > "$dir/breakdown.md"

# ---- findings ----
# Mean ratio y/x over the Q-Q pairs whose x is below (lt=1) or at or above (lt=0) a limit, and the largest.
ratio() { awk -v lim="$2" -v lt="$3" '($1 < lim) == lt && $1 > 0 { s += $2 / $1; n++; if ($2 / $1 > m) m = $2 / $1 }
	END { if (n) printf "%.3f %.3f %d\n", s / n, m, n; else print "null null 0" }' "$1"; }
delta() { echo "$(quantile "$1" "$3") - $(quantile "$2" "$3")" | bc -l | xargs printf "%.1f"; }
read -r short1 _ nshort1 <<< "$(ratio "$dir/qq-c1.txt" 20 1)"
read -r short2 _ nshort2 <<< "$(ratio "$dir/qq-c2.txt" 20 1)"
p96_2=$(delta "$dir/c2-on.latency.txt" "$dir/c2-off.latency.txt" 0.96)
p98_1=$(delta "$dir/c1-on.latency.txt" "$dir/c1-off.latency.txt" 0.98)
read -r below60 _ nbelow60 <<< "$(ratio "$dir/qq-c1.txt" 60 1)"
read -r above60 max60 nabove60 <<< "$(ratio "$dir/qq-c1.txt" 60 0)"
read -r cores_short _ ncores_short <<< "$(ratio "$dir/qq-cores.txt" 2 1)"
read -r cores_long _ _ <<< "$(ratio "$dir/qq-cores.txt" 2 0)"
cpu_wins=0 rows=0
while read -r _ total net io wait _; do
	rows=$((rows + 1))
	if awk -v w="$wait" -v n="$net" -v i="$io" 'BEGIN { exit !(w > n && w > i) }'; then cpu_wins=$((cpu_wins + 1)); fi
done < <(breakdown_rows "$dir/c2-on/transactions.csv")
within() { awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "null" && v >= lo && v <= hi) }' && echo true || echo false; }
jq -n --argjson short1 "$short1" --argjson short2 "$short2" --argjson nshort "$((nshort1 + nshort2))" \
	--argjson p96 "$p96_2" --argjson p98 "$p98_1" \
	--argjson below60 "$below60" --argjson above60 "$above60" --argjson max60 "$max60" \
	--argjson cores_short "$cores_short" --argjson cores_long "$cores_long" --argjson ncores_short "$ncores_short" \
	--argjson cpu_wins "$cpu_wins" --argjson rows "$rows" \
	--argjson r1 "$( [ $((nshort1 + nshort2)) -gt 0 ] && within "$short1" 0.9 1.15 | grep -q true && within "$short2" 0.9 1.15 | grep -q true && echo true || echo false)" \
	--argjson r2 "$(within "$p96_2" 57 510)" --argjson r3 "$(within "$p98_1" 172 1551)" \
	--argjson r4 "$( [ "$nbelow60" -gt 0 ] && within "$below60" 0.9 1.15 | grep -q true && within "$max60" 1.3 3.0 | grep -q true && echo true || echo false)" \
	--argjson r5 "$( [ "$ncores_short" -gt 0 ] && awk -v s="$cores_short" -v l="$cores_long" 'BEGIN { exit !(s > 1.1 && l < 1.1) }' && echo true || echo false)" \
	--argjson r6 "$( [ "$rows" -gt 0 ] && [ $((2 * cpu_wins)) -ge "$rows" ] && echo true || echo false)" '
{ findings: [
  { id: "dvfs-short-negligible", paper: "DVFS on vs off: negligible below 20 ms",
    panlab: { mean_on_over_off_below_20ms_1core: $short1, mean_on_over_off_below_20ms_2cores: $short2, quantiles: $nshort },
    rule: "mean on/off ratio of the Q-Q quantiles below 20 ms within 0.9..1.15 on both core counts", reproduced: $r1 },
  { id: "dvfs-p96-dual", paper: "+170 ms at p96 on dual core", panlab: { p96_on_minus_off_ms: $p96 },
    rule: "positive and within a factor of 3 of 170 ms", reproduced: $r2 },
  { id: "dvfs-p98-single", paper: "+517 ms at p98 on single core", panlab: { p98_on_minus_off_ms: $p98 },
    rule: "positive and within a factor of 3 of 517 ms", reproduced: $r3 },
  { id: "qq-shape", paper: "Q-Q: about 1.0 below 60 ms, up to 1.75x above",
    panlab: { mean_ratio_below_60ms: $below60, mean_ratio_above_60ms: $above60, max_ratio_above_60ms: $max60 },
    rule: "mean ratio below 60 ms within 0.9..1.15 and largest ratio above within 1.3..3.0", reproduced: $r4 },
  { id: "second-core-short-only", paper: "a second core helps only short transactions (below about 2 ms)",
    panlab: { mean_1core_over_2cores_below_2ms: $cores_short, mean_1core_over_2cores_above_2ms: $cores_long, quantiles_below_2ms: $ncores_short },
    rule: "DVFS off: 1-core/2-core ratio above 1.1 below 2 ms and below 1.1 above", reproduced: $r5 },
  { id: "reddit-cpu-wait", paper: "Reddit-like: waiting for the CPU dominates the critical path (SD writeback preempts the app)",
    panlab: { longest_refreshes: $rows, where_cpu_wait_exceeds_network_and_io: $cpu_wins },
    rule: "2 cores, DVFS on: waiting for CPU above network and IO block in at least half of the 5 longest refreshes", reproduced: $r6 }
] }' > "$dir/findings.json"

{
	echo "# Panappticon section 6 on the phone"
	echo
	echo "Workload: \`$workload\` ($(grep -c '^tap' "$top/replay/scripts/$workload.rply") taps per configuration; replay/scripts/$workload.rply)."
	echo "Latencies are the analyzer's (input to last display update). Plots: cdf.svg (Fig. 9), qq.svg (Fig. 10);"
	echo "tables: energy.md (Table 5), breakdown.md (Table 4)."
	echo
	echo "| finding (paper) | panlab | rule | reproduced |"
	echo "|---|---|---|---|"
	jq -r '.findings[] | "| \(.paper) | \(.panlab | to_entries | map("\(.key) = \(.value)") | join(", ")) | \(.rule) | \(if .reproduced then "yes" else "no" end) |"' "$dir/findings.json"
	echo
	echo "## Where the critical paths' time went"
	echo
	echo "Sums over all transactions of each run (summary.json \`breakdown_ns\`, \`running_ns_by_khz\`):"
	echo "the findings that do not reproduce are read against these numbers below."
	echo
	echo "| configuration | running (s) | of it below 1.2 GHz | waiting for CPU (s) | network (s) | IO (s) | frame wait (s) |"
	echo "|---|---|---|---|---|---|---|"
	for c in $configs; do
		jq -r --arg c "$c" '.breakdown_ns as $b | (.running_ns_by_khz | to_entries) as $f
			| ($f | map(.value) | add // 0) as $run
			| ($f | map(select((.key | tonumber) < 1200000) | .value) | add // 0) as $low
			| def s(x): (x / 1e7 | round) / 100;
			"| \($c) | \(s($b.running)) | \(if $run > 0 then "\($low * 100 / $run | round)%" else "-" end) | \(s($b.runnable)) | \(s($b.network)) | \(s($b.io)) | \(s($b.frame_wait)) |"' \
			"$dir/$c/summary.json"
	done
	echo
	echo "## Why a finding does not reproduce"
	echo
	jq -r '.findings[] | select(.reproduced | not) | .id' "$dir/findings.json" | while read -r id; do
		case "$id" in
		dvfs-short-negligible|qq-shape)
			echo "- **$id**: every panlab transaction includes the display pipeline (up to one 16.7 ms"
			echo "  vsync period plus the compositor's flush), so the shortest ones sit near 20 ms and the"
			echo "  quantiles below 20 or 60 ms are few or none; the ratios above come from those few." ;;
		dvfs-p96-dual|dvfs-p98-single)
			echo "- **$id**: the upper tail is the story opens and refreshes, whose critical paths are"
			echo "  mostly network and IO blocking (table above); DVFS stretches only their running"
			echo "  part, which is the share of running time below 1.2 GHz in the c*-on rows." ;;
		second-core-short-only)
			echo "- **$id**: no panlab transaction is shorter than 2 ms (the display pipeline alone takes"
			echo "  longer), so the population the paper saw helped by a second core does not exist here;"
			echo "  above 2 ms the 1-core/2-core ratio is the value shown." ;;
		reddit-cpu-wait)
			echo "- **$id**: in the longest refreshes (breakdown.md) network or IO blocking exceeds the"
			echo "  time spent waiting for a CPU: the card's writeback (PIO at 200 ns per word) did not"
			echo "  hold the CPU long enough against the app's thread in this mix." ;;
		esac
	done
	echo
	echo "### Energy (Table 5 style)"
	echo
	cat "$dir/energy.md"
	echo
	echo "### Longest refreshes (Table 4 style)"
	echo
	cat "$dir/breakdown.md"
} > "$dir/findings.md"
echo "section6: wrote cdf.svg, qq.svg, energy.md, breakdown.md, findings.md and findings.json in $dir"
