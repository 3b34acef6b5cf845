#!/bin/bash
# Runs an experiment: a spec (scripts/README.md "Experiments") names a matrix of workloads x
# backend x cores x frequency x tracing x repetitions; every cell is one run-experiment.sh run in
# out/<name>/<run>/, and every run lands in out/<name>/results.sqlite (schema:
# `build/analyzer/panlab-analyze schema`), from which out/<name>/report.html is drawn.
#
# - Progress: one line per event with done/total, the current run, elapsed time and ETA.
# - Resume: a run whose status is ok in the database with the same input hash (guest build,
#   emulator, analyzer, run scripts, replay script, expected structure, options) is skipped, so
#   a killed experiment run again picks up where it stopped. Failed runs are run again.
# - A failed run is recorded with its reason (the last line its run printed on stderr) and the
#   rest go on.
# - Phone: each configuration (backend, cores, frequency) boots once: its first run saves a
#   snapshot in out/<name>/snapshots/ and the others restore it (a lock file orders them, also
#   across Slurm tasks); a refused restore boots cold (restore-refused.sh), a run that fails
#   after its restore is recorded failed.
# - --executor local runs --jobs runs at once (default: what the cores and memory allow);
#   --executor slurm submits one `sbatch --array` of `experiment.sh --task DIR INDEX`, one task
#   per run, and follows it with squeue. The tasks need the project tree (build/, out/) on a
#   filesystem they reach at the same path.
#
# Exit status: 0 every run ok, 1 a run failed, 2 bad spec or option (one line, SPEC:LINE: ...).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
analyze=$top/build/analyzer/panlab-analyze

usage_text="usage: $0 SPEC [--executor local|slurm] [--jobs N] [--no-report]
Runs the experiment SPEC (scripts/README.md, \"Experiments\") into out/NAME/results.sqlite and
out/NAME/report.html; --jobs: runs at once (default: what the cores and memory allow).
Exit status: 0 every run ok, 1 a run failed, 2 a bad spec or option."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
usage() { cli_usage 2; }

# ---- the spec -------------------------------------------------------------------------------

# A spec error: one line naming the file and line, exit 2.
spec_error() {
	echo "$spec:$1: $2" >&2
	exit 2
}

# Reads the spec into name, backends, workloads, cores, freqs, traces, repetitions, options[w].
parse_spec() {
	local line n=0 key vals v seen=" "
	name="" backends=(phone) workloads=() cores=(-) freqs=(-) traces=(on) repetitions=1
	declare -gA options=()
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		line=${line%%#*}
		read -r key vals <<<"$line" || true
		[ -n "$key" ] || continue
		[ "$key" = options ] || case "$seen" in *" $key "*) spec_error $n "'$key' given twice" ;; esac
		seen="$seen$key "
		[ -n "$vals" ] || spec_error $n "'$key' has no value"
		read -r -a v <<<"$vals"
		case "$key" in
		name)
			[ ${#v[@]} = 1 ] && [[ "${v[0]}" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]] ||
				spec_error $n "name is '$vals', expected one word of letters, digits, '.', '_', '-'"
			name=${v[0]} ;;
		backend)
			for b in "${v[@]}"; do
				case "$b" in phone|qemu|libvirt) ;; *) spec_error $n "unknown backend '$b', expected phone, qemu or libvirt" ;; esac
			done
			backends=("${v[@]}") ;;
		workloads)
			if [ "${v[*]}" = all ]; then
				v=()
				for s in "$top"/replay/scripts/*.rply; do v+=("$(basename "$s" .rply)"); done
			fi
			for w in "${v[@]}"; do
				[ -f "$top/replay/scripts/$w.rply" ] ||
					spec_error $n "unknown workload '$w': no replay/scripts/$w.rply"
			done
			workloads=("${v[@]}") ;;
		cores)
			for c in "${v[@]}"; do
				[[ "$c" =~ ^[1-9][0-9]?$ ]] || spec_error $n "cores '$c' is not a core count (1-99)"
			done
			cores=("${v[@]}") ;;
		frequency)
			for f in "${v[@]}"; do
				[[ "$f" =~ ^[1-9][0-9]{1,4}$ || "$f" =~ ^[a-z][a-z0-9_]*$ ]] ||
					spec_error $n "frequency '$f' is neither MHz (a number) nor a governor name"
			done
			freqs=("${v[@]}") ;;
		trace)
			for t in "${v[@]}"; do
				case "$t" in on|off) ;; *) spec_error $n "trace '$t', expected on or off" ;; esac
			done
			traces=("${v[@]}") ;;
		repetitions)
			[ ${#v[@]} = 1 ] && [[ "${v[0]}" =~ ^[1-9][0-9]{0,3}$ ]] ||
				spec_error $n "repetitions '$vals', expected one number 1-9999"
			repetitions=${v[0]} ;;
		options)
			local w=${v[0]}
			[ ${#v[@]} -ge 2 ] || spec_error $n "options needs a workload and its options"
			for o in "${v[@]:1}"; do
				[[ "$o" =~ ^[A-Za-z0-9@+=:,._/-]+$ ]] ||
					spec_error $n "option '$o' has a character outside [A-Za-z0-9@+=:,._/-]"
			done
			[ -z "${options[$w]:-}" ] || spec_error $n "options for '$w' given twice"
			options[$w]="${v[*]:1}" ;;
		*) spec_error $n "unknown key '$key', expected name, backend, workloads, cores, frequency, trace, repetitions or options" ;;
		esac
	done < "$spec"
	[ -n "$name" ] || spec_error $n "no 'name' line"
	[ ${#workloads[@]} -gt 0 ] || spec_error $n "no 'workloads' line"
	for w in "${!options[@]}"; do
		case " ${workloads[*]} " in *" $w "*) ;; *) spec_error $n "options for '$w', which is not among the workloads" ;; esac
	done
}

# ---- the matrix -----------------------------------------------------------------------------

hash_files() { cat "$@" | sha256sum | cut -d' ' -f1; }

# What a run of a backend depends on besides its own script and options.
build_hash() {
	local k=$top/build/kernel
	local files=("$k/arch/arm/boot/zImage" "$top/build/initramfs.cpio.gz" "$k/System.map" "$analyze"
		"$top/scripts/run-experiment.sh" "$top/scripts/run-$1.sh" "$top/scripts/backend-common.sh")
	[ "$1" != libvirt ] || files+=("$top/scripts/libvirt-domain.sh")
	for f in "${files[@]}"; do
		[ -s "$f" ] || { echo "$0: $f is missing; run 'make build'" >&2; exit 1; }
	done
	case "$1" in
	phone) hash_files "${files[@]}" "$top/build/emu/panlab-phone" ;;
	qemu|libvirt) { hash_files "${files[@]}"; qemu-system-arm --version; } | sha256sum | cut -d' ' -f1 ;;
	esac
}

# matrix.tsv: one run a line: index, run name, configuration, backend, workload, cores, frequency,
# trace, repetition, options, input hash. "-" is an axis left to the backend's default.
expand() {
	local i=0 b c f w t r base cfg opts hash
	declare -A bh=()
	for b in "${backends[@]}"; do bh[$b]=$(build_hash "$b"); done
	for b in "${backends[@]}"; do for c in "${cores[@]}"; do for f in "${freqs[@]}"; do
		cfg=$b$([ "$c" = - ] || echo "-c$c")$([ "$f" = - ] || echo "-f$f")
		for w in "${workloads[@]}"; do for t in "${traces[@]}"; do
			for r in $(seq 1 "$repetitions"); do
				opts=${options[$w]:-}
				base=$w-$cfg-trace$t-r$r
				local expect=$top/workloads/apps/${w%%+*}.expect
				hash=$({ echo "${bh[$b]} $c $f $t $opts"; cat "$top/replay/scripts/$w.rply"
					[ ! -f "$expect" ] || cat "$expect"; } | sha256sum | cut -d' ' -f1)
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' \
					"$i" "$base" "$cfg" "$b" "$w" "$c" "$f" "$t" "$r" "${opts:--}" "$hash"
				i=$((i + 1))
			done
		done; done
	done; done; done
}

# ---- one run --------------------------------------------------------------------------------

# Line INDEX of DIR/matrix.tsv into the run's fields.
read_run() {
	IFS=$'\t' read -r _ run cfg backend workload ncores freq trace rep opts hash \
		< <(sed -n "$(($2 + 1))p" "$1/matrix.tsv")
	[ -n "${hash:-}" ] || { echo "$0: $1/matrix.tsv has no run $2" >&2; exit 2; }
}

# The run's identity for run-experiment.sh: its folder below out/.
run_id_of() { echo "${1#"$top"/out/}/$2"; }

# Runs line INDEX of DIR/matrix.tsv and leaves DIR/<run>/task.status: status, wall seconds,
# input hash and reason, tab-separated. A Slurm array task or a local job.
run_task() {
	local dir=$1 start status=ok reason="" rc snap boot=()
	read_run "$1" "$2"
	local rd=$dir/$run id
	id=$(run_id_of "$dir" "$run")
	mkdir -p "$rd"
	rm -f "$rd/task.status" "$rd/summary.json" "$rd/model.sqlite"
	local args=(--backend "$backend" --workload "$workload" --trace "$trace" --run-id "$id")
	[ "$ncores" = - ] || args+=(--cores "$ncores")
	case "$freq" in -) ;; [0-9]*) args+=(--freq-mhz "$freq") ;; *) args+=(--governor "$freq") ;; esac
	# shellcheck disable=SC2206
	[ "$opts" = - ] || args+=($opts)
	exec 9>&-
	if [ "$backend" = phone ]; then
		snap=$dir/snapshots/$cfg.snap
		mkdir -p "$dir/snapshots"
		exec 9>>"$snap.lock"
		flock 9	# the first run of a configuration saves; the others wait, then restore
		if [ -s "$snap" ]; then
			flock -u 9
			boot=(--snapshot-load "$snap")
		else
			boot=(--snapshot-save "$snap")
		fi
	fi
	start=$(date +%s.%N)	# the run's own time, not the wait for its snapshot
	rc=0
	"$top/scripts/run-experiment.sh" "${args[@]}" "${boot[@]}" >"$rd/run.log" 2>"$rd/run.err" || rc=$?
	exec 9>&-
	if [ $rc != 0 ] && [ "${boot[0]:-}" = --snapshot-load ] &&
		"$top/scripts/restore-refused.sh" "$rd/run.err" "$snap"; then
		mv "$rd/run.err" "$rd/run-restore.err"
		rc=0
		"$top/scripts/run-experiment.sh" "${args[@]}" >"$rd/run.log" 2>"$rd/run.err" || rc=$?
	fi
	if [ $rc != 0 ] || [ ! -s "$rd/summary.json" ] || [ ! -s "$rd/model.sqlite" ]; then
		status=failed
		# The last error line ("PROGRAM: what" or "FILE:LINE: what"), not a usage or help text.
		reason=$(grep '^[^[:space:]]*: ' "$rd/run.err" | grep -v '^usage:' | tail -n 1 | tr '\t' ' ' || true)
		[ -n "$reason" ] || reason=$(grep -v '^[[:space:]]*$' "$rd/run.err" | tail -n 1 | tr '\t' ' ' || true)
		[ -n "$reason" ] || reason="run-experiment.sh exited $rc without a result"
	fi
	printf '%s\t%s\t%s\t%s\n' "$status" "$(echo "$(date +%s.%N) - $start" | bc)" "$hash" "$reason" \
		> "$rd/task.status.tmp"
	mv "$rd/task.status.tmp" "$rd/task.status"
}

# ---- the database ---------------------------------------------------------------------------

sql_quote() { local s=${1//\'/\'\'}; printf "'%s'" "$s"; }
sql_or_null() { if [ "$1" = - ] || [ -z "$1" ]; then echo NULL; else sql_quote "$1"; fi; }

# Upserts run INDEX's row of the runs table with a status (and reason, wall time).
record_run() {
	local dir=$1 status=$3 wall=${4:-NULL} reason=${5:-} finished=NULL
	read_run "$dir" "$2"
	[ "$status" = pending ] || [ "$status" = running ] || finished="'$(date -u +%FT%TZ)'"
	[ -n "$reason" ] || reason=-
	sqlite3 "$dir/results.sqlite" ".timeout 60000" "INSERT OR REPLACE INTO runs VALUES (
		$(sql_quote "$(run_id_of "$dir" "$run")"), $(sql_quote "$name"), $(sql_quote "$cfg"),
		$(sql_quote "$backend"), $(sql_quote "$workload"), $([ "$ncores" = - ] && echo NULL || echo "$ncores"),
		$(case "$freq" in [0-9]*|-) echo NULL ;; *) sql_quote "$freq" ;; esac),
		$(case "$freq" in [0-9]*) echo "$freq" ;; *) echo NULL ;; esac),
		$([ "$trace" = on ] && echo 1 || echo 0), $rep, $(sql_or_null "$opts"), $(sql_quote "$hash"),
		$(sql_quote "$status"), $(sql_or_null "$reason"), $wall, $finished)"
}

# Moves a finished run's outcome (DIR/<run>/task.status) and model into the database.
gather() {
	local dir=$1 i=$2 st wall h reason tables=""
	read_run "$dir" "$i"
	local rd=$dir/$run
	if [ ! -f "$rd/task.status" ]; then
		record_run "$dir" "$i" failed NULL "${3:-the run ended without a result}"
		return
	fi
	IFS=$'\t' read -r st wall h reason < "$rd/task.status"
	if [ "$st" = ok ]; then
		local id t
		id=$(sql_quote "$(run_id_of "$dir" "$run")")
		for t in $(sqlite3 "$rd/model.sqlite" "SELECT name FROM sqlite_master WHERE type = 'table' AND name != 'runs'"); do
			tables="$tables DELETE FROM main.$t WHERE run_id = $id; INSERT INTO main.$t SELECT * FROM r.$t;"
		done
		sqlite3 "$dir/results.sqlite" ".timeout 60000" \
			"ATTACH $(sql_quote "$rd/model.sqlite") AS r; BEGIN IMMEDIATE; $tables COMMIT;"
	fi
	record_run "$dir" "$i" "$st" "$wall" "$reason"
	[ "$st" = ok ] || failed=$((failed + 1))
}

# ---- progress -------------------------------------------------------------------------------

clock() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# done/total, the current run, elapsed time and ETA (from the runs finished in this session).
progress() {
	local el=$((SECONDS - t0)) eta=--:--
	[ "$ran" -gt 0 ] && eta=$(clock $((el * (total - ndone) / ran)))
	printf 'experiment %s: %d/%d done (%d skipped, %d failed), %s, elapsed %s, ETA %s\n' \
		"$name" "$ndone" "$total" "$skipped" "$failed" "$1" "$(clock $el)" "$eta" >&2
}

# ---- executors ------------------------------------------------------------------------------

# Runs: enough cores and memory for each (a phone run is one busy host thread per guest core
# at most and about 1.5 GiB with its 1 GiB guest).
default_jobs() {
	local cpus mem_kb
	cpus=$(nproc)
	mem_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	local by_mem=$((mem_kb / 1572864))
	local n=$((cpus < by_mem ? cpus : by_mem))
	echo $((n < 1 ? 1 : n))
}

# An interrupt (SIGINT, SIGTERM) stops what this invocation started: each local task's process
# group (the task, its run and the phone or qemu under it) gets SIGTERM, then SIGKILL once its
# task has ended, and is recorded failed; a Slurm array is cancelled and its unfinished runs are
# recorded failed. A rerun runs them again.
declare -A job_of=()
slurm_job=""
on_signal() {
	local pid i
	trap - INT TERM
	for pid in "${!job_of[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
	for pid in "${!job_of[@]}"; do
		wait "$pid" 2>/dev/null || true
		kill -KILL -- "-$pid" 2>/dev/null || true
		record_run "$dir" "${job_of[$pid]}" failed NULL "stopped by SIG$1"
	done
	if [ -n "$slurm_job" ]; then
		scancel "$slurm_job" || true
		for i in "${!left[@]}"; do record_run "$dir" "$i" failed NULL "Slurm job $slurm_job cancelled by SIG$1"; done
		rm -f "$dir/slurm.job"
	fi
	echo "experiment $name: stopped by SIG$1; a rerun runs what did not finish" >&2
	exit $((128 + $(kill -l "$1")))
}

# A Slurm task asks for what its run needs: one CPU per busy guest core (the spec's largest core
# count; the phone's default is 2) and the memory default_jobs counts for a phone run.
run_cpus() {
	local c n=0
	for c in "${cores[@]}"; do
		[ "$c" = - ] && c=2
		[ "$c" -le "$n" ] || n=$c
	done
	echo "$n"
}
run_mem_mb=1536

# Runs at once on the cluster: over the partition's nodes (SBATCH_PARTITION, else the default
# one), how many runs of run_cpus CPUs fit on each, at least 1.
default_jobs_slurm() {
	local part=${SBATCH_PARTITION:-} cpus n=0 node c
	cpus=$(run_cpus)
	[ -n "$part" ] || part=$(sinfo -h -o %P | sed -n 's/\*$//p' | head -n 1)
	[ -n "$part" ] || { echo "$0: sinfo names no default partition; set SBATCH_PARTITION" >&2; exit 2; }
	while read -r node c; do
		n=$((n + c / cpus))
	done < <(sinfo -h -N -p "$part" -o '%N %c' | sort -u)
	echo $((n < 1 ? 1 : n))
}

run_local() {
	local dir=$1 jobs=$2 i pid
	local queue=("${todo[@]}")
	while [ ${#queue[@]} -gt 0 ] || [ ${#job_of[@]} -gt 0 ]; do
		while [ ${#queue[@]} -gt 0 ] && [ ${#job_of[@]} -lt "$jobs" ]; do
			i=${queue[0]}
			queue=("${queue[@]:1}")
			record_run "$dir" "$i" running
			set -m	# the task in a process group of its own, to stop it whole
			"$0" --task "$dir" "$i" >/dev/null 2>"$dir/task-$i.err" &
			set +m
			job_of[$!]=$i
			read_run "$dir" "$i"
			progress "started $run"
		done
		wait -n -p pid "${!job_of[@]}" || true
		kill -KILL -- "-$pid" 2>/dev/null || true	# what the task left behind in its group
		i=${job_of[$pid]}
		unset "job_of[$pid]"
		gather "$dir" "$i" "$(tail -n 1 "$dir/task-$i.err" 2>/dev/null)"
		rm -f "$dir/task-$i.err"
		ndone=$((ndone + 1)) ran=$((ran + 1))
		read_run "$dir" "$i"
		progress "finished $run ($(sqlite3 "$dir/results.sqlite" "SELECT status FROM runs WHERE run_id = $(sql_quote "$(run_id_of "$dir" "$run")")"))"
	done
}

# queued DIR JOB FORMAT: squeue's lines for JOB's tasks (none once Slurm has forgotten the job);
# fails when squeue does, its error in DIR/squeue.err.
queued() {
	local out
	if out=$(squeue -h -r -j "$2" -o "$3" 2>"$1/squeue.err"); then
		printf '%s\n' "$out"
	else
		grep -q 'Invalid job id' "$1/squeue.err"
	fi
}

# Follows array job JOB, whose task T runs run BASE + T, until the runs in `left` have left
# squeue, gathering each.
follow_slurm() {
	local dir=$1 job=$2 base=$3 i shown=- active now
	slurm_job=$job
	local squeue_failures=0
	while [ ${#left[@]} -gt 0 ]; do
		# A failed squeue (the controller busy or restarting) says nothing about the tasks:
		# ask again, for up to 5 minutes, rather than count them all as ended.
		if ! active=$(queued "$dir" "$job" '%K %T %N'); then
			squeue_failures=$((squeue_failures + 1))
			[ $squeue_failures -lt 150 ] || {
				echo "$0: squeue failed $squeue_failures times in a row: $(tail -n 1 "$dir/squeue.err"); job $job goes on, a rerun follows it" >&2
				exit 1
			}
			sleep 2
			continue
		fi
		squeue_failures=0
		for i in "${!left[@]}"; do
			grep -q "^$((i - base)) " <<<"$active" && continue
			unset "left[$i]"
			gather "$dir" "$i" "Slurm task ${job}_$i ended without a result; see $dir/slurm-$i.out"
			ndone=$((ndone + 1)) ran=$((ran + 1))
			read_run "$dir" "$i"
			progress "finished $run"
		done
		[ ${#left[@]} = 0 ] && break
		now=$(awk -v b="$base" '$2 == "RUNNING" { printf "%s@%s ", b + $1, $3 }' <<<"$active")
		[ "$now" = "${shown:-}" ] || progress "running task(s) ${now:-none yet }of job $job"
		shown=$now
		sleep 2	# squeue is polled: Slurm tells the submitter nothing when a task ends
	done
	slurm_job=""
}

# Array jobs, one task per run; a task that leaves squeue is gathered. Slurm refuses task IDs
# from its MaxArraySize up, so the runs go in chunks of that many (one array each, one after the
# other), task T of a chunk running run BASE + T. The job's ID and base are kept in
# DIR/slurm.job while it runs: an earlier invocation's array that still runs (its submitter was
# killed with SIGKILL or lost its terminal) is followed for its runs in flight, and only the
# others are submitted.
run_slurm() {
	local dir=$1 jobs=$2 job base i max
	declare -A left=()
	{ read -r job base < "$dir/slurm.job"; } 2>/dev/null || true
	if [ -n "${job:-}" ]; then
		local in_queue
		in_queue=$(queued "$dir" "$job" %K) ||
			{ echo "$0: cannot tell whether array job $job still runs: $(tail -n 1 "$dir/squeue.err")" >&2; exit 1; }
		for i in $in_queue; do
			i=$((${base:-0} + i))
			[[ " ${todo[*]} " == *" $i "* ]] && left[$i]=1
		done
		if [ ${#left[@]} -gt 0 ]; then
			progress "following array job $job, which an earlier invocation submitted: runs ${!left[*]} in flight"
			local flight=" ${!left[*]} " rest=()
			follow_slurm "$dir" "$job" "${base:-0}"
			for i in "${todo[@]}"; do [[ "$flight" == *" $i "* ]] || rest+=("$i"); done
			todo=("${rest[@]}")
		fi
	fi
	rm -f "$dir/slurm.job"
	max=$(scontrol show config | awk '$1 == "MaxArraySize" { print $3 }')
	[[ "$max" =~ ^[1-9][0-9]*$ ]] || max=1001	# Slurm's default
	cat > "$dir/array.sbatch" <<EOF
#!/bin/bash
#SBATCH --job-name=panlab-$name
#SBATCH --output=$dir/slurm-array-%A.out
#SBATCH --cpus-per-task=$(run_cpus)
#SBATCH --mem=${run_mem_mb}M
i=\$((\$PANLAB_ARRAY_BASE + \$SLURM_ARRAY_TASK_ID))
exec > "$dir/slurm-\$i.out" 2>&1
echo "panlab: task \$SLURM_ARRAY_TASK_ID of job \$SLURM_ARRAY_JOB_ID (run \$i) on node \$SLURMD_NODENAME (\$(hostname))"
exec "$top/scripts/experiment.sh" --task "$dir" "\$i"
EOF
	for i in "${todo[@]}"; do record_run "$dir" "$i" pending; done
	local chunk=() list
	for base in $(for i in "${todo[@]}"; do echo $((i / max * max)); done | sort -nu); do
		chunk=()
		for i in "${todo[@]}"; do [ $((i / max * max)) != "$base" ] || { chunk+=($((i - base))); left[$i]=1; }; done
		list=$(IFS=,; echo "${chunk[*]}")
		job=$(PANLAB_ARRAY_BASE=$base sbatch --parsable --export=ALL --array="$list%$jobs" "$dir/array.sbatch")
		job=${job%%;*}
		echo "$job $base" > "$dir/slurm.job"
		progress "submitted array job $job ($list$([ "$base" = 0 ] || echo ", runs from $base"))"
		follow_slurm "$dir" "$job" "$base"
		rm -f "$dir/slurm.job"
	done
}

# ---- main -----------------------------------------------------------------------------------

if [ "${1:-}" = --task ]; then
	[ $# = 3 ] || usage
	run_task "$2" "$3"
	exit 0
fi
if [ "${1:-}" = --default-jobs ]; then
	default_jobs
	exit 0
fi

spec="" executor=local jobs="" report=1
while [ $# -gt 0 ]; do
	case "$1" in
	--executor) cli_need "$@"; executor=$2; shift 2 ;;
	--jobs) cli_need "$@"; jobs=$2; shift 2 ;;
	--no-report) report=0; shift ;;
	-h | --help) cli_usage 0 ;;
	-*) cli_unknown "$1" ;;
	*) [ -z "$spec" ] || usage; spec=$1; shift ;;
	esac
done
[ -n "$spec" ] || usage
case "$executor" in local|slurm) ;; *) echo "$0: unknown executor '$executor', expected local or slurm" >&2; exit 2 ;; esac
[ -z "$jobs" ] || [[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "$0: --jobs takes a positive number, got '$jobs'" >&2; exit 2; }
# The spec is read line by line: refuse a directory, a device (/dev/zero never ends) and a huge file first.
spec_cap_bytes=1048576
[ -e "$spec" ] || { echo "$spec: no such spec file" >&2; exit 2; }
[ ! -d "$spec" ] || { echo "$spec: is a directory, expected a spec file" >&2; exit 2; }
[ -f "$spec" ] || { echo "$spec: not a regular file, expected a spec file" >&2; exit 2; }
spec_bytes=$(stat -c %s -- "$spec")
[ "$spec_bytes" -le $spec_cap_bytes ] ||
	{ echo "$spec: $spec_bytes bytes, more than the $spec_cap_bytes-byte cap for a spec" >&2; exit 2; }
[ -x "$analyze" ] || { echo "$0: $analyze is missing; run 'make build'" >&2; exit 1; }
cli_tool sqlite3 sqlite3
if [ "$executor" = slurm ]; then
	for t in sbatch squeue sinfo scancel; do cli_tool "$t" slurm-client; done
fi
parse_spec
if [ -z "$jobs" ] && [ "$executor" = slurm ]; then
	jobs=$(default_jobs_slurm)
elif [ -z "$jobs" ]; then
	jobs=$(default_jobs)
fi

dir=$top/out/$name
mkdir -p "$dir"
"$analyze" schema | sqlite3 "$dir/results.sqlite"
expand > "$dir/matrix.tsv"
# Snapshots of an earlier invocation may hold another guest build: every configuration boots afresh.
rm -rf "$dir/snapshots"

total=$(wc -l < "$dir/matrix.tsv") ndone=0 ran=0 skipped=0 failed=0 t0=$SECONDS
todo=()
declare -A finished=()
while IFS='|' read -r id h; do finished[$id]=$h; done < <(sqlite3 "$dir/results.sqlite" \
	"SELECT run_id, input_hash FROM runs WHERE status = 'ok'")
for i in $(seq 0 $((total - 1))); do
	read_run "$dir" "$i"
	if [ "${finished[$(run_id_of "$dir" "$run")]:-}" = "$hash" ]; then
		skipped=$((skipped + 1)) ndone=$((ndone + 1))
	else
		todo+=("$i")
		record_run "$dir" "$i" pending
	fi
done
progress "$skipped finished with the same inputs, $((total - skipped)) to run on $executor ($jobs at once)"
trap 'on_signal INT' INT
trap 'on_signal TERM' TERM
[ ${#todo[@]} = 0 ] || "run_$executor" "$dir" "$jobs"
trap - INT TERM
echo "experiment $name: $total runs, $skipped skipped, $failed failed, $(clock $((SECONDS - t0))); results in ${dir#"$top"/}/results.sqlite" >&2
if [ "$report" = 1 ]; then
	"$top/scripts/experiment-report.sh" "$dir/results.sqlite" "$dir/report.html"
fi
# One line per run of this spec.
sqlite3 -header -column "$dir/results.sqlite" "SELECT substr(r.run_id, length('$name') + 2) AS run,
	r.status, v.transactions AS tx, v.precision, v.recall,
	round(v.latency_error_mean_ns / 1e6, 3) AS error_ms, round(r.wall_s, 1) AS wall_s,
	coalesce(r.reason, '') AS reason
	FROM runs r LEFT JOIN validation v USING (run_id) WHERE r.experiment = '$name' ORDER BY r.run_id"
[ "$failed" = 0 ]
