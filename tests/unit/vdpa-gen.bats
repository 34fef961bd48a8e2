#!/usr/bin/env bats
# Workload C's stall schedules (bench/vdpa_gen/): the unit tests of their
# logic under ASan/UBSan, and stall_sched's command line: bad options are
# refused with a message and exit status 2, a schedule repeats by seed, is
# ordered without overlaps, and is what the generator's stalls file takes.

load helpers

setup() {
	BUILD=$BATS_TEST_TMPDIR/build
}

@test "the stall schedules pass their unit tests (ASan/UBSan)" {
	run make -s -C "$VRB_ROOT/bench/vdpa_gen" BUILD="$BUILD" check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"sched: 5 passed, 0 failed"* ]]
}

@test "stall_sched refuses bad options and prints a schedule that repeats by seed" {
	local a t=$BATS_TEST_TMPDIR/table.txt
	run make -s -C "$VRB_ROOT/bench/vdpa_gen" BUILD="$BUILD" "$BUILD/stall_sched"
	[ "$status" -eq 0 ]
	for a in "--seed 1 --duration-ns 1000 --per-s 5" "--seed x --duration-ns 1000 --per-s 5 --dist none" \
		"--seed 1 --duration-ns 0 --per-s 5 --dist none" "--seed 1 --duration-ns 1000 --per-s 5 --dist exp:0" \
		"--seed 1 --duration-ns 1000 --per-s 5 --dist gauss:5" "--seed 1 --duration-ns 1000 --per-s 5 --dist table:/nonexistent"; do
		run bash -c "\"$BUILD/stall_sched\" $a"
		echo "$a: $output"
		[ "$status" -eq 2 ]
	done
	printf '# poll gaps\n5000\n0\n' >"$t"
	run "$BUILD/stall_sched" --seed 1 --duration-ns 1000000000 --per-s 5 --dist "table:$t"
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad or too many lines"* ]]
	run "$BUILD/stall_sched" --seed 7 --duration-ns 1000000000 --per-s 200 --dist exp:100000
	[ "$status" -eq 0 ]
	a=$output
	[ "${#lines[@]}" -gt 100 ]
	# "<offset_ns> <len_ns>", ordered, none overlapping the one before
	printf '%s\n' "$a" | awk 'NF != 2 || $1 < end || $2 < 1 || $2 > 100000000 { exit 1 } { end = $1 + $2 }'
	run "$BUILD/stall_sched" --seed 7 --duration-ns 1000000000 --per-s 200 --dist exp:100000
	[ "$output" = "$a" ]
	run "$BUILD/stall_sched" --seed 8 --duration-ns 1000000000 --per-s 200 --dist exp:100000
	[ "$output" != "$a" ]
	run "$BUILD/stall_sched" --seed 7 --duration-ns 1000000000 --per-s 5 --dist none
	[ "$status" -eq 0 ] && [ -z "$output" ]
}
