# Shared by run-qemu.sh and run-phone.sh (sourced, not run): the options
# both backends take, the checks on their inputs, the guest command line,
# and the verdict read from the guest console.
# The sourcing script sets `backend` and `timeout_s` (its default) first.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage_text="usage: $0 (--workload NAME | --test PROGRAM) --out DIR [--trace on|off] [--display none|sdl]
       [--timeout-s N] [--append 'KERNEL ARGS'] [--initrd FILE]
       [--cores 1|2] [--governor performance|powersave|ondemand|schedutil|...] [--freq-mhz 350|700|920|1200]${backend_options:-}
Boots the guest on $backend and runs one workload or guest test program into DIR
(scripts/run-experiment.sh runs this and analyzes the result).
Exit status: 0 the guest printed PANLAB-RESULT: OK, 1 the run failed, 2 a usage or input error."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
usage() { cli_usage 2; }
workload="" guest_test="" out="" trace=1 display=none append="" initrd=""
cores=2 governor="" freq_mhz=""
while [ $# -gt 0 ]; do
	case "$1" in
	--cores) cli_need "$@"; cores=$2; shift 2 ;;
	--governor) cli_need "$@"; governor=$2; shift 2 ;;
	--freq-mhz) cli_need "$@"; freq_mhz=$2; shift 2 ;;
	--workload) cli_need "$@"; workload=$2; shift 2 ;;
	--test) cli_need "$@"; guest_test=$2; shift 2 ;;
	--out) cli_need "$@"; out=$2; shift 2 ;;
	--append) cli_need "$@"; append=$2; shift 2 ;;
	--initrd) cli_need "$@"; initrd=$2; shift 2 ;;	# default: the built image; a test may add files
	-h | --help) cli_usage 0 ;;
	--trace) cli_need "$@"; case "$2" in on) trace=1 ;; off) trace=0 ;; *) usage ;; esac; shift 2 ;;
	--display) cli_need "$@"; case "$2" in none|sdl) display=$2 ;; *) usage ;; esac; shift 2 ;;
	--timeout-s) cli_need "$@"; timeout_s=$2; shift 2 ;;
	*) cli_unknown "$1" ;;
	esac
done
# run-phone.sh --snapshot-save without a workload only boots and saves (boot_only).
[ -n "$workload$guest_test${boot_only:-}" ] && [ -n "$out" ] || usage
[[ "$timeout_s" =~ ^[0-9]+$ ]] || { echo "$0: --timeout-s takes whole seconds, got '$timeout_s'" >&2; exit 2; }
# The experiment's machine settings (README.md, "Options"): cores online, and the CPU frequency
# policy, which only the phone models (DVFS through SCMI, emu/dvfs.h).
case "$cores" in 1|2) ;; *) echo "$0: --cores takes 1 or 2, got '$cores'" >&2; exit 2 ;; esac
[[ "$governor" =~ ^[a-z_]*$ ]] || { echo "$0: --governor takes a cpufreq governor name, got '$governor'" >&2; exit 2; }
case "$freq_mhz" in ""|350|700|920|1200) ;;
*) echo "$0: --freq-mhz takes one of the phone's operating points 350, 700, 920, 1200, got '$freq_mhz'" >&2; exit 2 ;;
esac
[ -z "$governor" ] || [ -z "$freq_mhz" ] ||
	{ echo "$0: --governor and --freq-mhz exclude each other (a fixed frequency is the userspace governor)" >&2; exit 2; }
if [ "$backend" != phone ] && [ -n "$governor$freq_mhz" ]; then
	echo "$0: --${governor:+governor}${freq_mhz:+freq-mhz}: stock QEMU cannot scale a vCPU's speed (no DVFS); use the phone backend" >&2
	exit 2
fi

kernel=$top/build/kernel/arch/arm/boot/zImage
# A workload's name, APP[@VARIANT][+LOAD...], is parsed in one place (the replay library),
# whose tool is found beside this file, whoever sources it.
replay_cli=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/replay/host/panlab-replay
[ -x "$replay_cli" ] || { echo "$0: $replay_cli is missing; run 'make build'" >&2; exit 1; }
app=""
[ -z "$workload" ] || app=$("$replay_cli" workload "$workload" app) || exit 2
# An unmodified Debian app (workloads/oss/APP) boots the image with its programs.
if [ -z "$initrd" ] && [ -n "$app" ] && [ -d "$top/workloads/oss/$app" ]; then
	initrd=$top/build/initramfs-oss.cpio.gz
fi
initrd=${initrd:-$top/build/initramfs.cpio.gz}
require_built() {
	for f in "$kernel" "$initrd" "$@"; do
		[ -s "$f" ] || { echo "$0: $f is missing; run 'make build'" >&2; exit 1; }
	done
}
# The guest ABI's values (port names, the result line), generated from include/panlab/guest_abi.h;
# found beside this file, whoever sources it.
guest_abi=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/build/guest_abi.sh
[ -s "$guest_abi" ] || { echo "$0: $guest_abi is missing; run 'make build'" >&2; exit 1; }
# shellcheck source=/dev/null
. "$guest_abi"

# maxcpus=1 plus a hotplug of cpu1 in /init avoids QEMU's slow SMP bring-up
# under icount; the phone boots the same way so one image serves both.
# The guest's watchdog (scripts/guest/init) ends a hung session 300 s of guest time past the
# script's own length (a script may run longer than the default 300 s). A script that a test
# packs into an image of its own is not in replay/scripts: the default holds for it.
watchdog_s=300
if [ -n "$workload" ] && [ -f "$top/replay/scripts/$workload.rply" ]; then
	script_s=$("$replay_cli" duration "$top/replay/scripts/$workload.rply") || exit 1
	watchdog_s=$((script_s + 300))
fi

guest_cmdline() {
	local cmdline="console=ttyAMA0 maxcpus=1 panic=-1 quiet panlab.trace=$trace $*"
	cmdline="$cmdline panlab.watchdog_s=$watchdog_s"
	cmdline="$cmdline panlab.cpu1=$((cores - 1))"
	[ -n "$governor" ] && cmdline="$cmdline panlab.governor=$governor"
	[ -n "$freq_mhz" ] && cmdline="$cmdline panlab.freq_mhz=$freq_mhz"
	[ -n "$workload" ] && cmdline="$cmdline panlab.workload=$workload"
	[ -n "$guest_test" ] && cmdline="$cmdline panlab.test=$guest_test"
	echo "$cmdline $append"
}

# Runs the emulator command with the console file shown as it grows, under
# the host-time limit; sets `status`.
run_with_console() {
	local start tail_pid
	start=$(date +%s.%N)
	: > "$out/console.log"
	tail -n +1 -f "$out/console.log" &
	tail_pid=$!
	set +e
	timeout --foreground "$timeout_s" "$@" < /dev/null
	status=$?
	set -e
	kill "$tail_pid" 2>/dev/null
	wait "$tail_pid" 2>/dev/null || true
	wall=$(echo "$(date +%s.%N) - $start" | bc)
	echo "$wall" > "$out/host-wall-s.txt"
}

# The guest prints $PL_RESULT_PREFIX then OK|FAIL|HANG ... before it powers off.
check_result() {
	local result
	if [ "$status" = 124 ]; then
		echo "$0: the guest did not finish within $timeout_s s of host time; see $out/console.log" >&2
		exit 1
	fi
	if grep -aq 'Kernel panic' "$out/console.log"; then
		echo "$0: guest kernel panic: $(grep -a -m1 'Kernel panic' "$out/console.log"); see $out/console.log" >&2
		exit 1
	fi
	if grep -aq 'BUG:\|WARNING:\|Oops' "$out/console.log"; then
		echo "$0: guest kernel trouble: $(grep -a -m1 'BUG:\|WARNING:\|Oops' "$out/console.log"); see $out/console.log" >&2
		exit 1
	fi
	result=$(grep -a "^$PL_RESULT_PREFIX" "$out/console.log" | tail -n 1 || true)
	case "$result" in
	"${PL_RESULT_PREFIX}OK"*)
		# The guest's verdict is not the whole run: the emulator fails a run
		# the guest cannot see fail (a replay script that did not end, a
		# ground-truth file it could not write).
		[ "$status" = 0 ] || {
			echo "$0: the guest reported OK but $backend exited with status $status; see $out/console.log" >&2
			exit 1
		}
		echo "$backend: run finished in ${wall} s of host time" ;;
	"") echo "$0: the guest stopped without a result ($backend exit status $status); see $out/console.log" >&2; exit 1 ;;
	*) echo "$0: guest reported ${result#"$PL_RESULT_PREFIX"}; see $out/console.log" >&2; exit 1 ;;
	esac
}
