#!/bin/bash
# Checks that includes and links run one way between the folders (README.md, "Layout"): every
# tracked `#include "..."` whose path leaves its folder, and every `-I`, C source or header and
# library under build/ that a folder's Makefile, *.mk or Kbuild names, must land in the folder
# itself, in a folder its row of the table below names, or in tests/ (the unit tests a folder
# compiles), build/ (outputs) or out/. Paths through make variables ($(...)) are not followed.
# Prints one `file:line:` per crossing and exits 1 if there is any; exits 0 silently otherwise.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage_text="usage: $0 [TREE]
Checks that the folders of the git tree TREE (default: this one) include and link one way
(README.md, \"Layout\").
Exit status: 0 every crossing allowed, 1 a crossing the rule forbids, 2 a usage or input error."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
case "${1:-}" in -h | --help) cli_usage 0 ;; -*) cli_unknown "$1" ;; esac
[ $# -le 1 ] || cli_usage 2
tree=${1:-$top}
git -C "$tree" rev-parse --show-toplevel > /dev/null 2>&1 ||
	{ echo "include-direction: $tree: not a git tree, expected a checkout of panlab" >&2; exit 2; }
tree=$(git -C "$tree" rev-parse --show-toplevel)

# The one statement of the rule: what each folder may reach besides itself.
declare -A reach=(
	[include]=""
	[replay]="include"
	[stats]="include"
	[workloads]="include replay"
	[analyzer]="include stats"
	[guest-kernel]="include"
	[emu]="include replay stats"
)
status=0

# check FILE LINE FOLDER PATH: PATH, relative to FILE's directory, must stay in FOLDER or land
# where FOLDER may reach.
check() {
	local file=$1 line=$2 folder=$3 path=$4 target dest
	target=$(realpath -m --relative-to="$tree" "$tree/$(dirname "$file")/$path")
	dest=${target%%/*}
	# A library under build/ belongs to the folder it is built from (build/stats/...: stats).
	if [ "$dest" = build ] && [[ "$target" == *.a ]]; then
		dest=${target#build/}
		dest=${dest%%/*}
	fi
	case " $folder build out tests ${reach[$folder]} " in *" $dest "*) return ;; esac
	echo "$file:$line: reaches $target in $dest/, expected only ${reach[$folder]:-nothing} (README.md, \"Layout\")"
	status=1
}

for folder in "${!reach[@]}"; do
	# C: a quoted include that climbs out of its directory.
	while IFS=: read -r file line text; do
		path=${text#*\"}
		check "$file" "$line" "$folder" "${path%%\"*}"
	done < <(git -C "$tree" grep --untracked -nE '^\s*#\s*include\s*"[^"]*\.\./' -- \
		"$folder/*.c" "$folder/*.h" "$folder/*.S" || true)
	# Makefiles: -I paths, C sources and headers, and libraries, through a parent directory.
	while IFS=: read -r file line text; do
		for word in $text; do
			case "$word" in
			*'$'*) ;;
			-I../*) check "$file" "$line" "$folder" "${word#-I}" ;;
			../*.c | ../*.h | ../*.S | ../*.a) check "$file" "$line" "$folder" "$word" ;;
			esac
		done
	done < <(git -C "$tree" grep --untracked -nE '\.\./' -- "$folder/Makefile" "$folder/*.mk" \
		"$folder/*Kbuild" || true)
done
exit "$status"
