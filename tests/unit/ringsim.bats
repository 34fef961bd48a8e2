#!/usr/bin/env bats
# ringsim (bench/ringsim/: the model of one virtio-net rx queue): its unit
# tests under ASan/UBSan, and its command line: bad options are refused with
# a message and exit status 2, and a run prints its totals.

load helpers

setup() {
	BUILD=$BATS_TEST_TMPDIR/build
}

@test "the rx ring model passes its unit tests (ASan/UBSan)" {
	run make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BUILD" check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ringsim: 7 passed, 0 failed"* ]]
}

@test "ringsim refuses bad options and prints a run's totals" {
	run make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BUILD" "$BUILD/ringsim"
	[ "$status" -eq 0 ]
	run "$BUILD/ringsim" --rate 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--rate must be an integer from 1 to 1000000000, not '0'"* ]]
	for v in 65 -1 '' x ' 1' 1x; do
		run "$BUILD/ringsim" --rule "$v"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--rule must be auto, legacy or 0-64, not '$v'"* ]]
	done
	run "$BUILD/ringsim" --ring 32769
	[ "$status" -eq 2 ]
	run "$BUILD/ringsim" --stall-ns -5
	[ "$status" -eq 2 ]
	[[ "$output" == *"--stall-ns must be a number from 0 to 1e+10, not '-5'"* ]]
	run "$BUILD/ringsim" --rule 64 --budget 32
	[ "$status" -eq 2 ]
	[[ "$output" == *"min_numfree must not exceed the budget"* ]]
	run "$BUILD/ringsim" extra
	[ "$status" -eq 2 ]
	[[ "$output" == *"unexpected argument 'extra'"* ]]
	run "$BUILD/ringsim" --rule legacy --rate 1000 --duration-ms 1000
	echo "$output"
	[ "$status" -eq 0 ]
	# 1000 frames, one per poll: a legacy refill per 129 frames
	[[ "$output" == *"rule=legacy "*" offered=1000 delivered=1000 dropped=0 "*" refills=7 refill_bufs=903 "* ]]
	[[ "$output" == *" violations=0" ]]
}
