#!/bin/bash
# DVFS and core count as experiment settings:
#  - on the phone, the guest test panlab-dvfs (emu/tests/guest/dvfs.sh): the stock scmi-cpufreq
#    driver over the phone's SCMI platform, its operating points and latency, the stock
#    governors on an idle and a busy cpu, cpu1 offline and online;
#  - `make run CORES=1 GOVERNOR=ondemand`'s run (run-experiment.sh --cores 1 --governor ondemand)
#    of asynctask: every tap one matched transaction, precision = recall = 1, one core online,
#    and CPU_FREQUENCY events in the trace (the logger's frequency at start and ondemand's
#    switches, on cpu 0 only); the same replay untraced, and scripts/cpu-overhead.jq on the
#    two runs' cpu_time.txt (the traced one costs more CPU per tap) and on two made-up files
#    with a worked answer;
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
# cpu_time.txt (the phone's --cpu-time): one line per input and the end, busy time never falling,
# and the taps' CPU time at least the app's fixed work (asynctask's tasks are 40 ms or more).
[ "$(grep -c '^input ' "$d/cpu_time.txt")" = "$(jq .inputs "$d/summary.json")" ] ||
	fail "cpu_time.txt does not have one line per input"
awk 'NR > 1 && $NF < prev { exit 1 } { prev = $NF }' "$d/cpu_time.txt" || fail "busy time falls in cpu_time.txt"
# cpu-overhead.jq on two made-up files whose answer is worked out by hand: taps of 11, 22 and
# 36 ms against 10, 20 and 30 ms are 1, 2 and 6 ms more (10, 10 and 20%): a mean of 3 ms over
# 20 ms, 15%; p95 the largest, 20%; sd sqrt(7) ms, so the bound is (3 + 1.96 sqrt(7) / sqrt(3))
# / 20 = 29.97%.
printf 'input 1 5 0\ninput 2 6 11000000\ninput 3 7 33000000\nend 8 69000000\n' > "$top/out/$run_id-made-on.txt"
printf 'input 1 5 0\ninput 2 6 10000000\ninput 3 7 30000000\nend 8 60000000\n' > "$top/out/$run_id-made-off.txt"
made=$(jq -c -n --rawfile on "$top/out/$run_id-made-on.txt" --rawfile off "$top/out/$run_id-made-off.txt" \
	-f "$top/scripts/cpu-overhead.jq")
worked='{"overhead_mean_pct":15,"overhead_p95_pct":20,"overhead_mean_bound_pct":29.97,'
worked+='"cpu_ms_per_tap_on":23,"cpu_ms_per_tap_off":20,"taps":3}'
[ "$made" = "$worked" ] ||
	fail "cpu-overhead.jq on made-up taps of 11, 22, 36 ms against 10, 20, 30 ms: $made"
# The same replay untraced (the phone is deterministic, so only the tracer differs): the traced
# run spends more CPU per tap than the untraced one, and both at least the app's fixed work.
off=$top/out/$run_id-untraced
"$top/scripts/run-phone.sh" --workload asynctask --cores 1 --governor ondemand --trace off --out "$off" \
	> "$off.log" 2>&1 || { tail -n 20 "$off.log"; fail "the untraced ondemand run failed"; }
taps=$(jq -c -n --rawfile on "$d/cpu_time.txt" --rawfile off "$off/cpu_time.txt" -f "$top/scripts/cpu-overhead.jq") ||
	fail "cpu-overhead.jq cannot compare $d/cpu_time.txt with $off/cpu_time.txt"
[ "$(jq --argjson n "$(jq .inputs "$d/summary.json")" \
	'.taps == $n and .overhead_mean_pct > 0 and .cpu_ms_per_tap_off >= 40' <<< "$taps")" = true ] ||
	fail "cpu-overhead.jq of the traced against the untraced run: $taps"
echo "test_dvfs: the tracer's CPU time, traced against untraced: $taps"
head -n 3 "$d/cpu_time.txt" > "$top/out/$run_id-short-cpu.txt"
msg=$(jq -n --rawfile on "$d/cpu_time.txt" --rawfile off "$top/out/$run_id-short-cpu.txt" \
	-f "$top/scripts/cpu-overhead.jq" 2>&1) && fail "cpu-overhead.jq compared replays of different lengths"
grep -q 'expected the same replay' <<< "$msg" || fail "cpu-overhead.jq's error does not say why: $msg"
grep -aq '^panlab-init: 1 cpus online' "$d/console.log" || fail "the run did not have one cpu online"
grep -aq '^panlab-init: cpufreq governor ondemand' "$d/console.log" || fail "ondemand was not selected"
freq=$(jq '[.traceEvents[] | select(.ph == "C" and (.name | test("^cpu [0-9]+ frequency$")))]' "$d/trace.json")
n=$(jq length <<< "$freq")
[ "$n" -ge 2 ] || fail "$n CPU_FREQUENCY events in the trace, expected the start and ondemand's switches"
[ "$(jq '[.[].name] | unique' -c <<< "$freq")" = '["cpu 0 frequency"]' ] ||
	fail "CPU_FREQUENCY events name cpus other than cpu 0 with one core online"
echo "test_dvfs: asynctask on 1 core under ondemand: $(jq -r .transactions "$d/summary.json") transactions, precision and recall 1, $n CPU_FREQUENCY events ($(jq -c '[.[].args.kHz] | unique' <<< "$freq") kHz)"

msg=$("$top/scripts/run-experiment.sh" --backend qemu --workload asynctask --governor ondemand 2>&1 >/dev/null) &&
	fail "qemu accepted --governor"
[ "$(grep -c . <<< "$msg")" = 1 ] && grep -q "stock QEMU cannot scale a vCPU's speed" <<< "$msg" ||
	fail "qemu's refusal of --governor is not one line naming the reason: $msg"
echo "test_dvfs: qemu refuses --governor: $msg"
echo "test_dvfs: ok"
