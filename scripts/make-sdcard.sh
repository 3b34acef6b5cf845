#!/bin/sh
# Makes the guest's SD card: a fresh 128 MiB ext2 image, bit-identical on
# every run and machine (fixed UUID, hash seed and timestamps, and mke2fs
# settings from scripts/sdcard-mke2fs.conf rather than the host's), so runs
# start from the same disk. The session mounts it at /data/media (sdcardd serves it
# at /sdcard); the collector spills there.
set -eu
case "${1:-}" in
-h | --help) echo "usage: $0 IMAGE  (writes the guest's fresh 128 MiB SD card image)"; exit 0 ;;
-*) echo "$0: unknown option '$1'; usage: $0 IMAGE" >&2; exit 2 ;;
esac
[ $# = 1 ] || { echo "usage: $0 IMAGE" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
rm -f "$1"
truncate -s 128M "$1"
MKE2FS_CONFIG=$top/scripts/sdcard-mke2fs.conf E2FSPROGS_FAKE_TIME=1577836800 \
	mke2fs -q -F -t ext2 -T default -U 6e0b5c4e-7a1d-4d3b-9c1f-5a6e7b8c9d0e \
	-E root_owner=0:0,hash_seed=3f1c2a4b-5d6e-4f70-8192-a3b4c5d6e7f8 "$1"
