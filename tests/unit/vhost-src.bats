#!/usr/bin/env bats
# vhost_src (workload B's source): its parts' unit tests under ASan/UBSan,
# and its command line: bad options are refused before DPDK starts.
# rx_window (the guest's reader of a block's counters): its arguments, and
# on a veth pair in a network namespace the frames of its window only.

load helpers

setup() {
	BUILD=$BATS_TEST_TMPDIR/build
}

@test "pacing, frame, interval counters, phases and counter names pass their unit tests" {
	run make -s -C "$VRB_ROOT/bench/vhost_src" BUILD="$BUILD" check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"vhost_src parts: 11 passed, 0 failed"* ]]
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
	for v in 0 10 x; do
		run "$VRB_ROOT/bench/vhost_src/run-b.sh" --capacity-trials "$v"
		[ "$status" -ne 0 ]
		[[ "$output" == *"--capacity-trials must be an integer from 1 to 9"* ]]
	done
	[ ! -e "$VRB_CACHE" ]
}

@test "rx_window refuses bad arguments before writing the phase" {
	run make -s -C "$VRB_ROOT/bench/vhost_src" BUILD="$BUILD" "$BUILD/rx_window"
	[ "$status" -eq 0 ]
	local ph=$BATS_TEST_TMPDIR/phase
	run "$BUILD/rx_window" --help
	[ "$status" -eq 0 ]
	[[ "$output" == "Usage: rx_window IFACE PHASE_FILE LABEL MS [NAME...]"* ]]
	run "$BUILD/rx_window" lo "$ph" 1:auto
	[ "$status" -eq 2 ]
	for ms in 9 3600001 x ''; do
		run "$BUILD/rx_window" lo "$ph" 1:auto "$ms"
		[ "$status" -eq 2 ]
		[[ "$output" == *"MS must be an integer from 10 to 3600000, not '$ms'"* ]]
	done
	for l in '' '1 auto' 'a,b' 012345678901234567890123456789012345678901234567; do
		run "$BUILD/rx_window" lo "$ph" "$l" 100
		[ "$status" -eq 2 ]
		[[ "$output" == *"LABEL '$l' is not 1-47 of"* ]]
	done
	run "$BUILD/rx_window" vrb-none0 "$ph" 1:auto 100
	[ "$status" -eq 1 ]
	[[ "$output" == *"vrb-none0: ETHTOOL_GDRVINFO: No such device"* ]]
	run "$BUILD/rx_window" ../lo "$ph" 1:auto 100
	[ "$status" -eq 1 ]
	[[ "$output" == *"'../lo' is not an interface name"* ]]
	[ ! -e "$ph" ]
}

@test "rx_window counts the frames of its window only, between its phase writes" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (a veth pair in a network namespace)"
	run make -s -C "$VRB_ROOT/bench/vhost_src" BUILD="$BUILD" "$BUILD/rx_window"
	[ "$status" -eq 0 ]
	# frames: N frames from vb to va (an unused EtherType: nothing answers)
	cat >"$BATS_TEST_TMPDIR/frames.py" <<-'EOF'
		import socket, sys
		s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
		s.bind(("vb", 0))
		for _ in range(int(sys.argv[1])):
		    s.send(b"\xff" * 6 + b"\x02" * 6 + b"\x88\xb5" + b"x" * 46)
	EOF
	cat >"$BATS_TEST_TMPDIR/window.sh" <<-'EOF'
		set -euo pipefail
		build=$1 t=$2
		mount -t sysfs none /sys
		sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
		ip link add va type veth peer name vb
		ip link set va up
		ip link set vb up
		/usr/bin/python3 "$t/frames.py" 7
		"$build/rx_window" va "$t/phase" 3:auto 2000 xdp_packets drops no_such >"$t/out" &
		pid=$!
		for _ in $(seq 100); do [ "$(cat "$t/phase" 2>/dev/null)" = 3:auto ] && break; sleep 0.05; done
		sleep 0.3
		/usr/bin/python3 "$t/frames.py" 50
		wait "$pid"
		/usr/bin/python3 "$t/frames.py" 5
		echo "after: $(cat /sys/class/net/va/statistics/rx_packets)"
	EOF
	run unshare -n -m bash "$BATS_TEST_TMPDIR/window.sh" "$BUILD" "$BATS_TEST_TMPDIR"
	echo "$output"
	cat "$BATS_TEST_TMPDIR/out"
	[ "$status" -eq 0 ]
	# the 7 before and the 5 after are outside; an absent name is left out
	[[ "$(cat "$BATS_TEST_TMPDIR/out")" =~ ^rx=50\ xdp_packets=0\ drops=0\ seconds=[0-9.]+\ write0_ms=[0-9.]+\ write1_ms=[0-9.]+$ ]]
	[[ "$output" == *"after: 62"* ]]
	[ "$(cat "$BATS_TEST_TMPDIR/phase")" = switch ]
	[ ! -e "$BATS_TEST_TMPDIR/phase.tmp" ]
}
