#!/usr/bin/env bats
# tun's IFF_BACKPRESSURE (the backpressure patches), in a guest, with both
# consumers of a tap's ring (a reader of the fd and vhost-net) under a pktgen
# flood (tests/guest/check-backpressure.sh): off, the full ring drops as on
# the stock kernel; on, nothing is dropped and everything is delivered; and
# short bursts while the consumer stops and restarts never leave the queue
# stopped (the short form; `make soak-backpressure` runs it for minutes).
# guest-run.sh fails the run on any kernel splat in the console.

load vm_helpers

setup_file() {
	build_kernels
	make -s -C "$VRB_ROOT/bench/vhost_drv" BUILD="$VRB_ROOT/.cache/vhost_drv"
}

setup() {
	real_workspace
}

guest() {
	local kernel=$1
	shift
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$kernel" --run-dir "$BATS_TEST_TMPDIR/run" \
		-- "$VRB_ROOT/tests/guest/check-backpressure.sh" "$kernel" "$VRB_ROOT/.cache/vhost_drv" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" 0 failed"* || "$output" == *$'\n0 failed'* ]]
	[ ! -e "$BATS_TEST_TMPDIR/run/splats" ]
}

@test "patched: backpressure off drops as stock; on, nothing dropped, all delivered; bursts with a stopping consumer never stall" {
	guest patched "${VRB_BP_SOAK_S:-15}"
	[[ "$output" == *"ok: read: without backpressure a full ring drops"* ]]
	[[ "$output" == *"ok: vhost: without backpressure a full ring drops"* ]]
	[[ "$output" == *"ok: read: with backpressure nothing is dropped and every frame is delivered"* ]]
	[[ "$output" == *"ok: vhost: with backpressure nothing is dropped and every frame is delivered"* ]]
	[[ "$output" == *"ok: read: with backpressure, bursts for"*"no stall, no drop"* ]]
	[[ "$output" == *"ok: vhost: with backpressure, bursts for"*"no stall, no drop"* ]]
}

@test "stock: the same overload drops, and the tools refuse --backpressure" {
	guest stock
	[[ "$output" == *"ok: read: without backpressure a full ring drops"* ]]
	[[ "$output" == *"ok: vhost: without backpressure a full ring drops"* ]]
	[[ "$output" == *"ok: tap_read refuses --backpressure"* ]]
	[[ "$output" == *"ok: vhost_drv refuses --backpressure"* ]]
}
