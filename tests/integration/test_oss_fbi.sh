#!/bin/bash
# An unmodified Debian program end to end on the phone: fbi (workloads/oss/fbi) from bookworm's
# armel package pages through pictures under replay/scripts/fbi.rply (6 keys through the console
# keyboard). It logs nothing itself, so its transactions come from kernel events alone
# (analyzer/kernel_only.c); checks them against the phone's ground truth at the issue's
# targets: precision and recall >= 0.95, mean latency error <= 1 ms, and the critical paths'
# shape replay/scripts/fbi.expect declares. The run is an experiment's (scripts/experiment.sh),
# which boots the image with the Debian programs once, saves it in a snapshot cache of the test's
# own, and restores it for the run, as a suite does for the platform's apps.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d /tmp/panlab-oss-fbi.XXXXXX)
trap 'rm -rf "$work"' EXIT
printf 'name test-oss-fbi
backend phone
workloads fbi
' > "$work/fbi.spec"
PANLAB_SNAPSHOTS=$work/snapshots "$top/scripts/experiment.sh" "$work/fbi.spec" --jobs 1 --no-report \
	> "$work/experiment.log" 2>&1 || { tail -n 20 "$work/experiment.log"; fail "the fbi experiment failed"; }
run=$top/out/test-oss-fbi/fbi-phone-traceon-r1
grep -q "restored $work/snapshots/.*-phone-oss.snap" "$run/run.err" ||
	fail "the fbi run did not restore the snapshot of the image with the Debian programs ($run/run.err)"
summary=$run/summary.json
check_summary "$summary" '.inference == "kernel-only"' '.inputs == 6' '.precision >= 0.95' \
	'.recall >= 0.95' '.latency_error_ns.mean <= 1000000' '.events_lost == 0' \
	'.breakdown_ns.running > 0' '.shape_ok == true'
echo "test_oss_fbi: $(jq -r '"\(.matched)/\(.inputs) matched, precision \(.precision), recall \(.recall), mean latency error \(.latency_error_ns.mean) ns"' "$summary")"

# A program that fails: fbi told to draw on a framebuffer the guest does not have (FRAMEBUFFER,
# which the launcher otherwise sets to /dev/fb0, reaches /init's environment from the kernel
# command line). The run fails with one line that quotes fbi's own error, and fbi's stderr is in
# the run's console.log.
bad=$top/out/test-oss-fbi-bad
if "$top/scripts/run-phone.sh" --workload fbi --out "$bad" --append FRAMEBUFFER=/dev/fb9 \
	> "$bad.log" 2> "$bad.err"; then
	fail "fbi ran on /dev/fb9 (out/test-oss-fbi-bad)"
fi
why=$(grep -v '^panlab-phone: ' "$bad.err")
[ "$(printf '%s\n' "$why" | wc -l)" = 1 ] &&
	printf '%s\n' "$why" | grep -q 'FAIL panlab-session: /oss/bin/app-fbi exited during the script (exit status 1); its stderr ends: ".*open /dev/fb9: No such file or directory"' ||
	fail "the failing fbi run did not end with one line quoting fbi's error: $why"
grep -aq '^/oss/bin/app-fbi stderr: open /dev/fb9: No such file or directory' "$bad/console.log" ||
	fail "fbi's stderr is not in out/test-oss-fbi-bad/console.log"
echo "test_oss_fbi: a failing fbi: $why"
