#!/bin/busybox sh
# panlab-hotplug: takes cpu1 offline and online again three times through
# sysfs (PSCI CPU_OFF, AFFINITY_INFO and CPU_ON on the phone) and checks
# that /proc/cpuinfo follows.
cpus() { grep -c ^processor /proc/cpuinfo; }
for i in 1 2 3; do
	echo 0 > /sys/devices/system/cpu/cpu1/online || exit 1
	[ "$(cpus)" = 1 ] || { echo "panlab-hotplug: cpu1 still listed after offline"; exit 1; }
	echo 1 > /sys/devices/system/cpu/cpu1/online || exit 1
	[ "$(cpus)" = 2 ] || { echo "panlab-hotplug: cpu1 missing after online"; exit 1; }
done
echo "panlab-hotplug: cpu1 went offline and online 3 times"
