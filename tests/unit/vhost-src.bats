#!/usr/bin/env bats
# vhost_src (workload B's source): its parts' unit tests under ASan/UBSan,
# and its command line: bad options are refused before DPDK starts.

load helpers

setup() {
	BUILD=$BATS_TEST_TMPDIR/build
}

@test "pacing, frame and interval counters pass their unit tests" {
	run make -s -C "$VRB_ROOT/bench/vhost_src" BUILD="$BUILD" check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"vhost_src parts: 8 passed, 0 failed"* ]]
}

@test "vhost_src refuses bad options and a path that is not a socket" {
	run make -s -C "$VRB_ROOT/bench/vhost_src" BUILD="$BUILD" "$BUILD/vhost_src"
	[ "$status" -eq 0 ]
	run "$BUILD/vhost_src" --socket /tmp/x.sock --rate 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--rate must be an integer from 1 to 100000000, not '0'"* ]]
	run "$BUILD/vhost_src" --socket /tmp/x.sock --rate 10 --burst 257
	[ "$status" -eq 2 ]
	[[ "$output" == *"--burst must be an integer from 1 to 256"* ]]
	run "$BUILD/vhost_src" --socket /tmp/x.sock --rate 10 --dst-mac 1:2:3
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a MAC address"* ]]
	for v in -1 1024 x ''; do
		run "$BUILD/vhost_src" --socket /tmp/x.sock --rate 10 --lcore "$v"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--lcore must be an integer from 0 to 1023, not '$v'"* ]]
	done
	run "$BUILD/vhost_src" --rate 10
	[ "$status" -eq 2 ]
	[[ "$output" == *"--socket and --rate are required"* ]]
	touch "$BATS_TEST_TMPDIR/file"
	run "$BUILD/vhost_src" --socket "$BATS_TEST_TMPDIR/file" --rate 10
	[ "$status" -eq 1 ]
	[[ "$output" == *"exists and is not a socket"* ]]
	[ -f "$BATS_TEST_TMPDIR/file" ]
}

@test "run-b.sh refuses unknown settings and bad numbers before building anything" {
	export VRB_CACHE=$BATS_TEST_TMPDIR/cache
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --settings "stock bogus"
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown setting 'bogus'"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --settings mn65
	[[ "$output" == *"must be an integer from 0 to 64"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --ring 128
	[[ "$output" == *"--ring must be 256, 512 or 1024, not '128'"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --rings "256 2048"
	[[ "$output" == *"--ring must be 256, 512 or 1024, not '2048'"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --rings "256 512 1024"
	[ "$status" -eq 0 ]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --ndr-tolerance 100
	[ "$status" -ne 0 ]
	[[ "$output" == *"is not a percentage"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --guest-load 9
	[[ "$output" == *"--guest-load must be an integer from 0 to 8"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --ndr-steps x
	[[ "$output" == *"--ndr-steps must be an integer"* ]]
	for f in 2 0 0.0 1.1x .5; do
		run "$VRB_ROOT/bench/vhost_src/run-b.sh" --fractions "$f"
		[ "$status" -ne 0 ]
		[[ "$output" == *"--fractions: '$f' is not a number in (0, 2)"* ]]
	done
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --fractions "0.7 1 1.1"
	[ "$status" -eq 0 ]
	[ ! -e "$VRB_CACHE" ]
}
