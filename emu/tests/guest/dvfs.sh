#!/bin/busybox sh
# panlab-dvfs: the phone's DVFS as Linux sees it through the stock scmi-cpufreq driver (SCMI
# performance protocol over SMC/HVC, emu/dev/scmi.c): one policy for both cpus, the four
# operating points, the 300 us transition latency, and each stock governor doing what it
# should on an idle and a busy cpu; and cpu1 offline and online under it.
# Prints one line per check and "panlab-dvfs: ok", or the failed check and exits 1. Every
# write goes through put, which fails the script on a failed write, and set -e stops it at any
# other failing command, so no check is skipped.
set -eu
p=/sys/devices/system/cpu/cpufreq/policy0
fail() { echo "panlab-dvfs: $*"; exit 1; }
expect() {	# FILE WANT
	have=$(cat "$p/$1") || fail "cannot read $p/$1"
	[ "$have" = "$2" ] || fail "$1 is '$have', expected '$2'"
}
put() {	# VALUE FILE
	echo "$1" > "$2" || fail "cannot write '$1' to $2"
}
[ -d $p ] || fail "no cpufreq policy (is the SCMI performance protocol probed?)"
expect scaling_driver scmi
expect related_cpus "0 1"
expect scaling_available_frequencies "350000 700000 920000 1200000 "
expect cpuinfo_transition_latency 300000
for g in performance powersave userspace ondemand schedutil; do
	grep -qw $g $p/scaling_available_governors || fail "no governor $g"
done
echo "panlab-dvfs: driver scmi, cpus 0 1, 350-1200 MHz, 300 us, five stock governors"

# A CPU-bound shell loop on cpu0 for the busy checks.
busy_start() { taskset 1 sh -c 'while :; do :; done' & busy=$!; }
# The loop ends by SIGTERM, so its status is 143: expected, not a failure.
busy_stop() {
	kill $busy || fail "cannot stop the busy loop"
	wait $busy 2>/dev/null || [ $? = 143 ] || fail "the busy loop did not end by SIGTERM"
}

put performance $p/scaling_governor
expect scaling_cur_freq 1200000
put powersave $p/scaling_governor
expect scaling_cur_freq 350000
put userspace $p/scaling_governor
put 920000 $p/scaling_setspeed
expect scaling_cur_freq 920000
echo "panlab-dvfs: performance 1200 MHz, powersave 350 MHz, userspace 920 MHz"
# ondemand and schedutil: an idle second leaves the cpu below the top (ondemand at the bottom;
# schedutil re-evaluates only when the scheduler updates a cpu's load, so an idle cpu keeps its
# last choice), and a busy cpu rises to the top within a second.
for g in ondemand schedutil; do
	put $g $p/scaling_governor
	sleep 1
	idle=$(cat $p/scaling_cur_freq) || fail "cannot read $p/scaling_cur_freq"
	[ "$idle" != 1200000 ] || fail "$g: an idle cpu stayed at 1200000 kHz"
	[ $g != ondemand ] || expect scaling_cur_freq 350000
	busy_start
	sleep 1
	have=$(cat $p/scaling_cur_freq) || fail "cannot read $p/scaling_cur_freq"
	busy_stop
	[ "$have" = 1200000 ] || fail "$g: a busy cpu0 ran at $have kHz after 1 s, expected 1200000"
	echo "panlab-dvfs: $g idle $((idle / 1000)) MHz, busy 1200 MHz"
done

# Hotplug under DVFS: cpu1 leaves and rejoins the policy.
put 0 /sys/devices/system/cpu/cpu1/online
expect affected_cpus 0
put 1 /sys/devices/system/cpu/cpu1/online
expect affected_cpus "0 1"
put performance $p/scaling_governor
echo "panlab-dvfs: cpu1 offline and online again; ok"
