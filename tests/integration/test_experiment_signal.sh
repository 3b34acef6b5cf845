#!/bin/bash
# SIGTERM and SIGINT on scripts/experiment.sh (local executor, about 10 s each): two phone
# configurations run at once (asynctask, 32 s of guest time); once both phones run, the signal
# ends experiment.sh with 128 + the signal's number, no process of the project is left behind
# (the count of the experiment's processes is the same as before), and both
# runs are in the database as failed with the signal as reason, so that a rerun runs them again.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
exp=test-experiment-signal
dir=$top/out/$exp
work=$(mktemp -d /tmp/panlab-experiment-signal.XXXXXX)
trap 'rm -rf "$work" "$dir"' EXIT
# The experiment's processes: their command lines name its spec, its folder or its run-ids (other
# runs in this tree may go on meanwhile).
project_procs() { pgrep -a -f -- "$work/|$exp/|$dir " | grep -v "^$$ " || true; }

cat > "$work/e.spec" <<EOF
name $exp
backend phone
workloads asynctask
cores 1 2
EOF
for sig in TERM INT; do
	rm -rf "$dir"
	before=$(project_procs)
	# A background job of a script ignores SIGINT unless job control gives it a group of its own.
	set -m
	"$top/scripts/experiment.sh" "$work/e.spec" --jobs 2 --no-report 2> "$work/$sig.err" &
	pid=$!
	set +m
	# Readiness of processes that are not this script's children: polled, within a bound.
	timeout 60 bash -c "until [ \$(pgrep -a -x panlab-phone | grep -c '$dir/') = 2 ]; do sleep 0.2; done" ||
		{ kill -KILL -- "-$pid"; cat "$work/$sig.err" >&2; fail "SIG$sig: the two phone runs did not start"; }
	during=$(project_procs)
	kill -"$sig" "$pid"
	rc=0
	wait "$pid" || rc=$?
	after=$(project_procs)
	want=$((128 + $(kill -l "$sig")))
	[ "$rc" = "$want" ] || { cat "$work/$sig.err" >&2; fail "SIG$sig: experiment.sh exited $rc, expected $want"; }
	[ "$after" = "$before" ] ||
		fail "SIG$sig: processes of the project left running:$(echo; diff <(echo "$before") <(echo "$after"))"
	stopped=$(sqlite3 "$dir/results.sqlite" "SELECT count(*) FROM runs WHERE status = 'failed' AND reason = 'stopped by SIG$sig'")
	[ "$stopped" = 2 ] ||
		fail "SIG$sig: runs: $(sqlite3 "$dir/results.sqlite" "SELECT run_id, status, reason FROM runs"), expected both failed, stopped by SIG$sig"
	grep -q "^experiment $exp: stopped by SIG$sig; a rerun runs what did not finish" "$work/$sig.err" ||
		fail "SIG$sig: no line saying it stopped: $(tail -n 3 "$work/$sig.err")"
	echo "test_experiment_signal: SIG$sig: exit $rc, $(grep -c . <<<"$during") processes of the project while both phones ran, $(grep -c . <<<"$after") after (as before), 2 runs recorded 'stopped by SIG$sig'"
done
