#!/usr/bin/env bats
# The series' knobs changed many times under load, on the patched kernel
# (tests/guest/check-knob-churn.sh): workload A's path (the per-device vhost
# rx batch every 10 ms, tun.tx_ring_zero_batch and ring resizes while pktgen
# floods a tap) and workload B's (min_numfree and refill_max on a virtio-net
# rx queue while pktgen floods it over a QEMU hub). The queue keeps moving
# (deliveries rise in every second), nothing is lost, the counters agree,
# and guest-run.sh fails the run on any kernel splat in the console.

load vm_helpers

TX_MAC=52:54:00:00:00:a1
RX_MAC=52:54:00:00:00:a2

setup_file() {
	build_kernels
	make -s -C "$VRB_ROOT/bench/vhost_drv" BUILD="$VRB_ROOT/.cache/vhost_drv"
}

setup() {
	real_workspace
}

churn() {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel patched --run-dir "$BATS_TEST_TMPDIR/run" "$@"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 failed"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/run/splats" ]
}

@test "tap + vhost-net: rx batch, zeroing batch and ring size changed under a flood; no stall, no loss" {
	churn -- "$VRB_ROOT/tests/guest/check-knob-churn.sh" tap "$VRB_ROOT/.cache/vhost_drv/vhost_drv"
	[[ "$output" == *"ok: tap: the driver's deliveries rise every second while the knobs change"* ]]
	[[ "$output" == *"ok: tap: the ring was resized under load (txqlen 1024)"* ]]
	[[ "$output" == *"ok: tap: every frame the tap took was delivered"* ]]
}

@test "virtio-net: min_numfree and refill_max changed under a flood; no stall, the queue works after, counters agree" {
	churn --qemu-arg -netdev --qemu-arg "hubport,id=n0,hubid=0" \
		--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n0,mac=$TX_MAC,romfile=" \
		--qemu-arg -netdev --qemu-arg "hubport,id=n1,hubid=0" \
		--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n1,mac=$RX_MAC,rx_queue_size=256,romfile=" \
		-- "$VRB_ROOT/tests/guest/check-knob-churn.sh" virtio "$TX_MAC" "$RX_MAC"
	[[ "$output" == *"ok: virtio: rx packets rise every second while min_numfree and refill_max change"* ]]
	[[ "$output" == *"ok: virtio: after the churn, 1000 frames one per ms all arrive"* ]]
}
