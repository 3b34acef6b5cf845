#!/bin/sh
# Fails when Kconfig dropped or changed an option the fragment asks for,
# which it does silently when a dependency is missing.
set -eu
fragment=$1
config=$2
bad=0
for opt in $(sed -n 's/^\(CONFIG_[A-Za-z0-9_]*\)=.*/\1/p; s/^# \(CONFIG_[A-Za-z0-9_]*\) is not set/\1/p' "$fragment"); do
	want=$(grep -E "^(# )?$opt[= ]" "$fragment")
	have=$(grep -E "^(# )?$opt[= ]" "$config" || true)
	if [ "$want" != "$have" ] && ! { [ -z "$have" ] && [ "${want#\# }" != "$want" ]; }; then
		echo "$fragment: $opt: asked for '$want', got '${have:-unset}'" >&2
		bad=1
	fi
done
exit $bad
