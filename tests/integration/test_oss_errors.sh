#!/bin/bash
# Bad input to the unmodified apps' packaging (scripts/guest-debs.sh), on a
# throwaway apps folder with a one-package lock (fbi's, from the cache the
# build filled): each mistake ends with one line naming what failed and exit 1,
# and leaves no unpacked tree behind.
#   - an app whose program no locked package provides;
#   - a plugin a launcher names (# loads:) that no locked package provides;
#   - a program that links a library no locked package provides;
#   - a lock line that is not "package:arch version sha256";
#   - an unknown option (usage, exit 2).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export PANLAB_OSS_DIR=$tmp/oss PANLAB_OSS_ROOT=$tmp/root
mkdir -p "$tmp/oss/viewer"
grep '^fbi:armel ' "$top/workloads/oss/packages.lock" > "$tmp/oss/packages.lock"
echo fbi > "$tmp/oss/viewer/packages"

expect() {
	local name=$1 status=$2 pattern=$3
	shift 3
	"$top/scripts/guest-debs.sh" "$@" > "$tmp/out" 2> "$tmp/err"
	local rc=$?
	if [ "$rc" != "$status" ] || [ "$(wc -l < "$tmp/err")" != 1 ] || ! grep -q "$pattern" "$tmp/err"; then
		echo "test_oss_errors: $name: expected exit $status and one line matching '$pattern', got exit $rc:"
		cat "$tmp/err"
		exit 1
	fi
	[ ! -e "$PANLAB_OSS_ROOT" ] && [ ! -e "$PANLAB_OSS_ROOT.tmp" ] ||
		{ echo "test_oss_errors: $name left $PANLAB_OSS_ROOT(.tmp)"; exit 1; }
	echo "test_oss_errors: $name: $(cat "$tmp/err")"
}

printf '#!/bin/sh\n# program: /usr/bin/ghostview\n' > "$tmp/oss/viewer/launch"
expect "missing program" 1 "viewer/launch: /usr/bin/ghostview is not in the unpacked packages; add its package"
printf '#!/bin/sh\n# program: /usr/bin/fbi\n# loads: /usr/lib/arm-linux-gnueabi/fbi/render.so\n' > "$tmp/oss/viewer/launch"
expect "missing plugin" 1 "viewer/launch: plugin /usr/lib/arm-linux-gnueabi/fbi/render.so is not in the unpacked packages; add its package"
printf '#!/bin/sh\n# program: /usr/bin/fbi\n' > "$tmp/oss/viewer/launch"
expect "missing library" 1 "/usr/bin/fbi needs lib.*, which no locked package provides"
echo "fbi:armel 2.10-4+b1" >> "$tmp/oss/packages.lock"
expect "bad lock line" 1 "packages.lock: bad line 'fbi:armel 2.10-4+b1  ', expected: package:arch version sha256"
expect "unknown option" 2 "usage: .*guest-debs.sh \[--lock \| --sysroot \| --lock-sysroot\]" --frobnicate

# The build's image keeps no program it cannot run on the guest's PATH: login's passwd and chfn
# (their libpam is a library no program loads) and weston's GL demos (no Mesa) are dropped,
# where they would shadow busybox's applets or fail to start; the programs the launchers name stay.
oss_root=$top/build/oss-root
for f in usr/bin/passwd usr/bin/chfn sbin/unix_chkpwd usr/bin/weston-simple-egl; do
	[ ! -e "$oss_root/$f" ] || { echo "test_oss_errors: build/oss-root/$f is kept, but its libraries are not"; exit 1; }
done
for f in usr/bin/fbi usr/bin/fbterm usr/bin/links2 usr/bin/weston usr/bin/weston-terminal; do
	[ -x "$oss_root/$f" ] || { echo "test_oss_errors: build/oss-root/$f, a launcher's program, is missing"; exit 1; }
done
echo "test_oss_errors: build/oss-root keeps no program whose libraries were left out"
