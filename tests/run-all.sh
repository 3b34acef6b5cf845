#!/bin/bash
# Runs every test suite: each folder's unit tests (CUnit, under ASan and
# UBSan) and the integration tests that boot the guest. Keeps going after a
# failing suite so one run shows them all, and ends with a count line.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0 failures=""

suite() {
	local name=$1
	shift
	echo "=== $name"
	local start=$SECONDS
	if "$@"; then
		passed=$((passed + 1))
		echo "=== $name: passed in $((SECONDS - start)) s"
	else
		failed=$((failed + 1))
		failures="$failures $name"
		echo "=== $name: FAILED after $((SECONDS - start)) s"
	fi
}

for d in replay workloads analyzer emu; do
	suite "$d unit tests" make --no-print-directory -C "$top/$d" test
done
for t in "$top"/tests/integration/test_*.sh; do
	[ -x "$t" ] && suite "integration $(basename "$t" .sh)" "$t"
done

[ -n "$failures" ] && echo "failed suites:$failures"
echo "suites: $passed passed, $failed failed"
[ "$failed" = 0 ]
