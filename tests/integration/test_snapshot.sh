#!/bin/bash
# Snapshots on the phone backend (emu/): one boot saves the machine where
# the guest waits for its experiment and runs it (run A); two restores of
# that snapshot run the same experiment (runs B and C, side by side). The
# restores must give byte-identical trace and ground truth, and the same
# as the run that saved the snapshot, which shows that nothing the rest
# of the run depends on was left out. Runs the shortest replay script.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
phone=$build/emu/panlab-phone
work=$build/emu/snapshot-test.$$
trap 'rm -rf "$work"' EXIT
workload=asynctask@gestures
for f in "$phone" "$build/kernel/arch/arm/boot/zImage" "$build/initramfs.cpio.gz" "$build/guest_abi.sh"; do
	[ -s "$f" ] || { echo "test_snapshot: $f is missing; run 'make build'" >&2; exit 1; }
done
# shellcheck source=/dev/null
. "$build/guest_abi.sh"
mkdir -p "$work"
cp "$build/kernel/arch/arm/boot/zImage" "$build/initramfs.cpio.gz" "$build/kernel/System.map" "$work/"
config="panlab.trace=1 panlab.injector=host panlab.workload=$workload"

# Sets `args` to what every run shares: its outputs, a fresh SD card, the
# script and the experiment.
outputs() {
	local d=$work/$1
	mkdir -p "$d"
	"$top/scripts/make-sdcard.sh" "$d/sdcard.img"
	args=(--console "$d/console.log" --port "$PL_PORT_TRACE=$d/trace.bin"
		--disk "$d/sdcard.img" --system-map "$work/System.map"
		--replay "$top/replay/scripts/$workload.rply" --ground-truth "$d/ground_truth.txt"
		--max-virtual-s 120 --config "$config")
}
# ok RUN STATUS: the guest said OK and the phone exited 0 (it fails a run
# the guest cannot see fail, such as a replay script that did not end).
ok() {
	grep -aq "^${PL_RESULT_PREFIX}OK" "$work/$1/console.log" && [ "$2" = 0 ] ||
		{ echo "test_snapshot: run $1 failed (phone exit status $2):" >&2
		  tail -n 5 "$work/$1/stderr" "$work/$1/console.log" >&2; exit 1; }
}

echo "test_snapshot: run A boots, saves the snapshot and runs $workload"
outputs a
"$phone" --kernel "$work/zImage" --initrd "$work/initramfs.cpio.gz" \
	--append "console=ttyAMA0 maxcpus=1 panic=-1 quiet panlab.wait_config=1" \
	--snapshot-save "$work/snap.bin" "${args[@]}" 2> "$work/a/stderr" && st=0 || st=$?
ok a "$st"
grep -a 'saved' "$work/a/stderr"

echo "test_snapshot: runs B and C restore it and run $workload"
pids=()
for run in b c; do
	outputs $run
	"$phone" --snapshot-load "$work/snap.bin" "${args[@]}" 2> "$work/$run/stderr" &
	pids+=($!)
done
sts=()
for p in "${pids[@]}"; do wait "$p" && sts+=(0) || sts+=($?); done
ok b "${sts[0]}"
ok c "${sts[1]}"
grep -a 'restored' "$work/b/stderr"

status=0
for pair in b:c a:b; do
	x=${pair%:*} y=${pair#*:}
	for f in trace.bin ground_truth.txt; do
		if cmp -s "$work/$x/$f" "$work/$y/$f"; then
			echo "test_snapshot: $f of runs $x and $y identical ($(wc -c < "$work/$x/$f") bytes)"
		else
			echo "test_snapshot: $f of runs $x and $y differ: $(cmp "$work/$x/$f" "$work/$y/$f" | head -n 1)" >&2
			status=1
		fi
	done
done
[ "$(grep -c '^input' "$work/b/ground_truth.txt")" -ge 10 ] ||
	{ echo "test_snapshot: run B's ground truth has fewer than 10 inputs" >&2; status=1; }
# A refused snapshot has its own exit status, PL_EXIT_SNAPSHOT_REFUSED (build/guest_abi.sh):
# panlab-phone's for a file cut short, run-phone.sh's for one saved from another build of the
# guest; the message names the file.
head -c 4096 "$work/snap.bin" > "$work/cut.bin"
rc=0
msg=$("$phone" --snapshot-load "$work/cut.bin" "${args[@]}" 2>&1 >/dev/null) || rc=$?
if [ "$rc" != "$PL_EXIT_SNAPSHOT_REFUSED" ] || ! grep -q "^panlab-phone: $work/cut.bin@" <<<"$msg"; then
	echo "test_snapshot: a snapshot cut short gave exit $rc (expected $PL_EXIT_SNAPSHOT_REFUSED): $msg" >&2
	status=1
fi
echo "another build" > "$work/snap.bin.guest"
rc=0
msg=$("$top/scripts/run-phone.sh" --snapshot-load "$work/snap.bin" --workload "$workload" \
	--out "$work/stale" 2>&1) || rc=$?
if [ "$rc" != "$PL_EXIT_SNAPSHOT_REFUSED" ]; then
	echo "test_snapshot: run-phone.sh gave exit $rc for a snapshot of another guest build: $msg" >&2
	status=1
elif ! grep -q "snap.bin: saved from another build of the guest" <<<"$msg"; then
	echo "test_snapshot: unexpected refusal message: $msg" >&2
	status=1
fi
[ $status = 0 ] && echo "test_snapshot: ok"
exit $status
