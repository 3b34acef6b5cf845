# Sourced by the integration tests (not a suite): the preamble they share. Sets `top` (the
# tree) and `name` (the test's file name without .sh), makes out/, and defines:
#   fail MESSAGE...              print "NAME: MESSAGE" and end the test, exit 1;
#   run_experiment RUN_ID ARG... scripts/run-experiment.sh ARG... --run-id RUN_ID, its output
#                                in out/RUN_ID.log; a failed run ends the test with the log's
#                                last 30 lines and its path;
#   check_summary FILE EXPR...   each jq EXPR must be true of FILE (a summary.json), or the test
#                                ends naming the first that is not;
#   check_json FILE EXPR WHAT    the jq EXPR must be true of FILE, or the test prints FILE and
#                                ends saying WHAT does not hold.
# The sourcing test sets `set -euo pipefail` itself.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
name=$(basename "$0" .sh)
mkdir -p "$top/out"

fail() {
	echo "$name: $*"
	exit 1
}

run_experiment() {
	local run_id=$1
	shift
	"$top/scripts/run-experiment.sh" "$@" --run-id "$run_id" > "$top/out/$run_id.log" 2>&1 ||
		{ tail -n 30 "$top/out/$run_id.log"; fail "the run $run_id failed; log in out/$run_id.log"; }
}

check_summary() {
	local summary=$1 check
	shift
	for check in "$@"; do
		[ "$(jq -r "$check" "$summary")" = true ] || fail "$check does not hold in $summary"
	done
}

check_json() {
	[ "$(jq -r "$2" "$1")" = true ] || { cat "$1"; fail "$(basename "$1"): $3 does not hold: $2"; }
}
