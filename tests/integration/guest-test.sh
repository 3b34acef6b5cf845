#!/bin/bash
# Runs one guest test of emu/tests/guest on the phone (not a suite; the test_*.sh use it):
# boots the panlab initramfs with build/emu/guest-tests.cpio.gz appended and panlab.test=NAME,
# leaving OUT/console.log and OUT/run.log. On failure shows the test's own lines (or the
# log's tail) and exits 1. --append CPIO appends one more archive (build/emu/guest-perf.cpio.gz).
#   usage: guest-test.sh NAME OUT [--append CPIO] [scripts/run-phone.sh options]
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build
name=$1 out=$2
shift 2
archives=("$build/initramfs.cpio.gz" "$build/emu/guest-tests.cpio.gz")
if [ "${1:-}" = --append ]; then
	archives+=("$2")
	shift 2
fi
for f in "${archives[@]}"; do
	[ -s "$f" ] || { echo "$name: $f is missing; run 'make build'" >&2; exit 1; }
done
mkdir -p "$out"
cat "${archives[@]}" > "$out/initrd.gz"
"$top/scripts/run-phone.sh" --test "$name" --out "$out" --initrd "$out/initrd.gz" "$@" \
	> "$out/run.log" 2>&1 || {
	grep -a "^$name" "$out/console.log" >&2 || tail -n 20 "$out/run.log" >&2
	echo "$name: the guest test failed; log in $out/run.log" >&2
	exit 1
}
