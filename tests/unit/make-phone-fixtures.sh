#!/bin/bash
# Regenerates the analyzer's phone fixtures, tests/unit/data/analyzer/phone-NAME.{trace.bin,gt}
# (test_analyzer_fixtures.c): runs each workload below on the phone and keeps the start of the
# run, up to its input number INPUTS (0-based, the first one dropped): the trace's records
# timestamped before that input (build/analyzer/fixture-cut) and the ground truth's records
# before it, closed by an `end` record at its time. The phone is deterministic, so the same
# build regenerates the same bytes. Needs `make build`; takes a minute or two.
#
# usage: tests/unit/make-phone-fixtures.sh [NAME...]   (default: every fixture)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
data=$top/tests/unit/data/analyzer

# NAME WORKLOAD INPUTS: what each fixture holds, besides every fixture's CPU idle, wait-queue,
# futex and display (INPUT_READ .. DISPLAY_FLUSHED) events.
fixtures=(
	# configd switches cores and DVFS between taps: CPU_OFFLINE/ONLINE, CPU_FREQUENCY
	# changes (one in input 6's transaction), semaphores (the hotplug path)
	"configd asynctask+configd 7"
	# a TCP fetch (SOCK and STREAM blocking) and an fsync to the SD card (IO blocking)
	"sdcache sdcache 1"
	# a UDP fetch (DATAGRAM blocking)
	"netdgram netdgram 1"
	# B's worker waits for the lock A's holds: a futex lock hop on input 1's path
	"lockcontention lockcontention 2"
	# a one-way binder note whose journal write the two-way call's handler waits for on a
	# kernel mutex (MUTEX_WAIT/NOTIFY/WAKE): both on input 0's path
	"svcjournal svcjournal 1"
	# two taps' list download and icon loads on the serial executor, with their execution
	# contexts and the units' capacities (trace version 2): DiagDroid's diagnosis
	"iconlist iconlist 2"
)

make --no-print-directory -s -C "$top/analyzer" fixture-cut
for f in "${fixtures[@]}"; do
	read -r name workload inputs <<< "$f"
	[ $# = 0 ] || [[ " $* " == *" $name "* ]] || continue
	run_id=fixture-$name
	echo "make-phone-fixtures: $name: $workload on the phone, inputs 0 to $((inputs - 1))"
	"$top/scripts/run-experiment.sh" --backend phone --workload "$workload" --run-id "$run_id" \
		> "$top/out/$run_id.log" 2>&1 ||
		{ tail -n 20 "$top/out/$run_id.log"; echo "make-phone-fixtures: the $workload run failed" >&2; exit 1; }
	run=$top/out/$run_id
	end=$(awk -v n="$inputs" '$1 == "input" && $2 == n { print $3 }' "$run/ground_truth.txt")
	[ -n "$end" ] || { echo "make-phone-fixtures: $run/ground_truth.txt has no input $inputs" >&2; exit 1; }
	"$top/build/analyzer/fixture-cut" "$run/trace.bin" "$data/phone-$name.trace.bin" "$end"
	awk -v end="$end" '
		/^#/ || $1 == "panlab-ground-truth" { print; next }
		$1 == "ready" && $2 < end { print; next }
		($1 == "input" || $1 == "frame") && $3 < end { print }
		END { print "end", end }' "$run/ground_truth.txt" > "$data/phone-$name.gt"
	echo "make-phone-fixtures: $name: $(stat -c %s "$data/phone-$name.trace.bin") trace bytes"
done
