#!/usr/bin/env bats
# scripts/check-series.sh: the real series passes, the posted patches alone
# and then the benchmark-only set on top (applies in order, checkpatch
# --strict clean, no new W=1 warning, vmlinux builds at the last patch of
# each set; at every patch with VRB_SERIES_BUILD=each, `make check-series`,
# not in make check for its time: 20 min with a cold ccache), and a patch
# with a style error and a new warning is caught.

load vm_helpers

setup() {
	real_workspace
}

@test "every patch, posted then benchmark-only: checkpatch --strict, W=1; vmlinux builds (each set's last patch, or every patch)" {
	local when=${VRB_SERIES_BUILD:-tips} n posted last_posted last_bench
	run "$VRB_ROOT/scripts/check-series.sh" --build "$when"
	echo "$output"
	[ "$status" -eq 0 ]
	n=$(series_stack "$VRB_PATCHES" | wc -l)
	posted=$(series_patches "$VRB_PATCHES" | wc -l)
	[ "$(series_patches "$VRB_PATCHES/bench" | wc -l)" -ge 1 ]
	[ "$n" -gt "$posted" ]
	[ "$(grep -c '^ok   .*: checkpatch --strict clean$' <<<"$output")" -eq "$n" ]
	[[ "$output" == *"ok   0001-vhost_net-"*": drivers/vhost/net.o W=1, no new warning"* ]]
	last_posted=$(basename "$(series_patches "$VRB_PATCHES" | tail -n 1)")
	last_bench=bench/$(basename "$(series_patches "$VRB_PATCHES/bench" | tail -n 1)")
	if [ "$when" = each ]; then
		[ "$(grep -c '^ok   .*: vmlinux builds$' <<<"$output")" -eq "$n" ]
	else
		[ "$(grep -c '^ok   .*: vmlinux builds$' <<<"$output")" -eq 2 ]
	fi
	grep -qxF "ok   $last_posted: vmlinux builds" <<<"$output"
	grep -qxF "ok   $last_bench: vmlinux builds" <<<"$output"
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
	[[ "$output" == *"FAIL 0001-bad.patch: drivers/vhost/net.o W=1, new warnings above"* ]]
}
