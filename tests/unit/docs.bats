#!/usr/bin/env bats
# The README and docs/: links that resolve, a README that stays a manual,
# no words a reader cannot resolve, the README's recipe the one that is
# tested, and results/INDEX.md in step with the result dirs.

load helpers

# doc_files: the README and every file under docs/.
doc_files() {
	echo "$VRB_ROOT/README.md"
	ls "$VRB_ROOT"/docs/*.md
}

@test "every relative link of the README, docs/ and results/INDEX.md points at a file or dir that exists" {
	local f target bad=''
	for f in $(doc_files) "$VRB_ROOT/results/INDEX.md"; do
		while read -r target; do
			[ -e "$(dirname "$f")/$target" ] || bad+=" ${f#"$VRB_ROOT"/}:$target"
		done < <(grep -o '](\([^)#]*\)' "$f" | sed 's/^](//' | grep -v '^https\?:' | grep -v '^$')
	done
	echo "dangling:$bad"
	[ -z "$bad" ]
}

@test "the README is a manual: at most 200 lines, the two commands in it" {
	[ "$(wc -l <"$VRB_ROOT/README.md")" -le 200 ]
	grep -qx '    ./run-bench.sh' "$VRB_ROOT/README.md"
	grep -qx '    make check' "$VRB_ROOT/README.md"
}

@test "the README and docs/ name no issue, session, stop or numbered seed of this project's own process" {
	local files
	mapfile -t files < <(doc_files)
	run grep -n -i -E '\bissue [0-9]|\(issue|\bsession [0-9]|\bstop [0-9]|\bseed 0[0-9]{2}\b' "${files[@]}"
	echo "$output"
	[ "$status" -eq 1 ]
}

@test "the README's apply-the-series lines are lines of docs/own-tree.md's tested block" {
	local line
	while read -r line; do
		grep -qxF -- "    $line" "$VRB_ROOT/docs/own-tree.md"
	done < <(awk '/^\*\*Apply the series to your tree\*\*/ { f = 1; next }
		f && /^    / { b = 1; print substr($0, 5); next }
		f && b { exit }' "$VRB_ROOT/README.md")
	# the block is there and has the git am loop
	awk '/^\*\*Apply the series/ { f = 1 } f' "$VRB_ROOT/README.md" | grep -q 'xargs git am'
}

@test "results/INDEX.md is what scripts/results-index.sh writes from the result dirs and docs/runs.tsv" {
	run "$VRB_ROOT/scripts/results-index.sh" --check
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "results-index.sh: a dir without a line, a line without a dir and a bad status are refused; a run being written is left out" {
	local r=$BATS_TEST_TMPDIR/results n=$BATS_TEST_TMPDIR/runs.tsv
	mkdir -p "$r/20260101T000000Z-C" "$r/20260102T000000Z-C.partial"
	printf '# date: 2026-01-01T00:00:00Z\n# command: ./run-bench.sh --profile full --steps 9\n# kernel_source: linux-source-6.12 6.12.118-1\n# harness_commit: abc1234\nseed,drops\n' \
		>"$r/20260101T000000Z-C/trials.csv"
	: >"$n"
	run "$VRB_ROOT/scripts/results-index.sh" --results "$r" --notes "$n"
	[ "$status" -eq 1 ]
	[[ "$output" == *"has no line for the result dir '20260101T000000Z-C'"* ]]
	[ ! -e "$r/INDEX.md" ]
	printf '20260101T000000Z-C\tcurrent\tfound it\n20251231T000000Z-B\tcurrent\tgone\n' >"$n"
	run "$VRB_ROOT/scripts/results-index.sh" --results "$r" --notes "$n"
	[ "$status" -eq 1 ]
	[[ "$output" == *"'20251231T000000Z-B' is not a result dir"* ]]
	printf '20260101T000000Z-C\tfine\tfound it\n' >"$n"
	run "$VRB_ROOT/scripts/results-index.sh" --results "$r" --notes "$n"
	[ "$status" -eq 1 ]
	[[ "$output" == *"has status 'fine'"* ]]
	printf '20260101T000000Z-C\tcurrent\tfound it\n' >"$n"
	run "$VRB_ROOT/scripts/results-index.sh" --results "$r" --notes "$n"
	[ "$status" -eq 0 ]
	grep -qxF '| [20260101T000000Z-C](20260101T000000Z-C/) | 2026-01-01 00:00 | C | 6.12 | full 9 | abc1234 | current | found it |' "$r/INDEX.md"
	run grep -c partial "$r/INDEX.md"
	[ "$output" = 0 ]
	run "$VRB_ROOT/scripts/results-index.sh" --results "$r" --notes "$n" --check
	[ "$status" -eq 0 ]
	printf '20260101T000000Z-C\tsuperseded\tfound it\n' >"$n"
	run "$VRB_ROOT/scripts/results-index.sh" --results "$r" --notes "$n" --check
	[ "$status" -eq 1 ]
	[[ "$output" == *"is not up to date"* ]]
	# the names runs get now: workload, base, profile step; a workload with a dash
	mkdir -p "$r/20260103T000000Z-model-c-6.12-full-step9" "$r/20260104T000000Z-C-6.1_2"
	cp "$r/20260101T000000Z-C/trials.csv" "$r/20260103T000000Z-model-c-6.12-full-step9/calib.csv"
	cp "$r/20260101T000000Z-C/trials.csv" "$r/20260104T000000Z-C-6.1_2/trials.csv"
	printf '20260101T000000Z-C\tcurrent\tfound it\n20260103T000000Z-model-c-6.12-full-step9\tcurrent\tm\n20260104T000000Z-C-6.1_2\tcurrent\tc\n' >"$n"
	run "$VRB_ROOT/scripts/results-index.sh" --results "$r" --notes "$n"
	[ "$status" -eq 0 ]
	grep -q '^| \[20260103T000000Z-model-c-6.12-full-step9\](20260103T000000Z-model-c-6.12-full-step9/) | 2026-01-01 00:00 | model-c | ' "$r/INDEX.md"
	grep -q '^| \[20260104T000000Z-C-6.1_2\](20260104T000000Z-C-6.1_2/) | 2026-01-01 00:00 | C | ' "$r/INDEX.md"
}

@test "make help lists every target of the Makefile, and the README's table of make targets is its rows" {
	local phony t readme helpsrc
	phony=$(sed -n 's/^\.PHONY: //p' "$VRB_ROOT/Makefile" | tr ' ' '\n' | sort)
	helpsrc=$(sed -n 's/^#> //p' "$VRB_ROOT/Makefile")
	[ "$(cut -d'|' -f1 <<<"$helpsrc" | tr -d ' ' | sort)" = "$phony" ]
	# shellcheck disable=SC2016 # the README's backquotes, not an expansion
	readme=$(grep '^| `make [a-z0-9.-]*` | ' "$VRB_ROOT/README.md" | sed 's/^| `make \([^`]*\)` | /\1 | /; s/ |$//; s/ | | / |  | /g')
	echo "README: $readme"
	echo "Makefile: $helpsrc"
	[ "$readme" = "$helpsrc" ]
	run make -s -C "$VRB_ROOT" help
	[ "$status" -eq 0 ]
	for t in $phony; do
		grep -q "^make $t " <<<"$output" || { echo "make help: no $t"; return 1; }
	done
}

@test "docs/benchmarks.md's settings table names every setting a recorded run or a profile uses (the summaries' glossary)" {
	. "$VRB_ROOT/bench/report/lib.sh"
	local s n=0
	for s in $( { sed -n 's/^# settings: //p' "$VRB_ROOT"/results/*/trials.csv "$VRB_ROOT"/results/*/blocks.csv
		grep -oE -- '--settings \\?"[^"\\]*' "$VRB_ROOT/bench/profiles.sh" | sed 's/^--settings //; s/[\\"]//g'; } | tr ' ' '\n' | sort -u); do
		glossary_row "${s%_aa}" >/dev/null || { echo "no glossary row for $s"; false; }
		n=$((n + 1))
	done
	[ "$n" -ge 20 ]
	# and a code it does not know is refused, not guessed
	run glossary_row z1
	[ "$status" -eq 1 ] && [ -z "$output" ]
	run glossary_row mn
	[ "$status" -eq 1 ]
	run glossary_row autox
	[ "$status" -eq 1 ]
	[ "$(glossary_row mn16 | cut -d'|' -f2)" = " \`mnN\` " ]
}
