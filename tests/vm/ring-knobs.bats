#!/usr/bin/env bats
# The vhost_net patch and the benchmark-only tun / ptr_ring patches, in guests:
# on the patched kernel the per-device rx batch (two devices at once) and the
# tun knob take valid values, refuse bad ones and keep the old value, and a tap's
# tx ring zeroes in the batches the rule and the knob say (measured from
# userspace by tests/guest/tap_ring_batch); on the stock kernel, 6.1's rule.

load vm_helpers

setup_file() {
	build_kernels
	# inside the repository: the guest sees it, not the host's /tmp
	make -s -C "$VRB_ROOT/tests/guest" BUILD="$VRB_ROOT/.cache/guest-tools"
}

setup() {
	real_workspace
}

knobs() {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$1" --run-dir "$BATS_TEST_TMPDIR/run" \
		-- "$VRB_ROOT/tests/guest/check-ring-knobs.sh" "$1" "$VRB_ROOT/.cache/guest-tools"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 failed"* ]]
}

@test "stock kernel: no knobs, and tap rings zero in batches by 6.1's rule" {
	knobs stock
	[[ "$output" == *"ok: stock: no VHOST_NET_GET/SET_VRING_RX_BATCH (ENOTTY)"* ]]
	[[ "$output" == *"ok: stock: tx ring of 16 zeroes in batches of 1"* ]]
}

@test "patched kernel: the per-device rx batch and tx_ring_zero_batch validate, and rings follow the rule and the knob" {
	knobs patched
	[[ "$output" == *"ok: rx batch: two devices hold 1 and 256 at once"* ]]
	[[ "$output" == *"ok: rx batch: 257 refused with EINVAL, the old value kept"* ]]
	[[ "$output" == *"ok: tx_ring_zero_batch 8: a ring of 64 zeroes in batches of 8"* ]]
}
