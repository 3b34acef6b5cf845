# A private single-node Slurm for tests (sourced): munged, slurmctld and slurmd started with
# their own key, socket, slurm.conf, state and logs in a temporary directory, as root, without
# systemd; stopped by the PIDs they were started with. Debian's slurm-wlm and munge.
#
#   slurm_start DIR   # starts the three daemons, exports SLURM_CONF; returns when the node is idle
#   slurm_stop        # stops them by PID (also on EXIT, if the caller traps it)
slurm_pids=()

slurm_start() {
	local d=$1 host
	host=$(hostname -s)
	mkdir -p "$d/munge" "$d/state" "$d/spool"
	chmod 700 "$d/munge"
	mungekey --create --keyfile="$d/munge/munge.key" --force
	munged --foreground --force --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" \
		--pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" \
		--seed-file="$d/munge/munged.seed" 2>>"$d/munge/munged.log" &
	slurm_pids+=($!)
	# Ports above the defaults (6817/6818), so a site's own Slurm is left alone.
	cat > "$d/slurm.conf" <<EOF
ClusterName=panlabtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=2048
ReturnToService=2
NodeName=$host CPUs=$(nproc) RealMemory=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024 - 1024)) State=UNKNOWN
PartitionName=panlab Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$d/slurm.conf
	# munged answers once its socket exists.
	timeout 30 bash -c "until [ -S '$d/munge/munge.socket' ]; do sleep 0.2; done" ||
		{ echo "slurm-node: munged did not start; $d/munge/munged.log:" >&2; tail -n 5 "$d/munge/munged.log" >&2; return 1; }
	slurmctld -D -i -f "$d/slurm.conf" 2>>"$d/slurmctld.log" &
	slurm_pids+=($!)
	slurmd -D -f "$d/slurm.conf" -N "$host" 2>>"$d/slurmd.log" &
	slurm_pids+=($!)
	# Ready when the node reports idle to the controller.
	timeout 60 bash -c "until sinfo -h -N -o '%T' 2>/dev/null | grep -qx idle; do sleep 0.5; done" ||
		{ echo "slurm-node: the node did not come up idle; logs in $d" >&2; tail -n 5 "$d/slurmctld.log" "$d/slurmd.log" >&2; return 1; }
}

slurm_stop() {
	local p
	for p in "${slurm_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${slurm_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	slurm_pids=()
}
