#!/bin/bash
# Boots the panlab guest on the phone emulator (emu/, build/emu/panlab-phone)
# and runs one workload. The phone plays the replay script through its
# virtio-input touchscreen at exact virtual times and writes the ground
# truth at its devices, so the guest only announces when the app is ready.
# Leaves in OUT: console.log, trace.bin, ground_truth.txt, cpu_time.txt (the
# cores' busy time at each input, emu/replay.h), net.pcap (every
# frame on the NIC: the network workloads fetch from the phone's own
# content server, emu/README.md "Network").
#
# --engine fast|ref picks the emulator's CPU engine (emu/README.md, "Fast
# engine"); both give byte-identical results.
#
# Snapshots (an experiment matrix boots once):
#   --snapshot-save FILE  boots, saves the machine in FILE when the guest
#                         waits for its experiment, then runs this one
#                         (without --workload or --test: boots and saves
#                         only, as experiment.sh does once per configuration);
#   --snapshot-load FILE  restores FILE instead of booting and runs this
#                         experiment (the panlab.* arguments; other
#                         --append kernel arguments were fixed at boot).
# Both runs must have the same devices; every run gets a fresh SD card.
# The guest's kernel and initramfs (apps, scripts) live in the snapshot, so
# FILE.guest records their hash at save, and a load from another build of
# them is refused: it would run old guest code against today's scripts.
# Exit status: 0 ok, 1 failed, 2 usage, 3 (PL_EXIT_SNAPSHOT_REFUSED in
# build/guest_abi.sh) a --snapshot-load snapshot refused, before the guest ran.
#
# --quantum-policy causal|fixed picks how the cores meet (emu/README.md,
# "Virtual time"; default causal); `make bench` runs both side by side.
#
# --net-profile wifi|3g|legacy picks the phone's link (emu/README.md, "Network";
# default $PANLAB_NET_PROFILE, else the one workloads/oss/APP/net-profile names, else wifi).
set -euo pipefail
backend=phone timeout_s=1800
snapshot=()
engine=()
policy=causal
net_profile=${PANLAB_NET_PROFILE:-}
args=()
backend_options="
       [--snapshot-save FILE | --snapshot-load FILE] [--engine fast|ref] [--quantum-policy causal|fixed]
       [--net-profile wifi|3g|legacy]
       $0 --snapshot-save FILE --out DIR   (boots and saves only)"
# shellcheck source=scripts/cli.sh
. "$(dirname "$0")/cli.sh"
while [ $# -gt 0 ]; do
	case "$1" in
	--snapshot-save|--snapshot-load) cli_need "$@"; snapshot=("$1" "$2"); shift 2 ;;
	--engine) cli_need "$@"; engine=(--engine "$2"); shift 2 ;;
	--quantum-policy)
		cli_need "$@"
		case "$2" in causal|fixed) policy=$2 ;; *) echo "$0: --quantum-policy takes causal or fixed" >&2; exit 2 ;; esac
		shift 2 ;;
	--net-profile)
		cli_need "$@"
		case "$2" in wifi|3g|legacy) net_profile=$2 ;; *) echo "$0: --net-profile takes wifi, 3g or legacy" >&2; exit 2 ;; esac
		shift 2 ;;
	*) args+=("$1"); shift ;;
	esac
done
set -- "${args[@]}"
[ "${snapshot[0]:-}" != --snapshot-save ] || boot_only=1
source "$(dirname "$0")/backend-common.sh"

phone=$top/build/emu/panlab-phone
require_built "$phone"
mkdir -p "$out"
rm -f "$out"/{console.log,trace.bin,ground_truth.txt,cpu_time.txt,net.pcap}
"$top/scripts/make-sdcard.sh" "$out/sdcard.img"

replay=() site=()
if [ -n "$workload" ]; then
	replay=(--replay "$top/replay/scripts/$workload.rply" --ground-truth "$out/ground_truth.txt"
		--cpu-time "$out/cpu_time.txt")
	# An unmodified app's web pages (workloads/oss/APP/site) are what the content server serves.
	app_site=$top/workloads/oss/$app/site
	[ ! -d "$app_site" ] || site=(--content-dir "$app_site")
	# A generated corpus (build/content/APP, workloads/corpus) is served the same way.
	app_site=$top/build/content/$app
	[ ! -d "$app_site" ] || site=(--content-dir "$app_site")
	# An app may name the link it is checked on (workloads/oss/links2/net-profile says why).
	app_profile=$top/workloads/oss/$app/net-profile
	[ -n "$net_profile" ] || [ ! -f "$app_profile" ] || net_profile=$(sed -n '/^[a-z0-9]/{p;q}' "$app_profile")
fi
net_profile=${net_profile:-wifi}
# The experiment goes on the kernel command line on a cold boot, through
# the panlab.config port with a snapshot.
boot=(--kernel "$kernel" --initrd "$initrd" --append "$(guest_cmdline panlab.injector=host panlab.net=emu)")
guest_hash() { cat "$kernel" "$initrd" "$top/build/kernel/System.map" | sha256sum | cut -d' ' -f1; }
case "${snapshot[0]:-}" in
--snapshot-save) guest_hash > "${snapshot[1]}.guest"
	boot=(--kernel "$kernel" --initrd "$initrd"
	--append "console=ttyAMA0 maxcpus=1 panic=-1 quiet panlab.wait_config=1 $append"
	--snapshot-save "${snapshot[1]}")
	# Without a configuration the phone ends once it has saved.
	[ -z "$workload$guest_test" ] || boot+=(--config "$(guest_cmdline panlab.injector=host panlab.net=emu)") ;;
--snapshot-load)
	[ "$(cat "${snapshot[1]}.guest" 2>/dev/null)" = "$(guest_hash)" ] || {
		echo "$0: ${snapshot[1]}: saved from another build of the guest kernel or initramfs (or ${snapshot[1]}.guest is missing); save it again" >&2
		exit "$PL_EXIT_SNAPSHOT_REFUSED"
	}
	boot=(--snapshot-load "${snapshot[1]}" --config "$(guest_cmdline panlab.injector=host panlab.net=emu)") ;;
esac
run_with_console "$phone" "${boot[@]}" "${engine[@]}" \
	--console "$out/console.log" --port "$PL_PORT_TRACE=$out/trace.bin" --disk "$out/sdcard.img" \
	--net user --net-profile "$net_profile" --pcap "$out/net.pcap" "${site[@]}" \
	--system-map "$top/build/kernel/System.map" --display "$display" \
	--quantum-policy "$policy" "${replay[@]}"
# A snapshot the phone refused keeps the phone's status (include/panlab/error.h): the caller may
# boot cold; the phone has said why on stderr.
[ "$status" != "$PL_EXIT_SNAPSHOT_REFUSED" ] || exit "$PL_EXIT_SNAPSHOT_REFUSED"
if [ -z "$workload$guest_test" ]; then
	[ "$status" = 0 ] && [ -s "${snapshot[1]}" ] ||
		{ echo "$0: the phone exited with status $status without saving ${snapshot[1]}; see $out/console.log" >&2; exit 1; }
	echo "phone: booted and saved ${snapshot[1]} in $wall s of host time"
	exit 0
fi
check_result
