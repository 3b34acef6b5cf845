#!/bin/bash
# The guest kernel rebuilds bit for bit: builds it from scratch (source tarball,
# patches, config fragment) in a temporary directory at another path, with the kernel cache off,
# and compares its zImage and System.map with ../build/kernel's, which `make build` built or
# restored from the cache (built then in another checkout). The fixed KBUILD_BUILD_* in the
# Makefile keep the build's date, user and host out of the banner; Kbuild strips source paths
# (-fmacro-prefix-map). tests/integration/test_reproducible.sh builds only init/ and the link
# again (on a copy of the objects), so this is the check of every object. A whole kernel
# build: about 8 minutes on 2 idle cores, so it is `make repro-check`, not part of
# `make test`. JOBS=N (default 2).
#
# Exit status: 0 identical, 1 different or the build failed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ref=$here/../build/kernel
for f in "$ref/arch/arm/boot/zImage" "$ref/System.map"; do
	[ -s "$f" ] || { echo "repro-check: $f is missing; run 'make build'" >&2; exit 1; }
done
work=$(mktemp -d /tmp/panlab-kernel-repro.XXXXXX)
trap 'rm -rf "$work"' EXIT
build=$work/a/longer/path/to/another/build
log=$work/build.log
echo "repro-check: building the kernel again in $build (log $log while it runs)"
start=$SECONDS
PANLAB_KERNEL_CACHE='' make --no-print-directory -C "$here" BUILD="$build" JOBS="${JOBS:-2}" \
	"$build/src.stamp" build-kernel > "$log" 2>&1 ||
	{ tail -n 20 "$log"; echo "repro-check: the second kernel build failed" >&2; exit 1; }
echo "repro-check: built in $((SECONDS - start)) s"
status=0
for f in arch/arm/boot/zImage System.map; do
	a=$(sha256sum < "$ref/$f" | cut -c1-64)
	b=$(sha256sum < "$build/kernel/$f" | cut -c1-64)
	if [ "$a" = "$b" ]; then
		echo "repro-check: $f identical ($(wc -c < "$ref/$f") bytes, sha256 ${a:0:16})"
	else
		echo "repro-check: $f differs: ${a:0:16} in build/kernel, ${b:0:16} rebuilt" >&2
		status=1
	fi
done
exit $status
