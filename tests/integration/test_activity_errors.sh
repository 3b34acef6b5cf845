#!/bin/bash
# A script's control action that cannot be done ends the run with one line naming the script and
# line, on qemu: a switch to an app that was never launched, and a wait display with nothing
# drawing. The scripts are added to the initramfs as a second cpio archive.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/out/test-activity-errors
rm -rf "$out"
mkdir -p "$out/overlay/replay"
printf 'wait 100ms\nswitch nosuch\n' > "$out/overlay/replay/asynctask@badswitch.rply"
printf 'wait 300ms\nwait display timeout=200ms\n' > "$out/overlay/replay/asynctask@nodisplay.rply"
(cd "$out/overlay" && find replay | cpio -o -H newc --quiet | gzip -n) > "$out/overlay.cpio.gz"
cat "$top/build/initramfs.cpio.gz" "$out/overlay.cpio.gz" > "$out/initramfs.cpio.gz"

expect_error() {
	local workload=$1 line=$2
	if "$top/scripts/run-qemu.sh" --workload "$workload" --out "$out/$workload" \
		--initrd "$out/initramfs.cpio.gz" > "$out/$workload.log" 2>&1; then
		echo "test_activity_errors: the $workload run exited 0"
		exit 1
	fi
	if [ "$(tr -d '\r' < "$out/$workload/console.log" | grep -c '^panlab-session: ')" != 1 ] ||
		! tr -d '\r' < "$out/$workload/console.log" | grep -qxF "$line"; then
		echo "test_activity_errors: the $workload run did not print one line '$line'; console:"
		tail -n 20 "$out/$workload/console.log"
		exit 1
	fi
	echo "test_activity_errors: $workload: $line"
}

expect_error asynctask@badswitch "panlab-session: /replay/asynctask@badswitch.rply:2: app-nosuch is not running, expected launch before switch"
expect_error asynctask@nodisplay "panlab-session: /replay/asynctask@nodisplay.rply:2: wait display: no display update within 200ms, expected a longer timeout="
echo "test_activity_errors: ok"
