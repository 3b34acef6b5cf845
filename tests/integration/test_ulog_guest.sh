#!/bin/bash
# Boots the guest on both backends and runs `panlab-ulog-bench --clock`: the
# userspace logger's trace clock (the ARM virtual counter plus an offset,
# workloads/include/panlab/clock.h) must agree with clock_gettime(CLOCK_MONOTONIC)
# within the offset's error bound and one counter tick; with the kernel
# logger's clock_offset_ns parameter it is exact, and a measured offset must
# fall within its own bound of it.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/out"
for backend in qemu phone; do
	out=$top/out/test-ulog-clock-$backend
	if ! "$top/scripts/run-$backend.sh" --test panlab-ulog-bench --append "panlab.test_arg=--clock" \
		--out "$out" > "$out.log" 2>&1; then
		tail -n 20 "$out.log"
		echo "test_ulog_clock: the clock check failed on $backend; log in out/test-ulog-clock-$backend.log"
		exit 1
	fi
	grep -a "^panlab-ulog-bench: clock source" "$out/console.log" | sed "s/^/$backend: /"
done
echo "test_ulog_clock: ok (the trace clock agrees with clock_gettime on qemu and phone)"
