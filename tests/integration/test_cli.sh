#!/bin/bash
# Every command a user runs answers like a Unix tool (no guest, about 5 s): `--help` prints a
# usage on stdout, nothing on stderr, exit 0; each option that takes a value, given without one,
# with an empty one or followed by another option, is one line on stderr naming the option, exit
# 2, before anything runs; a missing tool (sqlite3, slurm, qemu, libvirt, cpio) is one line naming
# its Debian package, exit 2; `make help` exits 0 and `make run CORES=` is one line naming CORES,
# exit 2. The scripts/README.md "Commands" rule: 0 ok, 1 a run or check failed, 2 usage or input.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/panlab-cli.XXXXXX)
trap 'rm -rf "$work"' EXIT
fails=0 checks=0
bad() { echo "test_cli: $*" >&2; fails=$((fails + 1)); }

# help COMMAND...: exit 0, a usage line on stdout, stderr empty.
help() {
	local rc=0
	checks=$((checks + 1))
	"$@" --help > "$work/out" 2> "$work/err" < /dev/null || rc=$?
	[ $rc = 0 ] && grep -qi '^usage:' "$work/out" && [ ! -s "$work/err" ] ||
		bad "$* --help: exit $rc, stdout '$(head -n 1 "$work/out")', stderr '$(head -n 1 "$work/err")'"
}

# needs COMMAND... -- OPTION...: each OPTION missing its value, empty, or followed by --help.
needs() {
	local cmd=() opt case rc
	while [ "$1" != -- ]; do cmd+=("$1"); shift; done
	shift
	for opt in "$@"; do
		for case in missing empty option; do
			local args=("$opt")
			case $case in empty) args+=("") ;; option) args+=(--help) ;; esac
			checks=$((checks + 1))
			rc=0
			"${cmd[@]}" "${args[@]}" > "$work/out" 2> "$work/err" < /dev/null || rc=$?
			[ $rc = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -qF -- "$opt" "$work/err" ||
				bad "${cmd[*]} $opt ($case value): exit $rc, stderr: $(cat "$work/err")"
		done
	done
}

s=$top/scripts
common=(--workload --test --out --append --initrd --trace --display --timeout-s --cores --governor --freq-mhz)
for c in "$s/experiment.sh" "$s/run-experiment.sh" "$s/run-phone.sh" "$s/run-qemu.sh" "$s/run-libvirt.sh" \
	"$s/guest-debs.sh" "$s/lint.sh" "$s/mkinitramfs.sh" "$s/experiment-bench.sh" "$s/make-sdcard.sh" \
	"$s/install-deps.sh" "$s/libvirt-domain.sh" "$s/section6.sh" "$s/include-direction.sh" "$top/tests/run-all.sh" \
	"$top/build/emu/panlab-phone" "$top/build/analyzer/panlab-analyze" "$top/build/replay/host/panlab-replay"; do
	help "$c"
done
needs "$s/experiment.sh" x.spec -- --executor --jobs
needs "$s/run-experiment.sh" -- --backend --via --workload --trace --run-id --display --cores --governor \
	--freq-mhz --snapshot-save --snapshot-load --engine --timeout-s
needs "$s/run-phone.sh" -- "${common[@]}" --snapshot-save --snapshot-load --engine --quantum-policy --net-profile
needs "$s/run-qemu.sh" -- "${common[@]}"
needs "$s/run-libvirt.sh" -- "${common[@]}" --connect
needs "$s/section6.sh" -- --spec --executor --bench

# A missing tool: one line naming its Debian package, exit 2, before anything runs. PATH is this
# machine's with the tool left out.
mkdir "$work/bin"
ln -s /usr/bin/* /usr/sbin/* "$work/bin/" 2>/dev/null	# a name in both: /usr/bin's
# without TOOL PACKAGE COMMAND...
without() {
	local tool=$1 pkg=$2 rc=0
	shift 2
	local was
	was=$(readlink "$work/bin/$tool")
	rm "$work/bin/$tool"
	checks=$((checks + 1))
	PATH=$work/bin "$@" > "$work/out" 2> "$work/err" < /dev/null || rc=$?
	ln -s "$was" "$work/bin/$tool"
	[ $rc = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -q "$tool is missing; install the Debian package $pkg" "$work/err" ||
		bad "$* without $tool: exit $rc, stderr: $(cat "$work/err")"
}
without sqlite3 sqlite3 "$s/experiment.sh" "$top/scripts/experiments/small.spec"
without sbatch slurm-client "$s/experiment.sh" "$top/scripts/experiments/small.spec" --executor slurm
without qemu-system-arm qemu-system-arm "$s/run-qemu.sh" --workload timer --out "$work/run"
without virsh libvirt-clients "$s/run-libvirt.sh" --workload timer --out "$work/run"
without cpio cpio "$s/mkinitramfs.sh"

rc=0
checks=$((checks + 2))
make --no-print-directory -C "$top" help > "$work/out" 2> "$work/err" || rc=$?
[ $rc = 0 ] && grep -q '^usage: make' "$work/out" || bad "make help: exit $rc"
rc=0
make --no-print-directory -C "$top" run CORES= > "$work/out" 2> "$work/err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$work/err")" = 1 ] && grep -q 'CORES= is empty' "$work/err" ||
	bad "make run CORES=: exit $rc, stderr: $(cat "$work/err")"

[ "$fails" = 0 ] || { echo "test_cli: $fails of $checks checks failed" >&2; exit 1; }
echo "test_cli: ok ($checks checks: --help on 17 commands, missing, empty and option-valued values of every value option of the 5 run scripts and section6.sh, 5 missing tools, make help, make run CORES=)"
