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
	local dir=$BATS_TEST_TMPDIR/tables t cal
	export VRB_STALL_TABLES=$dir
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" "$src" 'bad/name'
	[ "$status" -ne 0 ]
	[[ "$output" == *"letters, digits"* ]]
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" /etc/hostname t1
	[ "$status" -ne 0 ]
	[ ! -e "$dir/t1.txt" ]
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" "$src" t1
	echo "$output"
	[ "$status" -eq 0 ]
	t=$dir/t1.txt
	# no temporary file left behind
	[ -z "$(find "$dir" -name '.t1.*')" ]
	[ "$(stat -c %a "$t")" = 644 ]
	grep -q '^# .*stalls_per_s=[0-9][0-9.]* of' "$t"
	# per calib bucket: as many lengths as it counted, at a value inside
	# the bucket (or at the 100 ms cut when the bucket lies above it), and
	# nothing else
	make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BATS_TEST_TMPDIR/rs" "$BATS_TEST_TMPDIR/rs/calib"
	cal=$("$BATS_TEST_TMPDIR/rs/calib" "$src" | grep '^calib: stall_len ')
	[ -n "$cal" ]
	run awk -v max=100000000 '
		FNR == NR { split($3, l, "="); split($4, h, "="); split($5, c, "=")
			lo[NR] = l[2]; hi[NR] = h[2]; want[NR] = c[2]; nb = NR; next }
		/^#/ { next }
		{ n[$1]++ }
		END {
			for (b = 1; b <= nb; b++) {
				if (lo[b] >= max) { cut += want[b]; continue }
				# the bucket'"'"'s lengths: one value inside it
				v = ""
				for (x in n) if (x + 0 >= lo[b] && x + 0 < hi[b] && x + 0 != max) v = x
				if (v == "" || n[v] != want[b]) { print "bucket " lo[b] ": " (v == "" ? 0 : n[v]) " of " want[b]; bad = 1 }
				seen[v] = 1
			}
			if (n[max] + 0 != cut) { print "cut to 100 ms: " n[max] + 0 " of " cut; bad = 1 }
			seen[max] = 1
			for (x in n) if (!(x in seen)) { print "a length in no bucket: " x; bad = 1 }
			exit bad
		}' <(printf '%s\n' "$cal") "$t"
	echo "$output"
	[ "$status" -eq 0 ]
	# this fixture has a stall over 100 ms: cut to it, and said
	grep -qx 100000000 "$t"
	grep -q "Cut to the generator's 100 ms: [1-9]" "$t"
	# an existing table stays unless --force
	echo '# mine' >"$t"
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" "$src" t1
	[ "$status" -ne 0 ]
	[ "$(cat "$t")" = '# mine' ]
	run "$VRB_ROOT/bench/vdpa_gen/stall-table.sh" --force "$src" t1
	[ "$status" -eq 0 ]
	grep -q '^[0-9]' "$t"
	# stall_sched draws from it
	make -s -C "$VRB_ROOT/bench/vdpa_gen" BUILD="$BATS_TEST_TMPDIR/build" "$BATS_TEST_TMPDIR/build/stall_sched"
	run "$BATS_TEST_TMPDIR/build/stall_sched" --seed 3 --duration-ns 1000000000 --per-s 100 --dist "table:$t"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -gt 50 ]
	# the committed table is what its header's command makes of its source,
	# header and all
	local c=$VRB_ROOT/bench/vdpa_gen/stall-tables/tcg-b.txt cmd
	cmd=$(sed -n 's/^# Made by (from the repository.s root): //p' "$c")
	[[ "$cmd" == "bench/vdpa_gen/stall-table.sh "*" tcg-b" ]]
	(cd "$VRB_ROOT" && eval "${cmd% tcg-b} again")
	diff <(sed 's/\btcg-b\b/NAME/g' "$c") <(sed 's/\bagain\b/NAME/g' "$dir/again.txt")
}
