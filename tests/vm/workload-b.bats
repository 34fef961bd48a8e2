#!/usr/bin/env bats
# Workload B end to end, short: vhost_src floods the guest's virtio-net over
# vhost-user; every frame the source counts as delivered reached the guest's
# rx counters, offered = delivered + dropped, and when the guest stops
# refilling (interface down) the source counts drops.

load vm_helpers

setup_file() {
	build_kernels
}

setup() {
	real_workspace
}

@test "frames reach the guest: delivered = guest rx packets, offered = delivered + dropped" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --settings "stock auto" --rates 5000 --repeats 1 \
		--duration 2 --rings 256 --ndr-steps 0 --out "$BATS_TEST_TMPDIR/b"
	echo "$output"
	[ "$status" -eq 0 ]
	csv=$BATS_TEST_TMPDIR/b/trials.csv
	grep -q '^# accel: ' "$csv"
	[ "$(rows "$csv" | wc -l)" -eq 2 ]
	# repeat,setting,kernel,knobs,rate,offered,delivered,dropped,drop_pct,pps,guest_rx,...
	while IFS=, read -r _ setting _ _ _ offered delivered dropped _ _ guest_rx _; do
		echo "$setting: offered $offered delivered $delivered dropped $dropped guest $guest_rx"
		[ "$delivered" -gt 0 ]
		[ "$offered" -eq $((delivered + dropped)) ]
		[ "$delivered" -eq "$guest_rx" ]
	done < <(rows "$csv")
	[ "$(rows "$BATS_TEST_TMPDIR/b/intervals.csv" | wc -l)" -ge 4 ]
	rows "$BATS_TEST_TMPDIR/b/summary.csv" | grep -q '^stock,256,5000,1,'
}

@test "a guest that stops refilling: the source counts the drops" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --settings auto --rates 5000 --repeats 1 \
		--duration 5 --down-after 1 --rings 256 --ndr-steps 0 --out "$BATS_TEST_TMPDIR/b"
	echo "$output"
	[ "$status" -eq 0 ]
	IFS=, read -r _ _ _ _ _ offered delivered dropped _ _ guest_rx _ < <(rows "$BATS_TEST_TMPDIR/b/trials.csv")
	echo "offered $offered delivered $delivered dropped $dropped guest $guest_rx"
	[ "$offered" -eq $((delivered + dropped)) ]
	# down after a second's worth of frames, of 5: a good part of the flood finds no buffer
	[ "$dropped" -gt $((offered / 5)) ]
	# what the device filled after the guest stopped: at most the ring (256)
	[ "$delivered" -ge "$guest_rx" ]
	[ $((delivered - guest_rx)) -le 256 ]
}

@test "zero-loss search: halves the range per step, reports the highest passing rate; guest load runs" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --settings stock --rates 3000 --repeats 1 --duration 2 \
		--rings 256 --guest-load 1 --ndr-steps 2 --ndr-max 8000 --ndr-tolerance 0.5 --out "$BATS_TEST_TMPDIR/b"
	echo "$output"
	[ "$status" -eq 0 ]
	local d=$BATS_TEST_TMPDIR/b pass=0 lo=0 hi=8000 rate pct
	# the guest ran the busy loop and the rows say so
	grep -q '^guest_load=1$' "$d"/trials/r1-stock-256-3000/guest.log
	[ "$(rows "$d/trials.csv" | cut -d, -f16)" = 1 ]
	# step 1 at 4000; step 2 at 2000 or 6000 depending on step 1; the result
	# is the highest passing rate
	[ "$(rows "$d/ndr_trials.csv" | wc -l)" -eq 2 ]
	[ "$(rows "$d/ndr_trials.csv" | head -n 1 | cut -d, -f5)" -eq 4000 ]
	while IFS=, read -r rate pct; do
		[ "$rate" -eq $(((lo + hi) / 2)) ]
		if awk -v p="$pct" 'BEGIN { exit !(p <= 0.5) }'; then lo=$rate pass=$rate; else hi=$rate; fi
	done < <(rows "$d/ndr_trials.csv" | cut -d, -f5,9)
	rows "$d/ndr.csv"
	[ "$(rows "$d/ndr.csv")" = "1,stock,256,$pass,$hi,0.5,2,8000" ]
	grep -q '^Seed 003 table: rx_queue_size 256, 3000 pps offered' "$d/tables.txt"
	grep -q '^Zero-loss rate' "$d/tables.txt"
}
