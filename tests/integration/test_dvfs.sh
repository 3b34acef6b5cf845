#!/bin/bash
# DVFS and core count as experiment settings:
#  - on the phone, the guest test panlab-dvfs (emu/tests/guest/dvfs.sh): the stock scmi-cpufreq
#    driver over the phone's SCMI platform, its operating points and latency, the stock
#    governors on an idle and a busy cpu, cpu1 offline and online;
#  - `make run CORES=1 GOVERNOR=ondemand`'s run (run-experiment.sh --cores 1 --governor ondemand)
#    of asynctask: every tap one matched transaction, precision = recall = 1, one core online,
#    and CPU_FREQUENCY events in the trace (the logger's frequency at start and ondemand's
#    switches, on cpu 0 only);
#  - on qemu, a DVFS option is refused with one line before anything boots.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
mkdir -p "$top/out"
fail() { echo "test_dvfs: $*"; exit 1; }

cat "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz" > "$top/out/test-dvfs-initrd.gz"
out=$top/out/test-dvfs-guest
"$top/scripts/run-phone.sh" --test panlab-dvfs --initrd "$top/out/test-dvfs-initrd.gz" --out "$out" \
	> "$out.log" 2>&1 || { tail -n 20 "$out.log"; fail "the guest test failed; log in out/test-dvfs-guest.log"; }
grep -a '^panlab-dvfs: ' "$out/console.log" | tr -d '\r'

run_id=test-dvfs-ondemand
"$top/scripts/run-experiment.sh" --workload asynctask --cores 1 --governor ondemand --run-id "$run_id" \
	> "$top/out/$run_id.log" 2>&1 || { tail -n 20 "$top/out/$run_id.log"; fail "the ondemand run failed"; }
d=$top/out/$run_id
for check in '.inputs >= 20' '.transactions == .inputs' '.matched == .inputs' \
	'.precision == 1' '.recall == 1' '.events_lost == 0'; do
	[ "$(jq -r "$check" "$d/summary.json")" = true ] || fail "$check does not hold in $d/summary.json"
done
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
