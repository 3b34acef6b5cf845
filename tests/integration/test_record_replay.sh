#!/bin/bash
# "The recorder's output replays to the same transactions": boots the qemu
# guest on the asynctask workload with PANLAB_RECORD=1, so `panlab-replay record` reads the
# injector's /dev/input device during the live session and the session prints the script it
# wrote; then boots again with that script (added to the initramfs as a second cpio archive, which
# the kernel unpacks over the first) and compares the analyzer's transactions of the two runs:
# the same inputs, each with the same critical-path shape, and detected latencies within one
# display frame (16.67 ms) plus 2% (at least 4 ms) of each other: the recording keeps times to
# the millisecond, so an input may land on the other side of a vsync edge, and its frame one vsync
# later or earlier. The 4 ms floor is for the boot's first task, whose one-time costs moved by
# 2.9 ms beyond a frame between two qemu boots of the same script (input 0: 87.5 and 68.0 ms,
# in 1 of 4 runs on 2026-11-28; the cause is not found).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
out=$top/out/test-record-replay
rm -rf "$out"
mkdir -p "$out/overlay/replay"

# boot RUN RUN-QEMU-ARGS...: one guest run in $out/RUN, analyzed there.
boot() {
	local run=$1
	shift
	"$top/scripts/run-qemu.sh" --out "$out/$run" "$@" > "$out/$run.log" 2>&1 ||
		{ tail -n 20 "$out/$run.log"; fail "the $run run failed; log in $out/$run.log"; }
	cat "$out/$run/gt-input.txt" "$out/$run/gt-display.txt" > "$out/$run/ground_truth.txt"
	"$top/build/analyzer/panlab-analyze" --trace "$out/$run/trace.bin" \
		--ground-truth "$out/$run/ground_truth.txt" --out "$out/$run" --backend qemu \
		--workload asynctask --run-id "test-record-replay-$run" > "$out/$run/analyze.log" 2>&1 ||
		{ cat "$out/$run/analyze.log"; fail "analyzing the $run run failed"; }
}

boot live --workload asynctask --append PANLAB_RECORD=1
script=$out/overlay/replay/asynctask@recorded.rply
tr -d '\r' < "$out/live/console.log" |
	sed -n '/^panlab-recorded-script begin$/,/^panlab-recorded-script end$/p' | sed '1d;$d' > "$script"
"$top/build/replay/host/panlab-replay" check "$script" || fail "the recorded script does not parse"
# The recorder sees what the injector sent: the same inputs at the same times (to the ms; the
# asynctask script's times are whole ms). Only the end differs: the recording stops when the
# session stops it, after the script's end.
inputs() { "$top/build/replay/host/panlab-replay" list "$1" | sed '$d'; }
diff <(inputs "$top/replay/scripts/asynctask.rply") <(inputs "$script") ||
	fail "the recorded script's inputs differ from replay/scripts/asynctask.rply's"
(cd "$out/overlay" && find replay | cpio -o -H newc --quiet | gzip -n) > "$out/overlay.cpio.gz"
cat "$top/build/initramfs.cpio.gz" "$out/overlay.cpio.gz" > "$out/initramfs.cpio.gz"
boot replayed --workload asynctask@recorded --initrd "$out/initramfs.cpio.gz"

# input_id, detected_latency_ns, critical_path of each detected transaction, in input order.
rows() { awk -F, 'NR > 1 && $2 != "" { print $2, $5, $NF }' "$out/$1/transactions.csv" | sort -n; }
rows live > "$out/live.rows"
rows replayed > "$out/replayed.rows"
n=$(wc -l < "$out/live.rows")
[ "$n" -ge 20 ] || fail "the live run has $n transactions, expected at least 20"
for run in live replayed; do
	[ "$(jq -r '.precision == 1 and .recall == 1' "$out/$run/summary.json")" = true ] ||
		fail "the $run run's transactions do not match its ground truth (precision or recall below 1)"
done
join "$out/live.rows" "$out/replayed.rows" | awk -v n="$n" '
	{ d = $2 - $4; if (d < 0) d = -d; tol = 16666667 + ($2 / 50 > 4000000 ? $2 / 50 : 4000000)
	  if ($3 != $5) { print "input " $1 ": critical path " $3 " live, " $5 " replayed"; bad = 1 }
	  if (d > tol) { print "input " $1 ": latency " $2 " ns live, " $4 " ns replayed"; bad = 1 }
	  if (d > max) max = d; m++ }
	END { if (m != n) { print m " inputs in both runs, expected " n; bad = 1 }
	      printf "max latency difference %.3f ms\n", max / 1e6 > "/dev/stderr"; exit bad }' ||
	fail "the replayed transactions differ (rows in $out/live.rows and $out/replayed.rows)"
[ "$(wc -l < "$out/replayed.rows")" = "$n" ] || fail "the replayed run has $(wc -l < "$out/replayed.rows") transactions, expected $n"
echo "test_record_replay: ok ($n transactions recorded and replayed, same inputs and critical paths)"
