#!/bin/bash
# scripts/experiment.sh --executor slurm on a real single-node Slurm (Debian's slurm-wlm and
# munge): starts munged, a private MariaDB with slurmdbd, slurmctld and slurmd with a generated
# slurm.conf in a temporary directory (slurm-node.sh), runs a 2-run matrix on the phone as one job
# array, checks that both tasks ran under Slurm and landed in the database with their models and
# that the accounting (sacct) holds them COMPLETED, that a task cancelled while it runs is
# recorded failed with the final state sacct gives it, and stops the daemons by PID.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
exp=test-slurm
dir=$top/out/$exp
work=$(mktemp -d /tmp/panlab-slurm.XXXXXX)
# shellcheck source=tests/integration/slurm-node.sh
source "$top/tests/integration/slurm-node.sh"
trap 'slurm_stop; rm -rf "$work"' EXIT
for t in munged mungekey slurmctld slurmd slurmdbd sbatch squeue sacct sacctmgr mariadbd mariadb-install-db; do
	command -v "$t" >/dev/null || fail "$t is missing; run 'make deps'"
done
slurm_start "$work/slurm"

cat > "$work/e.spec" <<EOF
name $exp
backend phone
workloads timer
trace on off
EOF
rm -rf "$dir"
"$top/scripts/experiment.sh" "$work/e.spec" --executor slurm --jobs 2 --no-report > "$work/run.log" 2>&1 ||
	{ cat "$work/run.log"; tail -n 5 "$dir"/slurm-*.out "$work/slurm/slurmctld.log" >&2 || true; fail "the experiment failed under Slurm"; }
grep -q "^experiment $exp: 0/2 done .*submitted array job [0-9]* (0,1)" "$work/run.log" ||
	{ cat "$work/run.log"; fail "no array job submitted for runs 0 and 1"; }
grep -q "^experiment $exp: 2/2 done" "$work/run.log" || fail "no progress line for the finished tasks"
[ -f "$dir/slurm-0.out" ] && [ -f "$dir/slurm-1.out" ] || fail "the array's tasks left no Slurm output"
q() { sqlite3 "$dir/results.sqlite" "$1"; }
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 2 ] ||
	fail "runs not ok: $(q "SELECT run_id, status, reason FROM runs")"
[ "$(q "SELECT count(*) FROM validation")" = 2 ] || fail "not both models gathered"
array=$(sed -n 's/.*submitted array job \([0-9]*\) .*/\1/p' "$work/run.log" | head -n 1)
states=$(sacct -n -X -P -j "$array" -o JobID,State | sort)
[ "$states" = "$(printf '%s_0|COMPLETED\n%s_1|COMPLETED' "$array" "$array")" ] ||
	fail "sacct does not hold both tasks of job $array COMPLETED: $states"

# A task Slurm ends before it leaves a status (scancel while it runs) is recorded failed with the
# final state sacct gives it ("CANCELLED by UID"; the controller's memory, the executor's
# fallback, would say plain CANCELLED), and the experiment exits 1.
printf 'name %s-cancel\nworkloads timer\n' "$exp" > "$work/cancel.spec"
rm -rf "$top/out/$exp-cancel"
"$top/scripts/experiment.sh" "$work/cancel.spec" --executor slurm --no-report > "$work/cancel.log" 2>&1 &
pid=$!
job=panlab-$exp-cancel
timeout 120 bash -c "until squeue -h -r -n $job -t RUNNING -o %i | grep -q _0; do
	kill -0 $pid 2>/dev/null || exit 1; sleep 0.5; done" || { cat "$work/cancel.log"; fail "the task never ran"; }
scancel "$(squeue -h -r -n "$job" -o %i)"
rc=0
wait "$pid" || rc=$?
reason=$(sqlite3 "$top/out/$exp-cancel/results.sqlite" "SELECT status || ': ' || reason FROM runs")
[ $rc = 1 ] && [[ "$reason" == "failed: Slurm task "*"_0 ended CANCELLED by $(id -u) (exit "*") without a result; see "* ]] ||
	{ cat "$work/cancel.log"; fail "a cancelled task gave exit $rc and '$reason'"; }
rm -rf "$top/out/$exp-cancel"
echo "test_slurm: ok (array job $array, 2 tasks gathered into out/$exp/results.sqlite, both COMPLETED in sacct; a cancelled task recorded as '${reason#failed: }')"
