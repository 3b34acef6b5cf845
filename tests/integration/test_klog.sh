#!/bin/bash
# Kernel logger, every event type: boots a test initramfs on the qemu
# backend that runs guest-kernel/tests/klog_provoke (it checks the clock
# contract, clock_offset_ns against clock_gettime, provokes each kernel event,
# drains /dev/panlab_klog and checks fields, timestamps (per-cpu order,
# CLOCK_MONOTONIC), counters, futex/mutex/sem/waitqueue wait/wake/notify,
# block/resume and binder produce/consume pairs).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
name=test_klog
out=$top/out/test-klog
mkdir -p "$top/out"
if ! make --no-print-directory -s -C "$top/guest-kernel" all tests > "$out.log" 2>&1; then
	tail -n 20 "$out.log"
	echo "$name: FAIL cannot build the kernel, module or test programs; log in out/test-klog.log"
	exit 1
fi
if ! "$top/guest-kernel/tests/run-guest.sh" --prog klog_provoke --arg events --out "$out" >> "$out.log" 2>&1; then
	grep -a '^klog-check:\|^KLOG-TEST:' "$out/console.log" 2>/dev/null | grep -v klog-dump | head -n 12 || true
	echo "$name: FAIL $(tail -n 1 "$out.log"); console in out/test-klog/console.log"
	exit 1
fi
line=$(grep -a '^KLOG-TEST: OK' "$out/console.log")
echo "$name: ok, ${line#KLOG-TEST: OK }"
