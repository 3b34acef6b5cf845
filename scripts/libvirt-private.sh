# A private libvirtd for a machine where none runs (sourced by run-libvirt.sh and
# tests/integration/test_libvirt.sh): virtlogd and libvirtd (Debian's libvirt-daemon-system),
# as root, with their config, socket and logs in a directory of the caller's, stopped by the
# PIDs they were started with. A virtlogd that already answers at its system socket (a system
# one, socket-activated or started alone) is used, not replaced: a second one would take over
# /run/libvirt/virtlogd-sock and remove it when stopped. libvirtd keeps its per-domain state in
# /run/libvirt and /var/lib/libvirt as the system daemon does, which is why it is started only
# when no system libvirtd answers (libvirt_system_runs). The caller has sourced cli.sh.
#
#   libvirt_system_runs     0 when a libvirtd answers at qemu:///system
#   libvirt_private_start DIR   starts both daemons; sets libvirt_private_uri (their socket);
#                               returns when libvirtd answers, or fails with one line and the log
#   libvirt_private_stop    stops them by PID (the caller traps EXIT for it)
libvirt_private_pids=()
libvirt_private_uri=""

# Asks for the domain list, which needs only the daemon: `virsh version` also asks for the
# host's own hypervisor version and fails on a host with no qemu for its own architecture (here
# only qemu-system-arm), which took a running system libvirtd for none.
libvirt_system_runs() {
	[ -S /run/libvirt/libvirt-sock ] && virsh -q -c qemu:///system list >/dev/null 2>&1
}

libvirt_private_start() {
	local d=$1
	cli_tool libvirtd libvirt-daemon-system
	cli_tool virtlogd libvirt-daemon-system
	cli_tool virsh libvirt-clients
	mkdir -p "$d"
	echo "log_outputs = \"3:file:$d/virtlogd.log\"" > "$d/virtlogd.conf"
	cat > "$d/libvirtd.conf" <<CONF
unix_sock_dir = "$d"
unix_sock_rw_perms = "0700"
auth_unix_rw = "none"
auth_unix_ro = "none"
log_outputs = "3:file:$d/libvirtd.log"
CONF
	if ! virt-admin -c virtlogd:///system version >/dev/null 2>&1; then
		virtlogd --config "$d/virtlogd.conf" --pid-file "$d/virtlogd.pid" 2>>"$d/virtlogd.log" &
		libvirt_private_pids+=($!)
	fi
	libvirtd --config "$d/libvirtd.conf" --pid-file "$d/libvirtd.pid" 2>>"$d/libvirtd.log" &
	libvirt_private_pids+=($!)
	libvirt_private_uri="qemu:///system?socket=$d/libvirt-sock"
	# Ready when both answer on their sockets (daemons that are not this shell's to wait for).
	timeout 60 bash -c "until [ -S /run/libvirt/virtlogd-sock ] && virsh -q -c '$libvirt_private_uri' list >/dev/null 2>&1; do sleep 0.2; done" ||
		{ echo "$0: the private libvirtd did not come up; $d/libvirtd.log ends:" >&2; tail -n 5 "$d/libvirtd.log" >&2; return 1; }
}

libvirt_private_stop() {
	local p
	for p in "${libvirt_private_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${libvirt_private_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	libvirt_private_pids=()
}
