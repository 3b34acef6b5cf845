#!/bin/bash
# scripts/experiment.sh end to end on the phone, with the local executor:
#   - a bad spec is one line naming SPEC:LINE, exit 2;
#   - while a run is in flight, a progress line says at which of its script's inputs it is;
#   - a 4-run matrix (timer traced and untraced, and asynctask@gestures with an option
#     run-experiment.sh rejects, twice) is killed once its two timer runs are in the database
#     and run again: the finished runs are skipped, the two bad runs are recorded failed with
#     run-experiment.sh's error as reason and do not stop the rest;
#   - the database holds both timer runs' models; the configuration booted once (its first task
#     booted the phone and saved a snapshot in the cache, both runs restored it, and the second
#     invocation found it there and did not boot again); a snapshot of another build is refused with
#     the phone's own status, PL_EXIT_SNAPSHOT_REFUSED (test_snapshot.sh: panlab-phone's);
#   - a report that cannot be written is one line naming it;
#   - report.html, opened in Debian's headless chromium: the DOM has the CDF, Q-Q and breakdown
#     SVGs with their paths, and its screenshot has thousands more coloured pixels than one of
#     the same page with the SVGs hidden (same layout), so the plots were drawn in colour, not
#     only present: the page's own colour, the red "Failed runs" heading, counts in both.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
exp=test-experiment
dir=$top/out/$exp
work=$(mktemp -d /tmp/panlab-experiment.XXXXXX)
trap 'rm -rf "$work"' EXIT
# A snapshot cache of the test's own, so that the first invocation boots.
export PANLAB_SNAPSHOTS=$work/snapshots

printf 'name %s\nworkloads timer\ntrace on sometimes\n' "$exp" > "$work/bad.spec"
rc=0
"$top/scripts/experiment.sh" "$work/bad.spec" 2> "$work/bad.err" || rc=$?
[ $rc = 2 ] && [ "$(wc -l < "$work/bad.err")" = 1 ] && grep -q "^$work/bad.spec:3: trace 'sometimes'" "$work/bad.err" ||
	fail "a bad spec gave exit $rc and: $(cat "$work/bad.err")"
# Not a spec file: a directory, an endless device, a file over the cap; one line each, exit 2.
truncate -s 1048577 "$work/huge.spec"
for pair in "$work:is a directory, expected a spec file" \
	    "/dev/zero:not a regular file, expected a spec file" \
	    "$work/huge.spec:1048577 bytes, more than the 1048576-byte cap for a spec"; do
	rc=0
	"$top/scripts/experiment.sh" "${pair%%:*}" 2> "$work/bad.err" || rc=$?
	[ $rc = 2 ] && [ "$(wc -l < "$work/bad.err")" = 1 ] && grep -qF "${pair%%:*}: ${pair#*:}" "$work/bad.err" ||
		fail "spec ${pair%%:*} gave exit $rc and: $(cat "$work/bad.err")"
done

cat > "$work/e.spec" <<EOF
name $exp
backend phone
workloads timer asynctask@gestures
trace on off
options asynctask@gestures --no-such-option x
EOF
rm -rf "$dir"
# First invocation, killed (the whole process group) once the timer runs are in the database.
PROGRESS_S=1 setsid "$top/scripts/experiment.sh" "$work/e.spec" --jobs 1 > "$work/first.log" 2>&1 &
first=$!
timeout 300 bash -c "until [ \"\$(sqlite3 '$dir/results.sqlite' \"SELECT count(*) FROM runs WHERE status = 'ok'\" 2>/dev/null)\" = 2 ]; do
	kill -0 $first 2>/dev/null || exit 1; sleep 0.5; done" || { cat "$work/first.log"; fail "no run finished"; }
kill -TERM -- -"$first" 2>/dev/null || true
wait "$first" 2>/dev/null || true
snaps=("$PANLAB_SNAPSHOTS"/*-phone.snap)
[ "${#snaps[@]}" = 1 ] && [ -s "${snaps[0]}" ] || fail "not one phone snapshot in the cache: ${snaps[*]}"
grep -q 'saved' "${snaps[0]}.boot.err" || fail "the configuration's boot did not save the snapshot"
saved=$(stat -c '%i %Y' "${snaps[0]}")

rc=0
"$top/scripts/experiment.sh" "$work/e.spec" --jobs 2 > "$work/second.log" 2>&1 || rc=$?
[ $rc = 1 ] || { cat "$work/second.log"; fail "the resumed experiment exited $rc, expected 1 (two runs fail)"; }
grep -q "^experiment $exp: 4 runs, 2 skipped, 2 failed" "$work/second.log" ||
	{ cat "$work/second.log"; fail "the resumed experiment did not skip exactly the finished runs"; }
grep -q "^experiment $exp: [0-9]/4 done .*ETA" "$work/first.log" || fail "no progress line"
grep -Eq "^experiment $exp: 0/4 done .*timer-phone-trace(on|off)-r1 at input [0-9]+/5, " "$work/first.log" ||
	{ cat "$work/first.log"; fail "no line on how far the run in flight is"; }

q() { sqlite3 "$dir/results.sqlite" "$1"; }
[ "$(q "SELECT count(*) FROM runs WHERE status = 'ok' AND workload = 'timer'")" = 2 ] || fail "timer runs not ok"
[ "$(q "SELECT count(*) FROM runs WHERE status = 'failed' AND reason LIKE '%unknown option ''--no-such-option''%'")" = 2 ] ||
	fail "failed runs without their reason: $(q "SELECT run_id, status, reason FROM runs")"
[ "$(q "SELECT count(*) FROM validation")" = 2 ] || fail "not both models in the database"
[ "$(q "SELECT count(*) FROM validation WHERE precision = 1 AND recall = 1 AND run_id LIKE '%traceon%'")" = 1 ] ||
	fail "the traced timer run is not at precision = recall = 1"
[ "$(stat -c '%i %Y' "${snaps[0]}")" = "$saved" ] || fail "the second invocation booted again instead of restoring the cached snapshot"
for r in traceon traceoff; do
	grep -q 'restored' "$dir/timer-phone-$r-r1/run.err" || fail "timer-phone-$r-r1 did not restore the snapshot"
done
# The phone's own status tells a refused snapshot (PL_EXIT_SNAPSHOT_REFUSED, build/guest_abi.sh)
# from a run that restored it and then failed: experiment.sh boots cold only the first.
. "$top/build/guest_abi.sh"
printf 'not a snapshot\n' > "$work/other.snap"
rc=0
"$top/scripts/run-experiment.sh" --workload timer --snapshot-load "$work/other.snap" --run-id "$exp-refused" \
	> /dev/null 2> "$work/refused.err" || rc=$?
rm -rf "$top/out/$exp-refused"
[ "$rc" = "$PL_EXIT_SNAPSHOT_REFUSED" ] ||
	fail "a snapshot of another build (no .guest) gave exit $rc, expected $PL_EXIT_SNAPSHOT_REFUSED: $(cat "$work/refused.err")"

# The report in a real browser.
html=$dir/report.html
[ -s "$html" ] || fail "no report.html"
# A report that cannot be written is one line naming it, exit 1, and no partial file.
touch "$work/not-a-dir"
rc=0
"$top/build/analyzer/panlab-analyze" report --db "$dir/results.sqlite" --out "$work/not-a-dir/report.html" \
	> /dev/null 2> "$work/report.err" || rc=$?
[ $rc = 1 ] && [ "$(wc -l < "$work/report.err")" = 1 ] &&
	grep -qF "$work/not-a-dir/report.html: cannot write the report" "$work/report.err" ||
	fail "an unwritable report gave exit $rc and: $(cat "$work/report.err")"
chrome=(chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$work/chrome")
timeout 120 "${chrome[@]}" --dump-dom "file://$html" > "$work/dom.html" 2>/dev/null
svgs=$(grep -o '<svg' "$work/dom.html" | wc -l)
[ "$svgs" = 3 ] || fail "expected 3 plots (CDF, Q-Q, breakdown) in the DOM, found $svgs"
[ "$(grep -o '<path[^>]* d="M[^"]*L' "$work/dom.html" | wc -l)" -gt 10 ] || fail "the plots' SVGs hold no drawn paths"
# The page without its plots: the same file (beside it, for its relative links) with every SVG
# hidden, which keeps the layout, so only the plots' pixels differ between the two screenshots.
[ "$(grep -c '</head>' "$html")" = 1 ] || fail "report.html does not have one </head>"
sed 's#</head>#<style>svg{visibility:hidden}</style></head>#' "$html" > "$dir/report-noplots.html"
for page in report report-noplots; do
	timeout 120 "${chrome[@]}" --window-size=1000,1800 --screenshot="$work/$page.png" \
		"file://$dir/$page.html" >/dev/null 2>&1
done
rm "$dir/report-noplots.html"
# Pixels in colour: channels that differ by more than 60 (black, white and grey do not).
coloured() {
	pngtopnm "$1" | ppmhist -noheader |
		awk '{ hi = $1; lo = $1; for (i = 2; i <= 3; i++) { if ($i > hi) hi = $i; if ($i < lo) lo = $i }
			if (hi - lo > 60) n += $5 } END { print n + 0 }'
}
page_colour=$(coloured "$work/report-noplots.png")
plot_colour=$(($(coloured "$work/report.png") - page_colour))
[ "$plot_colour" -gt 2000 ] ||
	fail "the screenshot shows no drawn plot ($plot_colour coloured pixels more than the page without plots, which has $page_colour)"
echo "test_experiment: ok (one boot for two runs, resume skipped the finished runs, 2 failures recorded with their reason, $svgs plots rendered, $plot_colour coloured pixels in the plots, $page_colour in the rest of the page)"
