#!/bin/bash
# The lab handbook's keys against the current build (in `make test`; alone: `make labs-check`).
# Runs the labs' experiment (workloads/labs/labs.spec, six phone runs, about 30 s on the fast
# engine; resumable, so a second check on the same build runs nothing and takes seconds),
# then checks every claim of every lab's key (the ```key blocks of workloads/labs/*.md,
# format in workloads/labs/README.md) and prints one line per claim. Fails if any claim does
# not hold, so the handbook cannot rot silently.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
labs=$top/workloads/labs
db=$top/out/labs/results.sqlite
work=$(mktemp -d /tmp/panlab-labs.XXXXXX)
trap 'rm -rf "$work"' EXIT

"$top/scripts/experiment.sh" "$labs/labs.spec" --no-report > "$work/run.log" 2>&1 ||
	{ tail -n 30 "$work/run.log"; echo "test_labs: the labs' experiment failed" >&2; exit 1; }

# holds VALUE OP EXPECTED: numbers compare as numbers, '~' is a regular expression match.
holds() {
	case "$2" in
	'~') [[ "$1" =~ $3 ]] ;;
	=|'<'|'>'|'<='|'>='|'!=')
		[[ "$1" =~ ^-?[0-9.e+-]+$ && "$3" =~ ^-?[0-9.e+-]+$ ]] || { [ "$2" = = ] && [ "$1" = "$3" ]; return; }
		awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN { exit !((op == "=" && a == b) || (op == "!=" && a != b) ||
			(op == "<" && a < b) || (op == ">" && a > b) || (op == "<=" && a <= b) || (op == ">=" && a >= b)) }' ;;
	*) return 2 ;;
	esac
}

# run-dir of the labs' run of a workload, traced or not ("service on").
run_dir() { echo "$top/out/labs/$1-phone-trace$2-r1"; }

passed=0 failed=0
for lab in "$labs"/[0-9]*.md; do
	n=0
	# Claim lines: KIND OP EXPECTED : WHAT, where KIND is sql (a query over the labs' database),
	# jq:WORKLOAD:on|off (a jq expression over that run's summary.json) or sh (a shell command
	# in a scratch directory; its output, stdout and stderr, is the value).
	while IFS= read -r line; do
		case "$line" in ''|'#'*) continue ;; esac
		n=$((n + 1))
		read -r kind op expected <<<"${line%% : *}"
		what=${line#* : }
		case "$kind" in
		sql) value=$(sqlite3 "$db" "$what" 2>&1) ;;
		jq:*) IFS=: read -r _ w t <<<"$kind"
			value=$(jq -r "$what" "$(run_dir "$w" "$t")/summary.json" 2>&1) ;;
		sh) value=$(cd "$work" && LABS_RUN="$top/out/labs" ANALYZE="$top/build/analyzer/panlab-analyze" \
			bash -c "$what" 2>&1) ;;
		*) value="unknown claim kind '$kind'" ;;
		esac
		if holds "$value" "$op" "$expected"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1))
			echo "test_labs: $(basename "$lab") claim $n does not hold: got '$value', expected $op $expected: $what"
		fi
	done < <(awk '/^```key/ { on = 1; next } /^```/ { on = 0 } on' "$lab")
	[ "$n" -gt 0 ] || { echo "test_labs: $(basename "$lab") has no key"; failed=$((failed + 1)); }
done
echo "test_labs: $passed claims hold, $failed do not"
[ "$failed" = 0 ]
