#!/bin/bash
# tests/run-all.sh on a throwaway tree of stub suites (no guest, about a
# second): it passes only when every suite tests/suites.list names ran and
# passed, and fails for a listed suite that was deleted, one that is not
# executable, one that fails, and a test_*.sh nobody listed. Then the real
# list against the real folder.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
fails=0
work=$(mktemp -d /tmp/panlab-run-all.XXXXXX)
trap 'rm -rf "$work"' EXIT

# A tree with the four unit folders (a Makefile whose test passes) and the
# listed suites test_a and test_b, each exiting 0.
fresh() {
	rm -rf "$work/tree"
	mkdir -p "$work/tree/tests/integration"
	cp "$top/tests/run-all.sh" "$work/tree/tests/"
	for d in replay workloads analyzer emu; do
		mkdir "$work/tree/$d"
		printf 'test:\n\t@true\n' > "$work/tree/$d/Makefile"
	done
	printf '# stub suites\ntest_a\ntest_b\n' > "$work/tree/tests/suites.list"
	for t in test_a test_b; do
		printf '#!/bin/sh\nexit 0\n' > "$work/tree/tests/integration/$t.sh"
		chmod +x "$work/tree/tests/integration/$t.sh"
	done
}

# expect NAME WANT-STATUS PATTERN: runs the tree's run-all.sh, wants its exit
# status to be WANT-STATUS (0 or "fail") and a line matching PATTERN.
expect() {
	local name=$1 want=$2 pattern=$3 status
	"$work/tree/tests/run-all.sh" > "$work/$name.out" 2>&1
	status=$?
	if { [ "$want" = 0 ] && [ "$status" != 0 ]; } || { [ "$want" != 0 ] && [ "$status" = 0 ]; } ||
		! grep -q -- "$pattern" "$work/$name.out"; then
		echo "test_run_all: $name: exit $status (expected $want), output:" >&2
		cat "$work/$name.out" >&2
		fails=$((fails + 1))
	else
		echo "test_run_all: $name: exit $status: $(grep -- "$pattern" "$work/$name.out" | head -1)"
	fi
}

fresh
expect all-pass 0 'suites: 6 passed, 0 failed, of 6 expected'
fresh
rm "$work/tree/tests/integration/test_b.sh"
expect deleted fail 'test_b.sh is missing'
fresh
chmod -x "$work/tree/tests/integration/test_a.sh"
expect not-executable fail 'test_a.sh is not executable'
fresh
printf '#!/bin/sh\nexit 3\n' > "$work/tree/tests/integration/test_b.sh"
expect failing fail 'integration test_b: FAILED: exit status 3'
fresh
cp "$work/tree/tests/integration/test_a.sh" "$work/tree/tests/integration/test_c.sh"
expect unlisted fail 'test_c.sh is not listed'
fresh
rm "$work/tree/tests/suites.list"
expect no-list fail 'cannot read the list of suites'

# The real list names exactly the suites in the real folder.
listed=$(grep -v '^#' "$top/tests/suites.list" | sort)
present=$(cd "$top/tests/integration" && ls test_*.sh | sed 's/\.sh$//' | sort)
if [ "$listed" != "$present" ]; then
	echo "test_run_all: tests/suites.list and tests/integration/test_*.sh differ:" >&2
	diff <(echo "$listed") <(echo "$present") >&2
	fails=$((fails + 1))
else
	echo "test_run_all: tests/suites.list names the $(echo "$listed" | wc -l) suites present"
fi
[ "$fails" = 0 ]
