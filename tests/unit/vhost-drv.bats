#!/usr/bin/env bats
# vhost_drv (workload A's userspace vhost-net driver): its ring logic and
# frame matching under ASan/UBSan and TSan, its command line, and run-a.sh's
# checks: bad options are refused before anything is built or opened.

load helpers

setup() {
	BUILD=$BATS_TEST_TMPDIR/build
}

@test "vring driver side and pktgen frame matching pass their unit tests (ASan/UBSan, TSan)" {
	run make -s -C "$VRB_ROOT/bench/vhost_drv" BUILD="$BUILD" check
	echo "$output"
	[ "$status" -eq 0 ]
	# both builds ran every test
	[ "$(grep -c 'vhost_drv parts: 7 passed, 0 failed' <<<"$output")" -eq 2 ]
}

@test "vhost_drv refuses bad options; without /dev/vhost-net it says so and leaves no tap" {
	run make -s -C "$VRB_ROOT/bench/vhost_drv" BUILD="$BUILD" "$BUILD/vhost_drv"
	[ "$status" -eq 0 ]
	run "$BUILD/vhost_drv" --ring 100
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ring must be a power of 2, not 100"* ]]
	run "$BUILD/vhost_drv" --ring 65536
	[[ "$output" == *"--ring must be an integer from 2 to 32768"* ]]
	run "$BUILD/vhost_drv" --mode fast
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown --mode 'fast' (poll, event, paced)"* ]]
	run "$BUILD/vhost_drv" --rate 1000
	[[ "$output" == *"--rate goes with --mode paced"* ]]
	run "$BUILD/vhost_drv" --mode paced
	[[ "$output" == *"--rate goes with --mode paced"* ]]
	run "$BUILD/vhost_drv" --txqlen -1
	[[ "$output" == *"--txqlen must be an integer from 1 to 65536"* ]]
	for v in 0 257 -1 64abc ''; do
		run "$BUILD/vhost_drv" --rx-batch "$v"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--rx-batch must be an integer from 1 to 256, not '$v'"* ]]
	done
	for v in -1 1000001 x ''; do
		run "$BUILD/vhost_drv" --work "$v"
		[ "$status" -ne 0 ]
		[[ "$output" == *"--work must be an integer from 0 to 1000000, not '$v'"* ]]
	done
	for o in --reset-every --rx-batch-churn; do
		for v in 0 60001 -1 5ms ''; do
			run "$BUILD/vhost_drv" "$o" "$v"
			[ "$status" -eq 2 ]
			[[ "$output" == *"$o must be an integer from 1 to 60000, not '$v'"* ]]
		done
	done
	run "$BUILD/vhost_drv" extra
	[[ "$output" == *"unexpected argument 'extra'"* ]]
	if [ ! -e /dev/vhost-net ]; then
		run "$BUILD/vhost_drv" --tap vrbtest0
		[ "$status" -eq 1 ]
		[[ "$output" == *"/dev/vhost-net: No such file or directory (CONFIG_VHOST_NET"* ]]
		[ ! -e /sys/class/net/vrbtest0 ]
	fi
}

@test "tap_read refuses bad options; without /dev/net/tun it says so" {
	run make -s -C "$VRB_ROOT/bench/vhost_drv" BUILD="$BUILD" "$BUILD/tap_read"
	[ "$status" -eq 0 ]
	run "$BUILD/tap_read" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--backpressure"* ]]
	for v in -1 1000001 x ''; do
		run "$BUILD/tap_read" --work "$v"
		[ "$status" -eq 2 ]
		[[ "$output" == *"--work must be an integer from 0 to 1000000, not '$v'"* ]]
	done
	for o in --pause-every --pause-for; do
		for v in 0 60001 5ms; do
			run "$BUILD/tap_read" "$o" "$v"
			[ "$status" -eq 2 ]
			[[ "$output" == *"$o must be an integer from 1 to 60000, not '$v'"* ]]
		done
	done
	run "$BUILD/tap_read" --txqlen 0
	[[ "$output" == *"--txqlen must be an integer from 1 to 65536, not '0'"* ]]
	run "$BUILD/tap_read" extra
	[ "$status" -eq 2 ]
	[[ "$output" == *"unexpected argument 'extra'"* ]]
	if [ ! -e /dev/net/tun ]; then
		run "$BUILD/tap_read" --tap vrbtest1
		[ "$status" -eq 1 ]
		[[ "$output" == *"/dev/net/tun: No such file or directory"* ]]
	fi
}

@test "run-a.sh refuses unknown settings and bad numbers before building anything" {
	export VRB_CACHE=$BATS_TEST_TMPDIR/cache
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --settings "stock bogus"
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown setting 'bogus' (stock, patched, bN, zZbN, zqbN, bpbN, bp, each also as NAME_aa)"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --settings bpb0
	[[ "$output" == *"setting bpb0 must be an integer from 1 to 256"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --consumer read --settings "stock b64"
	[[ "$output" == *"setting b64 sets a vhost-net or zeroing knob: --consumer read takes stock, patched and bp"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --consumer tcp
	[[ "$output" == *"--consumer must be vhost or read, not 'tcp'"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --consumer read --settings "stock patched bp" --ref patched --check-args
	[ "$status" -eq 0 ]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --settings b257
	[[ "$output" == *"setting b257 must be an integer from 1 to 256"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --settings z0b64
	[[ "$output" == *"setting z0b64: zeroing batch must be an integer from 1 to 256"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --txqlens "64 0"
	[[ "$output" == *"--txqlens must be an integer from 1 to 65536, not '0'"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --ring 300
	[[ "$output" == *"--ring must be a power of 2"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --mode paced
	[[ "$output" == *"--mode must be poll, event or paced:PPS"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --mode paced:0
	[[ "$output" == *"--mode paced:PPS must be an integer from 1"* ]]
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --size 59
	[[ "$output" == *"--size must be an integer from 60 to 1514"* ]]
	[ ! -e "$VRB_CACHE" ]
}
