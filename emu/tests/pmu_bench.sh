#!/bin/bash
# `make bench`, after the CPU bench wrote out/bench/pmu.json (the PMU's cost): adds
# perf_stat_exact, whether the guest tests panlab-pmu (emu/tests/guest/pmu.c: the
# instructions:u and cycles:u counts perf_event_open gives exact, its overflow samples where
# they belong) and panlab-perf (emu/tests/guest/perf.sh: perf stat itself exact, perf report
# naming the loop) passed; and tracer_extra_instructions_per_switch, what the kernel logger
# adds to the threads it traces per context switch (panlab-perf's pipe bench, logger on against
# off; null if it did not run); and tracer_extra_instructions_per_event, what the whole tracer
# adds to an app's threads per event they log: asynctask's replay on one core at 1.2 GHz,
# traced and untraced, each with PANLAB_COUNT_APP=1 (the session counts the app's threads'
# instructions from its exec to its exit, workloads/services/session.c), the difference in
# every mode over the events the traced run's app threads logged (the model's threads.events),
# beside it the user-mode difference (the userspace logger's share) and the counts themselves.
# Its exit status is the verdict.
#   usage: pmu_bench.sh TOP
set -euo pipefail
top=$1
json=$top/out/bench/pmu.json
[ -s "$json" ] || { echo "pmu_bench: $json is missing; the CPU bench writes it" >&2; exit 1; }
work=$top/build/emu/pmu-bench.$$
trap 'rm -rf "$work"' EXIT
exact=false
"$top/tests/integration/guest-test.sh" panlab-pmu "$work/pmu" --timeout-s 300 &&
	"$top/tests/integration/guest-test.sh" panlab-perf "$work/perf" \
		--append "$top/build/emu/guest-perf.cpio.gz" --timeout-s 300 && exact=true
extra=$(grep -a '^panlab-perf: pipe bench:' "$work/perf/console.log" 2>/dev/null |
	sed 's/.*: \([0-9-]*\) more per switch.*/\1/') || true
# "U user, A all" of the session's app count in run $1 (traced on|off).
app_count() {
	"$top/scripts/run-phone.sh" --workload asynctask --cores 1 --trace "$1" \
		--append PANLAB_COUNT_APP=1 --out "$work/app-$1" > "$work/app-$1.log" 2>&1 ||
		{ tail -n 20 "$work/app-$1.log" >&2; return 1; }
	grep -a '^panlab-session: app instructions:' "$work/app-$1/console.log" | tr -d '\r' |
		sed 's/.*: \([0-9]*\) user, \([0-9]*\) all$/\1 \2/'
}
app=null
if read -r on_user on_all < <(app_count on) && read -r off_user off_all < <(app_count off) &&
	"$top/build/analyzer/panlab-analyze" --trace "$work/app-on/trace.bin" \
		--ground-truth "$work/app-on/ground_truth.txt" --out "$work/app-on/analysis" \
		--backend phone --workload asynctask --sqlite "$work/app-on/model.sqlite" \
		--no-trace-json --no-plots > /dev/null; then
	events=$(sqlite3 "$work/app-on/model.sqlite" "SELECT sum(events) FROM threads
		WHERE tgid = (SELECT tid FROM threads WHERE name = 'app-asynctask')")
	app=$(jq -n --argjson ou "$on_user" --argjson oa "$on_all" --argjson fu "$off_user" \
		--argjson fa "$off_all" --argjson ev "$events" \
		'{workload: "asynctask, 1 core, 1.2 GHz", events: $ev,
		  traced: {user: $ou, all: $oa}, untraced: {user: $fu, all: $fa},
		  extra_per_event: (($oa - $fa) / $ev), extra_user_per_event: (($ou - $fu) / $ev)}')
fi
jq --argjson e "$exact" --argjson x "${extra:-null}" --argjson a "$app" \
	'. + {perf_stat_exact: $e, tracer_extra_instructions_per_switch: $x,
	      tracer_extra_instructions_per_event: (if $a then $a.extra_per_event else null end),
	      tracer_app_instructions: $a}' "$json" > "$work/pmu.json"
mv "$work/pmu.json" "$json"
echo "pmu_bench: perf_stat_exact $exact, tracer_extra_instructions_per_switch ${extra:-null}," \
	"tracer_extra_instructions_per_event $(jq -c '.tracer_extra_instructions_per_event' "$json") in $json"
