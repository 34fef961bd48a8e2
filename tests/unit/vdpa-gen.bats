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

@test "stall-table.sh: a table of the stalls calib finds, refused names and overwrites; the committed one is what its source gives" {
	local src=$VRB_ROOT/tests/fixtures/model/b/trials/r1-patched-256-94998/probe-rx_costs.txt
	local dir=$BATS_TEST_TMPDIR/tables want got t
	export VRB_STALL_TABLES=$dir
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" "$src" 'bad/name'
	[ "$status" -ne 0 ] && [[ "$output" == *"letters, digits"* ]]
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" /etc/hostname t1
	[ "$status" -ne 0 ] && [ ! -e "$dir/t1.txt" ]
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" "$src" t1
	echo "$output"
	[ "$status" -eq 0 ]
	t=$dir/t1.txt
	# as many lengths as calib counted stalls, each inside a bucket of calib's
	want=$(make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BATS_TEST_TMPDIR/rs" "$BATS_TEST_TMPDIR/rs/calib" &&
		"$BATS_TEST_TMPDIR/rs/calib" "$src" | awk '/^calib: stall_len/ { split($5, c, "="); n += c[2] } END { print n }')
	got=$(grep -vc '^#' "$t")
	echo "calib: $want stalls, table: $got"
	[ "$want" -gt 0 ] && [ "$got" = "$want" ]
	grep -q '^# .*stalls_per_s=[0-9.]*,' "$t"
	[ "$(stat -c %a "$t")" = 644 ]
	# an existing table stays unless --force
	echo '# mine' >"$t"
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" "$src" t1
	[ "$status" -ne 0 ] && [ "$(cat "$t")" = '# mine' ]
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" --force "$src" t1
	[ "$status" -eq 0 ] && [ "$(grep -vc '^#' "$t")" = "$want" ]
	# stall_sched draws from it
	make -s -C "$VRB_ROOT/bench/vdpa_gen" BUILD="$BATS_TEST_TMPDIR/build" "$BATS_TEST_TMPDIR/build/stall_sched"
	run "$BATS_TEST_TMPDIR/build/stall_sched" --seed 3 --duration-ns 1000000000 --per-s 100 --dist "table:$t"
	[ "$status" -eq 0 ] && [ "${#lines[@]}" -gt 50 ]
	# the committed table is what its header's command makes of its source
	local c=$VRB_ROOT/bench/vdpa_gen/stall-tables/tcg-b.txt cmd
	cmd=$(sed -n 's/^# Made by: //p' "$c")
	[[ "$cmd" == "bench/vdpa_gen/stall-table.sh "*" tcg-b" ]]
	(cd "$VRB_ROOT" && eval "${cmd% tcg-b} again")
	diff <(grep -v '^#' "$c") <(grep -v '^#' "$dir/again.txt")
}
