#!/bin/sh
# Installs panlab's build and run dependencies from Debian bookworm packages.
# Idempotent: quiet and fast when everything is already present.
set -eu

PKGS="make gcc libc6-dev pkg-config
gcc-arm-linux-gnueabi binutils-arm-linux-gnueabi libc6-dev-armel-cross
linux-source-6.1 flex bison bc libssl-dev libelf-dev libdw-dev cpio xz-utils kmod e2fsprogs
qemu-system-arm device-tree-compiler libfdt-dev
libcunit1-dev libjansson-dev libsdl2-dev libslirp-dev libpcap-dev libpng-dev zlib1g-dev
clang libclang-rt-14-dev gnuplot-nox zstd jq gdb-multiarch tshark busybox-static:armel time
libsqlite3-dev sqlite3 slurm-wlm munge libvirt-daemon-system libvirt-clients chromium netpbm
libjpeg-turbo-progs libxml2-utils clang-format libjpeg62-turbo-dev"

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
echo "install-deps: installing$missing"
if ! dpkg --print-foreign-architectures | grep -qx armel; then
	dpkg --add-architecture armel
fi
export DEBIAN_FRONTEND=noninteractive
apt-get -o DPkg::Lock::Timeout=900 update -q
# shellcheck disable=SC2086
apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends $missing
