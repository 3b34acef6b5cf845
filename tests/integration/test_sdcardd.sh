#!/bin/bash
# The emulated SD card as on an Android 4.x phone, on the phone's PL181 card: panlab-selftest
# sdcard (workloads/services/selftest.c) mounts the card at /data/media, starts sdcardd and
# works through /sdcard (FUSE): create, write, fsync, read back (buffered and O_DIRECT),
# rename, truncate, readdir, unlink, statfs, rmdir and the errors, checking the lower file
# system and that sdcardd's request threads served the requests; and that /init set the
# kernel's writeback as Android 4.x's init.rc did.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/out/test-sdcardd
mkdir -p "$top/out"
if ! "$top/scripts/run-phone.sh" --test panlab-selftest --append panlab.test_arg=sdcard \
	--trace off --out "$out" > "$out.log" 2>&1; then
	grep -a '^panlab-selftest\|^sdcardd' "$out/console.log" 2>/dev/null || tail -n 20 "$out.log"
	echo "test_sdcardd: the guest test failed; log in out/test-sdcardd.log"
	exit 1
fi
if grep -a '^sdcardd:' "$out/console.log"; then
	echo "test_sdcardd: sdcardd logged errors"
	exit 1
fi
line=$(grep -a '^panlab-selftest: sdcard ok' "$out/console.log" | tr -d '\r')
[ -n "$line" ] || { echo "test_sdcardd: no ok line in $out/console.log"; exit 1; }
echo "test_sdcardd: ${line#panlab-selftest: }"
