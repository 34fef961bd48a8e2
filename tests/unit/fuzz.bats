#!/usr/bin/env bats
# The fuzzer's parts that need no guest: tunfuzz's seeded log (the same seed
# gives the same operations, every line replays as itself, bad lines and
# options are refused), the accounting oracle's judgement, the failure
# signatures, the minimiser (ddmin, with
# a tester that knows which operations matter) and scripts/fuzz.sh's
# option checks. Nothing here runs an operation: that needs a guest
# (tests/vm/fuzz.bats).

load helpers

setup() {
	BUILD=$BATS_TEST_TMPDIR/build
	make -s -C "$VRB_ROOT/tests/fuzz" BUILD="$BUILD" >/dev/null
	FZ=$BUILD/tunfuzz
}

# ops FILE: the operation lines of a tunfuzz log.
ops() { sed -n 's/^op [0-9]*: //p' "$1"; }

@test "tunfuzz: a seed's log is the same every time, another seed's differs" {
	"$FZ" --seed 7 --ops 500 --print-only >"$BATS_TEST_TMPDIR/a"
	"$FZ" --seed 7 --ops 500 --print-only >"$BATS_TEST_TMPDIR/b"
	"$FZ" --seed 8 --ops 500 --print-only >"$BATS_TEST_TMPDIR/c"
	cmp "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/b"
	run cmp -s "$BATS_TEST_TMPDIR/a" "$BATS_TEST_TMPDIR/c"
	[ "$status" -ne 0 ]
	[ "$(ops "$BATS_TEST_TMPDIR/a" | wc -l)" -eq 500 ]
	[ "$(head -n 1 "$BATS_TEST_TMPDIR/a")" = "seed 7 ops 500" ]
	# every operation of the table is drawn in 5000
	"$FZ" --seed 1 --ops 5000 --print-only >"$BATS_TEST_TMPDIR/d"
	[ "$(ops "$BATS_TEST_TMPDIR/d" | cut -d' ' -f1 | sort -u | wc -l)" -eq \
		"$("$FZ" --help | grep -c '^  [a-z]')" ]
}

@test "tunfuzz: every line of a log replays as itself; comments and blank lines are skipped" {
	"$FZ" --seed 3 --ops 3000 --print-only | ops /dev/stdin >"$BATS_TEST_TMPDIR/log.ops"
	{ echo '# a reproducer'; echo; cat "$BATS_TEST_TMPDIR/log.ops"; } >"$BATS_TEST_TMPDIR/with-comments.ops"
	run "$FZ" --replay "$BATS_TEST_TMPDIR/with-comments.ops" --print-only
	[ "$status" -eq 0 ]
	diff <(ops <(echo "$output")) "$BATS_TEST_TMPDIR/log.ops"
	# tabs between the numbers, a CRLF file, no newline at the end: the same operations
	printf 'open\t1 0\t0 1\r\nlink 0 1\r\n\ttxqlen 0 0 \r\nsend 0 2' >"$BATS_TEST_TMPDIR/crlf.ops"
	run "$FZ" --replay "$BATS_TEST_TMPDIR/crlf.ops" --print-only
	[ "$status" -eq 0 ]
	[ "$(ops <(echo "$output") | tr '\n' ,)" = "open 1 0 0 1,link 0 1,txqlen 0 0,send 0 2," ]
}

@test "tunfuzz: a line that is not an operation is refused with its file and line" {
	local bad
	for bad in 'open 4 0 0 0' 'open 0 0 0' 'open 0 0 0 0 0' 'txqlen 0 4097' 'send 0 -1' \
		'qdisc 0 4 0' 'knob 0 20' 'frob 1' 'read 0 1x' 'link 0 2' 'link0 1' 'openopenopenopenopen 0 0 0 0'; do
		printf 'close 0\n%s\n' "$bad" >"$BATS_TEST_TMPDIR/bad.ops"
		run "$FZ" --replay "$BATS_TEST_TMPDIR/bad.ops" --print-only
		echo "$bad: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"bad.ops:2: not an operation: $bad"* ]]
	done
	run "$FZ" --replay "$BATS_TEST_TMPDIR/none.ops" --print-only
	[ "$status" -eq 2 ]
	[[ "$output" == *"none.ops: No such file or directory"* ]]
	# a directory opens but does not read
	run "$FZ" --replay "$BATS_TEST_TMPDIR" --print-only
	[ "$status" -eq 2 ]
	[[ "$output" == *"$BATS_TEST_TMPDIR: Is a directory"* ]]
	# a NUL byte, a CR inside a line, a line that does not start with a name
	printf 'open 0 0 0 0\0garbage\n' >"$BATS_TEST_TMPDIR/nul.ops"
	run "$FZ" --replay "$BATS_TEST_TMPDIR/nul.ops" --print-only
	[ "$status" -eq 2 ]
	[[ "$output" == *"nul.ops:1: a NUL byte in the line"* ]]
	for bad in 'open 0 0 0 0\rgarbage' '\fopen 0 0 0 0' 'open 0 0 0 0\v'; do
		printf '%b\n' "$bad" >"$BATS_TEST_TMPDIR/ctl.ops"
		run "$FZ" --replay "$BATS_TEST_TMPDIR/ctl.ops" --print-only
		[ "$status" -eq 2 ]
		[[ "$output" == *"ctl.ops:1: not an operation"* ]]
	done
}

@test "tunfuzz: bad options are refused with exit status 2" {
	run "$FZ"
	[ "$status" -eq 2 ]
	run "$FZ" --seed 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"--seed and --ops, or --replay FILE"* ]]
	run "$FZ" --seed 1 --ops 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--ops must be an integer from 1 to 100000000, not '0'"* ]]
	run "$FZ" --seed x --ops 1
	[ "$status" -eq 2 ]
	run "$FZ" --replay f --seed 1
	[ "$status" -eq 2 ]
	run "$FZ" --replay f --replay g
	[ "$status" -eq 2 ]
	[[ "$output" == *"one --replay FILE"* ]]
	run "$FZ" --seed ' -1' --ops 1 --print-only
	[ "$status" -eq 2 ]
	# a log that cannot be written is no pass
	run bash -c '"$1" --seed 1 --ops 100 --print-only >/dev/full' _ "$FZ"
	[ "$status" -eq 2 ]
	run "$FZ" --seed 1 --ops 1 extra
	[ "$status" -eq 2 ]
	run "$FZ" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"Operations (SLOT 0-3, DEV 0-1"* ]]
}

@test "the accounting oracle fails a lost frame, a frame counted twice, a stopped queue and a ring drop under backpressure (ASan/UBSan)" {
	run make -s -C "$VRB_ROOT/tests/fuzz" BUILD="$BUILD" check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"account: 8 passed, 0 failed"* ]]
}

@test "fuzz_signature: the same failure at other addresses and times has one signature" {
	load_libs
	. "$VRB_ROOT/lib/fuzz.sh"
	local a b
	a=$(fuzz_signature '[   12.345678] BUG: kernel NULL pointer dereference, address: 0000000000000010')
	b=$(fuzz_signature '[  301.000001] BUG: kernel NULL pointer dereference, address: 0000000000000010')
	[ "$a" = "$b" ]
	[ "$a" = "BUG: kernel NULL pointer dereference, address: X" ]
	# a console line (its timestamp after a prefix, or two of them)
	[ "$(fuzz_signature 'fail seed-1: [ 7.250000] [    7.250001] BUG: kernel NULL pointer dereference, address: 0000000000000010')" = \
		"fail seed-1: BUG: kernel NULL pointer dereference, address: X" ]
	# other CPUs, PIDs, offsets: the same WARN, hung task, atomic sleep
	[ "$(fuzz_signature '[ 1.0] WARNING: CPU: 0 PID: 81 at net/core/dev.c:123 f+0x1c/0x90')" = \
		"$(fuzz_signature '[ 9.5] WARNING: CPU: 1 PID: 4711 at net/core/dev.c:123 f+0x2c/0x90')" ]
	[ "$(fuzz_signature '[ 9.5] WARNING: CPU: 1 PID: 4711 at net/core/dev.c:123 f+0x2c/0x90')" = \
		"WARNING: CPU: N PID: N at net/core/dev.c:N f" ]
	[ "$(fuzz_signature 'INFO: task tunfuzz:81 blocked for more than 120 seconds.')" = \
		"$(fuzz_signature 'INFO: task tunfuzz:4711 blocked for more than 120 seconds.')" ]
	[ "$(fuzz_signature 'BUG: scheduling while atomic: tunfuzz/81/0x00000002')" = \
		"$(fuzz_signature 'BUG: scheduling while atomic: tunfuzz/4711/0x00000102')" ]
	# a hang or a lockup of another length, on another CPU, in a kworker
	[ "$(fuzz_signature 'INFO: task kworker/0:1:123 blocked for more than 122 seconds.')" = \
		"$(fuzz_signature 'INFO: task kworker/1:2:9 blocked for more than 245 seconds.')" ]
	[ "$(fuzz_signature 'watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [tunfuzz:1]')" = \
		"$(fuzz_signature 'watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [tunfuzz:2]')" ]
	# another function is another failure
	[ "$(fuzz_signature 'WARNING: CPU: 0 PID: 81 at net/core/dev.c:123 f+0x1c/0x90')" != \
		"$(fuzz_signature 'WARNING: CPU: 0 PID: 81 at net/core/dev.c:123 g+0x1c/0x90')" ]
	[ "$(fuzz_signature 'FAIL: accounting: fz0 took 64 frames, 63 are read or counted')" = "FAIL: accounting" ]
	[ "$(fuzz_signature 'FAIL: stopped queue: fz1 qdisc kept 3 frames')" = "FAIL: stopped queue" ]
	[ "$(fuzz_signature 'FAIL: accounting: x')" != "$(fuzz_signature 'FAIL: stopped queue: x')" ]
	# a check that failed is not the machine lacking what the check needs
	[ "$(fuzz_signature 'FAIL: rxbatch: set vring 0 to 5: ok, the batch 3 (it was 3)')" != \
		"$(fuzz_signature 'FAIL: vhost-net unusable: /dev/vhost-net: No such file or directory')" ]
}

# fails_with_b_and_e CANDIDATE...: the first candidate holding both "b" and
# "e" lines (the failure needs both), or -1; counts its calls.
fails_with_b_and_e() {
	local i=0 f
	echo x >>"$BATS_TEST_TMPDIR/calls"
	for f in "$@"; do
		if grep -qx b "$f" && grep -qx e "$f"; then
			echo "$i"
			return
		fi
		i=$((i + 1))
	done
	echo -1
}

# fails_with_x1_to_x4 CANDIDATE...: the first candidate holding "x 1" to
# "x 4", or -1.
fails_with_x1_to_x4() {
	local i=0 f
	for f in "$@"; do
		if [ "$(grep -cx 'x [1-4]' "$f")" -eq 4 ]; then
			echo "$i"
			return
		fi
		i=$((i + 1))
	done
	echo -1
}

@test "fuzz_ddmin: cuts a failing sequence down to the operations the failure needs, in order" {
	load_libs
	. "$VRB_ROOT/lib/fuzz.sh"
	fuzz_ddmin fails_with_b_and_e "$BATS_TEST_TMPDIR/min" a b c d e f g h i j k 2>"$BATS_TEST_TMPDIR/progress"
	[ "${FUZZ_MIN[*]}" = "b e" ]
	grep -q '^minimise: 11 ops, 11 kinds: a kind removed' "$BATS_TEST_TMPDIR/progress"
	# each round is one call: far fewer than the 2^11 subsets
	[ "$(wc -l <"$BATS_TEST_TMPDIR/calls")" -le 20 ]
	# a kind the failure does not need goes in one round, however often it occurs
	: >"$BATS_TEST_TMPDIR/calls"
	fuzz_ddmin fails_with_b_and_e "$BATS_TEST_TMPDIR/min3" "a 1" b "a 2" "a 3" e "a 4" 2>"$BATS_TEST_TMPDIR/progress"
	[ "${FUZZ_MIN[*]}" = "b e" ]
	grep -q '^minimise: 6 ops, 3 kinds: a kind removed' "$BATS_TEST_TMPDIR/progress"
	grep -q '^minimise: 2 ops, 2 kinds: no kind removable' "$BATS_TEST_TMPDIR/progress"
	# no part is empty (an empty part's complement is the whole sequence,
	# which fails: a round that removes nothing): 4 ops in 3 parts
	fuzz_ddmin fails_with_x1_to_x4 "$BATS_TEST_TMPDIR/min4" "x 1" "x 2" "x 3" "x 4" "x 5" "x 6" \
		2>"$BATS_TEST_TMPDIR/progress"
	[ "${FUZZ_MIN[*]}" = "x 1 x 2 x 3 x 4" ]
	grep -q '^minimise: 4 ops, 3 parts: none removable' "$BATS_TEST_TMPDIR/progress"
	# one operation that fails alone stays alone; a sequence that is minimal stays
	fuzz_ddmin fails_with_b_and_e "$BATS_TEST_TMPDIR/min2" b e 2>/dev/null
	[ "${FUZZ_MIN[*]}" = "b e" ]
	# kinds named by a pattern's characters are removed as words, not patterns
	fuzz_ddmin fails_with_b_and_e "$BATS_TEST_TMPDIR/min5" "." b "[a-z]" e "*" 2>/dev/null
	[ "${FUZZ_MIN[*]}" = "b e" ]
	# nor as escapes or numbers: a kind whose removal changes nothing, or
	# empties the sequence, is no candidate (no endless round, no empty result)
	echo 0 >"$BATS_TEST_TMPDIR/answer"
	fuzz_ddmin answers "$BATS_TEST_TMPDIR/min6" 'x\ty 1' "open 0" 2>/dev/null
	[ "${#FUZZ_MIN[@]}" -eq 1 ]
	fuzz_ddmin answers "$BATS_TEST_TMPDIR/min7" "1 a" "1.0 b" 2>/dev/null
	[ "${#FUZZ_MIN[@]}" -eq 1 ]
}

# answers CANDIDATE...: answers what $BATS_TEST_TMPDIR/answer holds,
# whatever the candidates.
answers() { cat "$BATS_TEST_TMPDIR/answer"; }

@test "fuzz_ddmin: refuses no operations, and a tester's answer that names no candidate" {
	load_libs
	. "$VRB_ROOT/lib/fuzz.sh"
	run fuzz_ddmin fails_with_b_and_e "$BATS_TEST_TMPDIR/m0"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no operations to minimise"* ]]
	for a in 3 7 -2 x "" 01; do
		echo "$a" >"$BATS_TEST_TMPDIR/answer"
		run fuzz_ddmin answers "$BATS_TEST_TMPDIR/m1" a b c
		echo "$a: $output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"fuzz_ddmin: answers answered"* ]]
	done
	echo -1 >"$BATS_TEST_TMPDIR/answer"
	run fuzz_ddmin answers "$BATS_TEST_TMPDIR/m2" a b c
	[ "$status" -eq 0 ]
}

@test "fuzz.sh: --help, and bad options refused before anything is built" {
	run "$VRB_ROOT/scripts/fuzz.sh" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"--replay FILE"* ]]
	run "$VRB_ROOT/scripts/fuzz.sh" --seconds 5
	[ "$status" -ne 0 ]
	[[ "$output" == *"--seconds must be an integer from 10 to 86400, not '5'"* ]]
	run "$VRB_ROOT/scripts/fuzz.sh" --ops 0
	[[ "$output" == *"--ops must be an integer from 1 to 5000, not '0'"* ]]
	run "$VRB_ROOT/scripts/fuzz.sh" --replay --kernel stock
	[ "$status" -ne 0 ]
	[[ "$output" == *"--replay needs a file"* ]]
	echo "close 0" >"$BATS_TEST_TMPDIR/ok.ops"
	run "$VRB_ROOT/scripts/fuzz.sh" --replay "$BATS_TEST_TMPDIR/ok.ops" --seconds 20
	[ "$status" -ne 0 ]
	[[ "$output" == *"--replay takes --kernel and --known only, not --seconds"* ]]
	run "$VRB_ROOT/scripts/fuzz.sh" --out "" --kernel "$BATS_TEST_TMPDIR/none"
	[[ "$output" == *"'' is no name for a result dir"* ]]
	run "$VRB_ROOT/scripts/fuzz.sh" --out "$BATS_TEST_TMPDIR/ok.ops" --kernel "$BATS_TEST_TMPDIR/none"
	[[ "$output" == *"exists and is not empty"* ]]
	# a file that is not a log is refused before a guest boots (any file
	# passes for a kernel image until then)
	echo "bogus" >"$BATS_TEST_TMPDIR/bad.ops"
	run "$VRB_ROOT/scripts/fuzz.sh" --replay "$BATS_TEST_TMPDIR/bad.ops" --kernel "$BATS_TEST_TMPDIR/ok.ops"
	[ "$status" -ne 0 ]
	[[ "$output" == *"bad.ops is not a log of operations"* ]]
	run "$VRB_ROOT/scripts/fuzz.sh" --replay "$BATS_TEST_TMPDIR/none.ops"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot read $BATS_TEST_TMPDIR/none.ops"* ]]
	run "$VRB_ROOT/scripts/fuzz.sh" --kernel "$BATS_TEST_TMPDIR/none" --seconds 10
	[ "$status" -ne 0 ]
	[[ "$output" == *"no kernel image $BATS_TEST_TMPDIR/none"* ]]
	run "$VRB_ROOT/scripts/fuzz.sh" --frob
	[[ "$output" == *"unknown option '--frob'"* ]]
}

@test "coverage: the functions of each object, their kprobe hits by line, reached of probed" {
	load_libs
	. "$VRB_ROOT/lib/fuzz.sh"
	local out=$BATS_TEST_TMPDIR/out o
	for o in $FUZZ_COVER_OBJS; do
		mkdir -p "$out/$(dirname "$o")"
		printf 'int data_%s = 1;\nstatic int __attribute__((noinline)) local_fn(int x) { return x + data_%s; }\nint global_fn(int x) { return local_fn(x); }\n' \
			"$(basename "$o" .o)" "$(basename "$o" .o)" >"$BATS_TEST_TMPDIR/f.c"
		gcc -O1 -c -o "$out/$o" "$BATS_TEST_TMPDIR/f.c"
	done
	fuzz_functions "$out" >"$BATS_TEST_TMPDIR/list"
	# text symbols only, per object, in the objects' order
	[ "$(wc -l <"$BATS_TEST_TMPDIR/list")" -eq 8 ]
	[ "$(head -n 2 "$BATS_TEST_TMPDIR/list" | tr '\n' ,)" = \
		"drivers/net/tun.o global_fn,drivers/net/tun.o local_fn," ]
	run grep -c data_ "$BATS_TEST_TMPDIR/list"
	[ "$output" -eq 0 ]
	# kprobe_profile: probes named by the list's line; line 2 not probed
	# no probe set: an empty profile, every function listed without hits
	: >"$BATS_TEST_TMPDIR/profile"
	[ "$(fuzz_coverage "$BATS_TEST_TMPDIR/list" "$BATS_TEST_TMPDIR/profile" | grep -c ',$')" -eq 8 ]
	printf '  %-44s %15s %15s\n' c_0 12 0 c_1 0 0 c_3 7 0 c_7 1 0 >"$BATS_TEST_TMPDIR/profile"
	fuzz_coverage "$BATS_TEST_TMPDIR/list" "$BATS_TEST_TMPDIR/profile" >"$BATS_TEST_TMPDIR/cov.csv"
	[ "$(sed -n 2,4p "$BATS_TEST_TMPDIR/cov.csv" | tr '\n' ' ')" = \
		"drivers/net/tun.o,global_fn,12 drivers/net/tun.o,local_fn,0 drivers/net/tap.o,global_fn, " ]
	run fuzz_reached "$BATS_TEST_TMPDIR/cov.csv"
	[ "${lines[0]}" = "drivers/net/tun.o: 1 of 2 functions reached (0 not probeable)" ]
	[ "${lines[1]}" = "drivers/net/tap.o: 1 of 1 functions reached (1 not probeable)" ]
	[ "${lines[3]}" = "drivers/net/virtio_net.o: 1 of 1 functions reached (1 not probeable)" ]
	# an object missing: no list
	rm "$out/drivers/vhost/net.o"
	run fuzz_functions "$out"
	[ "$status" -ne 0 ]
	[[ "$output" == *"no $out/drivers/vhost/net.o"* ]]
}
