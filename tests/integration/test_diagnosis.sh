#!/bin/bash
# DiagDroid's diagnosis on the phone (analyzer/README.md, "Diagnosis"): app-iconlist's icon
# loads queue behind its list download on the serial executor, so the top-ranked group's
# context is in load_icons, with pool capacity 1 and queue lengths above 0, and its root cause
# in refresh_list (replay/scripts/iconlist.expect, checked into shape_ok); app-iconpool, the
# same app on THREAD_POOL_EXECUTOR, has no suspicious group. The same run's diagnosis checked
# against a wrong declaration must fail, so the check can fail. About 30 s.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
for w in iconlist iconpool; do
	run_experiment "test-diagnosis-$w" --backend phone --workload "$w"
	check_summary "$top/out/test-diagnosis-$w/summary.json" '.transactions == 5' \
		'.precision == 1' '.recall == 1' '.shape_ok == true'
done
check_summary "$top/out/test-diagnosis-iconlist/summary.json" \
	'.diagnosis.suspicious == 1' '.diagnosis.ranked[0].pool_capacity == 1' \
	'.diagnosis.ranked[0].avg_queue_length > 0' \
	'.diagnosis.ranked[0].max_queuing_ns >= 500000000' \
	'any(.diagnosis.ranked[0].context.frames[]; startswith("load_icons+"))' \
	'any(.diagnosis.ranked[0].runtime_dependency[0].context.frames[]; startswith("refresh_list+"))'
check_summary "$top/out/test-diagnosis-iconpool/summary.json" '.diagnosis.suspicious == 0'

# The list download declared as the top group instead: the declared structure must fail.
out=$top/out/test-diagnosis-iconlist
sed 's/^diagnosis top load_icons /diagnosis top refresh_list /' "$top/replay/scripts/iconlist.expect" \
	> "$out/wrong.expect"
"$top/build/analyzer/panlab-analyze" --trace "$out/trace.bin" --ground-truth "$out/ground_truth.txt" \
	--out "$out/wrong" --backend phone --workload iconlist --symbols "$top/build/guest/bin" \
	--expect "$out/wrong.expect" --no-plots --no-trace-json > "$out/wrong.log"
check_summary "$out/wrong/summary.json" '.shape_ok == false' \
	'.expect.failed == [{"input": null, "reason": "the top group'"'"'s context is not in refresh_list"}]'
echo "test_diagnosis: ok (iconlist: load_icons ranked first, capacity 1, root cause refresh_list; iconpool: nothing suspicious)"
