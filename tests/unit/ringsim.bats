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
	[[ "$output" == *"ringsim: 11 passed, 0 failed"* ]]
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
		[[ "$output" == *"--rule must be auto, legacy, adaptive, adaptive-dry or 0-64, not '$v'"* ]]
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
	[[ "$output" == *" violations=0 "* ]]
}

@test "ringsim takes workload C's source (bursts, jitter, its cost, a stall schedule) and refuses bad ones" {
	local f=$BATS_TEST_TMPDIR/stalls.txt
	run make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BUILD" "$BUILD/ringsim"
	[ "$status" -eq 0 ]
	for o in "--burst 0" "--burst 32769" "--jitter 101" "--pacing grid" "--src-ns x" "--frames 0" "--stall-file /nonexistent"; do
		run bash -c "\"$BUILD/ringsim\" $o"
		echo "$o: $output"
		[ "$status" -eq 2 ]
		[[ "$output" == *"ringsim: "* ]]
	done
	printf '# made by stall_sched\n2000000 1000000\n1000000 10\n' >"$f"
	run "$BUILD/ringsim" --stall-file "$f"
	[ "$status" -eq 2 ]
	[[ "$output" == *"line 3: not \"<offset_ns> <len_ns>\", ascending"* ]]
	printf '1000000 -5\n' >"$f"
	run "$BUILD/ringsim" --stall-file "$f"
	[ "$status" -eq 2 ]
	printf '1000000 10 7\n' >"$f"
	run "$BUILD/ringsim" --stall-file "$f"
	[ "$status" -eq 2 ]
	printf '1000000 10\n' >"$f"
	run "$BUILD/ringsim" --stall-file "$f" --stalls-per-s 5
	[ "$status" -eq 2 ]
	[[ "$output" == *"one or the other"* ]]
	# a 4 ms stall 2 ms into 10000 frames at 1 Mpps, in bursts of 32
	printf '# a comment\n2000000 4000000\n' >"$f"
	run "$BUILD/ringsim" --rate 1000000 --frames 10000 --burst 32 --jitter 50 --src-ns 100 --stall-file "$f"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *" offered=10000 "*" stalls=1 stall_ns=4000000 "* ]]
	[[ "$output" == *" violations=0 "* ]]
	local d
	d=$(tr ' ' '\n' <<<"$output" | sed -n 's/^dropped=//p')
	[ "$d" -ge $((4000 - 256)) ]
	[ "$d" -le 4000 ]
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
	# --totals: the probe's own sums, no fit: each field as its summary says
	run "$BUILD/calib" --totals "$probe"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	local f want got
	for f in ring polls irq_polls repolls frames refills bufs poll_ns refill_ns other_refills packed_polls seconds; do
		want=$(grep '^rx_costs: summary rxq=0 ' "$probe" | tr ' ' '\n' | sed -n "s/^$f=//p")
		got=$(grep '^calib: totals rxq=0 ' <<<"$output" | tr ' ' '\n' | sed -n "s/^$f=//p")
		echo "$f: $want $got"
		[ -n "$want" ]
		[ "$got" = "$want" ]
	done
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

@test "model-c.sh on a recorded C run: fitted costs per setting and ring, a row per cell and setting, counted means from trials.csv; bad input refused" {
	local c=$VRB_ROOT/tests/fixtures/c out=$BATS_TEST_TMPDIR/mc cells settings rings
	VRB_CACHE=$BATS_TEST_TMPDIR/cache run "$VRB_ROOT/bench/ringsim/model-c.sh" --from "$c" --out "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -d "$out" ] && [ ! -e "$out.partial" ]
	# the probed settings (the A/A arm is not probed) and their cells
	settings=$(grep -v '^#' "$c/costs.csv" | awk -F, 'NR > 1 { print $1 }' | sort -u)
	rings=$(sed -n 's/^# rings: //p' "$c/trials.csv" | wc -w)
	cells=$(grep -v '^#' "$c/trials.csv" | awk -F, 'NR > 1 { print $1, $3, $4, $6 }' | sort -u | grep -cwF "$settings")
	# a calibration row per setting and ring: one probe scale per ring, in 0.5-1
	[ "$(grep -v '^#' "$out/calib.csv" | tail -n +2 | wc -l)" -eq $(($(wc -l <<<"$settings") * rings)) ]
	grep -v '^#' "$out/calib.csv" | awk -F, 'NR > 1 && !($6 >= 0.5 && $6 <= 1 && $5 > 0 && $5 < 1) { exit 1 }'
	[ "$(grep -v '^#' "$out/calib.csv" | awk -F, 'NR > 1 { print $2, $6, $7 }' | sort -u | wc -l)" -eq "$rings" ]
	# the costs are calib's fit of the probed trial at the calibration cell times (1 - gen_share)
	local s r f g share fit want got n cd cr
	IFS=, read -r s r f g share _ _ _ got _ < <(grep -v '^#' "$out/calib.csv" | sed -n 2p)
	fit=$(make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BATS_TEST_TMPDIR/cache/ringsim" "$BATS_TEST_TMPDIR/cache/ringsim/calib" >/dev/null &&
		"$BATS_TEST_TMPDIR/cache/ringsim/calib" "$c/costs/$s/cost-$r-$f-${g//:/_}.txt" | sed -n 's/^ringsim_args: .*--frame-ns \([0-9]*\) .*/\1/p')
	want=$(awk -v f="$fit" -v s="$share" 'BEGIN { printf "%.0f", (1 - s) * f }')
	echo "frame_ns: fit $fit share $share: want $want got $got"
	[ "$got" = "$want" ]
	# a model row per probed cell and setting; the reference's calibration
	# cell marked at each ring whose probe scale was fitted there
	[ "$(grep -v '^#' "$out/model.csv" | tail -n +2 | wc -l)" -eq "$cells" ]
	[ "$(grep -v '^#' "$out/model.csv" | awk -F, '$6 == "yes"' | wc -l)" -eq "$(grep -v '^#' "$out/calib.csv" | awk -F, '$7 == "fitted"' | cut -d, -f2 | sort -u | wc -l)" ]
	[ "$(grep -v '^#' "$out/model.csv" | awk -F, '$6 == "yes"' | wc -l)" -ge 1 ]
	# the counted means are trials.csv's (drop %; refills per 1000 offered where counted)
	while IFS=, read -r s r f g n _ cd _ _ _ cr _; do
		want=$(grep -v '^#' "$c/trials.csv" | awk -F, -v s="$s" -v r="$r" -v f="$f" -v g="$g" \
			'$1 == s && $3 == r && $4 == f "" && $6 == g { d += $12; if ($24 != "") { q += 1000 * $24 / $9; m++ }; n++ }
			END { printf "%d %.4f %s", n, d / n, m ? sprintf("%.3f", q / m) : "" }')
		echo "$s $r $f $g: $want / $n $cd $cr"
		[ "$want" = "$n $cd $cr" ]
	done < <(grep -v '^#' "$out/model.csv" | tail -n +2)
	# the probed trial's drop % is costs.csv's
	while IFS=, read -r s r f g _ _ _ _ _ _ _ _ pd _; do
		want=$(grep -v '^#' "$c/costs.csv" | awk -F, -v s="$s" -v r="$r" -v f="$f" -v g="$g" \
			'$1 == s && $3 == r && $4 == f "" && $6 == g { printf "%.4f", 100 * $10 / $8 }')
		[ "$pd" = "$want" ]
	done < <(grep -v '^#' "$out/model.csv" | tail -n +2)
	# the reference's calibration cell: the model drops no more than counted
	# there, unless the scale is at its bound
	local ref how
	ref=$(sed -n 's/^# reference: //p' "$c/trials.csv")
	while read -r r how; do
		[ "$how" = at-bound ] || grep -v '^#' "$out/model.csv" |
			awk -F, -v r="$r" -v s="$ref" '$1 == s && $2 == r && $6 == "yes" && $8 > $7 + 0.00005 { exit 1 }'
	done < <(grep -v '^#' "$out/calib.csv" | awk -F, -v s="$ref" '$1 == s { print $2, $7 }')
	grep -q "predicted cells within +-20 % of the counted drops" "$out/tables.txt"
	# the fixture's fits rest on one refill size a rule: said, and kept with the results
	grep -q 'refill costs rest on fewer than 2 sizes seen 10 times' "$out/warnings.txt"
	grep -qx 'Warnings:' "$out/tables.txt"
	# bad input: nothing written
	local bad=$BATS_TEST_TMPDIR/nocosts
	mkdir -p "$bad" && cp "$c/trials.csv" "$bad/"
	cp -r "$c" "$BATS_TEST_TMPDIR/run.partial"
	for a in "--from $bad" "--from $VRB_ROOT/tests/fixtures/report/a" "--from $c --tolerance 0" "--from $c --tolerance x" "--from $BATS_TEST_TMPDIR/run.partial" ""; do
		# shellcheck disable=SC2086 # word lists
		VRB_CACHE=$BATS_TEST_TMPDIR/cache run "$VRB_ROOT/bench/ringsim/model-c.sh" $a --out "$BATS_TEST_TMPDIR/never"
		echo "$a: $output"
		[ "$status" -ne 0 ]
		[ ! -e "$BATS_TEST_TMPDIR/never" ]
	done
}
