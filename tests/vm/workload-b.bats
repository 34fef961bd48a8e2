#!/usr/bin/env bats
# Workload B end to end, short: vhost_src floods the guest's virtio-net over
# vhost-user; every frame the source counts as delivered reached the guest's
# rx counters, offered = delivered + dropped, and when the guest stops
# refilling (interface down) the source counts drops; the paired design
# switches the setting between blocks of one flood, and every block is
# accounted for.

load vm_helpers

setup_file() {
	build_kernels
}

setup() {
	real_workspace
}

@test "frames reach the guest: delivered = guest rx packets, offered = delivered + dropped" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --design boots --settings "stock auto" --no-aa --rates 5000 --repeats 1 \
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

@test "capacity: the median of its trials, kept in capacity.csv; the rates are fractions of it" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --design boots --settings auto --no-aa --fractions 0.5 --probe-rate 5000 \
		--capacity-trials 3 --repeats 1 --duration 2 --rings 256 --ndr-steps 0 --out "$BATS_TEST_TMPDIR/b"
	echo "$output"
	[ "$status" -eq 0 ]
	local d=$BATS_TEST_TMPDIR/b cap med
	[ "$(rows "$d/capacity.csv" | wc -l)" -eq 3 ]
	rows "$d/capacity.csv" | cut -d, -f1-3,5,15 | sort | tr '\n' ' ' | grep -qx '1,stock,stock,5000,256 2,stock,stock,5000,256 3,stock,stock,5000,256 '
	med=$(rows "$d/capacity.csv" | cut -d, -f10 | sort -n | sed -n 2p)
	cap=$(sed -n 's/^# capacity_pps: //p' "$d/trials.csv")
	echo "capacity $cap, trials $(rows "$d/capacity.csv" | cut -d, -f10 | tr '\n' ' ')"
	[ "$cap" -eq "$med" ]
	grep -q "^# capacity_trials_pps: $(rows "$d/capacity.csv" | cut -d, -f10 | tr '\n' ' ' | sed 's/ $//') (stock trials at ring 256 and 5000 pps offered; the median taken; capacity.csv)\$" "$d/trials.csv"
	grep -q '^# fractions_of_capacity: 0.5$' "$d/trials.csv"
	grep -q '^# design: capacity trials (stock; 5000 pps offered; one boot each; 2 s each)$' "$d/capacity.csv"
	[ "$(rows "$d/trials.csv" | cut -d, -f5)" -eq $((cap / 2)) ]
}

@test "a guest that stops refilling: the source counts the drops" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --design boots --settings auto --no-aa --rates 5000 --repeats 1 \
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
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --design boots --settings stock --no-aa --rates 3000 --repeats 1 --duration 2 \
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
	grep -q '^rx_queue_size 256, 3000 pps offered' "$d/tables.txt"
	grep -q '^Zero-loss rate' "$d/tables.txt"
}

@test "paired: one flood per boot, the setting switched per block (ABBA), every block accounted for" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --settings "stock auto legacy" --rates 30000 --rings 256 \
		--repeats 1 --rounds 2 --block 3 --settle 1 --out "$BATS_TEST_TMPDIR/b"
	echo "$output"
	[ "$status" -eq 0 ]
	local d=$BATS_TEST_TMPDIR/b
	grep -q '^# design: paired$' "$d/blocks.csv"
	grep -q '^# aa_arm: auto_aa$' "$d/blocks.csv"
	grep -q '^# host_cpus: QEMU (all threads) on ' "$d/blocks.csv"
	# 2 rounds: auto, legacy and auto_aa (the A/A arm) on the patched kernel;
	# stock in its own boot, as many blocks (the same schedule)
	[ "$(rows "$d/blocks.csv" | wc -l)" -eq 12 ]
	[ "$(rows "$d/blocks.csv" | grep -c ',patched,')" -eq 6 ]
	[ "$(rows "$d/blocks.csv" | grep -c ',stock,2,')" -eq 3 ]
	# ABBA: the patched boot's round 2 runs round 1's order backwards
	r1=$(rows "$d/blocks.csv" | awk -F, '$2 == "patched" && $3 == 1 { printf "%s ", $5 }')
	r2=$(rows "$d/blocks.csv" | awk -F, '$2 == "patched" && $3 == 2 { s = $5 " " s } END { printf "%s", s }')
	echo "round 1: $r1; round 2 reversed: $r2"
	[ "$r1" = "$r2" ]
	# repeat,kernel,round,block,setting,knobs,rate,ring,intervals,offered,delivered,dropped,drop_pct,
	# guest_rx,refills,refill_bufs,starved_polls,starvations,refill_oom,guest_seconds,host_load1
	while IFS=, read -r _ kernel _ b setting _ _ _ ivs offered delivered dropped _ grx refills _; do
		echo "block $b $setting ($kernel): $ivs intervals, offered $offered delivered $delivered dropped $dropped guest rx $grx refills $refills"
		[ "$ivs" -ge 1 ]
		[ "$offered" -gt 0 ]
		[ "$offered" -eq $((delivered + dropped)) ]
		[ "$grx" -gt 0 ]
		# vhost_src stamped the block's intervals with what the guest wrote
		grep -q ",$b:$setting,256\$" "$d/intervals.csv"
		if [ "$kernel" = patched ]; then [ "$refills" -gt 0 ]; fi
	done < <(rows "$d/blocks.csv")
	# the flood ended when the guest said so, not at its time bound
	grep -q 'the guest said end' "$d"/trials/r1-patched-256-30000/source.log
	# the mechanism: legacy refills less often than auto, in the same boot
	# (the verdicts per cell, each metric named with its cell)
	rows "$d/verdicts.csv" | grep -q '^refills_per_1000 r256 30000,legacy,1,'
	rows "$d/verdicts.csv" | grep -q '^drop_pct r256 30000,auto_aa,1,.*,undefined: fewer than 3 paired units,$'
	rows "$d/verdicts.csv" | grep -q '^drop_pct:boots r256 30000,stock,1,.*,undefined: fewer than 3 paired units,$'
	awk -F, '$5 == "auto" && $2 == "patched" { a += $15; ga += $14 } $5 == "legacy" { l += $15; gl += $14 }
		END { printf "refills per 1000: auto %.1f legacy %.1f\n", 1000 * a / ga, 1000 * l / gl; exit !(l / gl < a / ga) }' \
		<(rows "$d/blocks.csv")
	grep -q '^Against auto, paired by boot' "$d/tables.txt"
	# the windows match: block_s, the seconds of the block's rows on the
	# source's clock, is the window rx_window waited (3 - 1 s), and the
	# guest's counters saw the frames the source delivered in it, but for
	# those in the ring at either end and a counter read's time (5 %); the
	# settle's rows, "switch", belong to no block (with the counters read
	# by ethtool -S from the shell the guest saw 65-91 % per run)
	grep -q '^# windows: matched' "$d/blocks.csv"
	grep -q '^# fractions_of_capacity: -$' "$d/blocks.csv"
	grep -q '^# capacity_trials_pps: -$' "$d/blocks.csv"
	[ ! -e "$d/capacity.csv" ]
	grep -m 1 -v '^#' "$d/blocks.csv" | grep -q ',host_load1,block_s$'
	rows "$d/blocks.csv" | awk -F, '!($22 >= 1.9 && $22 <= 2.5 && $11 > 0 && ($14 - $11 <= 256 + $11 / 20) && ($11 - $14 <= 256 + $11 / 20)) {
		print "block " $4 ": block_s " $22 ", delivered " $11 ", guest rx " $14; bad = 1 } END { exit bad }'
	grep -q ',switch,256$' "$d/intervals.csv"
	# the summary says what each side counted
	grep -q '^- Windows: matched (rx_window): a block.s rows lasted [0-9.]* s on the source.s clock' "$d/summary.md"
}
