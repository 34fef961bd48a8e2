# shellcheck shell=bash
# The benchmark profiles of ./run-bench.sh, in one place: each is a list of
# steps, "step MINUTES WORKLOAD OPTIONS...", run in order; MINUTES is the
# step's expected wall time on a 2-core TCG host once the kernels are built
# (the progress line's estimate of what is left), OPTIONS go to the
# workload's script (bench/*/run-*.sh, sweep.sh; their --help).
#
# quick: every workload and its A/A arm, few settings, and a small
# zero-loss search: about 45 minutes (the sum of its steps). Six repeats
# (units) where it can: below 6 a verdict only says that every unit agreed
# (bench/stats). full: the tables of the threads the series comes from:
# the 2017 rx batch sweep ("ptr_ring: add ptr_ring_unconsume"), the 2017
# zeroing batches x tx_queue_len ("ptr_ring: batch ring zeroing"), the
# 2019 refill rules ("virtio-net: parameterize min ring num_free") x
# 0.7/0.9/1.1 of capacity x ring 256/512/1024 with a zero-loss search per
# rule and ring, then the 2019 table in virtual time (workload C) and the
# adaptive rules there and in B: about 13 hours, in steps of at most 90 minutes but two of C's (--steps runs some of
# them: a full run can be made in parts).

# shellcheck disable=SC2034 # used by run-bench.sh
PROFILES="quick full"

profile_quick() {
	step 2 boot
	step 3 ptr_ring --sizes "16 64 256" --zbatches "0 1 4 16" --cbatches 1 --modes drop --work 0 --repeats 6 --items 20000000
	step 9 A --settings "stock b1 b16 b64 z1b64 zqb64" --txqlens 500 --repeats 6 --count 20000
	# B: a unit is a boot; one pair of rounds each (about 100 s a boot of
	# 5 arms, results/20261206T055950Z-B-6.1, the confirmatory run)
	step 20 B --settings "stock auto legacy mn16" --fractions "0.9" --rings 256 --repeats 6 --rounds 2 --block 4
	step 5 B --design boots --settings "auto legacy" --rings 256 --fractions "0.9" --repeats 1 --duration 2 \
		--ndr-steps 3
	step 6 C --settings "stock auto legacy" --rings 256 --rates "0.9 1.1" --stalls "none exp:200:100" \
		--seeds 6 --frames 20000
}

profile_full() {
	step 2 boot --repeats 3
	# the 2017 zeroing question in userspace: ring size x zeroing batch, in drop
	# mode (tun's), consumer batch 1 and 64 (vhost-net's), with and without
	# consumer work, and the A/A arm: 1008 runs of 20M items (498 s on
	# 2026-12-01, results/20261201T151604Z-ptr_ring: its A/A intervals span
	# 0.24-3.94, so this host cannot resolve the question). The sweep's
	# whole default grid (4400 runs) does not fit a step: at 20M items the
	# spin-mode half alone took 1.3 s a run; at 4M items it took 1010 s but
	# was too noisy to use: same-code points read 0.60-2.03x
	# (results/20261201T115735Z-ptr_ring)
	step 9 ptr_ring --sizes "16 64 1024" --zbatches "0 1 4 16 64" --cbatches "1 64" --modes drop \
		--work "0 50" --repeats 6 --items 20000000
	# the 2017 rx batch sweep: vhost-net rx batch -> pps
	step 15 A --settings "stock b1 b2 b4 b8 b16 b32 b64 b128 b256" --txqlens 500 --repeats 5 --count 30000
	# the 2017 zeroing table: zeroing batch (stock rule, 1, 4, 16, a quarter of the ring) x tx_queue_len
	step 30 A --settings "stock b64 z1b64 z4b64 z16b64 zqb64" --txqlens "16 64 500 1000" --repeats 5 --count 30000
	# the 2019 table: refill rules x load, one step per ring (paired), then the
	# zero-loss rate per rule and ring. A unit is a boot: 5 per kernel and
	# cell, one pair of rounds each (7 would balance the carry-over of the
	# 7 patched arms, order_note says so in the log, but take about 100 min)
	local ring
	for ring in 256 512 1024; do
		step 90 B --settings "stock auto legacy mn8 mn16 mn64 cap64" --fractions "0.7 0.9 1.1" \
			--rings "$ring" --repeats 5 --rounds 2 --block 4
	done
	# (step 8: 40 min in its first run, results/20261201T231725Z-B)
	step 45 B --design boots --settings "stock auto legacy mn8 mn16 mn64 cap64" --rings "256 512 1024" \
		--fractions "0.9" --repeats 1 --duration 3 --ndr-steps 5
	# the 2019 table in virtual time (workload C): refill rules x 0.7-1.1
	# of capacity x stall regime (none, exponential, and the stalls a TCG
	# guest had under workload B: bench/vdpa_gen/stall-tables/tcg-b.txt at
	# the 252 per second of busy time measured there), 20 seeds per cell,
	# one step for ring 256, two for ring 1024, each with one probed trial
	# per cell and setting. The ring-256 step took 96 min on 2026-12-03
	# (results/20261203T072602Z-C: over the 90 of the other steps), the
	# ring-1024 step at 1.0 and 1.1x 47 min (results/20261203T104016Z-C,
	# 3.2 s a trial with the boot's share; an earlier estimate of 4.6 s came
	# from a stopped run's first boot)
	local rates min
	for rates in "0.7 0.9 1.0 1.1" "0.7 0.9" "1.0 1.1"; do
		ring=1024 min=50
		[ "$rates" != "0.7 0.9 1.0 1.1" ] || ring=256 min=100
		step "$min" C --settings "stock auto legacy mn16 mn64" --rings "$ring" --rates "$rates" \
			--stalls "none exp:200:100 table:tcg-b:252" --seeds 20 --frames 20000
	done
	# At and above capacity a trial counted from start to end takes as
	# drops the buffers a rule holds back when it ends (docs/workload-c.md,
	# "The end of a trial"): those cells again, counted in a steady-state
	# window (a warm-up past the full ring's drain, window ends spread over
	# a refill cycle). Estimated from results/20261203T151712Z-C (3.75 s a
	# trial with the boot's share), plus the cost pass.
	step 95 C --settings "stock auto legacy mn16 mn64" --rings "256 1024" --rates "1.0 1.1" \
		--stalls "none exp:200:100 table:tcg-b:252" --seeds 20 --frames 36000 --warmup 15000 --phase 1024
	# min_numfree=adaptive (bench/0006: legacy's threshold after a poll that
	# used its budget, auto's otherwise) against auto, legacy and 64 from
	# just below capacity to above it, without stalls and with a TCG
	# guest's, counted in the window; 8 seeds, no cost pass (3.6 s a
	# trial, results/20261204T183117Z-C)
	step 35 C --settings "auto legacy adaptive mn64" --rings "256 1024" --rates "0.9 1.0 1.1" \
		--stalls "none table:tcg-b:252" --seeds 8 --frames 36000 --warmup 15000 --phase 1024 --no-costs
	# min_numfree=adaptive-dry (bench/0007: adaptive, but auto's threshold
	# after a busy poll that began dry) against adaptive, auto and legacy
	# from 0.7x capacity up, with the cost pass (27 min,
	# results/20261205T004054Z-C)
	step 30 C --settings "auto adaptive adaptive-dry legacy" --rings "256 1024" \
		--rates "0.7 0.9 1.0 1.1" --stalls "none table:tcg-b:252" --seeds 8 --frames 36000 \
		--warmup 15000 --phase 1024
	# both adaptive rules in real time, paired with the A/A arm (29 min a
	# run of four arms in 16 boots of 4 rounds, results/20261205T000758Z-B;
	# 20 boots of 2 rounds here, a unit a boot: 5 pairs per cell for 5
	# arms, the carry-over balanced)
	step 45 B --settings "auto adaptive adaptive-dry legacy" --rings "256 1024" --fractions "0.9 1.1" \
		--repeats 5 --rounds 2 --block 4
}
