#!/usr/bin/env bats
# scripts/export-series.sh on a toy kernel tree: commits over baseline become
# numbered patches, a series file in order, and a cover letter from
# cover-letter.txt; stale patches go; a dirty tree is refused.

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
	[[ "$output" == *"no commits on top of baseline"* ]]
	[ ! -e "$VRB_PATCHES/series" ]
}
