# A private Slurm for tests (sourced): munged, a MariaDB server and slurmdbd (the accounting sacct
# reads), slurmctld and one or more slurmd started with their own key, socket, database,
# slurm.conf, state and logs in a temporary directory, as root, without systemd; stopped by the
# PIDs they were started with. Debian's slurm-wlm, munge, slurmdbd and mariadb-server.
#
#   slurm_start DIR [N [MAX_ARRAY]]  # starts the daemons, exports SLURM_CONF; returns when every
#                        # node is idle; MAX_ARRAY: the cluster's MaxArraySize (default Slurm's)
#   slurm_stop           # stops them by PID, removes namespaces and bridge (also on EXIT, if the
#                        # caller traps it)
#
# N = 1 (the default): one slurmd named after this host, ports 16817/16818; slurmdbd on 16819,
# MariaDB on 127.0.0.1:16820 (N > 1: 16829, 16830).
# N > 1: a cluster of N nodes on this machine, as separate as real ones without a special Slurm
# build (slurmd -N for several daemons needs --enable-multiple-slurmd, and they would share one
# hostname and address): each slurmd runs in a network and UTS namespace of its own
# (`ip netns`, `unshare --uts`), with its own hostname pnodeI and address 10.237.B.(10+I) on a
# veth pair whose other end is on a private bridge; slurmctld listens on the bridge's address
# 10.237.B.1 (B from this shell's PID, so two clusters do not share a subnet), ports 16827/16828.
# Every node has this machine's CPUs and a 1/N share of its memory.
slurm_pids=()
slurm_netns=()
slurm_bridge=""

slurm_start() {
	local d=$1 nodes=${2:-1} max_array=${3:-} host i
	host=$(hostname -s)
	mkdir -p "$d/munge" "$d/state" "$d/spool"
	chmod 700 "$d/munge"
	mungekey --create --keyfile="$d/munge/munge.key" --force
	munged --foreground --force --socket="$d/munge/munge.socket" --key-file="$d/munge/munge.key" \
		--pid-file="$d/munge/munged.pid" --log-file="$d/munge/munged.log" \
		--seed-file="$d/munge/munged.seed" 2>>"$d/munge/munged.log" &
	slurm_pids+=($!)
	local mem_mb ctl=$host port=16817 net="" names=$host
	mem_mb=$(($(awk '/^MemTotal:/ { print $2 }' /proc/meminfo) / 1024 - 1024))
	if [ "$nodes" -gt 1 ]; then
		net=10.237.$(($$ % 250))
		ctl="$host($net.1)" port=16827 names=pnode[1-$nodes] mem_mb=$((mem_mb / nodes))
	fi
	# Ports above the defaults (6817/6818), so a site's own Slurm is left alone.
	cat > "$d/slurm.conf" <<EOF
ClusterName=panlabtest
SlurmctldHost=$ctl
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd-%n.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((port + 2))
# The MUNGE socket of slurmdbd connections (slurm.conf(5) AccountingStoragePass).
AccountingStoragePass=$d/munge/munge.socket
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=2048
ReturnToService=2
PartitionName=panlab Nodes=$names Default=YES MaxTime=INFINITE State=UP
EOF
	[ -z "$max_array" ] || echo "MaxArraySize=$max_array" >> "$d/slurm.conf"
	if [ "$nodes" = 1 ]; then
		echo "NodeName=$host CPUs=$(nproc) RealMemory=$mem_mb State=UNKNOWN" >> "$d/slurm.conf"
	else
		for i in $(seq 1 "$nodes"); do
			echo "NodeName=pnode$i NodeAddr=$net.$((10 + i)) CPUs=$(nproc) RealMemory=$mem_mb State=UNKNOWN"
		done >> "$d/slurm.conf"
	fi
	export SLURM_CONF=$d/slurm.conf
	# munged answers once its socket exists.
	timeout 30 bash -c "until [ -S '$d/munge/munge.socket' ]; do sleep 0.2; done" ||
		{ echo "slurm-node: munged did not start; $d/munge/munged.log:" >&2; tail -n 5 "$d/munge/munged.log" >&2; return 1; }
	slurm_accounting "$d" $((port + 2)) $((port + 3)) || return 1
	slurmctld -D -i -f "$d/slurm.conf" 2>>"$d/slurmctld.log" &
	slurm_pids+=($!)
	if [ "$nodes" = 1 ]; then
		mkdir -p "$d/spool/$host"
		slurmd -D -f "$d/slurm.conf" -N "$host" 2>>"$d/slurmd-$host.log" &
		slurm_pids+=($!)
	else
		slurm_bridge=plbr$$
		ip link add "$slurm_bridge" type bridge
		ip addr add "$net.1/24" dev "$slurm_bridge"
		ip link set "$slurm_bridge" up
		for i in $(seq 1 "$nodes"); do
			local ns=panlab-$$-pnode$i
			ip netns add "$ns"
			slurm_netns+=("$ns")
			ip link add "plv$$n$i" type veth peer name eth0 netns "$ns"
			ip link set "plv$$n$i" master "$slurm_bridge" up
			ip -n "$ns" addr add "$net.$((10 + i))/24" dev eth0
			ip -n "$ns" link set eth0 up
			ip -n "$ns" link set lo up
			mkdir -p "$d/spool/pnode$i"
			# exec all the way down: the PID is slurmd's.
			# nsenter, not ip netns exec: that mounts a sysfs of its own, without the cgroup
			# filesystem slurmd needs.
			nsenter --net="/run/netns/$ns" unshare --uts sh -c \
				"hostname pnode$i && exec slurmd -D -f '$d/slurm.conf' -N pnode$i" 2>>"$d/slurmd-pnode$i.log" &
			slurm_pids+=($!)
		done
	fi
	# Ready when every node reports idle to the controller.
	timeout 60 bash -c "until [ \$(sinfo -h -N -o '%N %T' 2>/dev/null | grep -c ' idle$') = $nodes ]; do sleep 0.5; done" ||
		{ echo "slurm-node: not all $nodes node(s) came up idle; logs in $d" >&2; tail -n 5 "$d"/*.log >&2; return 1; }
}

# slurm_accounting DIR DBD_PORT DB_PORT: a MariaDB server of its own (data, socket and log in
# DIR/db, on 127.0.0.1:DB_PORT) and slurmdbd on DBD_PORT over it, with the cluster registered.
slurm_accounting() {
	local d=$1 dbd_port=$2 db_port=$3
	mkdir -p "$d/db"
	mariadb-install-db --no-defaults --datadir="$d/db/data" --user=root --skip-test-db \
		--auth-root-authentication-method=normal > "$d/db/install.log" 2>&1 ||
		{ echo "slurm-node: mariadb-install-db failed; $d/db/install.log:" >&2; tail -n 5 "$d/db/install.log" >&2; return 1; }
	mariadbd --no-defaults --datadir="$d/db/data" --socket="$d/db/mysql.sock" --user=root \
		--bind-address=127.0.0.1 --port="$db_port" --pid-file="$d/db/mariadbd.pid" --skip-log-bin \
		--log-error="$d/db/mariadbd.log" 2>>"$d/db/mariadbd.log" &
	slurm_pids+=($!)
	timeout 60 bash -c "until [ -S '$d/db/mysql.sock' ]; do sleep 0.2; done" ||
		{ echo "slurm-node: MariaDB did not start; $d/db/mariadbd.log:" >&2; tail -n 5 "$d/db/mariadbd.log" >&2; return 1; }
	# slurmdbd reads slurmdbd.conf beside SLURM_CONF, and only if no one else may read it.
	cat > "$d/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
DbdHost=localhost
DbdPort=$dbd_port
SlurmUser=root
PidFile=$d/slurmdbd.pid
LogFile=$d/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=root
StorageLoc=panlab_acct
EOF
	chmod 600 "$d/slurmdbd.conf"
	slurmdbd -D 2>>"$d/slurmdbd.log" &
	slurm_pids+=($!)
	timeout 60 bash -c "until sacctmgr -n list cluster >'$d/sacctmgr.log' 2>&1; do sleep 0.5; done" ||
		{ echo "slurm-node: slurmdbd did not answer sacctmgr:" >&2; tail -n 5 "$d/slurmdbd.log" "$d/sacctmgr.log" >&2; return 1; }
	sacctmgr -i add cluster panlabtest > "$d/sacctmgr.log" 2>&1 ||
		{ echo "slurm-node: sacctmgr add cluster failed:" >&2; cat "$d/sacctmgr.log" >&2; return 1; }
}

slurm_stop() {
	local p
	for p in "${slurm_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${slurm_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	slurm_pids=()
	for p in "${slurm_netns[@]}"; do ip netns del "$p" 2>/dev/null || true; done
	slurm_netns=()
	[ -z "$slurm_bridge" ] || ip link del "$slurm_bridge" 2>/dev/null || true
	slurm_bridge=""
}
