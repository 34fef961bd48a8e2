#!/usr/bin/env bats
# The in-tree selftests the posted sets add (lib/kernel.sh VRB_KSELFTESTS:
# tools/testing/selftests/net/tun.c, IFF_BACKPRESSURE), built from the
# patched tree against its own headers and run in a guest, as kselftest
# TAP: on the patched kernel every test passes and none skips; on the stock
# kernel the tests that need the flag skip, saying why, and the rest pass.
# guest-run.sh fails a run whose console shows a kernel splat (the
# txqueuelen 0 tests oopsed an earlier version of the series).

load vm_helpers

setup_file() {
	build_kernels
	load_libs
	export VRB_CACHE=$VRB_ROOT/.cache VRB_PATCHES=$VRB_ROOT/patches/${VRB_BASE:-6.1}
	kselftest_build "$VRB_CACHE/kselftest" >"$BATS_FILE_TMPDIR/bins" 2>"$BATS_FILE_TMPDIR/build.log" || {
		sed 's/^/# /' "$BATS_FILE_TMPDIR/build.log" >&3
		return 1
	}
}

setup() {
	real_workspace
}

# kselftest KERNEL BIN: runs BIN in a guest of KERNEL; its TAP in $output.
kselftest() {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$1" --run-dir "$BATS_TEST_TMPDIR/run" -- "$2"
	echo "$output"
	[ ! -e "$BATS_TEST_TMPDIR/run/splats" ]
}

# tap_count WHAT: how many TAP result lines of $output are WHAT (ok, not ok, skip).
tap_count() {
	case $1 in
	ok) grep -c '^ok [0-9]' <<<"$output" || true ;;
	'not ok') grep -c '^not ok [0-9]' <<<"$output" || true ;;
	# 6.1's harness prints "ok N # SKIP why", 6.12's "ok N name # SKIP why"
	skip) grep -cE '^ok [0-9]+( .*)? # SKIP' <<<"$output" || true ;;
	esac
}

@test "patched: every kselftest the series adds passes, none skips" {
	local bin n
	while IFS= read -r bin; do
		kselftest patched "$bin"
		[ "$status" -eq 0 ]
		n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$output")
		[ "${n:-0}" -ge 1 ]
		[ "$(tap_count ok)" -eq "$n" ]
		[ "$(tap_count skip)" -eq 0 ]
		[ "$(tap_count 'not ok')" -eq 0 ]
	done <"$BATS_FILE_TMPDIR/bins"
	# the zero-entry ring cases are among them
	[[ "$output" == *"ok "*" global.backpressure_txqlen0_pfifo_fast"* ]]
	[[ "$output" == *"ok "*" global.backpressure_txqlen0_fq_codel"* ]]
}

@test "stock: the tests that need IFF_BACKPRESSURE skip, saying why; the others pass" {
	local bin n
	while IFS= read -r bin; do
		kselftest stock "$bin"
		[ "$status" -eq 0 ]
		n=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$output")
		[ "$(tap_count ok)" -eq "$n" ]
		[ "$(tap_count 'not ok')" -eq 0 ]
		[ "$(tap_count skip)" -ge 1 ]
		[ "$(grep -cE '^ok [0-9]+( .*)? # SKIP no IFF_BACKPRESSURE in TUNGETFEATURES$' <<<"$output")" -eq "$(tap_count skip)" ]
	done <"$BATS_FILE_TMPDIR/bins"
	[[ "$output" == *"ok "*" global.no_backpressure_ring64"* ]]
}
