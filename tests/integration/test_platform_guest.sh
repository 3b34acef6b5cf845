#!/bin/bash
# Boots the guest once per platform self-test (panlab-selftest, built from
# workloads/services/selftest.c): binder calls over the kernel's binder
# driver, and input routing from evdev through inputd to a focused app.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/out"
for what in binder input; do
	out=$top/out/test-selftest-$what
	if ! "$top/scripts/run-qemu.sh" --test panlab-selftest --append "panlab.test_arg=$what" --out "$out" \
		> "$out.log" 2>&1; then
		tail -n 20 "$out.log"
		echo "test_platform_guest: panlab-selftest $what failed; log in out/test-selftest-$what.log"
		exit 1
	fi
	grep -a "^panlab-selftest" "$out/console.log" | tail -n 1 || true
done
echo "test_platform_guest: ok (binder and input self-tests passed in the guest)"
