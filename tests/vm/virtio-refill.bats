#!/usr/bin/env bats
# The virtio_net patches, in guests with two virtio-net devices on one QEMU
# hub (frames sent on one arrive on the other): on the patched kernel the
# per-queue min_numfree (and the benchmark-only refill_max) validate, two
# devices hold different values, the refill counters exist and show the
# threshold in effect (adaptive's: auto's with one frame per poll), and
# starvation is counted under a flood and not with
# one frame per poll, on a split ring and on a packed one; on the stock
# kernel, none of it exists and frames still flow.

load vm_helpers

TX_MAC=52:54:00:00:00:a1
RX_MAC=52:54:00:00:00:a2
# nics [RX_DEVICE_OPTIONS]: the two devices on hub 0
nics() {
	NICS=(--qemu-arg -netdev --qemu-arg "hubport,id=n0,hubid=0"
		--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n0,mac=$TX_MAC,romfile="
		--qemu-arg -netdev --qemu-arg "hubport,id=n1,hubid=0"
		--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n1,mac=$RX_MAC,rx_queue_size=256,romfile=${1:+,$1}")
}

setup_file() {
	build_kernels
}

setup() {
	real_workspace
}

# refill KERNEL MODE [RX_DEVICE_OPTIONS]
refill() {
	local slow=()
	# on the debug kernels pktgen (KASAN) is slower than the receiver: a
	# flood need not starve it
	[ "$(kernel_flavour)" = base ] || slow=(slow-sender)
	nics "${3:-}"
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$1" --run-dir "$BATS_TEST_TMPDIR/run" "${NICS[@]}" \
		-- "$VRB_ROOT/tests/guest/check-virtio-refill.sh" "$2" "$TX_MAC" "$RX_MAC" "${slow[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 failed"* ]]
}

# starve_ok WHAT: the flood's starvation check passed (base flavour only).
starve_ok() {
	[ "$(kernel_flavour)" != base ] || [[ "$output" == *"ok: $1"* ]]
}

@test "stock kernel: no min_numfree, refill_max or refill counters; frames flow" {
	refill stock stock
	[[ "$output" == *"ok: stock: frames flow"* ]]
}

@test "patched kernel: per-queue min_numfree and refill_max validate; counters show the threshold; split ring starvation" {
	refill patched patched
	[[ "$output" == *"ok: two devices hold different values at once (legacy, 16)"* ]]
	[[ "$output" == *"ok: min_numfree refuses ' 64'"* ]]
	[[ "$output" == *"ok: legacy (128): 60 frames, no refill"* ]]
	[[ "$output" == *"ok: open on a full ring: no refill counted"* ]]
	[[ "$output" == *"ok: auto (32), one frame per poll: one refill"* ]]
	[[ "$output" == *"ok: adaptive (as auto), one frame per poll: one refill"* ]]
	[[ "$output" == *"ok: adaptive-dry (as auto), one frame per poll: one refill"* ]]
	[[ "$output" == *"ok: min_numfree refuses 'adaptive-dryx'"* ]]
	starve_ok "flood: polls find the ring all used (starved_polls > 0)"
}

@test "patched kernel, packed ring (packed=on): starvation counted under a flood, not with one frame per poll" {
	refill patched starved packed=on
	[[ "$output" == *"ok: one frame per poll: no poll finds the ring all used"* ]]
	starve_ok "flood: polls find the ring all used (starved_polls > 0)"
	[[ "$output" == *"ok: flood: starvations <= starved_polls"* ]]
}
