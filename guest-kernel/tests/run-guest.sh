#!/bin/bash
# Runs one kernel-logger guest program (build/klog-tests/bin, packed into the
# panlab initramfs by scripts/mkinitramfs.sh) on the qemu backend (default)
# or the phone, through scripts/run-qemu.sh or scripts/run-phone.sh and the
# guest test hook of scripts/guest/init. Leaves OUT/console.log.
set -euo pipefail

usage() {
	echo "usage: $0 --prog NAME [--arg ARG] [--bytes N] [--cpu1 0|1] [--backend qemu|phone] --out DIR [--timeout-s N]" >&2
	exit 2
}

top=$(cd "$(dirname "$0")/../.." && pwd)
prog="" arg="" bytes=31457280 cpu1=1 out="" timeout_s=900 backend=qemu
while [ $# -gt 0 ]; do
	case "$1" in
	--prog) prog=${2:-}; shift 2 ;;
	--arg) arg=${2:-}; shift 2 ;;
	--bytes) bytes=${2:-}; shift 2 ;;
	--cpu1) cpu1=${2:-}; shift 2 ;;
	--out) out=${2:-}; shift 2 ;;
	--backend)
		case "${2:-}" in qemu|phone) backend=$2 ;; *) echo "$0: --backend takes qemu or phone" >&2; exit 2 ;; esac
		shift 2 ;;
	--timeout-s) timeout_s=${2:-}; shift 2 ;;
	*) echo "$0: unknown option '$1'" >&2; usage ;;
	esac
done
[ -n "$prog" ] && [ -n "$out" ] || usage
[ -s "$top/build/klog-tests/bin/$prog" ] ||
	{ echo "$0: $top/build/klog-tests/bin/$prog is missing; run 'make -C guest-kernel all tests'" >&2; exit 1; }
# The initramfs must hold the test programs as they are now.
"$top/scripts/mkinitramfs.sh" > /dev/null
exec "$top/scripts/run-$backend.sh" --test "$prog" --out "$out" --timeout-s "$timeout_s" \
	--append "panlab.test_arg=$arg panlab.klog_bytes=$bytes panlab.cpu1=$cpu1 panlab.watchdog_s=600"
