#!/bin/bash
# No script writes SQL against a table the schema does not define: every INSERT, REPLACE,
# UPDATE, DELETE, CREATE, DROP or ALTER of a table in a tracked shell script, jq file or Makefile
# must name (literally, not through a variable) a table of `panlab-analyze schema`, the
# results model's one definition. The check runs first on made-up scripts, one writing a table
# the schema defines and two that must fail (an unknown table, a table named by a variable),
# so that a checker that finds nothing cannot pass. No guest; under a second.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tables=$("$top/build/analyzer/panlab-analyze" schema |
	sed -n 's/^CREATE TABLE IF NOT EXISTS \([a-z_]*\) .*/\1/p')
[ -n "$tables" ] || fail "panlab-analyze schema defines no table"

# Prints FILE:LINE: TABLE for each table a write statement in FILE names outside the schema.
unknown_writes() {
	grep -HnoiE "(insert( or [a-z]+)? into|replace into|update|delete from|create (temp(orary)? )?table( if not exists)?|drop table( if exists)?|alter table)[[:space:]]+[^[:space:](;]+" "$@" |
		while IFS=: read -r file line stmt; do
			# "update" is also an English word: only "UPDATE t SET" is SQL.
			case "${stmt,,}" in update*) grep -qiE "update[[:space:]]+[^[:space:]]+[[:space:]]+set" \
				<<<"$(sed -n "${line}p" "$file")" || continue ;; esac
			t=${stmt##*[[:space:]]}
			t=${t#main.}
			grep -qx -- "$t" <<<"$tables" || echo "$file:$line: $t"
		done
}

printf 'sqlite3 db "INSERT INTO runs (run_id) VALUES (1)"\n' > "$work/good.sh"
printf 'sqlite3 db "INSERT OR REPLACE INTO verdicts VALUES (1)"\n' > "$work/unknown.sh"
printf 'sqlite3 db "DELETE FROM main.$t WHERE run_id = 1"\n' > "$work/variable.sh"
[ -z "$(unknown_writes "$work/good.sh")" ] || fail "a write to the runs table was flagged"
[ "$(unknown_writes "$work/unknown.sh")" = "$work/unknown.sh:1: verdicts" ] ||
	fail "a write to an unknown table was not flagged"
[ "$(unknown_writes "$work/variable.sh")" = "$work/variable.sh:1: \$t" ] ||
	fail "a write to a table named by a variable was not flagged"

cd "$top"
# This test's own made-up statements above are its fixtures, not writes.
mapfile -t files < <(git ls-files '*.sh' '*.jq' 'Makefile' '*/Makefile' '*.mk' |
	grep -vx tests/integration/test_sql_tables.sh)
bad=$(unknown_writes "${files[@]}")
[ -z "$bad" ] || fail "SQL writes to tables panlab-analyze schema does not define: $bad"
echo "test_sql_tables: ok (${#files[@]} scripts, none writes a table outside the schema's $(wc -l <<<"$tables"))"
