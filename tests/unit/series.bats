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

@test "series_aids: the stock kernel's aids come first in the patched stack; aids_hash covers them alone" {
	printf 'one\n' >"$VRB_PATCHES/0001-a.patch"
	printf '0001-a.patch\n' >"$VRB_PATCHES/series"
	[ "$(aids_hash "$VRB_PATCHES")" = none ]
	h1=$(series_hash "$VRB_PATCHES")
	mkdir "$VRB_PATCHES/aids"
	printf 'gen\n' >"$VRB_PATCHES/aids/0001-g.patch"
	printf '0001-g.patch\n' >"$VRB_PATCHES/aids/series"
	run series_stack "$VRB_PATCHES"
	[ "${lines[0]}" = "$VRB_PATCHES/aids/0001-g.patch" ]
	[ "${lines[1]}" = "$VRB_PATCHES/0001-a.patch" ]
	[ "${#lines[@]}" -eq 2 ]
	a1=$(aids_hash "$VRB_PATCHES")
	[ "$a1" != none ] && [ "${#a1}" -eq 12 ]
	[ "$(series_hash "$VRB_PATCHES")" != "$h1" ]
	# a posted patch changes the patched kernel's hash, not the stock one's
	printf 'two\n' >"$VRB_PATCHES/0001-a.patch"
	[ "$(aids_hash "$VRB_PATCHES")" = "$a1" ]
	printf 'gen two\n' >"$VRB_PATCHES/aids/0001-g.patch"
	[ "$(aids_hash "$VRB_PATCHES")" != "$a1" ]
}

@test "series_patches: a line naming a set expands to the set's own series, in place" {
	mkdir "$VRB_PATCHES/one" "$VRB_PATCHES/two"
	printf 'a\n' >"$VRB_PATCHES/one/0001-a.patch"
	printf 'b\n' >"$VRB_PATCHES/two/0001-b.patch"
	printf 'c\n' >"$VRB_PATCHES/two/0002-c.patch"
	printf '0001-a.patch\n' >"$VRB_PATCHES/one/series"
	printf '0001-b.patch\n0002-c.patch\n' >"$VRB_PATCHES/two/series"
	printf '# sets\ntwo\none\n' >"$VRB_PATCHES/series"
	run series_patches "$VRB_PATCHES"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$VRB_PATCHES/two/0001-b.patch" ]
	[ "${lines[1]}" = "$VRB_PATCHES/two/0002-c.patch" ]
	[ "${lines[2]}" = "$VRB_PATCHES/one/0001-a.patch" ]
	[ "${#lines[@]}" -eq 3 ]
	run series_sets "$VRB_PATCHES"
	[ "$output" = "$(printf '%s\n' "$VRB_PATCHES/two" "$VRB_PATCHES/one")" ]
	# a set without a series file is named
	mkdir "$VRB_PATCHES/three"
	printf 'three\n' >>"$VRB_PATCHES/series"
	run series_patches "$VRB_PATCHES"
	[ "$status" -ne 0 ]
	[[ "$output" == *"names 'three', a directory with no series file"* ]]
}

@test "the repository's posted sets and benchmark-only set parse, for each base; the bases carry the same sets" {
	local b set
	for b in 6.1 6.12; do
		run series_sets "$VRB_ROOT/patches/$b"
		[ "$output" = "$(printf '%s\n' "$VRB_ROOT/patches/$b/backpressure" "$VRB_ROOT/patches/$b/virtio-net" "$VRB_ROOT/patches/$b/accounting")" ]
		run series_stack "$VRB_ROOT/patches/$b"
		[ "$status" -eq 0 ]
		# the measurement aids (workload C's generator) first
		local n_aids
		n_aids=$(series_aids "$VRB_ROOT/patches/$b" | grep -c . || true)
		[ "$n_aids" -eq 1 ]
		[[ "${lines[$n_aids]}" == "$VRB_ROOT/patches/$b/backpressure/0001-tun-tap-add-IFF_BACKPRESSURE-flag.patch" ]]
		[[ "${lines[-1]}" == "$VRB_ROOT/patches/$b/bench/0007-"* ]]
		# every set has its cover letter, made from its cover-letter.txt
		for set in backpressure virtio-net accounting; do
			[ -f "$VRB_ROOT/patches/$b/$set/0000-cover-letter.patch" ]
			[ -f "$VRB_ROOT/patches/$b/$set/cover-letter.txt" ]
		done
	done
	# the same backpressure, accounting and benchmark-only patches on both
	# bases (file names and subjects); virtio-net's first patch is each
	# base's form of upstream's delayed-refill fix, the others are the same
	for set in backpressure accounting bench; do
		diff <(grep -v '^#' "$VRB_ROOT/patches/6.1/$set/series") <(grep -v '^#' "$VRB_ROOT/patches/6.12/$set/series")
		diff <(series_patches "$VRB_ROOT/patches/6.1/$set" | xargs grep -h '^Subject:' | sed 's/6\.1[2]*\.y//') \
			<(series_patches "$VRB_ROOT/patches/6.12/$set" | xargs grep -h '^Subject:' | sed 's/6\.1[2]*\.y//')
	done
	diff <(grep -v '^#' "$VRB_ROOT/patches/6.1/virtio-net/series" | tail -n +2) \
		<(grep -v '^#' "$VRB_ROOT/patches/6.12/virtio-net/series" | tail -n +2)
	[[ "$(basename "$VRB_ROOT"/patches/6.1/virtio-net/0001-*.patch)" == 0001-virtio-net-disable-delayed-refill-while-resizing-an-.patch ]]
	[[ "$(basename "$VRB_ROOT"/patches/6.12/virtio-net/0001-*.patch)" == 0001-virtio-net-disable-delayed-refill-when-pausing-rx.patch ]]
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
