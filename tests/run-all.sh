#!/bin/bash
# Runs every test suite: each folder's unit tests (CUnit, under ASan and
# UBSan) and the integration tests that boot the guest. Keeps going after a
# failing suite so one run shows them all, and ends with a count line.
# Every tests/integration/test_*.sh is a suite: one that is not executable
# fails rather than being skipped, each suite has a host-time limit
# (SUITE_TIMEOUT_S, default 1200 s), and the run fails unless every
# expected suite ran.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
limit_s=${SUITE_TIMEOUT_S:-1200}
passed=0 failed=0 failures=""
units=(replay workloads analyzer emu)
integration=("$top"/tests/integration/test_*.sh)
expected=$((${#units[@]} + ${#integration[@]}))

suite() {
	local name=$1 status
	shift
	echo "=== $name"
	local start=$SECONDS
	timeout --foreground "$limit_s" "$@"
	status=$?
	if [ "$status" = 0 ]; then
		passed=$((passed + 1))
		echo "=== $name: passed in $((SECONDS - start)) s"
		return
	fi
	failed=$((failed + 1))
	failures="$failures $name"
	if [ "$status" = 124 ]; then
		echo "=== $name: FAILED: no result within $limit_s s (SUITE_TIMEOUT_S)"
	else
		echo "=== $name: FAILED after $((SECONDS - start)) s"
	fi
}

for d in "${units[@]}"; do
	suite "$d unit tests" make --no-print-directory -C "$top/$d" test
done
for t in "${integration[@]}"; do
	name="integration $(basename "$t" .sh)"
	if [ -x "$t" ]; then
		suite "$name" "$t"
	else
		echo "=== $name: FAILED: $t is not executable (chmod +x it)"
		failed=$((failed + 1))
		failures="$failures $name"
	fi
done

[ -n "$failures" ] && echo "failed suites:$failures"
echo "suites: $passed passed, $failed failed, of $expected expected"
[ "$failed" = 0 ] && [ "$passed" = "$expected" ]
