#!/bin/bash
# Boots the panlab guest on the phone emulator (emu/, build/emu/panlab-phone)
# and runs one workload. The phone plays the replay script through its
# virtio-input touchscreen at exact virtual times and writes the ground
# truth at its devices, so the guest only announces when the app is ready.
# Leaves in OUT: console.log, trace.bin, ground_truth.txt.
set -euo pipefail
backend=phone timeout_s=1800
source "$(dirname "$0")/backend-common.sh"

phone=$top/build/emu/panlab-phone
require_built "$phone"
mkdir -p "$out"
rm -f "$out"/{console.log,trace.bin,ground_truth.txt}
"$top/scripts/make-sdcard.sh" "$out/sdcard.img"

replay=()
if [ -n "$workload" ]; then
	replay=(--replay "$top/replay/scripts/$workload.rply" --ground-truth "$out/ground_truth.txt")
fi
run_with_console "$phone" --kernel "$kernel" --initrd "$initrd" \
	--append "$(guest_cmdline panlab.injector=host)" \
	--console "$out/console.log" --port panlab.trace="$out/trace.bin" --disk "$out/sdcard.img" \
	--system-map "$top/build/kernel/System.map" --display "$display" \
	"${replay[@]}"
check_result
