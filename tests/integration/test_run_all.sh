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

# A tree with the five unit folders (a Makefile whose test passes) and the
# listed suites test_a and test_b, each exiting 0.
fresh() {
	rm -rf "$work/tree"
	mkdir -p "$work/tree/tests/integration"
	cp "$top/tests/run-all.sh" "$work/tree/tests/"
	for d in replay stats workloads analyzer emu; do
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
expect all-pass 0 'suites: 7 passed, 0 failed, of 7 expected'
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

# A suite that times out: experiment.sh runs two phone configurations at once (asynctask, longer
# than the limit) and a process ignores SIGTERM. The suite's processes are those whose command
# line names the throwaway tree or the experiment (other runs in this tree may go on meanwhile):
# once both phones run, their count must be higher than before the suite, and after it equal.
project_procs() { pgrep -a -f -- "$work/|test-run-all-orphans" | grep -v "^$$ " || true; }
fresh
cat > "$work/orphans.spec" <<EOF
name test-run-all-orphans
backend phone
workloads asynctask
cores 1 2
EOF
cat > "$work/tree/tests/integration/test_b.sh" <<EOF
#!/bin/bash
(trap '' TERM; exec -a "$work/tree/ignores-sigterm" sleep 3600) &
"$top/scripts/experiment.sh" "$work/orphans.spec" --jobs 2 --no-report 2> "$work/experiment.err"
wait
EOF
before=$(project_procs)
SUITE_TIMEOUT_S=15 SUITE_GRACE_S=3 "$work/tree/tests/run-all.sh" > "$work/orphans.out" 2>&1 &
runner=$!
# Readiness of processes that are not this script's children: polled, within a bound.
timeout 30 bash -c "until [ \$(pgrep -a -x panlab-phone | grep -c 'test-run-all-orphans/') = 2 ]; do sleep 0.2; done" ||
	{ echo "test_run_all: timeout: the two phone runs did not start within 30 s" >&2; fails=$((fails + 1)); }
during=$(project_procs)
wait "$runner"
status=$?
after=$(project_procs)
n_before=$(grep -c . <<<"$before") n_during=$(grep -c . <<<"$during") n_after=$(grep -c . <<<"$after")
if [ "$status" = 0 ] || ! grep -q 'integration test_b: FAILED: no result within 15 s' "$work/orphans.out"; then
	echo "test_run_all: timeout: exit $status, expected a timeout of test_b:" >&2
	cat "$work/orphans.out" >&2
	fails=$((fails + 1))
elif [ "$n_during" -le "$n_before" ] || [ "$n_after" != "$n_before" ]; then
	echo "test_run_all: timeout: $n_before processes of the project before, $n_during during, $n_after after; left:" >&2
	diff <(echo "$before") <(echo "$after") >&2
	fails=$((fails + 1))
else
	echo "test_run_all: timeout: $n_before processes of the project before, $n_during while test_b ran ($(grep -c panlab-phone <<<"$during") panlab-phone), $n_after after the timeout; $(grep 'stopped' "$work/orphans.out" | head -1)"
fi
rm -rf "$top/out/test-run-all-orphans"
mkdir -p "$top/out/bench"
jq -n --argjson n $((n_after - n_before)) '{orphans_after_timeout: $n}' > "$top/out/bench/run-all-timeout.json"

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
