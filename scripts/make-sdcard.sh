#!/bin/sh
# Makes the guest's SD card: a fresh 64 MiB ext2 image, identical on every
# run (fixed UUID, hash seed and timestamps), so runs start from the same
# disk. The session mounts it at /sdcard; the collector spills there.
set -eu
[ $# = 1 ] || { echo "usage: $0 IMAGE" >&2; exit 2; }
rm -f "$1"
truncate -s 64M "$1"
E2FSPROGS_FAKE_TIME=1577836800 mke2fs -q -F -t ext2 -U 6e0b5c4e-7a1d-4d3b-9c1f-5a6e7b8c9d0e \
	-E root_owner=0:0,hash_seed=3f1c2a4b-5d6e-4f70-8192-a3b4c5d6e7f8 "$1"
