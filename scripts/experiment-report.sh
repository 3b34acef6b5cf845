#!/bin/bash
# Draws an experiment's HTML report from its results database (scripts/experiment.sh):
#   - a table per configuration (workload, backend, cores, frequency, tracing): runs ok and
#     failed, transactions, precision, recall, ground-truth latency p50/p90/p99, mean error;
#   - per workload, the ground-truth latency CDFs of its configurations overlaid;
#   - per workload and configuration run both ways, the Q-Q plot of latency untraced vs traced;
#   - the mean critical-path breakdown per configuration (stacked, with the ground-truth input
#     dispatch and display pipeline segments, so a bar is the mean ground-truth latency);
#   - DiagDroid's diagnosis: each run's suspicious groups of tasks, ranked (analyzer/diagnosis.c);
#   - the failed runs with their reasons.
# Plots are gnuplot SVG, inlined in the page, which needs no other file.
#
#   scripts/experiment-report.sh DB OUT.html
set -euo pipefail
[ $# = 2 ] || { echo "usage: $0 DB OUT.html" >&2; exit 2; }
db=$1 html=$2
[ -s "$db" ] || { echo "$db: no such database" >&2; exit 1; }
sqlite3 "$db" "SELECT count(*) FROM runs" >/dev/null 2>&1 ||
	{ echo "$db: not a panlab results database (no runs table)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

q() { sqlite3 -separator $'\t' "$db" "$1"; }
esc() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g'; }
# A configuration's label: everything but the repetition.
conf="r.workload || ' ' || r.config || ' trace ' || CASE r.trace WHEN 1 THEN 'on' ELSE 'off' END"
# The SVG gnuplot wrote, without its XML prologue, for inlining.
inline_svg() { sed -n '/<svg/,$p' "$1"; }
plot() {	# plot NAME: gnuplot script on stdin -> $work/NAME.svg
	{ echo "set terminal svg size 720,420 font 'sans,11' background '#ffffff' noenhanced"
	  echo "set output '$work/$1.svg'"; cat; } | gnuplot
	svg_complete "$work/$1.svg"
}
# gnuplot exits 0 even when it could not write its output (a full disk): check the end tag.
svg_complete() {
	grep -q '</svg>' "$1" 2>/dev/null || { echo "$1: cannot write: gnuplot left no complete SVG (disk full?)" >&2; exit 1; }
}

experiment=$(q "SELECT group_concat(DISTINCT experiment) FROM runs")
{
cat <<EOF
<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>panlab experiment $(esc <<<"$experiment")</title>
<style>body{font-family:sans-serif;margin:2em;max-width:70em}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #bbb;padding:.2em .6em;text-align:right}th{background:#eee}td:first-child{text-align:left}
figure{margin:1em 0}figcaption{font-size:90%;color:#444}.failed{color:#b00}</style></head><body>
<h1>Experiment $(esc <<<"$experiment")</h1>
<p>$(q "SELECT count(*) || ' runs: ' || sum(status = 'ok') || ' ok, ' || sum(status = 'failed') || ' failed, ' ||
	sum(status NOT IN ('ok', 'failed')) || ' not run' FROM runs") (from $(esc <<<"$(basename "$db")")).
Latencies are ground truth (input injected to frame flushed), in ms of guest time.</p>
<h2>Configurations</h2>
<table><tr><th>configuration</th><th>runs ok</th><th>failed</th><th>transactions</th><th>precision</th>
<th>recall</th><th>p50</th><th>p90</th><th>p99</th><th>mean |error|</th></tr>
EOF
q "SELECT DISTINCT $conf FROM runs r ORDER BY 1" | while IFS= read -r c; do
	cq=$(sed "s/'/''/g" <<<"$c")
	counts=$(q "SELECT sum(r.status = 'ok'), sum(r.status = 'failed'), coalesce(sum(v.transactions), 0),
		CASE WHEN min(v.precision) IS NULL THEN '-' ELSE printf('%.3f', min(v.precision)) END,
		CASE WHEN min(v.recall) IS NULL THEN '-' ELSE printf('%.3f', min(v.recall)) END,
		CASE WHEN avg(v.latency_error_mean_ns) IS NULL THEN '-'
			ELSE printf('%.2f', avg(v.latency_error_mean_ns) / 1e6) END
		FROM runs r LEFT JOIN validation v USING (run_id) WHERE $conf = '$cq'")
	IFS=$'\t' read -r ok bad ntx prec rec err <<<"$counts"
	pct=$(q "SELECT w.truth_latency_ns FROM validation_rows w JOIN runs r USING (run_id)
		WHERE $conf = '$cq' AND w.truth_latency_ns IS NOT NULL ORDER BY 1" |
		awk '{ v[NR] = $1 } END {
			split("50 90 99", p, " ")
			for (i = 1; i <= 3; i++) {
				if (NR == 0) { printf "<td>-</td>"; continue }
				k = int((p[i] * NR + 99) / 100); if (k < 1) k = 1
				printf "<td>%.1f</td>", v[k] / 1e6 }
		}')
	echo "<tr><td>$(esc <<<"$c")</td><td>$ok</td><td>$bad</td><td>$ntx</td><td>$prec</td><td>$rec</td>$pct<td>$err</td></tr>"
done
echo "</table>"

echo "<h2>Latency CDFs</h2>"
for w in $(q "SELECT DISTINCT workload FROM runs WHERE status = 'ok' ORDER BY 1"); do
	cmds=() n=0
	while IFS= read -r c; do
		cq=$(sed "s/'/''/g" <<<"$c")
		q "SELECT w.truth_latency_ns / 1e6 FROM validation_rows w JOIN runs r USING (run_id)
			WHERE $conf = '$cq' AND w.truth_latency_ns IS NOT NULL ORDER BY 1" |
			awk '{ v[NR] = $1 } END { for (i = 1; i <= NR; i++) print v[i], i / NR }' > "$work/cdf-$w-$n.dat"
		[ -s "$work/cdf-$w-$n.dat" ] && cmds+=("'$work/cdf-$w-$n.dat' with steps lw 2 title '${c#"$w" }'")
		n=$((n + 1))
	done < <(q "SELECT DISTINCT $conf FROM runs r WHERE r.workload = '$w' AND r.status = 'ok' ORDER BY 1")
	[ ${#cmds[@]} -gt 0 ] || continue
	plot "cdf-$w" <<EOF
set title "$w: ground-truth latency CDF per configuration"
set xlabel "latency (ms)"; set ylabel "fraction of inputs"; set yrange [0:1.02]; set key bottom right
set grid
plot $(IFS=,; echo "${cmds[*]}")
EOF
	echo "<figure>$(inline_svg "$work/cdf-$w.svg")<figcaption>$w: one curve per configuration, repetitions pooled.</figcaption></figure>"
done

echo "<h2>Tracing overhead (Q-Q)</h2>"
qq=0
while IFS=$'\t' read -r w cfg; do
	for t in 0 1; do
		q "SELECT w.truth_latency_ns / 1e6 FROM validation_rows w JOIN runs r USING (run_id)
			WHERE r.workload = '$w' AND r.config = '$cfg' AND r.trace = $t AND r.status = 'ok'
			AND w.truth_latency_ns IS NOT NULL ORDER BY 1" > "$work/qq-$t.dat"
	done
	[ -s "$work/qq-0.dat" ] && [ -s "$work/qq-1.dat" ] || continue
	# Equal quantiles of the two sorted samples, as many as the smaller has.
	awk 'NR == FNR { off[++n] = $1; next } { on[++m] = $1 }
		END { k = n < m ? n : m
			for (i = 1; i <= k; i++) print off[int((i - 0.5) * n / k) + 1], on[int((i - 0.5) * m / k) + 1] }' \
		"$work/qq-0.dat" "$work/qq-1.dat" > "$work/qq-$w-$cfg.dat"
	plot "qq-$w-$cfg" <<EOF
set title "$w $cfg: latency quantiles, tracing off vs on"
set xlabel "tracing off (ms)"; set ylabel "tracing on (ms)"; set key top left; set grid
set size ratio -1
plot '$work/qq-$w-$cfg.dat' with points pt 7 ps 0.6 title 'quantiles', x with lines dt 2 title 'y = x'
EOF
	echo "<figure>$(inline_svg "$work/qq-$w-$cfg.svg")<figcaption>$w on $cfg: points above y = x are slower traced.</figcaption></figure>"
	qq=$((qq + 1))
done < <(q "SELECT workload, config FROM runs WHERE status = 'ok' GROUP BY workload, config
	HAVING count(DISTINCT trace) = 2 ORDER BY 1, 2")
[ "$qq" -gt 0 ] || echo "<p>No configuration was run both with and without tracing.</p>"

echo "<h2>Critical-path breakdown</h2>"
cats=$(q "SELECT DISTINCT category FROM breakdown ORDER BY category = 'input_dispatch' DESC,
	category = 'display_pipeline', category")
if [ -n "$cats" ]; then
	# One row per configuration: its label, then the mean ns per transaction of each category.
	q "SELECT DISTINCT $conf FROM runs r WHERE r.status = 'ok' ORDER BY 1" | while IFS= read -r c; do
		cq=$(sed "s/'/''/g" <<<"$c")
		row=$(echo "$cats" | while IFS= read -r cat; do
			q "SELECT coalesce(sum(b.ns), 0) * 1.0 / max(1, (SELECT count(*) FROM transactions t
				JOIN runs r USING (run_id) WHERE $conf = '$cq')) / 1e6
				FROM breakdown b JOIN runs r USING (run_id) WHERE $conf = '$cq' AND b.category = '$cat'"
		done | paste -sd' ')
		echo "\"$c\" $row"
	done > "$work/breakdown.dat"
	ncat=$(wc -l <<<"$cats")
	titles=$(echo "$cats" | awk '{ printf "%s%s", (NR > 1 ? " " : ""), $0 }')
	plot breakdown <<EOF
set terminal svg size 720,520 font 'sans,11' background '#ffffff' noenhanced
set output '$work/breakdown.svg'
set title "mean time per transaction by category (ms)"
set style data histograms; set style histogram rowstacked; set style fill solid 0.85 border -1
set boxwidth 0.6; set key outside right; set xtics rotate by -25 left; set ylabel "ms"
set grid ytics; set bmargin 12
cats = "$titles"
plot for [i=2:$((ncat + 1))] '$work/breakdown.dat' using i:xtic(1) title word(cats, i - 1)
EOF
	echo "<figure>$(inline_svg "$work/breakdown.svg")<figcaption>Critical-path categories plus the ground-truth input dispatch and display pipeline: each bar is the mean ground-truth latency.</figcaption></figure>"
fi

echo "<h2>Diagnosis (DiagDroid)</h2>"
# The analyzer's ranked suspicious groups (diagnosis.c), as its report words them.
diag=$(q "SELECT g.run_id, g.group_id, c.frame0 || coalesce(' < ' || c.frame1, ''),
	printf('%.2f', g.max_queuing_ns / 1e6), printf('%.2f', g.max_execution_ns / 1e6),
	coalesce(g.capacity, '-'), g.long_waits, coalesce(printf('%.2f', g.avg_queue_length), '-'),
	coalesce(printf('%.2f', g.avg_in_queue_execution_ns / 1e6), '-'),
	coalesce(r.group_id || ': ' || rc.frame0 || coalesce(' < ' || rc.frame1, ''), '-')
	FROM groups g JOIN contexts c ON c.run_id = g.run_id AND c.context_id = g.context_id
	LEFT JOIN groups r ON r.run_id = g.run_id AND r.group_id = g.root_cause
	LEFT JOIN contexts rc ON rc.run_id = r.run_id AND rc.context_id = r.context_id
	WHERE g.suspicious ORDER BY g.run_id, g.group_id")
if [ -n "$diag" ]; then
	echo "<table><tr><th>run</th><th>rank</th><th>context</th><th>max queuing</th><th>max execution</th>"
	echo "<th>pool capacity</th><th>waits &ge; 500 ms</th><th>avg. queue length</th>"
	echo "<th>avg. execution of in-queue tasks</th><th>runtime dependency</th></tr>"
	while IFS=$'\t' read -r id rank ctx mq me cap waits ql ex cause; do
		echo "<tr><td>$(esc <<<"$id")</td><td>$rank</td><td style=\"text-align:left\">$(esc <<<"$ctx")</td>"
		echo "<td>$mq</td><td>$me</td><td>$cap</td><td>$waits</td><td>$ql</td><td>$ex</td>"
		echo "<td style=\"text-align:left\">$(esc <<<"$cause")</td></tr>"
	done <<<"$diag"
	echo "</table><p>Times in ms; contexts are the first two frames where the task was scheduled.</p>"
else
	echo "<p>No group of tasks queued or ran 500 ms or more.</p>"
fi

failed=$(q "SELECT run_id, coalesce(reason, '') FROM runs WHERE status = 'failed' ORDER BY 1")
if [ -n "$failed" ]; then
	echo "<h2 class=\"failed\">Failed runs</h2><table><tr><th>run</th><th>reason</th></tr>"
	while IFS=$'\t' read -r id reason; do
		echo "<tr><td>$(esc <<<"$id")</td><td style=\"text-align:left\">$(esc <<<"$reason")</td></tr>"
	done <<<"$failed"
	echo "</table>"
fi
echo "</body></html>"
} > "$work/report.html"
# Copied in one step whose failure (a full disk, a bad path) is caught and named.
cp "$work/report.html" "$html.tmp" 2>/dev/null ||
	{ rm -f "$html.tmp"; echo "$html: cannot write the report (disk full or bad path?)" >&2; exit 1; }
mv "$html.tmp" "$html"
echo "report: ${html}"
