#!/bin/busybox sh
# panlab-perf-dvfs: one program at two operating points under perf stat: panlab-perf-loop
# (perf_loop.S) on cpu0 at 1200 MHz, then at 350 MHz (the userspace governor). Its user
# instructions (2 x 1000000 + 3), taken branches (raw event 0x0C, PC writes: 999999 bne; the
# A15 driver's "branches" is 0x76, which the model does not count) and loads (raw event 0x06:
# its one ldr) are exact at both, and so are its cycles (the same at both: a cycle is a
# cycle at any clock); only its time grows, by about 1200/350.
# Prints a line per operating point and "panlab-perf-dvfs: ok", or what failed, and exits 1.
fail() { echo "panlab-perf-dvfs: FAIL $*"; exit 1; }
p=/sys/devices/system/cpu/cpufreq/policy0
echo userspace > $p/scaling_governor || fail "cannot select the userspace governor"
first=
for khz in 1200000 350000; do
	echo $khz > $p/scaling_setspeed || fail "cannot set $khz kHz"
	[ "$(cat $p/scaling_cur_freq)" = $khz ] || fail "cpu0 is not at $khz kHz"
	out=$(taskset 1 perf stat -x, -e instructions:u,rc:u,r6:u,cycles:u,task-clock \
		/bin/panlab-perf-loop 2>&1 >/dev/null) || fail "perf stat: $out"
	# shellcheck disable=SC2046
	set -- $(echo "$out" | cut -d, -f1 | tr '\n' ' ')
	[ $# = 5 ] || fail "perf stat printed '$out'"
	echo "panlab-perf-dvfs: $((khz / 1000)) MHz: instructions $1 branches $2 loads $3" \
		"cycles $4 task-clock $5 ms"
	[ "$1 $2 $3" = "2000003 999999 1" ] ||
		fail "counted $1 instructions, $2 branches, $3 loads; expected 2000003 999999 1"
	[ -z "$first" ] || [ "$first" = "$1 $4" ] ||
		fail "instructions and cycles $1 $4 at $((khz / 1000)) MHz, $first at 1200 MHz"
	first="$1 $4"
done
echo "panlab-perf-dvfs: ok"
