#!/bin/bash
# Runs the lab handbook as a student would and writes its two editions (`make labs`; the test
# test_labs.sh runs it too). For each lab (workloads/labs/NN-*.md, or the ones named), in a fresh
# copy of the checkout whose out/ is empty (every other top-level entry is a symlink to this
# checkout): runs the lab's ```sh blocks as written, in order, each with bash -e -o pipefail,
# then checks every claim of its ```key block against what those commands wrote. Then writes
# DIR/student/ (questions, no key) and DIR/teacher/ (the key with its figures) as Markdown, one
# file per lab, and one HTML page each (DIR/student.html, DIR/teacher.html) with the plots the
# labs show (![...](out/....svg)) inline. Exit 1 if a command fails, a claim does not hold or the
# student edition holds any of the key. With --rekey, a '=' claim that does not hold is rewritten
# in the lab with the student's value (at the key's decimals) and counts as holding: after a
# change that moves the phone's figures, review the diff of workloads/labs/. Format of a lab:
# workloads/labs/README.md.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
labs_dir=$top/workloads/labs
usage() { echo "usage: $0 [--out DIR] [--rekey] [LAB.md ...]   (default DIR: out/labs, labs: workloads/labs/NN-*.md)" >&2; exit 2; }
dir=$top/out/labs
picked=() rekey=0
while [ $# -gt 0 ]; do
	case "$1" in
	--out) [ $# -ge 2 ] || usage; dir=$2; shift 2 ;;
	--rekey) rekey=1; shift ;;
	-h | --help) usage ;;
	-*) echo "$0: unknown option '$1'" >&2; usage ;;
	*.md) if [ -f "$1" ]; then picked+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
		elif [ -f "$labs_dir/$1" ]; then picked+=("$labs_dir/$1")
		else echo "$0: no lab $1 (a file, or one of workloads/labs/)" >&2; exit 2; fi
		shift ;;
	*) echo "$0: '$1' is no lab: expected NN-name.md" >&2; usage ;;
	esac
done
[ ${#picked[@]} -gt 0 ] || picked=("$labs_dir"/[0-9]*.md)
command -v cmark-gfm >/dev/null || { echo "$0: cmark-gfm is missing: run 'make deps'" >&2; exit 1; }
mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1
rm -rf "$dir/run" "$dir/student" "$dir/teacher" "$dir/student.html" "$dir/teacher.html"
mkdir -p "$dir/run" "$dir/student/img" "$dir/teacher/img"

# The student's part of a lab: everything before its key.
student_part() { awk '/^## Instructor.s key/ { exit } { print }' "$1"; }
# The ```sh blocks of a lab's student part, as "\0"-separated scripts.
sh_blocks() {
	student_part "$1" | awk '/^ *```sh$/ { on = 1; ind = index($0, "`") - 1; next }
		on && /^ *```$/ { on = 0; printf "%c", 0; next }
		on { print substr($0, ind + 1) }'
}
# The claims of a lab's key: NAME OP EXPECTED : COMMAND, one a line.
claims() { awk '/^```key$/ { on = 1; next } /^```$/ { on = 0 } on && !/^(#|$)/' "$1"; }

# holds VALUE OP EXPECTED: '=' with a number compares at EXPECTED's decimals (the precision the
# key prints); < > <= >= != compare numbers; '~' is a regular expression match.
holds() {
	local num='^[-+]?[0-9]+(\.[0-9]+)?$'
	case "$2" in
	'~') [[ "$1" =~ $3 ]] ;;
	=) if [[ "$1" =~ $num && "$3" =~ $num ]]; then
		local e=$3 d=0
		[[ "$e" == *.* ]] && d=${#e} && e=${e%.*} && d=$((d - ${#e} - 1))
		awk -v a="$1" -v b="$3" -v d="$d" 'BEGIN { x = sprintf("%.*f", d, a); y = sprintf("%.*f", d, b)
			if (x ~ /^-0(\.0*)?$/) x = substr(x, 2); if (y ~ /^-0(\.0*)?$/) y = substr(y, 2)
			exit !(x == y) }'
	   else [ "$1" = "$3" ]; fi ;;
	'<' | '>' | '<=' | '>=' | '!=')
		[[ "$1" =~ $num && "$3" =~ $num ]] || return 1
		awk -v a="$1" -v b="$3" -v op="$2" 'BEGIN { exit !((op == "!=" && a != b) ||
			(op == "<" && a < b) || (op == ">" && a > b) || (op == "<=" && a <= b) || (op == ">=" && a >= b)) }' ;;
	*) return 2 ;;
	esac
}

# rekey LAB ID EXPECTED VALUE: the '=' claim ID of LAB's key says VALUE instead of EXPECTED,
# a number at EXPECTED's decimals.
rekey() {
	local new=$4 num='^[-+]?[0-9]+(\.[0-9]+)?$' d=0 e=$3
	if [[ "$4" =~ $num && "$3" =~ $num ]]; then
		[[ "$e" == *.* ]] && d=${#e} && e=${e%.*} && d=$((d - ${#e} - 1))
		new=$(awk -v a="$4" -v d="$d" 'BEGIN { printf "%.*f", d, a }')
	fi
	awk -v id="$2" -v old="$3" -v new="$new" '/^```key$/ { on = 1 } /^```$/ { on = 0 }
		on && $1 == id && $2 == "=" && match($0, /^[ \t]*[^ \t]+[ \t]+=[ \t]+/) {
			$0 = substr($0, 1, RLENGTH) new substr($0, index($0, " : ")) }
		{ print }' "$1" > "$1.rekey" && mv "$1.rekey" "$1"
}

# A fresh checkout for one lab: this one's entries, out/ empty.
farm() {
	mkdir -p "$1/out"
	for e in "$top"/* "$top"/.[!.]*; do
		[ -e "$e" ] && [ "$(basename "$e")" != out ] && ln -s "$e" "$1/$(basename "$e")"
	done
}

failed=0 checked=0
for lab in "${picked[@]}"; do
	name=$(basename "$lab" .md)
	run=$dir/run/$name steps=$dir/run/$name.steps
	farm "$run"
	mkdir -p "$steps"
	start=$SECONDS step=0 ok=1
	while IFS= read -r -d '' block; do
		step=$((step + 1))
		printf '%s\n' "$block" > "$steps/$step.sh"
		(cd "$run" && bash -e -o pipefail "$steps/$step.sh") > "$steps/$step.txt" 2>&1
		rc=$?
		if [ "$rc" != 0 ]; then
			echo "labs: $name.md step $step: the commands exited $rc, expected 0; their last lines:"
			tail -n 5 "$steps/$step.txt" | sed 's/^/    /'
			ok=0 failed=$((failed + 1))
			break
		fi
	done < <(sh_blocks "$lab")
	[ "$step" -gt 0 ] || { echo "labs: $name.md has no \`\`\`sh block"; failed=$((failed + 1)); ok=0; }
	# Labs write under out/ only: anything else new at the top of the checkout is litter.
	for e in $(find "$run" -mindepth 1 -maxdepth 1 ! -type l ! -name out -printf '%f\n'); do
		echo "labs: $name.md wrote $e at the top of the checkout, expected everything under out/"
		failed=$((failed + 1))
	done
	n=0 names=" "
	if [ "$ok" = 1 ]; then
		while IFS= read -r line; do
			n=$((n + 1))
			read -r id op expected <<<"${line%% : *}"
			what=${line#* : }
			[ "$op" = = ] && names+="$id "
			value=$(cd "$run" && STEPS=$steps bash -o pipefail -c "$what" 2>&1)
			if holds "$value" "$op" "$expected"; then
				checked=$((checked + 1))
			elif [ "$rekey" = 1 ] && [ "$op" = = ] && [[ "$value" != *$'\n'* ]]; then
				rekey "$lab" "$id" "$expected" "$value"
				echo "labs: $name.md key $id: rekeyed from $expected to the student's '$value'"
				checked=$((checked + 1))
			else
				failed=$((failed + 1))
				echo "labs: $name.md key $id: the student's run gives '$value', the key says $op $expected ($what)"
			fi
		done < <(claims "$lab")
		[ "$n" -gt 0 ] || { echo "labs: $name.md has no key"; failed=$((failed + 1)); }
		# Every figure the key's text quotes, {{NAME}}, is a claim the key checks with '='.
		for id in $(grep -o '{{[a-z0-9_]*}}' "$lab" | tr -d '{}' | sort -u); do
			[[ "$names" == *" $id "* ]] ||
				{ echo "labs: $name.md quotes {{$id}}, which no '=' claim of its key checks"; failed=$((failed + 1)); }
		done
	fi
	echo "labs: $name.md: $step steps run, $n claims checked in $((SECONDS - start)) s"

	# The editions. Plots the lab shows are copied from its run and named after the lab.
	figures=$(claims "$lab" | awk '$2 == "=" { e = $0; sub(/ : .*/, "", e); sub(/^[^ ]+ +[^ ]+ +/, "", e)
		print $1 "\t" e }')
	student_part "$lab" > "$dir/student/$name.md"
	awk -v figures="$figures" 'BEGIN { n = split(figures, l, "\n")
			for (i = 1; i <= n; i++) { split(l[i], f, "\t"); v["{{" f[1] "}}"] = f[2] } }
		{ for (k in v) while ((i = index($0, k)) > 0) $0 = substr($0, 1, i - 1) v[k] substr($0, i + length(k))
		  print }' "$lab" > "$dir/teacher/$name.md"
	for ed in student teacher; do
		for svg in $(grep -o '](out/[^)]*\.svg)' "$dir/$ed/$name.md" | sed 's/^](//; s/)$//' | sort -u); do
			img=img/$name-$(echo "${svg#out/}" | tr / -)
			if [ -f "$run/$svg" ]; then
				cp -L "$run/$svg" "$dir/$ed/$img"
			else
				echo "labs: $name.md shows $svg, which its commands did not write"; failed=$((failed + 1))
			fi
			sed -i "s|]($svg)|]($img)|g" "$dir/$ed/$name.md"
		done
	done
done

# One HTML page per edition, the plots inline.
for ed in student teacher; do
	{
		echo "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>panlab labs: $ed edition</title>"
		echo "<style>body{max-width:60em;margin:auto;font-family:sans-serif}pre{background:#f4f4f4;padding:.5em;overflow-x:auto}svg{max-width:100%;height:auto}</style></head><body>"
		for md in "$dir/$ed"/*.md; do
			cmark-gfm "$md" | awk -v d="$dir/$ed" '
				match($0, /<img src="[^"]*\.svg"[^>]*>/) {
					tag = substr($0, RSTART, RLENGTH); src = tag; sub(/^<img src="/, "", src); sub(/".*/, "", src)
					printf "%s", substr($0, 1, RSTART - 1); f = d "/" src; on = 0
					while ((getline l < f) > 0) { if (l ~ /<svg/) on = 1; if (on) print l }
					close(f); print substr($0, RSTART + RLENGTH); next }
				{ print }'
		done
		echo "</body></html>"
	} > "$dir/$ed.html"
done
# The student edition holds nothing of the keys: no key section, no claim, no quoted figure.
if grep -n -i -e "instructor.s key" -e '```key' -e 'language-key' -e '{{' "$dir/student.html" "$dir"/student/*.md; then
	echo "labs: the student edition holds a key (the lines above)"; failed=$((failed + 1))
fi
echo "labs: $checked claims hold, $failed failures; editions in $dir/student.html and $dir/teacher.html"
[ "$failed" = 0 ]
