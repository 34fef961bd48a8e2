#!/usr/bin/env bats
# scripts/export-series.sh on a toy kernel tree: commits over baseline become
# numbered patches, a series file in order, and a cover letter from
# cover-letter.txt; stale patches go; a dirty tree is refused; a range
# goes to another dir without a cover letter (the benchmark-only set), and
# series_stack applies the posted series, then that set.

load helpers

setup() {
	T=$BATS_TEST_TMPDIR/tree
	export VRB_PATCHES=$BATS_TEST_TMPDIR/patches
	mkdir -p "$T" "$VRB_PATCHES"
	git -C "$T" init -q -b baseline
	git -C "$T" config user.name "A Developer"
	git -C "$T" config user.email dev@example.com
	echo one >"$T/a.c"
	git -C "$T" add a.c && git -C "$T" commit -q -m baseline
	git -C "$T" checkout -q -b dev
	echo two >>"$T/a.c" && git -C "$T" commit -q -a -m "sub: first change" -m "Signed-off-by: A Developer <dev@example.com>"
	echo three >>"$T/a.c" && git -C "$T" commit -q -a -m "sub: second change" -m "Signed-off-by: A Developer <dev@example.com>"
	printf 'sub: the series subject\n\nWhat the series does.\n' >"$VRB_PATCHES/cover-letter.txt"
}

@test "commits become numbered patches, a series file and a cover letter" {
	touch "$VRB_PATCHES/0009-stale.patch"
	run "$VRB_ROOT/scripts/export-series.sh" --tree "$T"
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e "$VRB_PATCHES/0009-stale.patch" ]
	[ -f "$VRB_PATCHES/0001-sub-first-change.patch" ]
	[ -f "$VRB_PATCHES/0002-sub-second-change.patch" ]
	[ "$(grep -v '^#' "$VRB_PATCHES/series")" = "$(printf '0001-sub-first-change.patch\n0002-sub-second-change.patch')" ]
	grep -q '^Subject: \[PATCH 0/2\] sub: the series subject$' "$VRB_PATCHES/0000-cover-letter.patch"
	grep -q '^What the series does.$' "$VRB_PATCHES/0000-cover-letter.patch"
	grep -q '^From: A Developer <dev@example.com>$' "$VRB_PATCHES/0000-cover-letter.patch"
	# the series the build reads: the two patches, not the cover letter
	load_libs
	[ "$(series_patches "$VRB_PATCHES" | wc -l)" -eq 2 ]
}

@test "a tree with uncommitted changes or no commits over baseline is refused" {
	echo dirty >>"$T/a.c"
	run "$VRB_ROOT/scripts/export-series.sh" --tree "$T"
	[ "$status" -ne 0 ]
	[[ "$output" == *"uncommitted changes"* ]]
	git -C "$T" checkout -q -- a.c
	git -C "$T" checkout -q baseline
	run "$VRB_ROOT/scripts/export-series.sh" --tree "$T"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no commits in baseline..HEAD"* ]]
	[ ! -e "$VRB_PATCHES/series" ]
}

@test "posted series and benchmark-only set: two ranges, a subject prefix, no cover letter for the second" {
	mkdir "$VRB_PATCHES/bench"
	run "$VRB_ROOT/scripts/export-series.sh" --tree "$T" --head HEAD~1 --subject-prefix "RFC PATCH net-next"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q '^Subject: \[RFC PATCH net-next 0/1\] sub: the series subject$' "$VRB_PATCHES/0000-cover-letter.patch"
	grep -q '^Subject: \[RFC PATCH net-next 1/1\] sub: first change$' "$VRB_PATCHES/0001-sub-first-change.patch"
	run "$VRB_ROOT/scripts/export-series.sh" --tree "$T" --base HEAD~1 --out "$VRB_PATCHES/bench" --no-cover
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -e "$VRB_PATCHES/bench/0000-cover-letter.patch" ]
	grep -q '^Subject: \[PATCH\] sub: second change$' "$VRB_PATCHES/bench/0001-sub-second-change.patch"
	load_libs
	run series_stack "$VRB_PATCHES"
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "$VRB_PATCHES/0001-sub-first-change.patch" ]
	[ "${lines[1]}" = "$VRB_PATCHES/bench/0001-sub-second-change.patch" ]
	# the two sets apply in that order to baseline
	git -C "$T" checkout -q -b check baseline
	while IFS= read -r p; do git -C "$T" am -q "$p"; done <<<"$output"
	[ "$(cat "$T/a.c")" = "$(printf 'one\ntwo\nthree')" ]
}

@test "bad ranges and a missing output dir are refused" {
	run "$VRB_ROOT/scripts/export-series.sh" --tree "$T" --base nosuch
	[ "$status" -ne 0 ]
	[[ "$output" == *"--base: no commit 'nosuch'"* ]]
	run "$VRB_ROOT/scripts/export-series.sh" --tree "$T" --out "$BATS_TEST_TMPDIR/none" --no-cover
	[ "$status" -ne 0 ]
	[[ "$output" == *"no directory"* ]]
	run "$VRB_ROOT/scripts/export-series.sh" --tree "$T" --frobnicate
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown option '--frobnicate'"* ]]
}
