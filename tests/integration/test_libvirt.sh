#!/bin/bash
# The qemu backend through libvirt (scripts/run-libvirt.sh): runs asynctask as a transient
# domain and checks precision = recall = 1.0 against the ground truth from the domain's channels.
# The machine is checked where it lives, not in the XML the run generated: libvirtd's live
# definition of the running domain (virsh dumpxml: an id, 2 vCPUs, 1 GiB in libvirt's KiB, the
# kernel, icount shift=2, the three panlab channels), and the guest's own count of its cpus.
# With no URI given, run-libvirt.sh uses the system libvirtd when one answers and otherwise starts
# a private one for the run (libvirt-private.sh), as on a fresh machine: the run goes through
# `make run BACKEND=libvirt`-style defaults (no LIBVIRT_DEFAULT_URI), and the test checks which
# of the two it used; a system libvirtd being present is no failure.
# Then GOVERNOR, FREQ_MHZ and WORKLOAD=all on libvirt are each one line and exit 2 before a boot.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
d=$(mktemp -d /tmp/panlab-libvirt.XXXXXX)
run_id=test-libvirt
run=""
# shellcheck source=scripts/libvirt-private.sh
source "$top/scripts/libvirt-private.sh"
stop() {
	# The run's process group first: killed, libvirt-domain.sh destroys its domain while
	# libvirtd still runs (the run's own private libvirtd stops with the run).
	[ -z "$run" ] || { kill -TERM -- -"$run" 2>/dev/null || true; wait "$run" 2>/dev/null || true; }
	rm -rf "$d"
}
trap stop EXIT
for t in libvirtd virtlogd virsh qemu-system-arm; do
	command -v "$t" >/dev/null || fail "$t is missing; run 'make deps'"
done
unset LIBVIRT_DEFAULT_URI
if libvirt_system_runs; then
	via="the system libvirtd" uri=qemu:///system
else
	via="a private libvirtd" uri=""
fi
setsid "$top/scripts/run-experiment.sh" --backend qemu --via libvirt --workload asynctask --run-id "$run_id" \
	> "$d/run.log" 2>&1 &
run=$!
# libvirtd's own definition of the domain, taken while it runs (a transient domain is gone after)
# and kept beside the run's generated domain.xml.
live_xml=$top/out/$run_id/libvirt-live.xml
# The run's private libvirtd (if it starts one) listens in out/RUN/libvirtd/.
[ -n "$uri" ] || uri="qemu:///system?socket=$top/out/$run_id/libvirtd/libvirt-sock"
until domain=$(virsh -q -c "$uri" list --name 2>/dev/null | grep "^panlab-$run_id-"); do
	kill -0 "$run" 2>/dev/null || { tail -n 20 "$d/run.log"; fail "the run ended before its domain showed in virsh list"; }
	sleep 0.2
done
virsh -c "$uri" dumpxml "$domain" > "$live_xml" || fail "virsh dumpxml $domain failed"
status=0
wait "$run" || status=$?
run=""
[ "$status" = 0 ] || { tail -n 20 "$d/run.log"; fail "the run through libvirt failed (exit $status)"; }
s=$top/out/$run_id/summary.json
grep -q "domain $domain " "$d/run.log" || fail "the run did not go through libvirt"
live() { xmllint --xpath "$1" "$live_xml"; }
for check in "string(/domain/@id) != ''" "/domain/vcpu = 2" \
	"/domain/memory = 1048576 and /domain/memory/@unit = 'KiB'" \
	"/domain/os/kernel = '$top/build/kernel/arch/arm/boot/zImage'" \
	"count(//*[local-name() = 'commandline']/*[local-name() = 'arg'][@value = 'shift=2,sleep=off']) = 1" \
	"count(/domain/devices/channel/target[@type = 'virtio' and starts-with(@name, 'panlab.')]) = 3"; do
	[ "$(live "$check")" = true ] || fail "libvirtd's definition of $domain: not $check ($live_xml)"
done
grep -aq '^panlab-init: 2 cpus online' "$top/out/$run_id/console.log" ||
	fail "the guest did not see 2 cpus online"
[ "$(jq '.precision == 1 and .recall == 1 and .transactions == 24' "$s")" = true ] ||
	{ echo "test_libvirt: expected 24 transactions at precision = recall = 1.0:" >&2; jq -c '{transactions, precision, recall}' "$s" >&2; exit 1; }
if [ "$via" = "the system libvirtd" ]; then
	virsh -q -c "$uri" list --all | grep -q "panlab-$run_id" && fail "the transient domain is still defined"
else
	grep -q "domain panlab-$run_id-.* on qemu:///system?socket=$top/out/$run_id/libvirtd/libvirt-sock" "$d/run.log" ||
		fail "the run did not use a private libvirtd: $(grep 'domain ' "$d/run.log")"
	! pgrep -f -- "$top/out/$run_id/libvirtd/" >/dev/null || fail "the private libvirtd outlived the run"
fi
# The machine settings stock QEMU cannot honour, and WORKLOAD=all, refused before any boot.
for args in "--governor ondemand" "--freq-mhz 700"; do
	rc=0
	# shellcheck disable=SC2086
	"$top/scripts/run-experiment.sh" --backend libvirt --workload asynctask $args > "$d/refuse.out" 2> "$d/refuse.err" || rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$d/refuse.err")" = 1 ] && grep -q "stock QEMU cannot scale" "$d/refuse.err" ||
		fail "libvirt $args: exit $rc: $(cat "$d/refuse.err")"
done
rc=0
make --no-print-directory -C "$top" run BACKEND=libvirt WORKLOAD=all > "$d/refuse.out" 2> "$d/refuse.err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$d/refuse.err")" = 1 ] && grep -q "WORKLOAD=all" "$d/refuse.err" ||
	fail "make run BACKEND=libvirt WORKLOAD=all: exit $rc: $(cat "$d/refuse.err")"
echo "test_libvirt: ok (asynctask through $via: $(jq -r '"\(.transactions) transactions, precision \(.precision), recall \(.recall)"' "$s"); governor, frequency and WORKLOAD=all refused in one line)"
