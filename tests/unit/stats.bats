#!/usr/bin/env bats
# shellcheck disable=SC2016 # the awk expressions are single-quoted on purpose
# The statistics layer (bench/stats/compare.py, lib/stats.sh): its tests
# (coverage on simulated runs), its verdicts on a recorded fixture from a real run
# (results/20261130T123527Z-B's trials.csv: workload B, ring 256, stock
# auto legacy mn16 x 5 boots), the A/A arm's role, and bad input.

load helpers

setup() {
	load_libs
	# shellcheck source=lib/stats.sh
	. "$VRB_ROOT/lib/stats.sh"
	FIX=$VRB_ROOT/tests/fixtures/stats/b-20261130T123527Z-trials.csv
}

@test "the statistics code passes its tests: intervals' coverage on simulated runs (93.5-97 %, each tail <= 3.5 %; a pooled reference too), a 7 % miss caught, p the test the interval inverts, the noise floor's cost, Holm's family-wise error on null families" {
	run make -s -C "$VRB_ROOT/bench/stats" BUILD="$VRB_CACHE/stats" check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Ran 13 tests"* ]]
	grep -q 'noise floor at 6 paired units: verdicts where nothing differs 0\.0[0-9]* without it, 0\.0[0-9]* with it' <<<"$output"
	[[ "$output" == *"Ran 5 tests"* ]]
	[ "$(grep -c 'coverage paired ' <<<"$output")" -eq 28 ]
	# and with the reference pooled with its A/A copy (compare --pool-aa)
	[ "$(grep -c 'coverage paired, pooled reference ' <<<"$output")" -eq 6 ]
	grep -q 'families of 8 null comparisons with a verdict: uncorrected 0\.[0-9]*, Holm 0\.0' <<<"$output"
}

@test "on the recorded run: legacy refills less than auto; neither its drops (1.54x, every unit higher) nor mn16's are told apart at 5 units" {
	stats_build
	run stats_units "$FIX" '$repeat' '$setting' 'div(1000 * $refills, $delivered)' '$kernel == "patched"'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 15 ]		# 5 repeats x auto legacy mn16; stock has no counters
	[[ "${lines[0]}" == 1,auto,15.99* ]]
	run bash -c '. "$VRB_ROOT/lib/functions.sh"; . "$VRB_ROOT/lib/stats.sh"
		stats_units "$1" "\$repeat" "\$setting" "div(1000 * \$refills, \$delivered)" "\$kernel == \"patched\"" |
			stats_compare refills_per_1000 "" auto ""' _ "$FIX"
	echo "$output"
	[ "$status" -eq 0 ]
	# metric,arm,units,mean,ref_mean,ratio,ci_lo,ci_hi,detectable_pct,aa_ci_lo,aa_ci_hi,verdict,p
	[[ "${lines[0]}" == refills_per_1000,auto,5,*,1,,,,,,reference,* ]]
	IFS=, read -r _ arm n _ _ ratio lo hi _ _ _ verdict p <<<"${lines[1]}"
	[ "$arm" = legacy ] && [ "$n" -eq 5 ] && [ "$verdict" = "lower" ] && awk -v p="$p" 'BEGIN { exit !(p > 0 && p < 0.05) }'
	awk -v r="$ratio" -v l="$lo" -v h="$hi" 'BEGIN { exit !(l < r && r < h && h < 0.4 && l > 0.3) }'
	run bash -c '. "$VRB_ROOT/lib/functions.sh"; . "$VRB_ROOT/lib/stats.sh"
		stats_units "$1" "\$repeat" "\$setting" "\$drop_pct" | stats_compare drop_pct lower auto ""' _ "$FIX"
	echo "$output"
	[[ "$output" == *"drop_pct,mn16,5,"*",no difference detected"* ]]
	[[ "$output" == *"drop_pct,legacy,5,"*",1.5355,0.9795,2.4543,"*",no difference detected"* ]]
}

@test "the A/A arm: its interval is on every row and sets a two-sided noise floor: effects within it are not claimed, effects beyond it hold even where it differs" {
	stats_build
	# a: the reference; a_aa: the same within noise; b: 30 % higher
	data=$(for u in 1 2 3 4 5 6 7 8; do
		echo "$u,a,$((100 + u % 3 * 5))"
		echo "$u,a_aa,$((100 + (u + 1) % 3 * 5))"
		echo "$u,b,$((130 + u % 2 * 4))"
	done)
	run stats_compare pps higher a a_aa <<<"$data"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[[ "${lines[1]}" == pps,a_aa,8,*",A/A: no difference (the noise floor)",* ]]
	[[ "${lines[2]}" == pps,b,8,*,better,* ]]
	aa=$(cut -d, -f10,11 <<<"${lines[1]}")
	[ "$(cut -d, -f10,11 <<<"${lines[2]}")" = "$aa" ]	# b's row carries the A/A interval
	[ -n "$aa" ] && [ "$aa" != , ]
	# an A/A arm 11x off (1100 for 100): b's 1.3x lies within its floor
	run stats_compare pps higher a a_aa <<<"${data//,a_aa,/,a_aa,1}"
	echo "$output"
	[[ "${lines[1]}" == *",A/A DIFFERS: effects within 0.09"*"-1"[01].*" are not claimed (the noise floor)",* ]]
	[[ "${lines[2]}" == *",below the noise floor (better; within the A/A arm's 0.09"*"-1"[01]*")",* ]]
	# an A/A arm 5 % off by chance: b's 1.3x lies beyond it and holds
	data5=$(for u in 1 2 3 4 5 6 7 8; do
		echo "$u,a,$((100 + u % 3 * 5))"
		echo "$u,a_aa,$((105 + u % 3 * 5))"
		echo "$u,b,$((130 + u % 2 * 4))"
		echo "$u,c,$((103 + u % 3 * 5))"
	done)
	run stats_compare pps higher a a_aa <<<"$data5"
	echo "$output"
	[[ "${lines[1]}" == *",A/A DIFFERS: effects within 0.9"*"-1.0"*" are not claimed (the noise floor)",* ]]
	[[ "${lines[2]}" == pps,b,8,*",better (beyond the A/A arm's own difference)",* ]]
	# c's 3 %, every unit higher, is an effect the A/A arm shows by itself
	[[ "${lines[3]}" == pps,c,8,*",below the noise floor (better; within the A/A arm's "*")",* ]]
	# a wide A/A interval that holds 1 still sets the floor: b's 1.3x is
	# within an A/A arm that spreads +-40 %
	dataw=$(for u in 1 2 3 4 5 6; do
		echo "$u,a,100"
		echo "$u,a_aa,$((100 + (u % 2 * 2 - 1) * (20 + 10 * u)))"
		echo "$u,b,$((130 + u % 2))"
	done)
	run stats_compare pps higher a a_aa <<<"$dataw"
	echo "$output"
	[[ "${lines[1]}" == *",A/A: no difference (the noise floor)",* ]]
	[[ "${lines[2]}" == pps,b,6,*",below the noise floor (better; within the A/A arm's "*")",* ]]
	# what family.py makes of them: a verdict below the floor never holds,
	# and counts with p taken as 1
	run bash -c "\"$VRB_CACHE/stats/compare\" --ref a --aa a_aa --better higher | \"$VRB_CACHE/stats/family\" --metric value --ref a --aa a_aa" <<<"$data5"
	echo "$output"
	[[ "${lines[1]}" == *$'\tb\tbetter (beyond the A/A arm\'s own difference)\t'*$'\tbetter\tbetter' ]]
	[[ "${lines[2]}" == *$'\tc\tbelow the noise floor '*$'\t-\t-' ]]
}

# headline_of DATA: the report's headline (bench/report/lib.sh) for the
# pktgen_pps units in DATA, stock the reference and b64_aa the A/A arm,
# one cell (q500).
headline_of() {
	local rows=$BATS_TEST_TMPDIR/headline-rows
	rm -f "$rows"
	(. "$VRB_ROOT/bench/report/lib.sh"
		stats_compare pktgen_pps higher stock b64_aa <<<"$1" | forest_add "$rows" "q500"
		headline_md "$rows" stock b64_aa pktgen_pps "")
}

@test "deterministic units (every unit of both arms identical): the exact ratio, no interval, no p, no verdict; the report says so" {
	stats_build
	# as results/20261201T052709Z-A's pktgen_pps: 5 repeats in virtual time
	data=$(for u in 1 2 3 4 5; do
		echo "$u,stock,13277"
		echo "$u,b64_aa,13277"
		echo "$u,b1,13149"
	done)
	run stats_compare pktgen_pps higher stock b64_aa <<<"$data"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "pktgen_pps,b64_aa,5,13277,13277,1,,,,,,A/A: deterministic: 5 identical units in each arm (no noise estimate: no interval and no verdict)," ]
	[ "${lines[2]}" = "pktgen_pps,b1,5,13149,13277,0.990359,,,,,,deterministic: 5 identical units in each arm (no noise estimate: no interval and no verdict)," ]
	# one arm that varies is not deterministic: an interval and a verdict
	run stats_compare pktgen_pps higher stock "" <<<"$data"$'\n1,b2,13100\n2,b2,13102\n3,b2,13101\n4,b2,13100\n5,b2,13103'
	[[ "${lines[3]}" == pktgen_pps,b2,5,*",worse",* ]]
	# the headline: deterministic, no noise floor, no verdict
	headline_of "$data" >"$BATS_TEST_TMPDIR/head"
	cat "$BATS_TEST_TMPDIR/head"
	grep -qx -- "- Noise floor (pktgen_pps): none; the run is deterministic (identical units in every cell): its ratios are exact, and it has no noise estimate and no verdicts." "$BATS_TEST_TMPDIR/head"
	grep -qx -- "- 1 comparison of pktgen_pps is deterministic: identical units in each arm, an exact ratio (in the tables), no noise estimate and no verdict." "$BATS_TEST_TMPDIR/head"
	[ "$(grep -c "Holm" "$BATS_TEST_TMPDIR/head")" -eq 0 ]
	# a deterministic A/A arm 0.02 % off the reference: its exact ratio is
	# the floor; b, which varies, 0.01 % off, is below it
	data=$(for u in 1 2 3 4 5; do echo "$u,stock,13277"; echo "$u,b64_aa,13280"; echo "$u,b,1327$((5 + u % 2))"; done)
	run stats_compare pktgen_pps higher stock b64_aa <<<"$data"
	echo "$output"
	[[ "${lines[1]}" == "pktgen_pps,b64_aa,5,13280,13277,1.00023,,,,,,A/A: deterministic: 5 identical units in each arm (no noise estimate: no interval and no verdict; effects within its exact 0.99977-1.0002 are not claimed)," ]]
	[[ "${lines[2]}" == pktgen_pps,b,5,*",below the noise floor (worse; within the A/A arm's 0.99977-1.0002)",* ]]
	headline_of "$data" >"$BATS_TEST_TMPDIR/head2"
	cat "$BATS_TEST_TMPDIR/head2"
	grep -q -- "^- Noise floor (pktgen_pps): an effect within the A/A arm's 95 % interval mirrored about 1 (its exact ratio where its units are identical: deterministic) is not claimed, whichever way that interval lies: ratios 0.99977-1.0002 (q500)\." "$BATS_TEST_TMPDIR/head2"
	grep -q -- "^- 0 of 1 comparisons of pktgen_pps have a verdict .*; 1 more lay below the noise floor (their intervals excluded 1)" "$BATS_TEST_TMPDIR/head2"
}

@test "the margin: differences within 0.01 % get no verdict (virtual time: settings can differ by a few frames alone), larger ones do" {
	stats_build
	# as results/20261201T061907Z-A's drop_pct, with units that vary (a
	# seed): the A/A arm 0.0004 % off; b 0.007 % off; c 0.5 % off; d 30 % off
	data=$(for u in 1 2 3 4 5 6; do
		awk -v u="$u" 'BEGIN { a = 96.0382 + u / 10
			printf "%d,a,%.7f\n%d,a_aa,%.7f\n%d,b,%.7f\n%d,c,%.7f\n%d,d,%.7f\n", u, a, u, a * 1.000004, u, a * 1.00007, u, a * 1.005, u, a * 1.3 }'
	done)
	run stats_compare drop_pct lower a a_aa <<<"$data"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[1]}" == drop_pct,a_aa,6,*",A/A: no difference beyond 0.01 % (the noise floor)",* ]]
	[[ "${lines[2]}" == drop_pct,b,6,*",no difference beyond 0.01 % (higher: within the margin)",* ]]
	[[ "${lines[3]}" == drop_pct,c,6,*",worse",* ]]	# trusted: no "A/A differs"
	[[ "${lines[4]}" == drop_pct,d,6,*",1.3000,1.3000,1.3000,0.00,"*",worse",* ]]
	# --margin 0: any difference is one (the A/A arm then differs, by
	# 0.0004 %: its floor hides b's 0.007 % no more than c's 0.5 %)
	run "$VRB_CACHE/stats/compare" --ref a --aa a_aa --better lower --margin 0 <<<"$data"
	echo "$output"
	[[ "${lines[2]}" == *",A/A DIFFERS: effects within 0.999996-1.000004 are not claimed (the noise floor)",* ]]
	[[ "${lines[3]}" == *",worse (beyond the A/A arm's own difference)",* ]]
	[[ "${lines[4]}" == *",worse (beyond the A/A arm's own difference)",* ]]
	# a wider margin swallows d's 30 %
	run "$VRB_CACHE/stats/compare" --ref a --aa a_aa --better lower --margin 40 <<<"$data"
	[[ "${lines[5]}" == *",no difference beyond 40 % (higher: within the margin)",* ]]
	# the low side's bound is 1/1.0001, not 0.9999: 0.999900005 lies between
	run stats_compare pps higher a "" <<<"$(for u in 1 2 3 4 5 6; do
		awk -v u="$u" 'BEGIN { a = 1000 + u; printf "%d,a,%.9f\n%d,b,%.9f\n%d,e,%.9f\n", u, a, u, a * 0.99995, u, a * 0.999900005 }'; done)"
	echo "$output"
	[[ "${lines[1]}" == pps,b,6,*",no difference beyond 0.01 % (lower: within the margin)",* ]]
	[[ "${lines[2]}" == pps,e,6,*",worse",* ]]
}

@test "a few units: a verdict needs a difference larger than their spread (t quantiles: 4.30 at 3 units)" {
	stats_build
	# 1.5 % higher, spread 1.3 %: every unit agrees, yet no verdict at 3 units
	run stats_compare pps higher a "" <<<"$(printf '%s\n' 1,a,100 2,a,100 3,a,100 1,b,101 2,b,103 3,b,100.5)"
	echo "$output"
	[[ "${lines[1]}" == pps,b,3,*",no difference detected",* ]]
	# 11 % higher, spread 1 %: a verdict at 3 units
	run stats_compare pps higher a "" <<<"$(printf '%s\n' 1,a,100 2,a,100 3,a,100 1,b,110 2,b,111 3,b,112)"
	echo "$output"
	[[ "${lines[1]}" == pps,b,3,*",better",* ]]
	# 6 units
	run stats_compare pps higher a "" <<<"$(for u in 1 2 3 4 5 6; do echo "$u,a,100"; echo "$u,b,$((110 + u))"; done)"
	[[ "${lines[1]}" == pps,b,6,*",better",* ]]
}

@test "stats_compare prints nothing for a metric without the reference (stock alone has no counters)" {
	stats_build
	run stats_compare refills "" auto auto_aa <<<""
	[ "$status" -eq 0 ] && [ -z "$output" ]
	run stats_compare refills "" auto auto_aa <<<$'1,stock,0\n2,stock,0'
	[ "$status" -eq 0 ] && [ -z "$output" ]
	# an A/A arm the input lacks is left out, not an error
	run stats_compare pps higher a a_aa <<<$'1,a,10\n2,a,11\n3,a,12\n1,b,20\n2,b,22\n3,b,24'
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ "${lines[1]}" == pps,b,3,*,,,"better",* ]]	# no A/A interval
	# a reference whose own spread bounds no interval: the t test of b - a
	# decides (differences 1, 2, 3: not told from 0 at 3 units)
	run stats_compare pps higher a "" <<<$'1,a,1\n2,a,2\n3,a,3\n1,b,2\n2,b,4\n3,b,6'
	[[ "${lines[1]}" == pps,b,3,4,2,2.0000,,,,,,"no difference detected (no interval: the reference varies too much across its units to bound the ratio; the t test of arm - reference)",* ]]
	run stats_compare pps higher a "" <<<$'1,a,1\n2,a,10\n3,a,20\n1,b,6\n2,b,15.01\n3,b,24.99'
	[[ "${lines[1]}" == pps,b,3,*,,,,,,"better (no interval: "* ]]
}

@test "compare and stats_expr refuse bad input with a message" {
	stats_build
	c=$VRB_CACHE/stats/compare
	run "$c"
	[ "$status" -eq 2 ] && [[ "$output" == *"--ref is required"* ]]
	for o in "--better up" "--level 1" "--level 0.4" "--level ''" "--level 0.9x" "--bogus 1" "--margin -1" "--margin 51" "--margin 1x"; do
		run bash -c "\"$c\" --ref a $o </dev/null"
		echo "$o: $output"
		[ "$status" -eq 2 ]
	done
	run "$c" --ref a "$BATS_TEST_TMPDIR/none.csv"
	[ "$status" -eq 1 ] && [[ "$output" == *"none.csv: No such file"* ]]
	run "$c" --ref x <<<"1,a,1"
	[ "$status" -eq 1 ] && [[ "$output" == *"no arm 'x' (the reference)"* ]]
	run "$c" --ref a --aa z <<<"1,a,1"
	[ "$status" -eq 1 ] && [[ "$output" == *"no A/A arm 'z'"* ]]
	run "$c" --ref a <<<"1,a,1,2"
	[ "$status" -eq 1 ] && [[ "$output" == *"<stdin>:1: expected UNIT,ARM,VALUE"* ]]
	run "$c" --ref a <<<"1,a,x"
	[ "$status" -eq 1 ] && [[ "$output" == *"value 'x' is not a finite number"* ]]
	run "$c" --ref a </dev/null
	[ "$status" -eq 1 ] && [[ "$output" == *"no measurements"* ]]
	# fewer than 3 paired units: no interval, said so
	run "$c" --ref a <<<$'1,a,1\n1,b,2\n2,a,1\n2,b,2'
	[ "$status" -eq 0 ] && [[ "${lines[2]}" == *"undefined: fewer than 3 paired units",* ]]
	run stats_expr "a,b" '$a + $c'
	[ "$status" -ne 0 ] && [[ "$output" == *"names a column that is not in 'a,b'"* ]]
	[ "$(stats_expr "rx,rx_queue_size" '$rx_queue_size / $rx')" = '$2 / $1' ]
}

@test "paired verdicts on a recorded run (results/20261130T145227Z-B): a unit is a boot (its ABBA pairs averaged); the other kernel paired by repeat" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --verdicts-of "$VRB_ROOT/tests/fixtures/stats/b-paired-20261130T145227Z"
	echo "$output"
	[ "$status" -eq 0 ]
	# 3 boots x 8 rounds: 3 units, not the 12 pairs of rounds (the pairs of
	# a boot share it); stock ran in its own 3 boots; the run's one cell
	# named in each metric
	grep -Eq '^drop_pct r256 100000 +auto_aa +3 .*A/A: no difference \(the noise floor\)$' <<<"$output"
	grep -Eq '^drop_pct:boots r256 100000 +stock +3 ' <<<"$output"
	grep -Eq '^refills_per_1000 r256 100000 +legacy +3 .* lower$' <<<"$output"
	# at 3 units the A/A arm's starved polls span 0.86-3.70: legacy's 2.38
	# (12 pairs read it "higher") lies within that floor
	grep -Eq '^starved_polls_per_1000 r256 100000 +legacy +3 +.* 2\.3779 .*below the noise floor \(higher; within the A/A arm.s 0\.2706-3\.696\)$' <<<"$output"
	[[ "$output" == *"comparisons, each at 95 %"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --verdicts-of "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no $BATS_TEST_TMPDIR/blocks.csv"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --rounds 3
	[ "$status" -eq 1 ]
	[[ "$output" == *"--rounds must be even"* ]]
}
