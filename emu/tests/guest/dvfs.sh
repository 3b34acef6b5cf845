#!/bin/busybox sh
# panlab-dvfs: the phone's DVFS as Linux sees it through the stock scmi-cpufreq driver (SCMI
# performance protocol over SMC/HVC, emu/dev/scmi.c): one policy for both cpus, the four
# operating points, the 300 us transition latency, and each stock governor doing what it
# should on an idle and a busy cpu; and cpu1 offline and online under it.
# Prints one line per check and "panlab-dvfs: ok", or the failed check and exits 1.
p=/sys/devices/system/cpu/cpufreq/policy0
fail() { echo "panlab-dvfs: $*"; exit 1; }
expect() {	# FILE WANT
	have=$(cat "$p/$1")
	[ "$have" = "$2" ] || fail "$1 is '$have', expected '$2'"
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
busy_stop() { kill $busy; wait $busy 2>/dev/null; }

echo performance > $p/scaling_governor && expect scaling_cur_freq 1200000
echo powersave > $p/scaling_governor && expect scaling_cur_freq 350000
echo userspace > $p/scaling_governor && echo 920000 > $p/scaling_setspeed &&
	expect scaling_cur_freq 920000
echo "panlab-dvfs: performance 1200 MHz, powersave 350 MHz, userspace 920 MHz"
# ondemand and schedutil: an idle second leaves the cpu below the top (ondemand at the bottom;
# schedutil re-evaluates only when the scheduler updates a cpu's load, so an idle cpu keeps its
# last choice), and a busy cpu rises to the top within a second.
for g in ondemand schedutil; do
	echo $g > $p/scaling_governor || fail "cannot select $g"
	sleep 1
	idle=$(cat $p/scaling_cur_freq)
	[ "$idle" != 1200000 ] || fail "$g: an idle cpu stayed at 1200000 kHz"
	[ $g != ondemand ] || expect scaling_cur_freq 350000
	busy_start
	sleep 1
	have=$(cat $p/scaling_cur_freq)
	busy_stop
	[ "$have" = 1200000 ] || fail "$g: a busy cpu0 ran at $have kHz after 1 s, expected 1200000"
	echo "panlab-dvfs: $g idle $((idle / 1000)) MHz, busy 1200 MHz"
done

# Hotplug under DVFS: cpu1 leaves and rejoins the policy.
echo 0 > /sys/devices/system/cpu/cpu1/online || fail "cpu1 did not go offline"
expect affected_cpus 0
echo 1 > /sys/devices/system/cpu/cpu1/online || fail "cpu1 did not come online"
expect affected_cpus "0 1"
echo performance > $p/scaling_governor
echo "panlab-dvfs: cpu1 offline and online again; ok"
