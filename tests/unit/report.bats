#!/usr/bin/env bats
# shellcheck disable=SC2016 # awk and grep patterns in single quotes
# The report generators (bench/report/): summary.md and its plots for a
# result dir of each workload, on recorded runs (tests/fixtures/report,
# tests/fixtures/stats, tests/fixtures/model); compare-runs.sh on two runs;
# bad input refused without writing anything.

load helpers

setup() {
	load_libs
	SUM=$VRB_ROOT/bench/report/summary.sh
	CMP=$VRB_ROOT/bench/report/compare-runs.sh
	FIX=$VRB_ROOT/tests/fixtures
}

# run_dir NAME FILE...: a scratch result dir NAME holding copies of FILEs.
run_dir() {
	local d=$BATS_TEST_TMPDIR/$1
	shift
	mkdir -p "$d"
	cp "$@" "$d/"
	echo "$d"
}

# is_png FILE: FILE starts with the PNG signature.
is_png() {
	[ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

@test "workload A: a one-cell run's per-cell verdicts equal the run's own verdicts.csv; seed tables, words, plot" {
	d=$(run_dir a "$FIX"/report/a/trials.csv)
	run "$SUM" "$d"
	echo "$output"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	cat "$md"
	# every non-reference row of the run's verdicts.csv, in the summary with
	# the same ratio (the recorded intervals and verdicts are the bootstrap's
	# this layer replaced): an interval around it, and a verdict that says
	# what the interval says
	while IFS=, read -r m arm _ _ _ ratio _; do
		[ "$arm" != b64 ] || continue
		row=$(grep "^| $arm |.*| $(printf '%.4f' "$ratio") \[" "$md" | head -n 1) ||
			row=$(grep -F "$(printf '%s ratio %.4f [' "$m" "$ratio")" "$md") ||
			{ echo "missing: $m $arm $ratio"; false; }
		echo "$m $arm: $row"
		awk -v r="$ratio" -v row="$row" 'BEGIN {
			i = index(row, sprintf("%.4f [", r)); if (!i) exit 1
			split(substr(row, i), x, /[][, ]+/); lo = x[2]; hi = x[3]
			if (!(lo <= r && r <= hi)) exit 1
			if (row ~ /A\/A: no difference/) exit !(lo <= 1 && 1 <= hi || (lo >= 1 / 1.0001 && hi <= 1.0001))
			if (row ~ /\| (worse|better)/) exit !(lo > 1.0001 || hi < 1 / 1.0001)
			exit !(row ~ /no difference/ && (lo <= 1 && 1 <= hi || (lo >= 1 / 1.0001 && hi <= 1.0001))) }'
	done < <(grep -v '^#' "$FIX/report/a/verdicts.csv" | tail -n +2 | grep -v '^mean_batch')
	grep -q '^### tx_queue_len 500$' "$md"
	grep -q '^\*\*A/A\*\* (b64_aa against b64, the noise floor): pktgen_pps ratio ' "$md"
	# the zeroing thread's table: medians of xmit / dropped / total / % dropped
	grep -q '^| b1 | stock rule | 1 | 30000 | 748570 | 778570 | 96.1468 | ' "$md"
	grep -q '^- tx_queue_len 500: b1 sends (pktgen pps) 0.9858 x as much as b64 (95 % CI 0.9842-0.9874): worse.$' "$md"
	grep -q '^| `command` \|^| command | `bench/vhost_drv/run-a.sh --settings stock' "$md"
	grep -q '!\[pps by rx batch\](plots/a-pps-vs-rx_batch.png)' "$md"
	is_png "$d/plots/a-pps-vs-rx_batch.png"
	[[ "$(cat "$md")" == *"No zeroing-batch plot: the run has no zZbN setting."* ]]
	# the headline: design, noise floor per metric, the verdicts that hold
	sed -n '/^## Headline$/,/^## /p' "$md" >"$BATS_TEST_TMPDIR/head"
	grep -q '^- Design: settings stock b1 b64 b64_aa, reference b64, A/A arm b64_aa; 5 repeats per tx_queue_len (500), .* The verdicts are per tx_queue_len (the run has no verdicts.csv)\.$' "$BATS_TEST_TMPDIR/head"
	grep -q '^- b1 sends (pktgen pps) 0.9858x b64.s \[0.9842, 0.9874\] at tx_queue_len 500: worse\.$' "$BATS_TEST_TMPDIR/head"
	grep -q '^- 1 of 2 comparisons of pktgen_pps have a verdict ' "$BATS_TEST_TMPDIR/head"
	[ "$(grep -c '^- Noise floor (' "$BATS_TEST_TMPDIR/head")" -eq 2 ]
	for m in pktgen_pps drop_pct; do is_png "$d/plots/a-forest-$m.png"; done
	# nothing else written, nothing half-written left
	[ "$(ls "$d")" = "$(printf '%s\n' plots summary.md trials.csv)" ]
}

@test "workload A: a setting whose zeroing batch is set per cell (zqb64) is tabled (and drawn) at each cell's batch" {
	local d
	d=$BATS_TEST_TMPDIR/zq
	mkdir -p "$d"
	# the one-cell fixture, its b1 renamed zqb64 (a quarter of tx_queue_len:
	# 125 at 500), then every row again at tx_queue_len 1000 (zqb64: 250)
	{
		grep '^#' "$FIX/report/a/trials.csv" | sed 's/^# settings: .*/# settings: stock zqb64 b64 b64_aa/; s/^# txqlens: .*/# txqlens: 500 1000/'
		grep -v '^#' "$FIX/report/a/trials.csv" | awk -F, -v OFS=, 'NR == 1 { print; next }
			$2 == "b1" { $2 = "zqb64"; $4 = 64; $5 = 125 } { print }' >"$d/rows"
		cat "$d/rows"
		tail -n +2 "$d/rows" | awk -F, -v OFS=, '{ $6 = 1000; if ($2 == "zqb64") $5 = 250; print }'
	} >"$d/trials.csv"
	rm "$d/rows"
	run "$SUM" "$d"
	echo "$output"
	[ "$status" -eq 0 ]
	sed -n '/^### tx_queue_len 500$/,/^### /p' "$d/summary.md" | grep -q '^| zqb64 | 125 | 64 | '
	sed -n '/^### tx_queue_len 1000$/,$p' "$d/summary.md" | grep -q '^| zqb64 | 250 | 64 | '
}

@test "workload A with backpressure settings: sent / delivered / lost pps per setting, medians from trials.csv" {
	d=$(run_dir abp "$FIX"/report/a-bp/trials.csv)
	run "$SUM" "$d"
	echo "$output"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	cat "$md"
	grep -q '^Backpressure (IFF_BACKPRESSURE' "$md"
	grep -q '^| setting | kernel | sent pps | delivered pps | lost pps | % lost | delivered: ratio to b64 \[95 % CI\] | verdict |$' "$md"
	# each setting's row, computed here: per trial sent = total / seconds of
	# pktgen (xmit / pktgen_pps), delivered = pktgen_pps, lost = dropped /
	# the same seconds; the median of each over the repeats
	for s in stock b64 bpb64 b64_aa; do
		exp=$(grep -v '^#' "$d/trials.csv" | awk -F, -v s="$s" '
			function med(a, n,   i, j, t) {
				for (i = 2; i <= n; i++)
					for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
				return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
			}
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["setting"] == s {
				n++
				se[n] = $c["total"] * $c["pktgen_pps"] / $c["xmit"]
				de[n] = $c["pktgen_pps"]
				lo[n] = $c["dropped"] * $c["pktgen_pps"] / $c["xmit"]
			}
			END { printf "| %s | %s | %.0f | %.0f | %.0f |", s, (s == "stock" ? "stock" : "patched"), med(se, n), med(de, n), med(lo, n) }')
		grep -qF "$exp" "$md" || { echo "missing: $exp"; false; }
	done
	# with the flag nothing is lost and all that is sent is delivered
	grep -q '^| bpb64 | patched | \([0-9]*\) | \1 | 0 | 0 | 0\.[0-9]* \[[0-9.]*, [0-9.]*\] | no difference detected |$' "$md"
	grep -q '^| b64_aa | patched | .* | A/A: no difference (the noise floor) |$' "$md"
}

@test "workload B, paired: per-cell sums and verdicts (3 boots of 8 rounds: 3 units; stock paired by repeat); the plot" {
	d=$(run_dir bp "$FIX"/stats/b-paired-20261130T145227Z/blocks.csv)
	run "$SUM" "$d"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	cat "$md"
	# --rates given: no fraction of capacity is claimed
	grep -q '^### ring 256, 100000 pps$' "$md"
	# the cell's sums, from blocks.csv directly
	exp=$(grep -v '^#' "$d/blocks.csv" | awk -F, '$5 == "legacy" { o += $10; x += $12 } END { printf "| legacy | 24 | %d | %d |", o, x }')
	grep -qF "$exp" "$md"
	grep -q '^\*\*A/A\*\* (auto_aa against auto, the noise floor): drop_pct ratio .*A/A: no difference (the noise floor)\.$' "$md"
	# to the precision the interval allows: 2 digits of its width
	grep -q '^| legacy | .* | 6.19 | 0.355 \[0.342, 0.370\] lower | 0.719 | 2.38 \[2.10, 7.78\] below the noise floor (higher; within the A/A arm.s 0.2706-3.696) |$' "$md"
	# stock by boot: 3 units (t quantile 4.30): its 0.74 is not told apart
	grep -q '^| stock | 24 | .* | 0.74 \[0.58, 1.26\] | no difference detected | - | ' "$md"
	grep -q '^- ring 256, 100000 pps: legacy refills 0.355 x as much as auto (95 % CI 0.342-0.370): lower\.$' "$md"
	grep -q 'No zero-loss search in this run (paired design' "$md"
	# the headline: design, noise floor, the mechanism (one cell: one number)
	sed -n '/^## Headline$/,/^## /p' "$md" | grep -q '^- Design: paired; settings .*, reference auto, A/A arm auto_aa; .*rings 256; rates 100000 pps; '
	grep -q '^- Noise floor (drop_pct): an effect within the A/A arm.s 95 % interval mirrored about 1 is not claimed, whichever way that interval lies: ratios 0\.[0-9]*-1\.[0-9]* (r256 100000)\. The A/A interval excluded 1 (a difference where there is none) in 0 of 1 cells; verdicts beyond the floor hold there too\.$' "$md"
	grep -q '^- Mechanism: legacy refills 0.355x as often per frame as auto over the cells\.$' "$md"
	# the windows: how much of what the source delivered the guest's
	# counters saw, recomputed here from blocks.csv (no block_s column in
	# this run: no block length)
	pct=$(grep -v '^#' "$d/blocks.csv" | awk -F, 'NR > 1 && $11 > 0 { n++; s += $14 / $11 } END { printf "%.0f", 100 * s / n }')
	grep -q "^- Windows: the source counted [0-9.]* s of a block on average; the guest's counters, read at the ends of its own window, saw $pct % ([0-9]*-[0-9]* % over the blocks) of the frames the source delivered" "$md"
	grep -q '^- No setting.s drop_pct differs from auto.s beyond its interval and the noise floor in any cell\.$' "$md"
	# corrected for their number: the family is the same comparisons the line before counts
	n=$(sed -n 's/^- [0-9]* of \([0-9]*\) comparisons of drop_pct have a verdict .*/\1/p' "$md")
	[ "$n" -gt 0 ]
	grep -q "^- Corrected for their number (the family: the run's $n comparisons of drop_pct with a p value): 0 hold with Holm's correction (any false verdict in the family at 5 %); 0 with Benjamini-Hochberg's" "$md"
	# the glossary has every setting, the metadata comes last
	for s in $(meta "$d/blocks.csv" settings); do grep -q "^| \`$s\` | " "$md"; done
	[ "$(grep '^## ' "$md" | tail -n 1)" = '## Run' ]
	for m in drop refills starved; do is_png "$d/plots/b-$m-ring256.png"; done
	for m in drop_pct refills_per_1000 starved_polls_per_1000; do is_png "$d/plots/b-forest-$m.png"; done
	# the forest plot's points are the table's ratios, its bands the cell's
	# noise floor: the A/A interval mirrored about 1
	awk -F'\t' '$8 == "r256 100000: legacy" { print $2, $3, $4, $5, $6 }' "$d/plots/b-forest-refills_per_1000.dat" >"$d/got"
	. "$VRB_ROOT/lib/stats.sh"; . "$VRB_ROOT/lib/cell-verdicts.sh"
	b_cell_verdicts "$d/blocks.csv" auto auto_aa 256 100000 | awk -F, '$1 == "refills_per_1000" && $2 == "legacy" {
		F = $11 > 1 / $10 ? $11 : 1 / $10; printf "%s %s %s %.6g %.6g\n", $6, $7, $8, 1 / F, F }' >"$d/want"
	[ -s "$d/want" ]
	diff "$d/want" "$d/got"
}

@test "workload B with a pre-registration: summary.md quotes hypotheses.txt and says whether it is the file the run recorded" {
	local d sha
	d=$(run_dir prereg "$FIX"/stats/b-paired-20261130T145227Z/blocks.csv)
	printf 'H1  legacy differs from auto\nHolm over H1.\n' >"$d/hypotheses.txt"
	sha=$(sha256sum "$d/hypotheses.txt" | cut -c1-16)
	sed -i "1i # hypotheses: hypotheses.txt (sha256 $sha; copied before the first boot)" "$d/blocks.csv"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	# after the headline, before the glossary, the file verbatim
	[ "$(grep '^## ' "$md" | sed -n 2p)" = '## Pre-registration' ]
	grep -q "its sha256 ($sha) is the one recorded in the metadata then\. The headline above answers it" "$md"
	sed -n '/^## Pre-registration$/,/^## /p' "$md" | grep -qx 'H1  legacy differs from auto'
	# edited after the run began: said so, not passed off as a pre-registration
	echo 'H2  added later' >>"$d/hypotheses.txt"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q "is NOT the one the run recorded before its first boot ($sha): it was changed afterwards" "$md"
	# no final newline, and a fenced block inside: the quote still ends
	# before the next section
	printf 'H1  x\n```\nlegacy\n```\nlast line' >"$d/hypotheses.txt"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	sed -n '/^## Pre-registration$/,/^## /p' "$md" >"$d/sec"
	grep -qx '````' "$d/sec"
	grep -qx 'last line' "$d/sec"
	[ "$(grep -cx '````' "$d/sec")" -eq 2 ]
	# the file missing: said so
	rm "$d/hypotheses.txt"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q "The run recorded a pre-registration (sha256 $sha) but its hypotheses.txt is missing" "$md"
	# a file the run recorded nothing for: not a pre-registration, and the
	# summary is still written
	sed -i '/^# hypotheses: /d' "$d/blocks.csv"
	echo 'H1' >"$d/hypotheses.txt"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q 'the run recorded no sha256 for it, so it is not a pre-registration of this run' "$md"
	# a run without either has no such section
	rm "$d/hypotheses.txt"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	run grep -c '^## Pre-registration' "$md"
	[ "$output" = 0 ]
}

@test "workload B: the run's verdicts.csv holds the summary's verdicts, per cell; a pooled one from an older run is replaced" {
	local d ring rate n row
	d=$(run_dir vb "$FIX"/model/b/blocks.csv)
	# what run-b.sh writes at the end of a paired run
	# shellcheck source=/dev/null
	. "$VRB_ROOT/lib/stats.sh"
	# shellcheck source=/dev/null
	. "$VRB_ROOT/lib/cell-verdicts.sh"
	# shellcheck source=/dev/null
	. "$VRB_ROOT/bench/vhost_src/paired.sh"
	stats_build
	out=$d ref=auto aa=auto_aa
	# shellcheck disable=SC2031 # STATS_COLS: lib/stats.sh's, sourced above
	echo "$STATS_COLS" >"$d/verdicts.csv"
	paired_verdicts
	# every cell of the run, each metric named with its cell
	[ "$(grep -v '^#' "$d/verdicts.csv" | tail -n +2 | cut -d, -f1 | cut -d' ' -f2- | sort -u | wc -l)" -eq 6 ]
	[ "$(grep -v '^#' "$d/verdicts.csv" | tail -n +2 | grep -cv '^[a-z_0-9:]* r[0-9]* [0-9]*,')" -eq 0 ]
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q 'The verdicts are per cell; the run.s verdicts.csv holds the same rows\.' "$d/summary.md"
	# each cell's legacy drop row in the summary's table is the file's
	# shellcheck source=/dev/null
	. "$VRB_ROOT/bench/report/lib.sh"
	n=0
	while read -r ring rate; do
		row=$(grep "^drop_pct r$ring $rate,legacy," "$d/verdicts.csv")
		awk -v h="### ring $ring, $rate pps" 'index($0, h) == 1 { on = 1; next } /^###? / { on = 0 } on' "$d/summary.md" |
			grep -F "| legacy | " | grep -qF "| $(ratio_cell "$row") | $(cut -d, -f12 <<<"$row") |"
		n=$((n + 1))
	done < <(grep -v '^#' "$d/verdicts.csv" | awk -F, '$1 ~ /^drop_pct / && $2 == "legacy" { split($1, c, " "); print substr(c[2], 2), c[3] }')
	[ "$n" -eq 6 ]
	# a verdicts.csv that pools the cells (runs before this layer): replaced, and said so
	sed -i 's/^\([a-z_0-9:]*\) r[0-9]* [0-9]*,/\1,/' "$d/verdicts.csv"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q 'This run.s verdicts.csv was written by an older layer (pooled over the cells, other intervals, or no p values): these replace it\.' "$d/summary.md"
	# and so is one whose rows differ (an older statistics layer)
	# shellcheck disable=SC2031 # STATS_COLS: lib/stats.sh's, sourced above
	echo "$STATS_COLS" >"$d/verdicts.csv"
	paired_verdicts
	sed -i '0,/^drop_pct r[0-9]* [0-9]*,legacy,/s/\(^drop_pct r[0-9]* [0-9]*,legacy,[0-9]*,\)/\1999/' "$d/verdicts.csv"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q 'This run.s verdicts.csv was written by an older layer' "$d/summary.md"
	grep -q 'The verdicts are per cell\.' "$d/summary.md"
}

@test "workload B, six cells of one boot: a cell of one boot (1 unit) has no interval and says so" {
	d=$(run_dir mb "$FIX"/model/b/blocks.csv)
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	[ "$(grep -c '^### ring ' "$md")" -eq 6 ]
	grep -q '^### ring 1024, 77725 pps (0.9 x capacity)$' "$md"
	grep -q '^| legacy | 4 | .* | - | undefined: fewer than 3 paired units | ' "$md"
	grep -q '^Not drawn (--no-plots)\.$' "$md"
	[ ! -e "$d/plots" ]
}

@test "workload C with its probed trials: a table per cell, drop % from trials.csv, the cost column from costs.csv" {
	local c=$FIX/c d s r f g want drop section
	d=$BATS_TEST_TMPDIR/c
	mkdir -p "$d" && cp "$c/trials.csv" "$c/verdicts.csv" "$c/costs.csv" "$d/"
	run "$SUM" --no-plots "$d"
	echo "$output"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	cat "$md"
	[ "$(grep -c '^### Ring ' "$md")" -eq "$(grep -v '^#' "$d/trials.csv" | awk -F, 'NR > 1 { print $3, $4, $6 }' | sort -u | wc -l)" ]
	# the verdicts recomputed from trials.csv (the fixture's verdicts.csv has no p yet) and corrected
	grep -q "^- The verdicts are per cell. This run's verdicts.csv was written by an older layer" "$md"
	n=$(sed -n 's/^- [0-9]* of \([0-9]*\) comparisons of drop_pct have a verdict .*/\1/p' "$md")
	grep -q "^- Corrected for their number (the family: the run's $n comparisons of drop_pct with a p value): [0-9]* hold with Holm's" "$md"
	# rows without p (an older layer's, read as they are): no correction, said
	(. "$VRB_ROOT/bench/report/lib.sh"
		grep -v '^#' "$d/verdicts.csv" | awk 'NR > 1 { i = index($0, " "); j = index($0, ","); print substr($0, i + 1, j - i - 1) "\t" substr($0, 1, i - 1) substr($0, j) }' >"$d/rows12"
		family_md "$d/rows12" auto auto_aa drop_pct) >"$d/fam12"
	grep -qx -- "- Not corrected for their number: this run's rows have no p values (its verdicts.csv was written before they were recorded)." "$d/fam12"
	grep -q '^| setting | drop % | .* | rx poll / refill ns per frame (share of time), probed |$' "$md"
	grep -q '^The last column is from one more trial per cell under the rx_costs probe' "$md"
	grep -q '^Costs: \[costs.csv\](costs.csv)' "$md"
	# each probed cell's row: its mean drop % (trials.csv) and its costs (costs.csv)
	while IFS=, read -r s r f g; do
		want=$(grep -v '^#' "$d/costs.csv" | awk -F, -v s="$s" -v r="$r" -v f="$f" -v g="$g" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$1 == s && $3 == r && $4 == f "" && $6 == g {
				printf "%.0f/%.0f (%.1f %%)", $c["poll_ns_per_frame"], $c["refill_ns_per_frame"], $c["poll_pct_of_time"] }')
		drop=$(grep -v '^#' "$d/trials.csv" | awk -F, -v s="$s" -v r="$r" -v f="$f" -v g="$g" \
			'$1 == s && $3 == r && $4 == f "" && $6 == g { x += $12; n++ } END { printf "%.4f", x / n }')
		echo "$s $r $f $g: $drop, $want"
		[ -n "$want" ]
		section=$(awk -v r="$r" -v f="$f" -v g="$g" '$0 == "### Ring " r ", " f "x capacity, stalls " g { p = 1; next } /^### / { p = 0 } p' "$md")
		grep -q "^| $s | $drop | .* | $want |$" <<<"$section"
	done < <(grep -v '^#' "$d/costs.csv" | awk -F, 'NR > 1 { print $1 "," $3 "," $4 "," $6 }')
	# without costs.csv: no cost column, no costs lines
	rm "$d/costs.csv" "$md"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q '^| setting | drop % | .* | generator ns / frame |$' "$md"
	[ "$(grep -c 'probed\|^Costs: \|^The last column is from' "$md")" -eq 0 ]
	# the forest plots: every compared row of verdicts.csv, at its own ratio
	run "$SUM" "$d"
	[ "$status" -eq 0 ]
	for m in drop_pct refills starved; do is_png "$d/plots/C-forest-$m.png"; done
	grep -v '^#' "$d/verdicts.csv" | awk -F, '$1 ~ /^drop_pct / && $6 != "" && $12 != "reference" {
		sub(/^drop_pct /, "", $1); printf "%s: %s %s\n", $1, $2, $6 }' | sort >"$d/want"
	awk -F'\t' '{ sub(/: /, ": ", $8); split($8, p, ": "); printf "%s: %s %s\n", p[1], p[2], $2 }' "$d/plots/C-forest-drop_pct.dat" | sort >"$d/got"
	[ -s "$d/want" ]
	diff "$d/want" "$d/got"
	grep -q '^!\[drop_pct against the reference\](plots/C-forest-drop_pct.png)$' "$md"
}

@test "workload C: the design line says which frames drop % counts (all, or a window after a warm-up, lengthened per unit)" {
	local d
	d=$(run_dir cw "$FIX/c/trials.csv" "$FIX/c/verdicts.csv")
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q '^- Design: .* frames a trial, drop % of all of them\.$' "$d/summary.md"
	sed -i '0,/^# seeds: /s//# warmup: 15000\n# phase: 1024\n&/' "$d/trials.csv"
	grep -q '^# warmup: 15000$' "$d/trials.csv"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep '^- Design: ' "$d/summary.md"
	grep -q '^- Design: .* frames a trial, drop % of those after a warm-up of 15000 (both lengthened by 0-1023 a unit) (refills and starved polls: the whole trial)\.$' "$d/summary.md"
	sed -i 's/^# phase: 1024$/# phase: 0/' "$d/trials.csv"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q '^- Design: .* drop % of those after a warm-up of 15000 (refills and starved polls: the whole trial)\.$' "$d/summary.md"
}

@test "a row without an interval (the t test decided) reads as one: no CI, no 'no spread', none in C's headline" {
	# shellcheck source=bench/report/lib.sh
	. "$VRB_ROOT/bench/report/lib.sh"
	local why="(no interval: the reference varies too much across its units to bound the ratio; the t test of arm - reference)"
	run words "drop_pct,legacy,3,15.3,10.3,1.4839,,,,,,worse $why" "ring 256"
	[ "$output" = "- ring 256: legacy drops 1.4839 x as much as the reference (no interval): worse $why." ]
	run words "drop_pct,legacy,3,4,2,2.0000,,,,,,no difference detected $why" "ring 256"
	[ "$output" = "- ring 256: legacy vs the reference, drop_pct: no difference detected $why (ratio 2.0000)." ]
	# with an interval, as before
	run words "drop_pct,legacy,6,12,10,1.2000,1.1000,1.3000,10.00,,,worse" "ring 256"
	[ "$output" = "- ring 256: legacy drops 1.20 x as much as the reference (95 % CI 1.10-1.30): worse." ]
	# C's headline
	local d
	d=$(run_dir cn "$FIX/c/trials.csv" "$FIX/c/verdicts.csv")
	awk -F, -v OFS=, -v w="worse $why" '!/^#/ && $1 ~ /^drop_pct / && $2 == "legacy" && $6 != "" && !done++ { $7 = ""; $8 = ""; $9 = ""; $12 = w } { print }' \
		"$FIX/c/verdicts.csv" >"$d/verdicts.csv"
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep '^- legacy drops ' "$d/summary.md"
	grep -q '^- legacy drops [0-9.]*x auto.s (no interval) at .*: worse (no interval: ' "$d/summary.md"
}

@test "ptr_ring: the sweep's tables and a heat map per mode, work and consumer batch" {
	d=$(run_dir pr "$FIX"/report/ptr_ring/summary.csv "$FIX"/report/ptr_ring/patched_vs_stock.csv "$FIX"/report/ptr_ring/best_zbatch.csv)
	run "$SUM" "$d"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	grep -q '^## Patched against stock, per point (medians)$' "$md"
	grep -q '^| drop | 0 | 24 | 1 | 1 | 6 | 14236429 | 23822301 | 1.673 | ' "$md"
	[ "$(find "$d/plots" -name 'ptr_ring-heat-*.png' | wc -l)" -eq 8 ]
	for p in "$d"/plots/*.png; do is_png "$p"; done
	[ "$(grep -c '^!\[ptr_ring ' "$md")" -eq 8 ]
	# made again: replaced whole, no left-overs
	run "$SUM" "$d"
	[ "$status" -eq 0 ]
	[ "$(find "$d/plots" -type f | wc -l)" -eq 8 ]
	[ ! -e "$d/plots.tmp" ] && [ ! -e "$d/summary.md.tmp" ]
}

@test "summary.sh refuses bad input and writes nothing" {
	run "$SUM"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no result directory given"* ]]
	run "$SUM" --bogus "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"unknown option '--bogus'"* ]]
	run "$SUM" "$BATS_TEST_TMPDIR/nonexistent"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not a directory"* ]]
	mkdir "$BATS_TEST_TMPDIR/empty"
	run "$SUM" "$BATS_TEST_TMPDIR/empty"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no result file with a known workload"* ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/empty")" ]
	run "$SUM" "$BATS_TEST_TMPDIR/empty" "$BATS_TEST_TMPDIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"one result directory"* ]]
	# a run whose CSV lacks a column: refused, nothing written, nothing left over
	mkdir "$BATS_TEST_TMPDIR/bad"
	sed '/^#/!s/pktgen_pps/pps_renamed/' "$FIX/report/a/trials.csv" >"$BATS_TEST_TMPDIR/bad/trials.csv"
	run "$SUM" "$BATS_TEST_TMPDIR/bad"
	[ "$status" -ne 0 ]
	[[ "$output" == *"'\$pktgen_pps' names a column that is not in"* ]]
	[ "$(ls -A "$BATS_TEST_TMPDIR/bad")" = trials.csv ]
}

@test "compare-runs: a run against itself differs nowhere; against a shifted copy it finds the shift; bad input" {
	a=$(run_dir a "$FIX"/report/a/trials.csv)
	run "$CMP" "$a" "$a"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^| tx_queue_len 500 | ' <<<"$output")" -eq 8 ]
	# unpaired: the intervals hold 1 but are not empty; b1 and b64_aa sent
	# the same count in every repeat (virtual time): deterministic, no verdict
	[ "$(grep -c '| 1.0000 \[[0-9.]*, [0-9.]*\][^|]* | no difference detected |' <<<"$output")" -eq 6 ]
	[ "$(grep -c '| 1 (exact: identical units) | deterministic: 5 identical units in each arm ' <<<"$output")" -eq 2 ]
	# the same run with every b1 pps x 1.5: b1 sends more, the rest equal
	b=$BATS_TEST_TMPDIR/b
	mkdir "$b"
	awk -F, -v OFS=, '/^#/ || $2 != "b1" { print; next } { $11 = $11 * 1.5; print }' "$a/trials.csv" >"$b/trials.csv"
	run "$CMP" --out "$BATS_TEST_TMPDIR/cmp.md" "$a" "$b"
	[ "$status" -eq 0 ]
	grep -q '^| tx_queue_len 500 | b1 | pktgen_pps | 5, 13349 | 5, 20023.5 | 1.5 (exact: identical units) | deterministic: ' "$BATS_TEST_TMPDIR/cmp.md"
	grep -q '^| tx_queue_len 500 | b64 | pktgen_pps | .* | 1.0000 \[0.99[0-9]*, 1.00[0-9]*\] | no difference detected | ' "$BATS_TEST_TMPDIR/cmp.md"
	# workload A against B, one dir, no shared setting
	bp=$(run_dir bp "$FIX"/stats/b-paired-20261130T145227Z/blocks.csv)
	run "$CMP" "$a" "$bp"
	[ "$status" -eq 1 ]
	[[ "$output" == *"nothing to compare"* ]]
	run "$CMP" "$a"
	[ "$status" -eq 1 ]
	[[ "$output" == *"two result directories"* ]]
	# B runs of the paired and the boots design: different units
	bb=$(run_dir bb "$FIX"/report/b-boots/trials.csv)
	run "$CMP" "$bp" "$bb"
	[ "$status" -eq 1 ]
	[[ "$output" == *"of different designs (paired, boots)"* ]]
	c=$BATS_TEST_TMPDIR/c
	mkdir "$c"
	sed 's/^# settings: .*/# settings: b2/; s/,b64,/,b2,/; s/,b1,/,b2,/; s/,stock,/,b2,/; s/,b64_aa,/,b2,/' "$a/trials.csv" >"$c/trials.csv"
	run "$CMP" "$a" "$c"
	[ "$status" -eq 1 ]
	[[ "$output" == *"the runs share no setting"* ]]
}

@test "workload B, boots design with a zero-loss search: the search's table and plot; one trial per setting has no interval" {
	d=$(run_dir bb "$FIX"/report/b-boots/trials.csv "$FIX"/report/b-boots/ndr.csv)
	run "$SUM" "$d"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	cat "$md"
	grep -q '^### ring 256, 206609 pps (0.9 x capacity)$' "$md"
	# the table's numbers, from ndr.csv directly
	while IFS=, read -r _ s ring ndr fail tol _; do
		grep -qF "| $ring | $s | 1 | $ndr | $fail | $tol |" "$md"
	done < <(grep -v '^#' "$d/ndr.csv" | tail -n +2)
	grep -q '^| legacy | 1 | 413217 | 20452 | .* | undefined: fewer than 3 paired units | ' "$md"
	# undefined comparisons are in the table, not in the words
	[ "$(sed -n '/^## Verdicts in words$/,/^## /p' "$md" | grep -c '^- .*undefined')" -eq 0 ]
	# one unit per setting: the headline says nothing could be compared, and why
	grep -q '^- Noise floor (drop_pct): not estimated: the A/A arm has no interval in any cell ' "$md"
	grep -q '^- No comparison of drop_pct could be made (1, undefined: fewer than 3 paired units)\.$' "$md"
	is_png "$d/plots/b-zero-loss.png"
	is_png "$d/plots/b-drop-ring256.png"
	# the zero-loss bars: the A/A copy next to its setting, with the first failing rate
	[ "$(awk 'NR > 1 { printf "%s ", $1 }' "$d/plots/b-zero-loss.dat")" = "auto auto_aa legacy " ]
}

@test "ptr_ring with raw.csv: patched against stock per point, paired by repeat, with intervals" {
	d=$(run_dir pq "$FIX"/report/ptr_ring-quick/*.csv)
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	cat "$md"
	# a run from before the sweep had an A/A arm: said so, "-" in its columns
	grep -q '^No A/A arm in this run' "$md"
	[ "$(grep -c '^| drop | 0 | [0-9]* | 1 | 3 | [0-9.]* \(\[[0-9.]*, [0-9.]*\] \)\?| - | ' "$md")" -eq 3 ]
	grep -q '^| drop | 0 | 64 | 1 | 3 | 1.040 \[1.021, 1.058\] | - | better | ' "$md"
	# 3 repeats whose stock items/s spread too much to bound a ratio: no
	# interval, said why, and the t test of the differences decides
	grep -q "^| drop | 0 | 16 | 1 | 3 | 1.3156 | - | no difference detected (no interval: the reference varies too much across its units to bound the ratio; the t test of arm - reference) | " "$md"
	grep -q '^- ptr_ring drop, work 0, size 64, cbatch 1: patched moves items (items/s) 1.040 x as much as stock' "$md"
	# the headline: the design, no noise floor without an A/A arm, the verdicts that hold
	grep -q '^- Design: the patched header against the stock one per point .* a unit is a repeat (3 repeats; .*A/A arm none; ' "$md"
	grep -q '^- Noise floor: none, the run has no A/A arm; ' "$md"
	[ "$(grep -c '^- Noise floor' "$md")" -eq 1 ]
	grep -q '^- patched moves items (items/s) 1.040x stock.s \[1.021, 1.058\] at drop w0 s64 c1: better\.$' "$md"
	[ "$(grep '^## ' "$md" | tail -n 1)" = '## Run' ]
}

@test "boot: the headline gives each kernel's median time to the command, from boot.csv" {
	d=$(run_dir boot "$FIX"/report/boot/boot.csv)
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	md=$d/summary.md
	cat "$md"
	grep -q '^- Design: 3 boots of each kernel, 2 vCPUs, 1024 MiB; accelerator tcg\.$' "$md"
	for v in stock patched; do
		want=$(grep -v '^#' "$d/boot.csv" | awk -F, -v v="$v" '$2 == v { print $4 }' | sort -g | sed -n 2p)
		grep -q "^- $v: $want s from QEMU start to the command (median of 3; " "$md"
	done
	[ "$(grep '^## ' "$md" | tail -n 1)" = '## Run' ]
}

@test "workload B with a pooled reference: a comparison's reference is the mean of both copies per boot; the A/A row is as before" {
	local d plain pooled want got
	d=$(run_dir pool "$FIX"/stats/b-paired-20261130T145227Z/blocks.csv)
	# shellcheck source=/dev/null
	. "$VRB_ROOT/lib/stats.sh"
	# shellcheck source=/dev/null
	. "$VRB_ROOT/lib/cell-verdicts.sh"
	stats_build
	plain=$(b_cell_verdicts "$d/blocks.csv" auto auto_aa 256 100000)
	sed -i '1i # reference_pool: auto and auto_aa: the reference is their mean per unit' "$d/blocks.csv"
	pooled=$(b_cell_verdicts "$d/blocks.csv" auto auto_aa 256 100000)
	echo "$pooled"
	# the A/A rows (the noise floor) are the same; legacy's differ
	grep -q '^drop_pct,auto_aa,' <<<"$plain"
	[ "$(grep ',auto_aa,' <<<"$plain")" = "$(grep ',auto_aa,' <<<"$pooled")" ]
	[ "$(grep '^drop_pct,legacy,' <<<"$plain")" != "$(grep '^drop_pct,legacy,' <<<"$pooled")" ]
	# legacy's reference mean: per boot the mean of auto's and auto_aa's
	# mean drop %, averaged over the boots (computed here from blocks.csv)
	want=$(grep -v '^#' "$d/blocks.csv" | awk -F, 'NR > 1 && $2 == "patched" && $8 == 256 && $7 == 100000 {
			s[$1 " " $5] += $13; n[$1 " " $5]++; b[$1] = 1 }
		END { for (r in b) { t += (s[r " auto"] / n[r " auto"] + s[r " auto_aa"] / n[r " auto_aa"]) / 2; k++ } printf "%.6g", t / k }')
	got=$(awk -F, '$1 == "drop_pct" && $2 == "legacy" { print $5 }' <<<"$pooled")
	echo "want $want got $got"
	awk -v w="$want" -v g="$got" 'BEGIN { exit !(g > 0 && (w - g) / g < 1e-4 && (g - w) / g < 1e-4) }'
	# and the reference row's ref_mean is the same; its mean is auto's own
	[ "$(awk -F, '$1 == "drop_pct" && $2 == "auto" { print $5 }' <<<"$pooled")" = "$got" ]
	[ "$(awk -F, '$1 == "drop_pct" && $2 == "auto" { print $4 }' <<<"$pooled")" = \
		"$(awk -F, '$1 == "drop_pct" && $2 == "auto" { print $4 }' <<<"$plain")" ]
	# the summary says how the reference was formed
	run "$SUM" --no-plots "$d"
	[ "$status" -eq 0 ]
	grep -q 'reference auto pooled with auto_aa (both copies as data' "$d/summary.md"
}
