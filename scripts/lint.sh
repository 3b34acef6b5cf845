#!/bin/bash
# make lint: checks the formatting of what changed in tracked files since BASE (default main),
# committed or not, in the dialect each folder declares (README.md, "Code style"):
#   - C under guest-kernel/modules: the kernel's scripts/checkpatch.pl --strict, on each changed
#     file, as a kernel maintainer would;
#   - other C: clang-format (the nearest .clang-format) on the changed lines only, so that code
#     written before the style was declared is not reformatted wholesale (git clang-format);
#   - the whole tree: includes and links run one way between folders (README.md, "Layout";
#     scripts/include-direction.sh).
# Prints what to change and exits 1 if anything is off; exits 0 silently otherwise.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
usage_text="usage: $0 [BASE]
Checks the formatting of what changed since BASE (a branch or commit, default main), committed or
not, in each folder's declared dialect (README.md, \"Code style\"), and that includes and links
run one way between folders (README.md, \"Layout\").
Exit status: 0 nothing to change, 1 something to change, 2 a usage or input error."
# shellcheck source=scripts/cli.sh
. "$top/scripts/cli.sh"
case "${1:-}" in -h | --help) cli_usage 0 ;; -*) cli_unknown "$1" ;; esac
[ $# -le 1 ] || cli_usage 2
cd "$top"
base_ref=${1:-main}
base=$(git merge-base HEAD "$base_ref") ||
	{ echo "lint: no common commit with '$base_ref', expected a branch of this repository" >&2; exit 2; }
checkpatch=$top/build/src/linux-source-6.1/scripts/checkpatch.pl
status=0

# git clang-format --diff exits 0 either way: a diff in its output is the finding.
out=$(git clang-format --diff --extensions c,h "$base" -- . ':!guest-kernel/modules' 2>&1) ||
	{ printf '%s\n' "$out" >&2; echo "lint: git clang-format failed" >&2; exit 1; }
if grep -q '^diff ' <<< "$out"; then
	printf '%s\n' "$out"
	echo "lint: the lines above are not formatted as .clang-format says; 'git clang-format $base' fixes them" >&2
	status=1
fi

mapfile -t kernel < <(git diff --name-only --diff-filter=d "$base" -- 'guest-kernel/modules/*.c' 'guest-kernel/modules/*.h')
if [ "${#kernel[@]}" -gt 0 ]; then
	[ -x "$checkpatch" ] || { echo "lint: $checkpatch is missing; run 'make build'" >&2; exit 1; }
	for f in "${kernel[@]}"; do
		if ! out=$("$checkpatch" --no-tree --strict --terse -f "$f" 2>&1); then
			printf '%s\n' "$out"
			echo "lint: $f: checkpatch --strict finds the problems above" >&2
			status=1
		fi
	done
fi
"$top/scripts/include-direction.sh" "$top" || status=1
exit "$status"
