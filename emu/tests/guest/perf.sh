#!/bin/busybox sh
# panlab-perf: perf, built from the kernel's own tools/perf (guest-kernel/Makefile),
# on the phone's PMU.
#   1. perf stat -e instructions:u counts panlab-perf-loop exactly: 2 * 1000000 + 3
#      (perf_loop.S; counting starts at its exec).
#   2. perf record samples it on instructions:u every 10007 instructions, and perf report
#      puts the loop's symbol, panlab_loop, on top.
# Prints one line per check and "panlab-perf: ok", or what failed, and exits 1.
fail() { echo "panlab-perf: FAIL $*"; exit 1; }
want=2000003
stat=$(perf stat -x, -e instructions:u /bin/panlab-perf-loop 2>&1 >/dev/null) ||
	fail "perf stat: $stat"
count=$(echo "$stat" | grep instructions | cut -d, -f1)
echo "panlab-perf: perf stat instructions:u $count (want $want)"
[ "$count" = "$want" ] || fail "perf stat counted $count instructions:u, expected $want"
cd /tmp || fail "no /tmp"
rec=$(perf record -q -e instructions:u -c 10007 -o perf.data /bin/panlab-perf-loop 2>&1) ||
	fail "perf record: $rec"
top=$(perf report -i perf.data --stdio --sort sym -q 2>&1 | grep -m1 '%') ||
	fail "perf report: no sample line"
echo "panlab-perf: perf report top: $(echo "$top" | tr -s ' ')"
case $top in *panlab_loop*) ;; *) fail "perf report's top symbol is not panlab_loop" ;; esac
echo "panlab-perf: ok"
