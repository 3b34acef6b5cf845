#!/bin/bash
# Runs every test suite: each folder's unit tests (CUnit, under ASan and
# UBSan) and the integration tests that boot the guest. Keeps going after a
# failing suite so one run shows them all, and ends with a count line.
# The integration suites are the ones tests/suites.list names, not a glob,
# so that a deleted suite is noticed: a listed one that is missing or not
# executable fails rather than being skipped, and so does a
# tests/integration/test_*.sh that is not listed. Each suite has a host-time
# limit (SUITE_TIMEOUT_S, default 1200 s), and the run fails unless every
# listed suite ran and passed.
# Each suite runs in a session of its own, so that everything it starts (the
# phone or qemu, experiment.sh's tasks, each in a process group of its own
# within that session, chromium) can be stopped together: at its time limit,
# on SIGINT or SIGTERM of this script, and after it ends, the whole session
# gets SIGTERM, SUITE_GRACE_S seconds (default 10) to exit, then SIGKILL.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage_text="usage: $0
Runs every unit test and the integration suites tests/suites.list names (make test).
SUITE_TIMEOUT_S: each suite's host-time limit (default 1200); SUITE_GRACE_S: the seconds a
stopped suite's processes get between SIGTERM and SIGKILL (default 10).
Exit status: 0 every suite passed, 1 a suite failed, 2 a usage error."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
case "${1:-}" in -h | --help) cli_usage 0 ;; esac
[ $# = 0 ] || cli_usage 2
limit_s=${SUITE_TIMEOUT_S:-1200}
grace_s=${SUITE_GRACE_S:-10}
list=$top/tests/suites.list
passed=0 failed=0 failures=""
units=(replay stats workloads analyzer emu)
if [ ! -r "$list" ]; then
	echo "$list: cannot read the list of suites (one tests/integration/NAME.sh a line)" >&2
	exit 1
fi
mapfile -t integration < <(grep -v '^#' "$list")
expected=$((${#units[@]} + ${#integration[@]}))

fail() {
	echo "=== $1: FAILED: $2"
	failed=$((failed + 1))
	failures="$failures $1"
}

# Stops session SID: SIGTERM to every process in it, grace_s seconds to exit (the suites' EXIT
# traps stop their daemons), then SIGKILL to what is left. Prints how many processes it found.
stop_session() {
	local sid=$1 left
	left=$(ps -o stat= -s "$sid" | grep -vc '^Z')
	[ "$left" != 0 ] || { echo 0; return; }
	pkill -TERM -s "$sid"
	local end=$((SECONDS + grace_s))
	# pidwait may return before all of them have ended (it counts one exit twice): ask again.
	while [ "$SECONDS" -lt "$end" ] && pgrep -s "$sid" >/dev/null; do
		timeout 1 pidwait -s "$sid" || true
	done
	pkill -KILL -s "$sid" || true
	echo "$left"
}

session=""
# An interrupt stops the running suite's whole session, then this script.
on_signal() {
	trap - INT TERM
	[ -z "$session" ] || stop_session "$session" >/dev/null
	echo "=== interrupted by SIG$1; stopped the running suite"
	exit $((128 + $(kill -l "$1")))
}
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM

suite() {
	local name=$1 status left
	shift
	echo "=== $name"
	local start=$SECONDS
	# A background job of a non-interactive shell is not a group leader, so setsid makes its
	# own session in place: the job's PID is the session's ID.
	setsid timeout "$limit_s" "$@" &
	session=$!
	wait "$session"
	status=$?
	left=$(stop_session "$session")
	session=""
	[ "$left" = 0 ] || echo "=== $name: stopped $left process(es) it left running"
	if [ "$status" = 0 ]; then
		passed=$((passed + 1))
		echo "=== $name: passed in $((SECONDS - start)) s"
	elif [ "$status" = 124 ]; then
		fail "$name" "no result within $limit_s s (SUITE_TIMEOUT_S)"
	else
		fail "$name" "exit status $status after $((SECONDS - start)) s"
	fi
}

# A suite nobody listed would never run: it fails the run, up front.
for path in "$top"/tests/integration/test_*.sh; do
	t=$(basename "$path" .sh)
	[[ " ${integration[*]} " == *" $t "* ]] ||
		fail "integration $t" "$path is not listed in $list"
done
for d in "${units[@]}"; do
	suite "$d unit tests" make --no-print-directory -C "$top/$d" test
done
for t in "${integration[@]}"; do
	path=$top/tests/integration/$t.sh
	if [ -x "$path" ]; then
		suite "integration $t" "$path"
	elif [ -e "$path" ]; then
		fail "integration $t" "$path is not executable (chmod +x it)"
	else
		fail "integration $t" "$path is missing (listed in $list)"
	fi
done

[ -n "$failures" ] && echo "failed suites:$failures"
echo "suites: $passed passed, $failed failed, of $expected expected"
[ "$failed" = 0 ] && [ "$passed" = "$expected" ]
