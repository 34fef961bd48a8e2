#!/usr/bin/env bats
# patches/series parsing and the series hash.

load helpers

setup() {
	load_libs
}

@test "series_patches lists patches in order, skipping comments and blank lines" {
	printf 'x\n' >"$VRB_PATCHES/0002-b.patch"
	printf 'y\n' >"$VRB_PATCHES/0001-a.patch"
	printf '# comment\n\n0002-b.patch\n  0001-a.patch  # trailing\n' >"$VRB_PATCHES/series"
	run series_patches "$VRB_PATCHES"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$VRB_PATCHES/0002-b.patch" ]
	[ "${lines[1]}" = "$VRB_PATCHES/0001-a.patch" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "series_patches names a patch the series lists but the dir lacks" {
	printf '0001-missing.patch\n' >"$VRB_PATCHES/series"
	run series_patches "$VRB_PATCHES"
	[ "$status" -ne 0 ]
	[[ "$output" == *"0001-missing.patch"* ]]
}

@test "series_patches fails without a series file" {
	run series_patches "$VRB_PATCHES"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no series file"* ]]
}

@test "series_hash is none for an empty series and changes with a patch's content" {
	printf '# nothing yet\n' >"$VRB_PATCHES/series"
	run series_hash "$VRB_PATCHES"
	[ "$output" = none ]
	printf 'one\n' >"$VRB_PATCHES/0001-a.patch"
	printf '0001-a.patch\n' >"$VRB_PATCHES/series"
	h1=$(series_hash "$VRB_PATCHES")
	[ "$(series_hash "$VRB_PATCHES")" = "$h1" ]
	printf 'two\n' >"$VRB_PATCHES/0001-a.patch"
	h2=$(series_hash "$VRB_PATCHES")
	[ "$h1" != "$h2" ]
	[ "${#h1}" -eq 12 ]
}

@test "the repository's own series files parse, one per base" {
	local b
	for b in $VRB_BASES; do
		run series_patches "$VRB_ROOT/patches/$b"
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" -ge 1 ]
	done
}

@test "series_stack: the posted series, then the benchmark-only set; the hash covers both" {
	printf 'one\n' >"$VRB_PATCHES/0001-a.patch"
	printf '0001-a.patch\n' >"$VRB_PATCHES/series"
	run series_stack "$VRB_PATCHES"
	[ "$output" = "$VRB_PATCHES/0001-a.patch" ]
	h1=$(series_hash "$VRB_PATCHES")
	mkdir "$VRB_PATCHES/bench"
	printf 'bench\n' >"$VRB_PATCHES/bench/0001-b.patch"
	printf '0001-b.patch\n' >"$VRB_PATCHES/bench/series"
	run series_stack "$VRB_PATCHES"
	[ "${lines[0]}" = "$VRB_PATCHES/0001-a.patch" ]
	[ "${lines[1]}" = "$VRB_PATCHES/bench/0001-b.patch" ]
	h2=$(series_hash "$VRB_PATCHES")
	[ "$h1" != "$h2" ]
	printf 'bench two\n' >"$VRB_PATCHES/bench/0001-b.patch"
	[ "$(series_hash "$VRB_PATCHES")" != "$h2" ]
	# a bench series naming a missing patch fails like the posted one
	printf '0002-missing.patch\n' >>"$VRB_PATCHES/bench/series"
	run series_stack "$VRB_PATCHES"
	[ "$status" -ne 0 ]
	[[ "$output" == *"0002-missing.patch"* ]]
}

@test "the repository's posted series and benchmark-only set parse, for each base, and name the same patches" {
	local b
	for b in 6.1 6.12; do
		run series_stack "$VRB_ROOT/patches/$b"
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" -eq 13 ]
		[[ "${lines[9]}" == "$VRB_ROOT/patches/$b/0010-"* ]]
		[[ "${lines[10]}" == "$VRB_ROOT/patches/$b/bench/"* ]]
	done
	# the two bases carry the same series: same files, same subjects
	diff <(grep -v '^#' "$VRB_ROOT/patches/6.1/series") <(grep -v '^#' "$VRB_ROOT/patches/6.12/series")
	diff <(grep -v '^#' "$VRB_ROOT/patches/6.1/bench/series") <(grep -v '^#' "$VRB_ROOT/patches/6.12/bench/series")
	diff <(series_stack "$VRB_ROOT/patches/6.1" | xargs grep -h '^Subject:') \
		<(series_stack "$VRB_ROOT/patches/6.12" | xargs grep -h '^Subject:')
}

@test "an unknown kernel base stops a script before it does anything" {
	VRB_BASE=5.10 run "$VRB_ROOT/scripts/build-kernels.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown kernel base '5.10' (VRB_BASE or --base: one of 6.1 6.12)"* ]]
	run "$VRB_ROOT/run-bench.sh" --base 5.10 --dry-run
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown kernel base '5.10'"* ]]
	VRB_BASE=6.12 VRB_PATCHES='' VRB_KERNEL_TARBALL='' run bash -c '. "$VRB_ROOT/lib/functions.sh"; echo "$VRB_KERNEL_PKG $VRB_KERNEL_TARBALL $VRB_PATCHES"'
	[ "$output" = "linux-source-6.12 /usr/src/linux-source-6.12.tar.xz $VRB_ROOT/patches/6.12" ]
}
