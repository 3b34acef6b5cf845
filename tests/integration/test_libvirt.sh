#!/bin/bash
# The qemu backend through libvirt (scripts/run-libvirt.sh): starts its own virtlogd and
# libvirtd (Debian's libvirt-daemon-system) with their config, sockets and logs in a temporary
# directory, runs asynctask as a transient domain over that socket, and checks precision =
# recall = 1.0 against the ground truth from the domain's channels; stops both daemons by PID.
# libvirtd keeps its per-domain state in /run/libvirt and /var/lib/libvirt as the system
# daemon does, so no other libvirtd may run on the machine meanwhile.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
d=$(mktemp -d /tmp/panlab-libvirt.XXXXXX)
run_id=test-libvirt
pids=()
stop() {
	local p
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

"$top/scripts/run-experiment.sh" --backend qemu --via libvirt --workload asynctask --run-id "$run_id" \
	> "$d/run.log" 2>&1 || { tail -n 20 "$d/run.log"; echo "test_libvirt: the run through libvirt failed" >&2; exit 1; }
s=$top/out/$run_id/summary.json
grep -q "domain panlab-$run_id-" "$d/run.log" || { echo "test_libvirt: the run did not go through libvirt" >&2; exit 1; }
grep -q "<qemu:arg value='shift=2,sleep=off'/>" "$top/out/$run_id/domain.xml"
[ "$(jq '.precision == 1 and .recall == 1 and .transactions == 24' "$s")" = true ] ||
	{ echo "test_libvirt: expected 24 transactions at precision = recall = 1.0:" >&2; jq -c '{transactions, precision, recall}' "$s" >&2; exit 1; }
virsh -q list --all | grep -q "panlab-$run_id" && { echo "test_libvirt: the transient domain is still defined" >&2; exit 1; }
echo "test_libvirt: ok (asynctask through libvirt: $(jq -r '"\(.transactions) transactions, precision \(.precision), recall \(.recall)"' "$s"))"
