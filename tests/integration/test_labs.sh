#!/bin/bash
# The lab handbook against the current build (in `make test`; alone: `make labs-check`).
# First the checker itself, on the labs of tests/unit/data/labs/ (no phone, a second): a key that
# holds, one that does not, and one that fails a step and writes outside out/ must give exit 0, 1
# and 1 with those messages, and --rekey must rewrite the claim that does not hold.
# Then every lab of workloads/labs/ (workloads/labs/labs.sh, 16 phone runs): its commands run as
# written, in order, in a fresh checkout with an empty out/, every claim of its key checked
# against what they wrote, both editions written and the student's checked to hold no key.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
labs=$top/workloads/labs/labs.sh
fixtures=$top/tests/unit/data/labs
work=$(mktemp -d /tmp/panlab-labs.XXXXXX)
trap 'rm -rf "$work"' EXIT

# expect FIXTURE RC LINE...: labs.sh on fixture FIXTURE exits RC and prints every LINE.
expect() {
	local fixture=$1 rc=$2 got
	shift 2
	"$labs" --out "$work/$fixture" "$fixtures/$fixture.md" > "$work/$fixture.log" 2>&1
	got=$?
	[ "$got" = "$rc" ] || { cat "$work/$fixture.log"; fail "fixture $fixture.md: exit $got, expected $rc"; }
	for line in "$@"; do
		grep -qxF -- "$line" "$work/$fixture.log" ||
			{ cat "$work/$fixture.log"; fail "fixture $fixture.md: no line '$line'"; }
	done
}
expect good 0 \
	"labs: 3 claims hold, 0 failures; editions in $work/good/student.html and $work/good/teacher.html"
grep -q '<svg' "$work/good/student.html" || fail "good.md: its plot is not inline in student.html"
grep -q 'Pi is 3.14 to' "$work/good/teacher.html" || fail "good.md: teacher.html does not quote the figure"
! grep -q 'Pi is' "$work/good/student.html" || fail "good.md: student.html holds the key"
expect wrong 1 \
	"labs: wrong.md key answer_exact: the student's run gives '41.96', the key says = 42.00 (cat out/f/answer)" \
	"labs: wrong.md quotes {{unchecked}}, which no '=' claim of its key checks"
# --rekey rewrites the claim that does not hold with the student's value, at the key's decimals.
mkdir -p "$work/rekey" && cp "$fixtures/wrong.md" "$work/rekey/wrong.md"
"$labs" --rekey --out "$work/rekey/out" "$work/rekey/wrong.md" > "$work/rekey.log" 2>&1
grep -qxF "labs: wrong.md key answer_exact: rekeyed from 42.00 to the student's '41.96'" "$work/rekey.log" ||
	{ cat "$work/rekey.log"; fail "--rekey: no line saying answer_exact was rekeyed"; }
grep -qxF "answer_exact = 41.96 : cat out/f/answer" "$work/rekey/wrong.md" &&
	grep -qxF "answer = 42.0 : cat out/f/answer" "$work/rekey/wrong.md" ||
	{ cat "$work/rekey/wrong.md"; fail "--rekey: the key is not the student's figures"; }
expect failing 1 "labs: failing.md step 2: the commands exited 1, expected 0; their last lines:" \
	"labs: failing.md wrote litter.bin at the top of the checkout, expected everything under out/"

"$labs" --out "$work/labs"
