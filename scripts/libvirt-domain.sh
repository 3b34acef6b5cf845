#!/bin/bash
# Starts a transient libvirt domain and returns when it is gone (the guest powered off, and
# on_poweroff is destroy): the emulator command of run-libvirt.sh, run under its host-time
# limit. Killed (the limit), it destroys the domain first.
#
#   scripts/libvirt-domain.sh URI DOMAIN.xml NAME
set -euo pipefail
case "${1:-}" in -h | --help) echo "usage: $0 URI DOMAIN.xml NAME  (run-libvirt.sh's emulator command)"; exit 0 ;; esac
[ $# = 3 ] || { echo "usage: $0 URI DOMAIN.xml NAME" >&2; exit 2; }
uri=$1 xml=$2 name=$3
trap 'virsh -q -c "$uri" destroy "$name" >/dev/null 2>&1 || true; exit 124' TERM INT
virsh -q -c "$uri" create "$xml" >/dev/null
# A transient domain vanishes when it stops; libvirt tells a client nothing unless it listens
# for events from before the stop, so the state is polled.
while virsh -q -c "$uri" domstate "$name" >/dev/null 2>&1; do
	sleep 0.5
done
