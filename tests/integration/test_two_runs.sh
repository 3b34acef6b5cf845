#!/bin/bash
# Two `make run`s started at once in one checkout, as a student in two terminals (phone, timer,
# about 40 s): the initramfs is made stale first, so both pack it at the same time
# (scripts/mkinitramfs.sh stages privately and renames into place), and analyzer/main.c is
# touched, so both would compile and link panlab-analyze at once (the top Makefile's build takes
# a lock for its compiling); both runs must pass with every tap matched, each in its own out/
# folder, and the archive must come out byte-identical to the one before.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d /tmp/panlab-two-runs.XXXXXX)
trap 'rm -rf "$work"' EXIT

image=$top/build/initramfs.cpio.gz
[ -s "$image" ] || fail "$image is missing; run 'make build'"
sha256sum < "$image" > "$work/image.sha256"
rm -f "$image.inputs"
# A source newer than its program too, so both builds would compile and link it at once.
touch "$top/analyzer/main.c"
for n in 1 2; do
	make --no-print-directory -C "$top" run WORKLOAD=timer > "$work/run$n.log" 2>&1 &
	pids[n]=$!
done
for n in 1 2; do
	wait "${pids[n]}" || { tail -n 20 "$work/run$n.log" >&2; fail "run $n failed (its last 20 lines above)"; }
	grep -q '^mkinitramfs: .*/initramfs.cpio.gz (' "$work/run$n.log" || fail "run $n did not pack the initramfs"
done
sha256sum < "$image" | cmp -s - "$work/image.sha256" || fail "$image differs from the one packed before"
dirs=()
for n in 1 2; do
	d=$(sed -n 's|^run \(.*\): results in out/.*|\1|p' "$work/run$n.log")
	[ -n "$d" ] && [ -s "$top/out/$d/summary.json" ] || fail "run $n: no results folder in its output"
	[ "$(jq '.precision == 1 and .recall == 1' "$top/out/$d/summary.json")" = true ] ||
		fail "run $n: precision or recall below 1 in out/$d/summary.json"
	dirs+=("$d")
done
[ "${dirs[0]}" != "${dirs[1]}" ] || fail "both runs wrote out/${dirs[0]}"
echo "$name: ok (both packed the initramfs at once, same bytes as before; out/${dirs[0]} and out/${dirs[1]}, precision and recall 1)"
rm -rf "${dirs[@]/#/$top/out/}"
