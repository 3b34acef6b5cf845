#!/bin/bash
# Guest checks of the userspace logger and collector (panlab-ulog-bench):
#  --clock, on QEMU and the phone: the trace clock (the ARM virtual counter plus an offset,
#    workloads/include/panlab/clock.h) agrees with clock_gettime(CLOCK_MONOTONIC) within the
#    offset's error bound and one counter tick; with the kernel logger's clock_offset_ns
#    parameter it is exact, and a measured offset falls within its own bound of it.
#  --drain, on the phone: the collector's periodic drains move 4,800 events through a 64-record
#    ring with the kernel logger live, with no loss and kernel records in the trace.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/out"
for check in qemu:clock phone:clock phone:drain; do
	backend=${check%%:*} what=${check#*:}
	out=$top/out/test-ulog-$what-$backend
	if ! "$top/scripts/run-$backend.sh" --test panlab-ulog-bench --append "panlab.test_arg=--$what" \
		--out "$out" > "$out.log" 2>&1; then
		tail -n 20 "$out.log"
		echo "test_ulog_guest: the $what check failed on $backend; log in out/test-ulog-$what-$backend.log"
		exit 1
	fi
	grep -a "^panlab-ulog-bench: $what " "$out/console.log" | sed "s/^/$backend: /"
done
echo "test_ulog_guest: ok (trace clock = clock_gettime on qemu and phone; periodic drains lossless on the phone)"
