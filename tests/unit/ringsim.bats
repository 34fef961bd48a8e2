#!/usr/bin/env bats
# ringsim (bench/ringsim/: the model of one virtio-net rx queue) and calib
# (its costs from the rx_costs probe): their unit tests under ASan/UBSan,
# and their command lines: bad options are refused with a message and exit
# status 2, a run prints its totals, a probe's output its fit.

load helpers

setup() {
	BUILD=$BATS_TEST_TMPDIR/build
}

@test "the rx ring model and its calibration pass their unit tests (ASan/UBSan)" {
	run make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BUILD" check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ringsim: 8 passed, 0 failed"* ]]
	[[ "$output" == *"costs: 5 passed, 0 failed"* ]]
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

# A real run's workload B boot with the rx_costs probe (from the committed
# model run; see tests/fixtures/model/README).
FIX=tests/fixtures/model/b

@test "calib fits a real rx_costs output and refuses bad options and input" {
	local probe probes
	run make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BUILD" "$BUILD/calib"
	[ "$status" -eq 0 ]
	probes=("$VRB_ROOT/$FIX"/trials/*/probe-rx_costs.txt)
	probe=${probes[0]}
	run "$BUILD/calib" "$probe"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"calib: class what=work x_mean=64.0 "* ]]
	grep -q '^calib: rxq=0 ring=[0-9]* polls=[1-9]' <<<"$output"
	grep -q '^ringsim_args: --poll-ns [0-9]* --frame-ns [1-9][0-9]* --refill-ns [0-9]* --buf-ns [0-9]* --irq-ns [0-9]* --stalls-per-s [0-9.]* --stall-ns [0-9]*$' <<<"$output"
	# the same input on stdin; a stricter stall threshold finds fewer stalls
	local a b
	a=$(sed -n 's/^calib: rxq=0 .* stalls=\([0-9]*\) .*/\1/p' <<<"$output")
	b=$("$BUILD/calib" --stall-factor 50 --stall-min-ns 1000000 - <"$probe" | sed -n 's/^calib: rxq=0 .* stalls=\([0-9]*\) .*/\1/p')
	[ "$b" -lt "$a" ]
	run "$BUILD/calib" --rxq 1 "$probe"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no rx_costs summary and histograms for rx queue 1"* ]]
	for o in "--stall-factor 1" "--stall-factor x" "--rxq -1" "--rxq 1.5" "--stall-min-ns ''"; do
		run bash -c "\"$BUILD/calib\" $o \"$probe\""
		echo "$o: $output"
		[ "$status" -eq 2 ]
	done
	run "$BUILD/calib" /nonexistent
	[ "$status" -eq 2 ]
	[[ "$output" == *"/nonexistent: No such file or directory"* ]]
	run "$BUILD/calib"
	[ "$status" -eq 2 ]
	[[ "$output" == *"Usage: calib"* ]]
	printf 'rx_costs: summary rxq=0 polls=x\n' >"$BATS_TEST_TMPDIR/bad.txt"
	run "$BUILD/calib" "$BATS_TEST_TMPDIR/bad.txt"
	[ "$status" -eq 2 ]
	[[ "$output" == *"line 1: a summary line without polls"* ]]
}

@test "run-model.sh on a recorded B boot: calibration, one validation row per setting, the projection and its plots" {
	local out=$BATS_TEST_TMPDIR/model settings rows
	VRB_CACHE=$BATS_TEST_TMPDIR/cache run "$VRB_ROOT/bench/ringsim/run-model.sh" --from "$VRB_ROOT/$FIX" --out "$out" --seeds 2 \
		--project-rates "300000 2000000" --project-rings "256 1024" --project-rules "auto legacy 16" --project-ms 200 \
		--hw-stalls "0:0 100:100000"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$out" ] && [ ! -e "$out.partial" ]
	# one calibration row for the one boot, with positive per-frame costs
	[ "$(grep -vc '^#' "$out/calib.csv")" -eq 2 ]
	grep -v '^#' "$out/calib.csv" | awk -F, 'NR == 2 && !($12 > 0 && $14 > 0) { exit 1 }'
	# a validation row per setting of the boot, each with its measured and modelled numbers
	settings=$(grep -v '^#' "$VRB_ROOT/$FIX/blocks.csv" | awk -F, 'NR > 1 { print $5 }' | sort -u | wc -l)
	[ "$(grep -v '^#' "$out/validation.csv" | tail -n +2 | wc -l)" -eq "$settings" ]
	# model drop % = the rule's share + the stalls' share; min <= mean <= max
	grep -v '^#' "$out/validation.csv" | awk -F, 'NR > 1 {
		if (($14 + $15) - $16 > 0.001 || $16 - ($14 + $15) > 0.001) exit 1
		if ($17 > $16 + 0.0001 || $16 > $18 + 0.0001) exit 1 }'
	# the projection: 2 scenarios x 2 rings x 2 rates x 3 rules
	rows=$(grep -v '^#' "$out/projection.csv" | tail -n +2 | wc -l)
	[ "$rows" -eq 24 ]
	grep -q '^# hw_capacity_pps: 1000000 (assumed)' "$out/projection.csv"
	# no stalls, 300 kpps on a 1 Mpps guest: nothing dropped
	grep -v '^#' "$out/projection.csv" | awk -F, '$1 == 0 && $4 == 300000 && $6 != 0 { exit 1 }'
	grep -q 'A model, not a measurement' "$out/tables.txt"
	if command -v gnuplot >/dev/null; then
		[ "$(wc -l <"$out/plots.txt")" -eq 4 ]
		while read -r p; do
			[ "$(head -c 4 "$out/$p" | tail -c 3)" = PNG ]
		done <"$out/plots.txt"
	fi
}
