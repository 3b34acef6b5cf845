#!/bin/bash
# Jobs are work, not time (workloads/apps/bench_work.h), checked on the phone with
# panlab-workbench --scaling: one job of 200 ms at 1.2 GHz pinned to cpu0, alone and then with
# a second CPU-bound thread pinned to cpu0, at 1200 MHz (the default: the performance governor)
# and at 350 MHz (--freq-mhz: the userspace governor, through SCMI). Checks:
#  - at 1.2 GHz the job takes 200 ms within 2% (the work loop's calibration holds);
#  - at 350 MHz it takes 1200/350 = 3.43x as long, within 2%;
#  - sharing its core with a CPU-bound thread, it takes about twice as long (1.9x to 2.1x).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/out"
declare -A solo shared
for mhz in 1200 350; do
	out=$top/out/test-work-scaling-$mhz
	freq=()
	[ "$mhz" = 1200 ] || freq=(--freq-mhz "$mhz")
	if ! "$top/scripts/run-phone.sh" --test panlab-workbench --append panlab.test_arg=--scaling \
		--trace off "${freq[@]}" --out "$out" > "$out.log" 2>&1; then
		tail -n 20 "$out.log"
		echo "test_work_scaling: the run at $mhz MHz failed; log in out/test-work-scaling-$mhz.log"
		exit 1
	fi
	line=$(grep -a '^panlab-workbench: scaling ' "$out/console.log" | tr -d '\r')
	[ -n "$line" ] || { echo "test_work_scaling: no result line at $mhz MHz in $out/console.log"; exit 1; }
	echo "$mhz MHz: ${line#panlab-workbench: }"
	solo[$mhz]=$(sed -n 's/.* solo_ns=\([0-9]*\).*/\1/p' <<< "$line")
	shared[$mhz]=$(sed -n 's/.* shared_ns=\([0-9]*\).*/\1/p' <<< "$line")
done
# within LOW HIGH VALUE: LOW <= VALUE <= HIGH
within() { awk -v lo="$1" -v hi="$2" -v v="$3" 'BEGIN { exit !(v >= lo && v <= hi) }'; }
calib=$(awk -v s="${solo[1200]}" 'BEGIN { printf "%.4f", s / 200e6 }')
scaling=$(awk -v a="${solo[350]}" -v b="${solo[1200]}" 'BEGIN { printf "%.4f", (a / b) / (1200 / 350) }')
sharing=$(awk -v a="${shared[1200]}" -v b="${solo[1200]}" 'BEGIN { printf "%.4f", a / b }')
echo "test_work_scaling: 200 ms job at 1.2 GHz took x$calib of 200 ms; 350 MHz over 1.2 GHz, measured/expected $scaling; shared core x$sharing"
within 0.98 1.02 "$calib" || { echo "test_work_scaling: the 200 ms job took ${solo[1200]} ns at 1.2 GHz, not within 2%"; exit 1; }
within 0.98 1.02 "$scaling" || { echo "test_work_scaling: 350 MHz over 1.2 GHz is off 3.43x by more than 2%"; exit 1; }
within 1.9 2.1 "$sharing" || { echo "test_work_scaling: a shared core gave x$sharing, expected about 2"; exit 1; }
echo "test_work_scaling: ok"
