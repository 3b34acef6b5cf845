#!/bin/bash
# DVFS and core count as experiment settings:
#  - on the phone, the guest test panlab-dvfs (emu/tests/guest/dvfs.sh): the stock scmi-cpufreq
#    driver over the phone's SCMI platform, its operating points and latency, the stock
#    governors on an idle and a busy cpu, cpu1 offline and online;
#  - `make run CORES=1 GOVERNOR=ondemand`'s run (run-experiment.sh --cores 1 --governor ondemand)
#    of asynctask: every tap one matched transaction, precision = recall = 1, one core online,
#    and CPU_FREQUENCY events in the trace (the logger's frequency at start and ondemand's
#    switches, on cpu 0 only); the same replay untraced, and `panlab-analyze overhead` on the
#    two runs' cpu_time.txt (the traced one costs more CPU per tap);
#  - the same replay traced at a fixed 1.2 GHz: the app's task thread (AsyncSerial) executed
#    exactly the same user-mode instructions as under ondemand (the kernel logger's SWITCH_COUNTS
#    summed, the model's threads.instructions): the same work at another clock counts the same;
#  - on qemu, a DVFS option is refused with one line before anything boots.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

out=$top/out/test-dvfs-guest
"$top/tests/integration/guest-test.sh" panlab-dvfs "$out"
grep -a '^panlab-dvfs: ' "$out/console.log" | tr -d '\r'

run_id=test-dvfs-ondemand
run_experiment "$run_id" --workload asynctask --cores 1 --governor ondemand
d=$top/out/$run_id
check_summary "$d/summary.json" '.inputs >= 20' '.transactions == .inputs' '.matched == .inputs' \
	'.precision == 1' '.recall == 1' '.events_lost == 0'
# cpu_time.txt (the phone's --cpu-time): one line per input and the end.
[ "$(grep -c '^input ' "$d/cpu_time.txt")" = "$(jq .inputs "$d/summary.json")" ] ||
	fail "cpu_time.txt does not have one line per input"
# The same replay untraced (the phone is deterministic, so only the tracer differs): the traced
# run spends more CPU per tap than the untraced one, and both at least the app's fixed work
# (asynctask's tasks are 40 ms or more); `panlab-analyze overhead` reads both cpu_time.txt
# (its statistics have unit tests: tests/unit/test_analyzer_overhead.c).
off=$top/out/$run_id-untraced
"$top/scripts/run-phone.sh" --workload asynctask --cores 1 --governor ondemand --trace off --out "$off" \
	> "$off.log" 2>&1 || { tail -n 20 "$off.log"; fail "the untraced ondemand run failed"; }
"$top/build/analyzer/panlab-analyze" overhead --on "$d" --off "$off" --out "$off-overhead" --no-plots \
	> /dev/null || fail "panlab-analyze overhead cannot compare $d with $off"
taps=$(jq -c .cpu_time "$off-overhead/overhead.json")
[ "$(jq --argjson n "$(jq .inputs "$d/summary.json")" \
	'.taps == $n and .overhead_mean_pct > 0 and .cpu_ms_per_tap_off >= 40' <<< "$taps")" = true ] ||
	fail "the CPU-time overhead of the traced against the untraced run: $taps"
echo "test_dvfs: the tracer's CPU time, traced against untraced: $taps"
grep -aq '^panlab-init: 1 cpus online' "$d/console.log" || fail "the run did not have one cpu online"
grep -aq '^panlab-init: cpufreq governor ondemand' "$d/console.log" || fail "ondemand was not selected"
freq=$(jq '[.traceEvents[] | select(.ph == "C" and (.name | test("^cpu [0-9]+ frequency$")))]' "$d/trace.json")
n=$(jq length <<< "$freq")
[ "$n" -ge 2 ] || fail "$n CPU_FREQUENCY events in the trace, expected the start and ondemand's switches"
[ "$(jq '[.[].name] | unique' -c <<< "$freq")" = '["cpu 0 frequency"]' ] ||
	fail "CPU_FREQUENCY events name cpus other than cpu 0 with one core online"
echo "test_dvfs: asynctask on 1 core under ondemand: $(jq -r .transactions "$d/summary.json") transactions, precision and recall 1, $n CPU_FREQUENCY events ($(jq -c '[.[].args.kHz] | unique' <<< "$freq") kHz)"

fixed=test-dvfs-fixed
run_experiment "$fixed" --workload asynctask --cores 1
[ "$(jq -r .critical_path_counts.instructions_modes "$d/summary.json")" = user ] ||
	fail "the trace's SWITCH_COUNTS do not count user mode only"
# The per-step figures are printed, not checked: a step that starts or ends inside a slice
# gets the slice's count by its share of cycles (analyzer/README.md, critical_path_counts).
insns=$(sqlite3 -separator ' ' "$d/model.sqlite" "ATTACH '$top/out/$fixed/model.sqlite' AS f;
	SELECT o.instructions, x.instructions FROM threads o JOIN f.threads x USING (name)
	WHERE name = 'AsyncSerial';
	SELECT o.instructions, x.instructions FROM (SELECT sum(instructions) AS instructions FROM breakdown WHERE category = 'running') o,
	     (SELECT sum(instructions) AS instructions FROM f.breakdown WHERE category = 'running') x")
read -r task_ondemand task_fixed cp_ondemand cp_fixed <<< "$(tr '\n' ' ' <<< "$insns")"
[ -n "$task_ondemand" ] && [ "$task_ondemand" -gt 0 ] ||
	fail "no AsyncSerial thread with instructions in both runs: $insns"
[ "$task_ondemand" = "$task_fixed" ] ||
	fail "AsyncSerial executed $task_ondemand user instructions under ondemand, $task_fixed at 1.2 GHz"
echo "test_dvfs: AsyncSerial's user instructions, ondemand and 1.2 GHz: $task_ondemand both;" \
	"the critical paths' $cp_ondemand and $cp_fixed"

msg=$("$top/scripts/run-experiment.sh" --backend qemu --workload asynctask --governor ondemand 2>&1 >/dev/null) &&
	fail "qemu accepted --governor"
[ "$(grep -c . <<< "$msg")" = 1 ] && grep -q "stock QEMU cannot scale a vCPU's speed" <<< "$msg" ||
	fail "qemu's refusal of --governor is not one line naming the reason: $msg"
echo "test_dvfs: qemu refuses --governor: $msg"
echo "test_dvfs: ok"
