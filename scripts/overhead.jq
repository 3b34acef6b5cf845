# The tracer's end-to-end overhead from `panlab-analyze overhead`'s overhead.json (a traced
# and an untraced run of one replay on the phone): workloads/README.md, "Benchmark", says why
# it is sound. Frames leave at vsync, so each input's difference is the vsync grid's phase
# shift between the runs (the median; the same for every input) plus a whole vsync for each
# input whose frame tracing pushed past a tick (frames_moved). With k frames moved later of n,
# the tracer's added latency per input is at most vsync * upper95(k) / n, upper95(k) ~
# k + 1 + 1.96 sqrt(k + 1) (Poisson).
def cents: . * 100 | round / 100 | if . == 0 then 0 else . end;
(1000000000 / 60) as $vsync
| [.transactions[].overhead_ns] as $d | ($d | length) as $n
| ($d | sort | .[($n / 2 | floor)]) as $shift
| ($d | map(select((. - $shift) > $vsync / 2)) | length) as $later
| ($d | map(select(($shift - .) > $vsync / 2)) | length) as $earlier
| {
	overhead_mean_pct: (.mean.overhead_pct | cents),
	overhead_p95_pct: (.p95.overhead_pct | cents),
	overhead_mean_bound_pct: ($vsync * ($later + 1 + 1.96 * (($later + 1) | sqrt)) / $n
				  * 100 / .mean.off_ns | cents),
	frames_moved_later: $later,
	frames_moved_earlier: $earlier,
	vsync_grid_shift_ns: $shift,
	transactions: $n
}
