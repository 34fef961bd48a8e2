#!/usr/bin/env bats
# The virtio_net patches, in guests with two virtio-net devices on one QEMU
# hub (frames sent on one arrive on the other): on the patched kernel the
# min_numfree and refill_max knobs validate, the refill counters exist and
# show the threshold and the bound in effect; on the stock kernel, none of
# it exists and frames still flow.

load vm_helpers

TX_MAC=52:54:00:00:00:a1
RX_MAC=52:54:00:00:00:a2
NICS=(--qemu-arg -netdev --qemu-arg "hubport,id=n0,hubid=0"
	--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n0,mac=$TX_MAC,romfile="
	--qemu-arg -netdev --qemu-arg "hubport,id=n1,hubid=0"
	--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n1,mac=$RX_MAC,rx_queue_size=256,romfile=")

setup_file() {
	build_kernels
}

setup() {
	real_workspace
}

refill() {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$1" --run-dir "$BATS_TEST_TMPDIR/run" "${NICS[@]}" \
		-- "$VRB_ROOT/tests/guest/check-virtio-refill.sh" "$1" "$TX_MAC" "$RX_MAC"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 failed"* ]]
}

@test "stock kernel: no min_numfree, refill_max or refill counters; frames flow" {
	refill stock
	[[ "$output" == *"ok: stock: frames flow"* ]]
}

@test "patched kernel: min_numfree and refill_max validate; counters show the threshold and the bound" {
	refill patched
	[[ "$output" == *"ok: legacy (128): 60 frames, no refill"* ]]
	[[ "$output" == *"ok: refill_max 1: no refill posts"* ]]
}
