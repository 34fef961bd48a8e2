#!/usr/bin/env bats
# scripts/check-series.sh: the real series passes, the posted sets and then
# the benchmark-only set on top (applies in order, checkpatch --strict
# clean, no new W=1 warning, vmlinux builds at the last posted patch and
# the last benchmark-only one; at every patch with VRB_SERIES_BUILD=each,
# `make check-series`, not in make check for its time: 20 min with a cold
# ccache), each posted set applies alone on the base and its objects
# compile, and a patch with a style error and a new warning is caught.

load vm_helpers

setup() {
	real_workspace
}

@test "every patch, posted sets then benchmark-only: checkpatch --strict, W=1; vmlinux builds (the last posted and the last bench patch, or every patch); each set applies alone" {
	local when=${VRB_SERIES_BUILD:-tips} n posted last_posted last_bench set
	run "$VRB_ROOT/scripts/check-series.sh" --build "$when"
	echo "$output"
	[ "$status" -eq 0 ]
	n=$(series_stack "$VRB_PATCHES" | wc -l)
	posted=$(series_patches "$VRB_PATCHES" | wc -l)
	[ "$(series_patches "$VRB_PATCHES/bench" | wc -l)" -ge 1 ]
	[ "$n" -gt "$posted" ]
	[ "$(grep -c '^ok   .*: checkpatch --strict clean$' <<<"$output")" -eq "$n" ]
	grep -q '^ok   backpressure/0003-vhost-net-[^:]*: W=1 on .*drivers/vhost/net\.o.*, no new warning' <<<"$output"
	last_posted=$(series_patches "$VRB_PATCHES" | tail -n 1)
	last_posted=${last_posted#"$VRB_PATCHES"/}
	last_bench=bench/$(basename "$(series_patches "$VRB_PATCHES/bench" | tail -n 1)")
	if [ "$when" = each ]; then
		[ "$(grep -c '^ok   .*: vmlinux builds$' <<<"$output")" -eq "$n" ]
	else
		[ "$(grep -c '^ok   .*: vmlinux builds$' <<<"$output")" -eq 2 ]
	fi
	grep -qxF "ok   $last_posted: vmlinux builds" <<<"$output"
	grep -qxF "ok   $last_bench: vmlinux builds" <<<"$output"
	# every posted set alone on the base
	for set in $(series_sets "$VRB_PATCHES"); do
		grep -q "^ok   ${set#"$VRB_PATCHES"/}: applies alone on baseline; [1-9][0-9]* objects compile$" <<<"$output"
	done
	[[ "$output" != *FAIL* ]]
}

@test "a patch with trailing whitespace and an unused variable fails" {
	local d=$BATS_TEST_TMPDIR/bad w
	w=$(kernel_workspace)
	mkdir -p "$d/a/drivers/vhost" "$d/b/drivers/vhost"
	cp "$w/stock/drivers/vhost/net.c" "$d/a/drivers/vhost/net.c"
	sed 's/^\trxq->head = rxq->tail = 0;$/&\n\tint unused_w1; /' "$d/a/drivers/vhost/net.c" >"$d/b/drivers/vhost/net.c"
	{
		printf 'From: Test <test@example.com>\nSubject: [PATCH] vhost_net: a bad patch\n\n'
		printf 'Signed-off-by: Test <test@example.com>\n---\n'
		(cd "$d" && diff -u a/drivers/vhost/net.c b/drivers/vhost/net.c) || true
	} >"$d/0001-bad.patch"
	printf '0001-bad.patch\n' >"$d/series"
	run "$VRB_ROOT/scripts/check-series.sh" --no-build --patches "$d"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"FAIL 0001-bad.patch: checkpatch --strict"* ]]
	[[ "$output" == *"unused_w1"* ]]
	[[ "$output" == *"FAIL 0001-bad.patch: W=1 on drivers/vhost/net.o, new warnings above"* ]]
}

@test "a set that applies only on top of another set fails the alone check" {
	local d=$BATS_TEST_TMPDIR/sets w f=drivers/vhost/net.c
	w=$(kernel_workspace)
	mkdir -p "$d/one" "$d/two" "$d/a/drivers/vhost" "$d/b/drivers/vhost" "$d/c/drivers/vhost"
	cp "$w/stock/$f" "$d/a/$f"
	sed 's/^static void vhost_net_buf_unproduce(/\/* set one *\/\n&/' "$d/a/$f" >"$d/b/$f"
	sed 's/^\/\* set one \*\/$/\/* set two *\//' "$d/b/$f" >"$d/c/$f"
	# mkpatch DIR FROM TO SUBJECT
	mkpatch() {
		{
			printf 'From: Test <test@example.com>\nSubject: [PATCH] vhost_net: %s\n\n' "$4"
			printf 'Says why.\n\nSigned-off-by: Test <test@example.com>\n---\n'
			(cd "$d" && diff -u "$2/$f" "$3/$f" | sed "s|^--- $2/|--- a/|; s|^+++ $3/|+++ b/|") || true
		} >"$d/$1/0001-x.patch"
		printf '0001-x.patch\n' >"$d/$1/series"
	}
	mkpatch one a b "add a comment"
	mkpatch two b c "change the comment"
	printf 'one\ntwo\n' >"$d/series"
	run "$VRB_ROOT/scripts/check-series.sh" --no-build --patches "$d"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"ok   one: applies alone on baseline; "* ]]
	[[ "$output" == *"FAIL two: 0001-x.patch does not apply with the set alone on baseline"* ]]
	[ "$(grep -c '^FAIL' <<<"$output")" -eq 1 ]
}
