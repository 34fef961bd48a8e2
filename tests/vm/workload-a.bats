#!/usr/bin/env bats
# Workload A end to end, short: pktgen -> tap -> vhost-net -> vhost_drv in
# the guest, on both kernels. Every frame pktgen got through reached the
# driver, every frame tun refused is a tap drop, the tap's counters agree
# with the driver's, and the driver exited cleanly with its totals.

load vm_helpers

setup_file() {
	build_kernels
}

setup() {
	real_workspace
}

@test "frames flow end to end and the counters add up (stock and its A/A arm, rx batch 8, zeroing batch 1; icount, seeds regime)" {
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --settings "stock b8 z1b1" --txqlens 64 --repeats 1 \
		--count 5000 --out "$BATS_TEST_TMPDIR/a"
	echo "$output"
	[ "$status" -eq 0 ]
	csv=$BATS_TEST_TMPDIR/a/trials.csv
	grep -q '^# accel: ' "$csv"
	grep -q '^# clock: icount$' "$csv"
	grep -q '^# guest_vcpus: 1$' "$csv"
	grep -q '^# regime: seeds$' "$csv"
	grep -q '^# aa_arm: stock_aa$' "$csv"
	[ "$(rows "$csv" | wc -l)" -eq 4 ]
	# repeat,setting,kernel,rx_batch,zero_batch,txqlen,xmit,dropped,total,drop_pct,pps,
	# rx_packets,pktgen_packets,tap_tx_packets,tap_tx_dropped,kicks,harvests,seconds,
	# vhost_batches,mean_batch,host_load1
	while IFS=, read -r _ setting kernel rxb zb q xmit dropped total _ pps rx pg txp txd _ _ secs batches mean load1; do
		echo "$setting ($kernel): rx_batch $rxb zero $zb txqlen $q xmit $xmit dropped $dropped rx $rx pktgen $pg tap tx $txp drop $txd; $batches batches, mean $mean"
		[ "$q" -eq 64 ]
		[ "$xmit" -eq 5000 ]
		[ "$pg" -eq "$xmit" ]		# every frame pktgen got through arrived
		[ "$dropped" -eq "$txd" ]	# every refused frame is a tap drop
		[ "$rx" -eq "$txp" ]		# the tap and the driver agree
		[ "$total" -eq $((xmit + dropped)) ]
		[ "$pps" -gt 0 ]
		[ -n "$secs" ]			# the driver printed its totals at exit
		# the vhost_batch probe ran: vhost's batches carried every frame
		[ "$batches" -gt 0 ]
		# (mean is printed to 3 decimals: entries / batches, entries = frames)
		[ "$(awk -v b="$batches" -v x="$xmit" 'BEGIN { printf "%.3f", x / b }')" = "$mean" ]
		[ -n "$load1" ]
	done < <(rows "$csv")
	# the knobs took effect on the patched kernel; the batch never exceeds the knob
	rows "$csv" | grep -q '^1,b8,patched,8,0,64,'
	rows "$csv" | grep -q '^1,z1b1,patched,1,1,64,'
	rows "$csv" | awk -F, '$2 == "z1b1" { exit !($20 <= 1) }'
	rows "$csv" | awk -F, '$2 == "b8" { exit !($20 <= 8) }'
	grep -q '^tx_queue_len 64: vhost-net rx batch -> pktgen pps' "$BATS_TEST_TMPDIR/a/tables.txt"
	grep -q 'before (z1b1)' "$BATS_TEST_TMPDIR/a/tables.txt"
	# one repeat: the verdicts say there is too little to compare
	# (per tx_queue_len, each metric named with it)
	rows "$BATS_TEST_TMPDIR/a/verdicts.csv" | grep -q '^pktgen_pps q64,stock_aa,1,.*undefined: fewer than 3 paired units,$'
	rows "$BATS_TEST_TMPDIR/a/verdicts.csv" | grep -q '^mean_batch q64,b8,1,'
}
