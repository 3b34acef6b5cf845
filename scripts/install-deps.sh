#!/bin/sh
# Installs panlab's build and run dependencies from Debian bookworm packages.
# Idempotent: quiet and fast when everything is already present.
#
# The core set is what `make run` (phone and qemu) and `make build` need. The optional
# components come with the targets that use them (the top Makefile passes them), or all of
# them with --all (`make deps ALL=1`; `make test` needs them all):
#   slurm     the Slurm executor (EXECUTOR=slurm) and its tests: slurm-wlm, munge, and for the
#             tests' accounting (sacct) slurmdbd with a private mariadb-server
#   libvirt   BACKEND=libvirt: libvirt-daemon-system, libvirt-clients
#   chromium  the report's screenshot check in the tests: chromium
#   perf      the emulator's profile (make -C emu profile): linux-perf
# apt's output goes to build/logs/install-deps.log; the terminal gets one line, and on a
# failure the log's last lines and its path.
set -eu
usage="usage: $0 [--all | slurm | libvirt | chromium | perf ...]"
top=$(cd "$(dirname "$0")/.." && pwd)

PKGS="make gcc libc6-dev pkg-config
gcc-arm-linux-gnueabi binutils-arm-linux-gnueabi libc6-dev-armel-cross
linux-source-6.1 flex bison bc libssl-dev libelf-dev libdw-dev cpio xz-utils kmod e2fsprogs
qemu-system-arm device-tree-compiler libfdt-dev
libcunit1-dev libjansson-dev libsdl2-dev libslirp-dev libpcap-dev libpng-dev zlib1g-dev
clang libclang-rt-14-dev gnuplot-nox zstd jq gdb-multiarch tshark busybox-static:armel time
libsqlite3-dev sqlite3 netpbm
libjpeg-turbo-progs libxml2-utils clang-format libjpeg62-turbo-dev procps iproute2 util-linux
cmark-gfm"
SLURM="slurm-wlm munge slurmdbd mariadb-server"
LIBVIRT="libvirt-daemon-system libvirt-clients"
CHROMIUM="chromium"
PERF="linux-perf"

for arg in "$@"; do
	case "$arg" in
	-h | --help)
		echo "$usage"
		echo "Installs the Debian packages panlab builds and runs with (make deps); quiet when all are present."
		echo "Exit status: 0 ok, 1 a package is missing and this is not root, or apt failed, 2 a usage error."
		exit 0 ;;
	--all) PKGS="$PKGS $SLURM $LIBVIRT $CHROMIUM $PERF" ;;
	slurm) PKGS="$PKGS $SLURM" ;;
	libvirt) PKGS="$PKGS $LIBVIRT" ;;
	chromium) PKGS="$PKGS $CHROMIUM" ;;
	perf) PKGS="$PKGS $PERF" ;;
	*) echo "$0: unknown component '$arg'; $usage" >&2; exit 2 ;;
	esac
done

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "install-deps: missing packages:$missing; run 'make deps' as root" >&2
	exit 1
fi
log=$top/build/logs/install-deps.log
mkdir -p "$(dirname "$log")"
echo "install-deps: installing $(echo $missing | wc -w) packages:$missing (log: build/logs/install-deps.log)"
{
	if ! dpkg --print-foreign-architectures | grep -qx armel; then
		dpkg --add-architecture armel
	fi
	export DEBIAN_FRONTEND=noninteractive
	apt-get -o DPkg::Lock::Timeout=900 update -q &&
		# shellcheck disable=SC2086
		apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $missing
} > "$log" 2>&1 || {
	tail -n 20 "$log" >&2
	echo "install-deps: apt failed; the whole log is $log" >&2
	exit 1
}
