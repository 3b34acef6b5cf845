#!/bin/bash
# Boots the panlab guest on qemu through libvirt and runs one workload: the same machine as
# run-qemu.sh (virt, cortex-a15, 2 vCPUs, 1 GiB, icount shift=2, the project's kernel, initramfs
# and SD card, the three panlab virtio-serial ports) as a transient libvirt domain, so it can be
# watched and managed with virsh and virt-manager while it runs, on this host or a remote one.
# The libvirt connection is virsh's: LIBVIRT_DEFAULT_URI or --connect URI. Without either it
# is the system libvirtd (qemu:///system) when one answers, and otherwise a private libvirtd this
# script starts for the run and stops after it (libvirt-private.sh; OUT/libvirtd/ has its logs),
# so that a fresh machine needs nothing started. Every file the domain uses must be at the same
# path on the libvirt host.
# Leaves in OUT: console.log, trace.bin, gt-input.txt, gt-display.txt, domain.xml.
set -euo pipefail
backend=libvirt timeout_s=900
uri=${LIBVIRT_DEFAULT_URI:-}
args=()
backend_options="
       [--connect URI]   (default \$LIBVIRT_DEFAULT_URI, else the system libvirtd, else a private one)"
# shellcheck source=scripts/cli.sh
. "$(dirname "$0")/cli.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	--connect) cli_need "$@"; uri=$2; shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
set -- "${args[@]}"
source "$(dirname "$0")/backend-common.sh"
[ "$display" = none ] || { echo "$0: --display $display: watch the domain with virt-manager instead" >&2; exit 2; }

cli_tool virsh libvirt-clients
cli_tool qemu-system-arm qemu-system-arm
require_built
mkdir -p "$out"
if [ -z "$uri" ]; then
	# shellcheck source=scripts/libvirt-private.sh
	. "$top/scripts/libvirt-private.sh"
	if libvirt_system_runs; then
		uri=qemu:///system
	else
		trap libvirt_private_stop EXIT
		libvirt_private_start "$out/libvirtd"
		uri=$libvirt_private_uri
	fi
fi
rm -f "$out"/{console.log,trace.bin,gt-input.txt,gt-display.txt}
"$top/scripts/make-sdcard.sh" "$out/sdcard.img"
out=$(cd "$out" && pwd)
name=panlab-$(basename "$out")-$$

# libvirt quotes nothing for us: the paths and the command line go into XML.
xml_escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e "s/'/\&apos;/g" -e 's/"/\&quot;/g' <<<"$1"; }
# PORT FILE: a guest ABI port (build/guest_abi.sh) written to FILE in the run directory.
channel() {
	echo "<channel type='file'><source path='$(xml_escape "$out/$2")'/><target type='virtio' name='$1'/></channel>"
}
# Every device on virtio-mmio, as run-qemu.sh has them (the guest kernel has no PCI), with
# modern virtio (force-legacy off, which virtio-gpu and virtio-input need) and icount, the seed
# and the RTC following guest time from a fixed date, which libvirt has no elements for.
cat > "$out/domain.xml" <<EOF
<domain type='qemu' xmlns:qemu='http://libvirt.org/schemas/domain/qemu/1.0'>
  <name>$name</name>
  <memory unit='MiB'>1024</memory>
  <vcpu>2</vcpu>
  <os>
    <type arch='armv7l' machine='virt'>hvm</type>
    <kernel>$(xml_escape "$kernel")</kernel>
    <initrd>$(xml_escape "$initrd")</initrd>
    <cmdline>$(xml_escape "$(guest_cmdline)")</cmdline>
  </os>
  <cpu mode='custom' match='exact'><model>cortex-a15</model></cpu>
  <on_poweroff>destroy</on_poweroff><on_reboot>destroy</on_reboot><on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-arm</emulator>
    <serial type='file'><source path='$(xml_escape "$out/console.log")'/><target port='0'/></serial>
    <video><model type='virtio'/><address type='virtio-mmio'/></video>
    <input type='tablet' bus='virtio'><address type='virtio-mmio'/></input>
    <input type='keyboard' bus='virtio'><address type='virtio-mmio'/></input>
    <disk type='file' device='disk'>
      <driver name='qemu' type='raw'/><source file='$(xml_escape "$out/sdcard.img")'/>
      <target dev='vda' bus='virtio'/><address type='virtio-mmio'/>
    </disk>
    <controller type='virtio-serial' index='0'><address type='virtio-mmio'/></controller>
    $(channel "$PL_PORT_TRACE" trace.bin)
    $(channel "$PL_PORT_INPUT" gt-input.txt)
    $(channel "$PL_PORT_DISPLAY" gt-display.txt)
    <memballoon model='none'/>
  </devices>
  <qemu:commandline>
    <qemu:arg value='-icount'/><qemu:arg value='shift=2,sleep=off'/>
    <qemu:arg value='-seed'/><qemu:arg value='1'/>
    <qemu:arg value='-rtc'/><qemu:arg value='base=2020-01-01T00:00:00,clock=vm'/>
    <qemu:arg value='-global'/><qemu:arg value='virtio-mmio.force-legacy=false'/>
    <qemu:arg value='-global'/><qemu:arg value='virtio-gpu-device.xres=480'/>
    <qemu:arg value='-global'/><qemu:arg value='virtio-gpu-device.yres=800'/>
  </qemu:commandline>
</domain>
EOF
echo "libvirt: domain $name on $uri (virsh -c '$uri' dominfo $name)"
run_with_console "$top/scripts/libvirt-domain.sh" "$uri" "$out/domain.xml" "$name"
check_result
