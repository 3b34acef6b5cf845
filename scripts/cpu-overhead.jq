# The tracer's CPU-time overhead from the phone's cpu_time.txt of a traced ($on) and an
# untraced ($off) run of one replay (emu/replay.h, --cpu-time): each tap's CPU time is what
# the cores spent running from its input to the next input (the last one's, to the end), the
# tracer's logging and collector included. The vsync grid that rounds latencies does not
# round it. Per workload: the mean per tap on against off, the p95 of the per-tap overheads,
# and the upper 95% confidence bound of the mean (mean difference + 1.96 standard errors).
#   usage: jq -n --rawfile on ON/cpu_time.txt --rawfile off OFF/cpu_time.txt -f cpu-overhead.jq
def cents: . * 100 | round / 100 | if . == 0 then 0 else . end;
def busy: split("\n") | map(select(test("^(input|end) ")) | split(" ") | .[-1] | tonumber);
def taps: [range(1; length) as $i | .[$i] - .[$i - 1]];
($on | busy | taps) as $a | ($off | busy | taps) as $b
| if ($a | length) != ($b | length) or ($a | length) < 2 then
	error("the traced and untraced runs have \($a | length) and \($b | length) taps; expected the same replay")
  else . end
| ($a | length) as $n
| [range($n) as $i | $a[$i] - $b[$i]] as $d
| ($b | add / $n) as $off_mean
| ($d | add / $n) as $d_mean
| ((($d | map(. - $d_mean | . * .) | add) / ($n - 1)) | sqrt) as $sd
| [range($n) as $i | 100 * $d[$i] / $b[$i]] as $pct
| {
	overhead_mean_pct: (100 * $d_mean / $off_mean | cents),
	overhead_p95_pct: ($pct | sort | .[(0.95 * ($n - 1) | round)] | cents),
	overhead_mean_bound_pct: (100 * ($d_mean + 1.96 * $sd / ($n | sqrt)) / $off_mean | cents),
	cpu_ms_per_tap_on: ($a | add / $n / 1e6 | cents),
	cpu_ms_per_tap_off: ($off_mean / 1e6 | cents),
	taps: $n
}
