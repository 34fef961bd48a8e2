#!/usr/bin/env bats
# shellcheck disable=SC2317 # the stand-ins for ethtool and vn_rx are called by the library
# bench/guest/virtio.sh reads rx queue 0's counters under both kernels'
# ethtool -S names: 6.1's rx_queue_0_NAME and 6.12's rx0_NAME.

setup() {
	# shellcheck source=bench/guest/virtio.sh
	. "$BATS_TEST_DIRNAME/../../bench/guest/virtio.sh"
	VN_IFACE=eth9
	vn_rx() { echo 11; }
}

# ethtool -S output of the patched 6.1 kernel (two queues)
ethtool_61() {
	printf '%s\n' 'NIC statistics:' '     rx_queue_0_packets: 5' '     rx_queue_0_drops: 0' \
		'     rx_queue_0_kicks: 3' '     rx_queue_0_refills: 7' '     rx_queue_0_refill_bufs: 70' \
		'     rx_queue_0_refill_oom: 1' '     rx_queue_0_starved_polls: 2' '     rx_queue_0_starvations: 1' \
		'     rx_queue_1_refills: 99' '     tx_queue_0_kicks: 8'
}

# ethtool -S output of the patched 6.12 kernel: totals first, no packets,
# no refill_oom (the queue's alloc-fail queue stat)
ethtool_612() {
	printf '%s\n' 'NIC statistics:' '     rx_drops: 0' '     rx_refills: 107' '     rx0_drops: 0' \
		'     rx0_kicks: 3' '     rx0_refills: 7' '     rx0_refill_bufs: 70' '     rx0_starved_polls: 2' \
		'     rx0_starvations: 1' '     rx10_refills: 100' '     tx0_kicks: 8'
}

@test "6.1 names: vn_counters reads queue 0's counters, not queue 1's or tx's" {
	ethtool() { ethtool_61; }
	run vn_counters
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' rx=11 packets=5 drops=0 kicks=3 refills=7 refill_bufs=70 refill_oom=1 starved_polls=2 starvations=1)" ]
	[ "$(vn_stat eth9 refills)" = 7 ]
	[ "$(vn_stat eth9 kicks)" = 3 ]
	[ "$(vn_stat eth9 packets)" = 5 ]
}

@test "6.12 names: vn_counters reads rx0_, not the totals or rx10_; absent counters are left out" {
	ethtool() { ethtool_612; }
	run vn_counters
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf '%s\n' rx=11 drops=0 kicks=3 refills=7 refill_bufs=70 starved_polls=2 starvations=1)" ]
	[ "$(vn_stat eth9 refills)" = 7 ]
	[ -z "$(vn_stat eth9 refill_oom)" ]
	[ -z "$(vn_stat eth9 alloc_fail)" ]
}

@test "the stock kernel: counters the series adds are empty" {
	ethtool() { printf '%s\n' 'NIC statistics:' '     rx_queue_0_packets: 5' '     rx_queue_0_kicks: 3'; }
	[ -z "$(vn_stat eth9 refills)" ]
	[ "$(vn_stat eth9 kicks)" = 3 ]
}
