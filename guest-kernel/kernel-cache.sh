#!/bin/bash
# kernel-cache.sh restore|save KOUT: a cache of built kernel trees outside the
# clone, like ccache for the whole kernel. A fresh clone (CI, a second checkout)
# restores the tree in seconds instead of rebuilding it for six minutes when
# this machine already built the same thing.
#
# The key hashes everything the kernel build reads from us: the source
# tarball, the patches, the config fragment, the kernel part of this
# folder's Makefile (the lines above its kernel-cache marker: module and test
# rules do not change the kernel), check-config.sh, and the cross compiler's
# version. Entries are written to a
# temporary name and renamed, so a build killed half-way leaves no entry;
# the PANLAB_KERNEL_CACHE_KEEP newest entries (default 6) are kept, so
# branches with different configs on one machine do not evict each other.
#
# PANLAB_KERNEL_CACHE=DIR picks the directory (default
# ${XDG_CACHE_HOME:-~/.cache}/panlab/kernel); PANLAB_KERNEL_CACHE= turns the
# cache off. restore exits 1 on a miss, save never fails the build.
set -euo pipefail

usage() { echo "usage: $0 restore|save KOUT" >&2; exit 2; }
[ $# = 2 ] || usage
cmd=$1 kout=$2
dir=${PANLAB_KERNEL_CACHE-${XDG_CACHE_HOME:-$HOME/.cache}/panlab/kernel}
[ -n "$dir" ] || { [ "$cmd" = save ]; exit $?; }	# off: a miss, and nothing saved
here=$(cd "$(dirname "$0")" && pwd)
tarball=${SRC_TAR:-/usr/src/linux-source-6.1.tar.xz}

key=$({
	sha256sum "$tarball" | cut -d' ' -f1
	cat "$here"/patches/*.patch
	# The fragment's settings, not its comments or their order: branches that
	# add the same options in different places share one build.
	grep -E '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' \
		"$here"/config/panlab.config | LC_ALL=C sort
	sed '/^# kernel-cache.sh keys the kernel on the lines above/,$d' "$here"/Makefile
	cat "$here"/check-config.sh
	arm-linux-gnueabi-gcc --version | head -1
} | sha256sum | cut -c1-16)
entry=$dir/kernel-$key.tar

case $cmd in
restore)
	[ -f "$entry" ] || { echo "kernel: no cached build $entry"; exit 1; }
	echo "kernel: restoring the cached build $entry"
	rm -rf "$kout" && mkdir -p "$kout"
	if ! tar -C "$kout" -xf "$entry" || [ ! -f "$kout/arch/arm/boot/zImage" ]; then
		echo "kernel: cached build $entry is unreadable; removing it and building" >&2
		rm -f "$entry"
		rm -rf "$kout"
		exit 1
	fi
	# Kbuild wrote the source tree's absolute path into the tree (its Makefile, each
	# .cmd file's command and dependencies), and the checkout that built it may be gone.
	# Point them at this checkout's source, the same bytes (the key says so), and date the
	# files its patches touched no later than the objects, so that a make in the tree
	# (guest-kernel's relink-kernel) rebuilds nothing it need not.
	src=$(cd "$kout/.." && pwd)/src/$(basename "$tarball" .tar.xz)
	old=$(sed -n 's|^include \(/.*\)/Makefile$|\1|p' "$kout/Makefile")
	if [ -d "$src" ] && [ -n "$old" ] && [ "$old" != "$src" ]; then
		grep -rlZF --include='.*.cmd' --include=Makefile -e "$old" "$kout" |
			xargs -0r sed -i "s|$old|$src|g"
		find "$src" -newer "$kout/.config" -exec touch -h -r "$kout/.config" {} +
	fi
	;;
save)
	mkdir -p "$dir" || exit 0
	tmp=$(mktemp "$dir/.kernel-$key.XXXXXX") || exit 0
	if tar -C "$kout" -cf "$tmp" . && mv "$tmp" "$entry"; then
		echo "kernel: cached the build as $entry"
		# shellcheck disable=SC2012
		ls -t "$dir"/kernel-*.tar | tail -n +$((${PANLAB_KERNEL_CACHE_KEEP:-6} + 1)) | xargs -r rm -f
	else
		rm -f "$tmp"
		echo "kernel: could not cache the build in $dir (continuing)" >&2
	fi
	;;
*) usage ;;
esac
