#!/bin/bash
# The run verdict both backends share (check_result in scripts/backend-common.sh),
# on real console files: a run passes only when the guest printed
# PANLAB-RESULT: OK and the emulator exited 0. A guest that says OK while the
# phone fails the run (its replay script did not end, a file it could not
# write) must fail; so must a timeout, a panic and a missing result.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

# verdict NAME STATUS CONSOLE-LINE: runs check_result on a console holding the
# line, with the emulator's exit status STATUS; prints its exit status and stderr.
verdict() {
	local name=$1 emu_status=$2 line=$3
	mkdir -p "$work/$name"
	printf '%s\n' "$line" > "$work/$name/console.log"
	(
		set -- --workload asynctask --out "$work/$name"
		backend=phone timeout_s=60
		source "$top/scripts/backend-common.sh"
		status=$emu_status wall=1
		check_result
	) > "$work/$name.out" 2> "$work/$name.err"
	echo $?
}

expect() {
	local name=$1 want=$2 pattern=$3 got
	got=$(verdict "$name" "$4" "$5")
	if [ "$got" != "$want" ] || ! grep -q "$pattern" "$work/$name.out" "$work/$name.err"; then
		echo "test_verdict: $name: exit $got (expected $want), output:" >&2
		cat "$work/$name.out" "$work/$name.err" >&2
		fails=$((fails + 1))
	else
		echo "test_verdict: $name: exit $got: $(cat "$work/$name.out" "$work/$name.err")"
	fi
}

expect ok 0 "run finished" 0 "PANLAB-RESULT: OK"
expect ok-but-phone-failed 1 "guest reported OK but phone exited with status 1" 1 "PANLAB-RESULT: OK"
expect timeout 1 "did not finish within" 124 "PANLAB-RESULT: OK"
expect panic 1 "guest kernel panic" 1 "Kernel panic - not syncing: x"
expect no-result 1 "stopped without a result" 0 "booting"
expect guest-fail 1 "guest reported FAIL" 0 "PANLAB-RESULT: FAIL app died"
[ "$fails" = 0 ] && echo "test_verdict: ok"
[ "$fails" = 0 ]
