#!/bin/busybox sh
# panlab-perf: perf, built from the kernel's own tools/perf (guest-kernel/Makefile),
# on the phone's PMU.
#   1. perf stat -e instructions:u counts panlab-perf-loop exactly: 2 * 1000000 + 3
#      (perf_loop.S; counting starts at its exec).
#   2. perf record samples it on instructions:u every 10007 instructions, and perf report
#      puts the loop's symbol, panlab_loop, on top.
#   3. What the kernel logger adds to the threads it traces, in instructions: perf bench sched
#      pipe (two processes passing a token 2000 times each way) counted in every mode, with
#      the logger on, then off (its enable parameter). The difference, over the bench's
#      context switches, is the logger's instructions per switch (its probes run in the
#      threads' own context); it must be positive.
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
en=/sys/module/panlab_klog/parameters/enable
bench() { # "instructions switches" of the bench with the logger's enable at $1
	echo "$1" > $en || fail "cannot set $en to $1"
	perf stat -x, -e instructions,context-switches perf bench sched pipe -l 2000 2>&1 \
		>/dev/null | cut -d, -f1 | tr '\n' ' '
}
# shellcheck disable=SC2046
set -- $(bench 1) $(bench 0)
[ $# = 4 ] || fail "perf stat of the pipe bench printed '$*'"
echo "panlab-perf: pipe bench: $1 instructions in $2 switches with the logger on," \
	"$3 in $4 with it off: $(( ($1 - $3) / $2 )) more per switch"
[ "$1" -gt "$3" ] || fail "the logger added no instructions to the pipe bench"
echo "panlab-perf: ok"
