#!/bin/bash
# The activity manager on the qemu backend: replay/scripts/switch.rply launches asynctask and
# service and switches between them with taps in each. Checks that every tap is one matched
# transaction whose critical path has its app's shape (workloads/apps/switch.expect: task ->
# message for asynctask, task -> binder -> message for service, so a tap routed to the wrong app
# fails it), and that the trace's foreground events alternate between the two apps, each
# EXIT_FOREGROUND before the next ENTER_FOREGROUND.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
run_id=test-switch
mkdir -p "$top/out"
"$top/scripts/run-experiment.sh" --backend qemu --workload switch --run-id "$run_id" > "$top/out/$run_id.log" 2>&1 ||
	{ tail -n 30 "$top/out/$run_id.log"; echo "test_switch: the run failed; log in out/$run_id.log"; exit 1; }
out=$top/out/$run_id
summary=$out/summary.json

for check in '.inputs == 8' '.transactions == .inputs' '.matched == .inputs' '.precision == 1' \
	'.recall == 1' '.shape_ok == true' '.events_lost == 0' '.latency_error_ns.max < 40000000'; do
	[ "$(jq -r "$check" "$summary")" = true ] ||
		{ echo "test_switch: $check does not hold in $summary"; exit 1; }
done

# ENTER_FOREGROUND (74) and EXIT_FOREGROUND (75) records, a0 = the app's pid, in time order
# (include/panlab/trace_format.h: a 32-byte header, 24 bytes per source, 32 per record;
# od prints each record as ts, type|cpu|tid, a0, a1|a2).
trace=$out/trace.bin
nsources=$(od -A n -j 20 -N 4 -t u4 "$trace" | tr -d ' ')
od -A n -v -j $((32 + 24 * nsources)) -w32 -t u8 "$trace" |
	awk '$2 % 65536 == 74 || $2 % 65536 == 75 { print $1, $2 % 65536 == 74 ? "enter" : "exit", $3 }' |
	sort -n > "$out/foreground.txt"
# launch A, launch B, switch A, switch B, switch A, then A stops: 5 enters, 5 exits.
awk '
	{ if ($2 == "enter") { if (in_fg != "") bad = "enter while " in_fg " is in the foreground"
			       if ($3 == last) bad = "the same app entered twice"
			       in_fg = $3; last = $3; enters++; apps[$3] = 1 }
	  else { if ($3 != in_fg) bad = "exit of " $3 ", not the foreground app"; in_fg = "" } }
	END { n = 0; for (a in apps) n++
	      if (!bad && (enters != 5 || n != 2)) bad = enters " enters by " n " apps, expected 5 by 2"
	      if (bad) { print "test_switch: foreground events: " bad; exit 1 } }' "$out/foreground.txt" ||
	{ cat "$out/foreground.txt"; exit 1; }
echo "test_switch: ok (8 transactions on two apps, shapes as declared, foreground alternating)"
