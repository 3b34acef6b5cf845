#!/bin/bash
# scripts/experiment.sh --executor slurm on a three-node Slurm cluster on this machine (about
# 60 s): munged, MariaDB and slurmdbd, slurmctld and three slurmd, each slurmd in a network and
# UTS namespace of its own with its own hostname and address on a private bridge (slurm-node.sh).
# A 4-run phone matrix (timer, 1 or 2 cores, traced or not) runs as one job array throttled by the
# cluster's size (three runs of 2 CPUs at once, one a node) and split at the cluster's
# MaxArraySize (3) into two arrays, into one database. The runs must all be ok, and their tasks
# must have run on all three nodes, by the tasks' own output, by squeue's node column in the
# progress lines and by sacct (slurmdbd's accounting, each COMPLETED). Then everything is torn
# down (daemons by PID, namespaces, bridge) and nothing of it may be left. Writes out/bench/slurm-cluster.json: slurm_nodes_used and
# slurm_runs_per_hour.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
exp=test-slurm-cluster
dir=$top/out/$exp
work=$(mktemp -d /tmp/panlab-slurm-cluster.XXXXXX)
# shellcheck source=tests/integration/slurm-node.sh
source "$top/tests/integration/slurm-node.sh"
trap 'slurm_stop; rm -rf "$work"' EXIT
for t in munged mungekey slurmctld slurmd slurmdbd sbatch squeue sinfo sacct sacctmgr mariadbd \
	mariadb-install-db ip unshare nsenter; do
	command -v "$t" >/dev/null || fail "$t is missing; run 'make deps'"
done
# MaxArraySize 3: task IDs 0-2 only, so the 4 runs go as two arrays (runs 0-2, then run 3 as
# task 0 of a second one).
slurm_start "$work/slurm" 3 3

printf 'name %s\nbackend phone\nworkloads timer\ncores 1 2\ntrace on off\n' "$exp" > "$work/e.spec"
rm -rf "$dir"
start=$(date +%s.%N)
"$top/scripts/experiment.sh" "$work/e.spec" --executor slurm --no-report > "$work/run.log" 2>&1 ||
	{ cat "$work/run.log"; tail -n 5 "$dir"/slurm-*.out "$work/slurm"/*.log >&2 || true; fail "the experiment failed on the cluster"; }
wall=$(echo "$(date +%s.%N) - $start" | bc)
grep -q "^experiment $exp: 0/4 done .*4 to run on slurm (3 at once)" "$work/run.log" ||
	{ cat "$work/run.log"; fail "the throttle is not 3 (three nodes of $(nproc) CPUs, 2 CPUs a run)"; }
q() { sqlite3 "$dir/results.sqlite" "$1"; }
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok'")" = 4 ] ||
	fail "runs not ok: $(q "SELECT run_id, status, reason FROM runs")"
[ "$(q "SELECT count(*) FROM validation")" = 4 ] || fail "not all four models gathered"
nodes=$(sed -n 's/^panlab: task [0-9]* of job [0-9]* (run [0-9]*) on node \(pnode[0-9]*\) (\(pnode[0-9]*\))$/\1 \2/p' "$dir"/slurm-[0-9]*.out)
grep -q "^experiment $exp: .*submitted array job [0-9]* (0,1,2), " "$work/run.log" &&
	grep -q "^experiment $exp: .*submitted array job [0-9]* (0, runs from 3), " "$work/run.log" ||
	{ cat "$work/run.log"; fail "the runs were not split at MaxArraySize 3 into arrays 0,1,2 and 3"; }
while read -r n h; do [ "$n" = "$h" ] || fail "task on node $n saw the hostname $h"; done <<<"$nodes"
used=$(cut -d' ' -f1 <<<"$nodes" | sort -u | wc -l)
[ "$used" = 3 ] || fail "the tasks ran on $used node(s), expected 3: $(cut -d' ' -f1 <<<"$nodes" | tr '\n' ' ')"
seen=$(grep -o '[0-9]*@pnode[0-9]' "$work/run.log" | sort -u | tr '\n' ' ')
[ -n "$seen" ] || fail "squeue's node column shows in no progress line"
acct=$(sacct -n -X -P --name "panlab-$exp" -o NodeList,State | sort | uniq -c | tr -s ' \n' ' ')
[ "$(sacct -n -X -P --name "panlab-$exp" -o NodeList,State | grep -c '^pnode[1-3]|COMPLETED$')" = 4 ] &&
	[ "$(sacct -n -X -P --name "panlab-$exp" -o NodeList | sort -u | wc -l)" = 3 ] ||
	fail "sacct does not show the 4 tasks COMPLETED over the 3 nodes: $acct"
slurm_stop
! ip link show "plbr$$" >/dev/null 2>&1 || fail "the bridge plbr$$ is left"
! ip netns list | grep -q "^panlab-$$-" || fail "namespaces left: $(ip netns list | grep "^panlab-$$-")"
! pgrep -f -- "$work/slurm" >/dev/null || fail "daemons left: $(pgrep -a -f -- "$work/slurm")"
mkdir -p "$top/out/bench"
per_hour=$("$top/build/emu/benchstat" per-hour 4 "$wall" | jq .median)
jq -n --argjson nodes "$used" --argjson rph "$per_hour" --argjson wall "$wall" \
	'{slurm_nodes_used: $nodes, slurm_runs: 4, slurm_wall_s: $wall, slurm_runs_per_hour: $rph}' \
	> "$top/out/bench/slurm-cluster.json"
rm -rf "$dir"
echo "test_slurm_cluster: ok (4 runs on $used nodes: $(cut -d' ' -f1 <<<"$nodes" | sort | uniq -c | tr -s ' \n' ' '); squeue showed task@node $seen; sacct: $acct; ${wall%.*} s, $per_hour runs/hour; daemons, namespaces and bridge gone)"
