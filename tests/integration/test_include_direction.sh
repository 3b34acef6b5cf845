#!/bin/bash
# Includes and links run one way between folders (README.md, "Layout";
# scripts/include-direction.sh, which `make lint` runs): this tree passes, and made-up trees
# with a crossing each fail naming its file and line: the emulator's benchmark compiling the
# analyzer's statistics through -I and a source path (as it did before stats/ had its own
# folder), a C include that climbs into another folder, a library under build/ of a folder not
# reached, and a C include that leaves the tree. No guest; about a second.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
check=$top/scripts/include-direction.sh

out=$("$check" "$top") || { printf '%s\n' "$out"; fail "this tree has crossings the rule forbids"; }

# crossing NAME FILE TEXT WANT: a fresh git tree whose FILE holds TEXT must fail with WANT.
crossing() {
	local tree=$work/$1 status=0
	git init -q "$tree"
	mkdir -p "$(dirname "$tree/$2")"
	printf '%s\n' "$3" > "$tree/$2"
	out=$("$check" "$tree") || status=$?
	[ "$status" = 1 ] && grep -qF -- "$4" <<< "$out" ||
		fail "$1: exit $status (expected 1) and output '$out' (expected '$4')"
	echo "$name: $1: $out"
}
crossing old-benchstat emu/Makefile \
	"BENCHSTAT := tests/benchstat.c ../analyzer/stats.c
BENCHSTAT_CFLAGS := -I../analyzer/include" "emu/Makefile:2: reaches analyzer/include in analyzer/"
grep -q 'emu/Makefile:1: reaches analyzer/stats.c' <<< "$out" || fail "old-benchstat: the source path was not flagged"
crossing c-include workloads/lib/x.c '#include "../../emu/machine.h"' \
	"workloads/lib/x.c:1: reaches emu/machine.h in emu/"
crossing library analyzer/Makefile 'LIBS := ../build/replay/host/libpanlab_replay.a' \
	"analyzer/Makefile:1: reaches build/replay/host/libpanlab_replay.a in replay/"
crossing outside stats/stats.c '#include "../../elsewhere.h"' "stats/stats.c:1: reaches ../elsewhere.h"

# What the rule allows passes: its own folder, a folder its row names, tests/ and build/ outputs.
allowed=$work/allowed
git init -q "$allowed"
mkdir -p "$allowed/emu/dev" "$allowed/analyzer"
printf '#include "../machine.h"\n#include "../../include/panlab/error.h"\n' > "$allowed/emu/dev/x.c"
printf 'CFLAGS := -I../stats/include -I../include\nT := ../tests/unit/test_x.c ../build/stats/libpanlab_stats.a\n' \
	> "$allowed/analyzer/Makefile"
out=$("$check" "$allowed") || fail "allowed crossings were flagged: $out"
echo "$name: ok"
