#!/bin/bash
# A guest that hangs or panics must end the run with one clear line and a
# non-zero exit, on both backends' shared verdict code (backend-common.sh):
# - hang: a guest test that sleeps past the guest-time watchdog;
# - panic: /init replaced by busybox, which prints its help and exits, so
#   the kernel panics.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$top/out"

expect_failure() {
	local name=$1 pattern=$2
	shift 2
	local err=$top/out/test-failure-$name.err
	if "$top/scripts/run-qemu.sh" --out "$top/out/test-failure-$name" "$@" > /dev/null 2> "$err"; then
		echo "test_guest_failures: the $name run exited 0"
		exit 1
	fi
	if [ "$(wc -l < "$err")" != 1 ] || ! grep -q "$pattern" "$err"; then
		echo "test_guest_failures: the $name run did not give one line matching '$pattern':"
		cat "$err"
		exit 1
	fi
	echo "test_guest_failures: $name: $(cat "$err")"
}

expect_failure hang "guest reported HANG no progress for 2 s of guest time" \
	--test sleep --append "panlab.test_arg=1000 panlab.watchdog_s=2"
expect_failure panic "guest kernel panic: .*Attempted to kill init" \
	--test true --append "rdinit=/bin/busybox"
echo "test_guest_failures: ok"
