#!/bin/bash
# The phone's benchmark: boot to /init and the parallel-core
# ratio on emu/ and on QEMU icount with the same kernel and initramfs plus
# the guest test panlab-parallel, and the time to restore a snapshot of the
# booted phone (emu/ only). Boot and restore are then measured BENCH_REPS
# times (default 5) in turns, emu/ and QEMU, for medians, min-max spreads and
# the per-round ratio (benchstat). Writes out/bench/phone.json. Then the suite's
# workloads (BENCH_POLICY_WORKLOADS) under both quantum policies in turns
# (emu/README.md, "Virtual time"): out/bench/phone-quantum-policy.json.
#   usage: board_bench.sh TOP_DIR
set -euo pipefail
top=$1
build=$top/build
out=${BENCH_OUT:-$top/out/bench}
# A private work folder: two benches may run at once on a shared host.
work=$build/emu/bench-board.$$
trap 'rm -rf "$work"' EXIT
kernel=$build/kernel/arch/arm/boot/zImage
for f in "$kernel" "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz"; do
	[ -s "$f" ] || { echo "board_bench: $f is missing; run 'make build'" >&2; exit 1; }
done
mkdir -p "$out" "$work"
cat "$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz" > "$work/initrd.gz"
cmdline="console=ttyAMA0 maxcpus=1 panic=-1 panlab.trace=0 panlab.test=panlab-parallel"

# Console lines end in CR LF: the CR is not part of the number.
ratio() { grep -a '^PARALLEL-RATIO: ' "$1" | tail -n 1 | cut -d' ' -f2 | tr -d '\r' || true; }

echo "board_bench: emu/ (panlab-phone)"
phone_error=""
"${PHONE:-$build/emu/panlab-phone}" --kernel "$kernel" --initrd "$work/initrd.gz" --append "$cmdline" \
	--console "$work/phone-console.log" --max-virtual-s 120 --hang-s 3 2> "$work/phone.err" ||
	phone_error=$(head -n 1 "$work/phone.err")
[ -z "$phone_error" ] || echo "board_bench: panlab-phone failed: $phone_error" >&2
init_line=$(grep '/init started at' "$work/phone.err" || true)
boot_virtual=$(echo "$init_line" | sed 's/.*started at \([0-9.]*\) s of virtual.*/\1/')
boot_host=$(echo "$init_line" | sed 's/.*virtual time, \([0-9.]*\) s of host.*/\1/')
mips=$(grep ' MIPS$' "$work/phone.err" | sed 's/.*; \([0-9.]*\) MIPS$/\1/' || true)
rss_emu=$(grep ' MIPS$' "$work/phone.err" | sed 's/.*peak RSS \([0-9.]*\) MB.*/\1/' || true)
ratio_emu=$(ratio "$work/phone-console.log")

# Snapshot: boot to the point where /init waits for its experiment, save,
# then restore and run the same guest test from there. restore_s is the
# restoring process's host time from its start to the guest running.
echo "board_bench: emu/ snapshot save and restore"
restore_s="" ratio_restored=""
if "${PHONE:-$build/emu/panlab-phone}" --kernel "$kernel" --initrd "$work/initrd.gz" \
	--append "console=ttyAMA0 maxcpus=1 panic=-1 panlab.wait_config=1" \
	--console "$work/save-console.log" --snapshot-save "$work/phone.snap" 2> "$work/save.err" &&
	"${PHONE:-$build/emu/panlab-phone}" --snapshot-load "$work/phone.snap" \
	--config "panlab.trace=0 panlab.test=panlab-parallel" \
	--console "$work/restore-console.log" --max-virtual-s 120 --hang-s 3 2> "$work/restore.err"; then
	restore_s=$(grep 'restored .* in [0-9.]* s of host time' "$work/restore.err" |
		sed 's/.* in \([0-9.]*\) s of host time.*/\1/')
	ratio_restored=$(ratio "$work/restore-console.log")
	echo "board_bench: $(grep -h 'saved\|restored' "$work/save.err" "$work/restore.err" | sed 's/^panlab-phone: //' | paste -sd';')"
else
	echo "board_bench: snapshot failed: $(head -n 1 "$work/save.err" "$work/restore.err" 2>/dev/null | grep -v '^==' | head -n 2)" >&2
fi
[ -n "$ratio_restored" ] || restore_s=""     # a restore that ran nothing counts as none

echo "board_bench: QEMU icount (same kernel, initramfs and guest test)"
# Starts QEMU on the boot's command line with console LOG, under /usr/bin/time for its peak
# RSS when asked ("rss"); sets qpid (QEMU itself otherwise, so that ending it ends QEMU) and start.
qemu_start() {
	: > "$1"
	local rss=()
	[ "${2:-}" != rss ] || rss=(/usr/bin/time -f %M -o "$work/qemu-rss-kb")
	start=$(date +%s.%N)
	"${rss[@]}" qemu-system-arm -M virt -cpu cortex-a15 -smp 2 -m 1024 \
		-global virtio-mmio.force-legacy=false \
		-icount shift=2,sleep=off -seed 1 -rtc base=2020-01-01T00:00:00,clock=vm \
		-kernel "$kernel" -initrd "$work/initrd.gz" -append "$cmdline" \
		-no-reboot -monitor none -nic none -display none \
		-chardev file,id=console,path="$1" -serial chardev:console \
		< /dev/null &
	qpid=$!
}
# Polls QEMU's console LOG until /init runs; sets qemu_init (host s since start).
# With "stop", QEMU is ended there; otherwise it runs to its end.
qemu_wait() {
	qemu_init=""
	while kill -0 "$qpid" 2>/dev/null; do
		if [ -z "$qemu_init" ] && grep -aq 'Run /init as init process' "$1"; then
			qemu_init=$(echo "$(date +%s.%N) - $start" | bc)
			[ "${2:-}" != stop ] || kill "$qpid" 2>/dev/null || true
		fi
		sleep 0.05
	done
	wait "$qpid" || true
}
qemu_start "$work/qemu-console.log" rss
qemu_wait "$work/qemu-console.log"
ratio_qemu=$(ratio "$work/qemu-console.log")
rss_qemu=$(tail -n 1 "$work/qemu-rss-kb" 2>/dev/null | grep -x '[0-9]*' || true)
[ -z "$rss_qemu" ] || rss_qemu=$(echo "scale=1; $rss_qemu / 1024" | bc)

num() { [ -n "$1" ] && echo "$1" || echo null; }

# Boot and restore, BENCH_REPS rounds (default 5) in turn: emu/ boots to /init, QEMU boots to
# /init (ended there), emu/ restores the snapshot. Each emu/ run stops 1 s of virtual time
# past the point it measures. benchstat gives medians, spreads and the per-round ratio.
reps=${BENCH_REPS:-5}
benchstat=$build/emu/benchstat
b=${boot_virtual:-8}; boot_cap=$(( ${b%.*} + 2 ))
boot_pairs=() restores=()
host_start=$("$benchstat" host)
for r in $(seq "$reps"); do
	"${PHONE:-$build/emu/panlab-phone}" --kernel "$kernel" --initrd "$work/initrd.gz" \
		--append "$cmdline" --console "$work/round-console.log" --max-virtual-s "$boot_cap" \
		--hang-s 3 2> "$work/round.err" || true
	e=$(sed -n 's/.*\/init started at .* virtual time, \([0-9.]*\) s of host.*/\1/p' "$work/round.err")
	qemu_start "$work/round-qemu.log"
	qemu_wait "$work/round-qemu.log" stop
	[ -n "$e" ] && [ -n "$qemu_init" ] ||
		{ echo "board_bench: round $r: a boot did not reach /init (emu/ '$e', QEMU '$qemu_init')" >&2; exit 1; }
	boot_pairs+=("$e" "$qemu_init")
	if [ -n "$restore_s" ]; then
		"${PHONE:-$build/emu/panlab-phone}" --snapshot-load "$work/phone.snap" \
			--config "panlab.trace=0 panlab.test=panlab-parallel" --console "$work/round-console.log" \
			--max-virtual-s "$boot_cap" --hang-s 3 2> "$work/round.err" || true
		restores+=("$(sed -n 's/.*restored .* in \([0-9.]*\) s of host time.*/\1/p' "$work/round.err")")
	fi
	echo "board_bench: round $r/$reps: boot emu/ $e s, QEMU $qemu_init s${restore_s:+, restore ${restores[-1]} s}"
done
boot_json=$("$benchstat" pairs emu qemu "${boot_pairs[@]}")
restore_json=null
[ -z "$restore_s" ] || restore_json=$("$benchstat" figure "${restores[@]}")
host_end=$("$benchstat" host)
# The phone's error, as a JSON string (backslashes and quotes escaped).
err_json=null
[ -z "$phone_error" ] || err_json="\"$(printf '%s' "$phone_error" | sed 's/[\\"]/\\&/g')\""

cat > "$out/phone.json" <<JSON
{
  "boot_to_init_s": $(num "$boot_host"),
  "boot_to_init_virtual_s": $(num "$boot_virtual"),
  "restore_s": $(num "$restore_s"),
  "boot_to_init_s_qemu": $(num "$qemu_init"),
  "parallel_ratio_emu": $(num "$ratio_emu"),
  "parallel_ratio_qemu": $(num "$ratio_qemu"),
  "emu_mips": $(num "$mips"),
  "peak_rss_mb_emu": $(num "$rss_emu"),
  "peak_rss_mb_qemu": $(num "$rss_qemu"),
  "emu_error": $err_json
}
JSON
# The rounds: medians (under the single run's names), spreads and stability.
jq --argjson boot "$boot_json" --argjson restore "$restore_json" --argjson h0 "$host_start" \
	--argjson h1 "$host_end" --argjson reps "$reps" '. + {
	boot_to_init_s: $boot.emu.median, boot_to_init_s_qemu: $boot.qemu.median,
	restore_s: ($restore.median // .restore_s),
	rounds: {repetitions: $reps, boot_to_init_s: $boot.emu, boot_to_init_s_qemu: $boot.qemu,
		boot_ratio_emu_over_qemu: $boot.ratio, restore_s: $restore,
		stable: ($boot.ratio.stable and ($restore.stable // true))},
	host: {cpu_model: $h0.cpu_model, loadavg_start: $h0.loadavg, loadavg_end: $h1.loadavg}}' \
	"$out/phone.json" > "$work/phone.json"
mv "$work/phone.json" "$out/phone.json"
cat "$out/phone.json"
# Side by side; host-time figures depend on the machine's load.
fix() { if [ -n "$2" ]; then printf "%.${1}f" "$2"; else echo -; fi; }
printf 'board_bench: %-26s %12s %12s\n' "" "emu/" "QEMU icount"
# A figure's median, min-max spread and, past 10 %, UNSTABLE.
fig() { jq -r "$1 | if . == null then \"-\" else \"\\(.median * 100 | round / 100) (\\(.min * 100 | round / 100)-\\(.max * 100 | round / 100)\\(if .stable then \"\" else \", UNSTABLE\" end))\" end" "$out/phone.json"; }
printf 'board_bench: %-26s %12s %12s\n' "boot to /init, cold (s)" "$(fix 2 "$boot_host")" "$(fix 2 "$qemu_init")"
printf 'board_bench: %-26s %s\n' "  median of $reps rounds" "emu/ $(fig .rounds.boot_to_init_s), QEMU $(fig .rounds.boot_to_init_s_qemu)"
printf 'board_bench: %-26s %s\n' "  emu/ over QEMU, per round" "$(fig .rounds.boot_ratio_emu_over_qemu)"
printf 'board_bench: %-26s %s\n' "boot from a snapshot (s)" "$(fig .rounds.restore_s)"
printf 'board_bench: %-26s %s\n' "load average" "$(jq -r '"\(.host.loadavg_start[0] * 100 | round / 100) at the start, \(.host.loadavg_end[0] * 100 | round / 100) at the end (\(.host.cpu_model))"' "$out/phone.json")"
# Virtual time of two threads on two cores over one: 1.0 when the cores run in parallel.
printf 'board_bench: %-26s %12s %12s\n' "parallel ratio, virtual" "$(fix 3 "$ratio_emu")" "$(fix 3 "$ratio_qemu")"
printf 'board_bench: %-26s %12s %12s\n' "MIPS (per CPU second)" "$(fix 1 "$mips")" "-"
printf 'board_bench: %-26s %12s %12s\n' "peak RSS, boot run (MB)" "$(fix 0 "$rss_emu")" "$(fix 0 "$rss_qemu")"
# Cross-core causality's cost: the suite's workloads (BENCH_POLICY_WORKLOADS) with the cores
# meeting only at quantum ends (fixed: the engine before causal delivery) and with cross-core
# effects delivered at the sender's time (causal, the default), BENCH_POLICY_REPS rounds
# (default 1: a round of the five is about an hour of host CPU) in turns, fixed then causal.
# Host CPU time and MIPS from panlab-phone's last line, the windows the policy ended early, and
# the causal pairs the analyzer finds out of order in the trace; benchstat gives the medians,
# spreads and the per-round causal/fixed ratio of CPU time.
policy_workloads=${BENCH_POLICY_WORKLOADS:-asynctask asynctask+io asynctask+net asynctask+mem newsreader}
policy_reps=${BENCH_POLICY_REPS:-1}
policy_host_start=$("$benchstat" host)
policy_run() {         # workload policy round -> one JSON object
	local w=$1 p=$2 d=$work/policy-$1-$2-$3
	"$top/scripts/run-phone.sh" --workload "$w" --out "$d" --quantum-policy "$p" \
		> "$d.log" 2>&1 || echo "board_bench: $w: the $p run failed (see $d.log)" >&2
	local last cpu_s pmips cuts summary=null
	last=$(grep -a ' MIPS$' "$d.log" | tail -n 1 || true)
	cpu_s=$(sed -n 's/.*(\([0-9.]*\) s CPU).*/\1/p' <<<"$last")
	pmips=$(sed -n 's/.*; \([0-9.]*\) MIPS$/\1/p' <<<"$last")
	cuts=$(grep -a 'windows ended early' "$d.log" | sed 's/.*: \([0-9]*\) windows.*/\1/' || true)
	if [ -s "$d/trace.bin" ] && "$build/analyzer/panlab-analyze" --trace "$d/trace.bin" \
		--ground-truth "$d/ground_truth.txt" --out "$d/analysis" --backend phone \
		--workload "$w" --no-plots --no-trace-json > /dev/null 2>&1; then
		summary=$(jq -c '{causal_pairs_out_of_order: .model.causal_pairs_out_of_order,
			skew_repaired: .model.skew_repaired}' "$d/analysis/summary.json")
	fi
	rm -rf "$d"
	jq -nc --argjson cpu "$(num "$cpu_s")" --argjson mips "$(num "$pmips")" \
		--argjson cuts "$(num "$cuts")" --argjson a "$summary" \
		'{cpu_s: $cpu, mips: $mips, cross_core_cuts: $cuts} + ($a // {})'
}
policy_json=()
for w in $policy_workloads; do
	runs=()
	for r in $(seq "$policy_reps"); do
		for p in fixed causal; do
			echo "board_bench: $w with --quantum-policy $p, round $r"
			runs+=("$(policy_run "$w" "$p" "$r")")
		done
	done
	# Rounds as [fixed, causal] pairs; a figure over the rounds where both runs reported it.
	policy_json+=("$(printf '%s\n' "${runs[@]}" | jq -sc --arg w "$w" '[range(0; length; 2) as $i | [.[$i], .[$i + 1]]]
		| {workload: $w, rounds: .}')")
done
figure() { [ $# -gt 0 ] && "$benchstat" figure "$@" || echo null; }
pairs() { [ $# -gt 0 ] && "$benchstat" pairs causal fixed "$@" || echo null; }
for j in "${policy_json[@]}"; do
	w=$(jq -r .workload <<<"$j")
	mapfile -t cpu < <(jq -r '.rounds[] | select(.[0].cpu_s and .[1].cpu_s) | .[1].cpu_s, .[0].cpu_s' <<<"$j")
	mapfile -t mips_f < <(jq -r '.rounds[] | .[0].mips // empty' <<<"$j")
	mapfile -t mips_c < <(jq -r '.rounds[] | .[1].mips // empty' <<<"$j")
	jq -c --argjson cpu "$(pairs "${cpu[@]}")" --argjson mf "$(figure "${mips_f[@]}")" \
		--argjson mc "$(figure "${mips_c[@]}")" '{workload, rounds,
		cpu_s: $cpu, mips: {fixed: $mf, causal: $mc},
		cross_core_cuts: {fixed: [.rounds[][0].cross_core_cuts], causal: [.rounds[][1].cross_core_cuts]},
		causal_pairs_out_of_order: {fixed: [.rounds[][0].causal_pairs_out_of_order],
			causal: [.rounds[][1].causal_pairs_out_of_order]}}' <<<"$j"
done | jq -s --argjson h0 "$policy_host_start" --argjson h1 "$("$benchstat" host)" \
	'{host_start: $h0, host_end: $h1, workloads: .}' > "$out/phone-quantum-policy.json"
printf 'board_bench: %-14s %-24s %14s %14s %8s\n' workload "(medians)" fixed causal causal/fixed
jq -r '.workloads[] | [.workload, "host CPU (s)", .cpu_s.fixed.median, .cpu_s.causal.median,
		(.cpu_s.ratio | if . then "\(.median | . * 1000 | round / 1000)\(if .stable then "" else " UNSTABLE" end)" else null end)],
	["", "MIPS (per CPU second)", .mips.fixed.median, .mips.causal.median, ""],
	["", "windows ended early", .cross_core_cuts.fixed[0], .cross_core_cuts.causal[0], ""],
	["", "causal pairs out of order", .causal_pairs_out_of_order.fixed[0], .causal_pairs_out_of_order.causal[0], ""]
	| map(. // "-" | tostring) | @tsv' "$out/phone-quantum-policy.json" |
	awk -F'\t' '{ printf "board_bench: %-14s %-24s %14s %14s %8s\n", $1, $2, $3, $4, $5 }'
[ -z "$phone_error" ]
