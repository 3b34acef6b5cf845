#!/bin/bash
# Kernel logger, loss accounting: boots the test initramfs with a 4 KiB
# buffer (64 records per cpu) and runs guest-kernel/tests/klog_provoke loss:
# numbered renames overflow the rings; the test checks, per cpu, that the
# LOST markers account for every drop the module counted, that the records
# read equal the records kept, and that every gap in the rename sequence is
# covered by LOST markers (lost == produced - kept).
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
name=test_klog_loss
out=$top/out/test-klog-loss
mkdir -p "$top/out"
if ! make --no-print-directory -s -C "$top/guest-kernel" all tests > "$out.log" 2>&1; then
	tail -n 20 "$out.log"
	echo "$name: FAIL cannot build the kernel, module or test programs; log in out/test-klog-loss.log"
	exit 1
fi
if ! "$top/guest-kernel/tests/run-guest.sh" --prog klog_provoke --arg loss --bytes 4096 --out "$out" >> "$out.log" 2>&1; then
	grep -a '^klog-loss:\|^KLOG-TEST:' "$out/console.log" 2>/dev/null | head -n 12 || true
	echo "$name: FAIL $(tail -n 1 "$out.log"); console in out/test-klog-loss/console.log"
	exit 1
fi
line=$(grep -a '^KLOG-TEST: OK' "$out/console.log")
echo "$name: ok, ${line#KLOG-TEST: OK }"
