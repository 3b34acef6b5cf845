#!/bin/bash
# The qemu backend through libvirt (scripts/run-libvirt.sh): starts its own virtlogd and
# libvirtd (Debian's libvirt-daemon-system) with their config, sockets and logs in a temporary
# directory, runs asynctask as a transient domain over that socket, and checks precision =
# recall = 1.0 against the ground truth from the domain's channels; stops both daemons by PID.
# The machine is checked where it lives, not in the XML the run generated: libvirtd's live
# definition of the running domain (virsh dumpxml: an id, 2 vCPUs, 1 GiB in libvirt's KiB, the
# kernel, icount shift=2, the three panlab channels), and the guest's own count of its cpus.
# libvirtd keeps its per-domain state in /run/libvirt and /var/lib/libvirt as the system
# daemon does, so no other libvirtd may run on the machine meanwhile.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$(mktemp -d /tmp/panlab-libvirt.XXXXXX)
run_id=test-libvirt
pids=() run=""
stop() {
	local p
	# The run's process group first: killed, libvirt-domain.sh destroys its domain while
	# libvirtd still runs.
	[ -z "$run" ] || { kill -TERM -- -"$run" 2>/dev/null || true; wait "$run" 2>/dev/null || true; }
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$d"
}
trap stop EXIT
for t in libvirtd virtlogd virsh qemu-system-arm; do
	command -v "$t" >/dev/null || { echo "test_libvirt: $t is missing; run 'make deps'" >&2; exit 1; }
done
if [ -S /run/libvirt/virtlogd-sock ] && virsh -c qemu:///system version >/dev/null 2>&1; then
	echo "test_libvirt: a libvirtd already runs here; this test needs the machine's libvirt state to itself" >&2
	exit 1
fi
echo "log_outputs = \"3:file:$d/virtlogd.log\"" > "$d/virtlogd.conf"
cat > "$d/libvirtd.conf" <<CONF
unix_sock_dir = "$d"
unix_sock_rw_perms = "0700"
auth_unix_rw = "none"
auth_unix_ro = "none"
log_outputs = "3:file:$d/libvirtd.log"
CONF
virtlogd --config "$d/virtlogd.conf" --pid-file "$d/virtlogd.pid" 2>>"$d/virtlogd.log" &
pids+=($!)
libvirtd --config "$d/libvirtd.conf" --pid-file "$d/libvirtd.pid" 2>>"$d/libvirtd.log" &
pids+=($!)
export LIBVIRT_DEFAULT_URI="qemu:///system?socket=$d/libvirt-sock"
# Ready when both answer on their sockets.
timeout 60 bash -c "until [ -S /run/libvirt/virtlogd-sock ] && virsh -q list >/dev/null 2>&1; do sleep 0.2; done" ||
	{ echo "test_libvirt: libvirtd did not come up; log:" >&2; tail -n 5 "$d/libvirtd.log" >&2; exit 1; }

fail() { echo "test_libvirt: $*" >&2; exit 1; }
setsid "$top/scripts/run-experiment.sh" --backend qemu --via libvirt --workload asynctask --run-id "$run_id" \
	> "$d/run.log" 2>&1 &
run=$!
# libvirtd's own definition of the domain, taken while it runs (a transient domain is gone after)
# and kept beside the run's generated domain.xml.
live_xml=$top/out/$run_id/libvirt-live.xml
until domain=$(virsh -q list --name | grep "^panlab-$run_id-"); do
	kill -0 "$run" 2>/dev/null || { tail -n 20 "$d/run.log"; fail "the run ended before its domain showed in virsh list"; }
	sleep 0.2
done
virsh dumpxml "$domain" > "$live_xml" || fail "virsh dumpxml $domain failed"
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
virsh -q list --all | grep -q "panlab-$run_id" && { echo "test_libvirt: the transient domain is still defined" >&2; exit 1; }
echo "test_libvirt: ok (asynctask through libvirt: $(jq -r '"\(.transactions) transactions, precision \(.precision), recall \(.recall)"' "$s"))"
