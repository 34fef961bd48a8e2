# shellcheck shell=bash
# shellcheck disable=SC2016 # awk expressions in single quotes
# Shared helpers of the report generators (summary.sh, compare-runs.sh):
# a result file's metadata, the per-cell comparisons (lib/stats.sh's
# compare, one cell at a time), the mean of an arm with its interval, a
# verdict in words, markdown tables and gnuplot PNGs.

# meta FILE KEY: the value of a "# KEY: value" metadata line of FILE.
meta() {
	sed -n "s/^# $2: //p" "$1" | head -n 1
}

# windows_matched CSV: true when a workload B paired run's source and
# guest counted the same frames (rx_window; metadata windows=matched): a
# phase change closed the source's rows, so a block's last row is partial
# and its length is block_s, not its rows x the interval.
windows_matched() {
	[[ "$(meta "$1" windows)" == matched* ]]
}

# verdicts_note CELL LABEL: what the run's verdicts.csv is to this
# report's verdicts (per CELL, e.g. "tx_queue_len"): the same rows, or a
# set an older layer wrote (pooled over the cells, other intervals, no p)
# that these replace; a run has one set of verdicts. LABEL: a sed
# expression that turns a cell of cell_rows_file into the cell verdicts.csv
# names in its metric ("tx_queue_len 500" -> "q500").
verdicts_note() {
	# shellcheck disable=SC2154 # dir, cell_rows_file: set by summary.sh
	local v=$dir/verdicts.csv rows=$cell_rows_file
	if [ ! -f "$v" ]; then
		echo "The verdicts are per $1 (the run has no verdicts.csv)."
	elif diff -q <(grep -v '^#' "$v" | tail -n +2 | sort) \
		<(awk -F'\t' '{ i = index($2, ","); print substr($2, 1, i - 1) " " $1 substr($2, i) }' \
			<(sed "$2" "$rows") | sort) >/dev/null; then
		echo "The verdicts are per $1; the run's verdicts.csv holds the same rows."
	else
		echo "The verdicts are per $1. This run's verdicts.csv was written by an older layer (pooled over the ${1}s, other intervals, or no p values): these replace it."
	fi
}

# md_meta FILE: the run's metadata as a markdown table.
md_meta() {
	local k v
	echo "| | |"
	echo "|---|---|"
	for k in date command kernel_source kernel_version series_hash kernel_flavour config_hash \
		accel clock design host_cpu host_cores qemu harness_commit; do
		v=$(meta "$1" "$k")
		[ -z "$v" ] || printf '| %s | `%s` |\n' "$k" "${v//|/\\|}"
	done
}

# cell_rows CSV UNIT ARM VALUE FILTER METRIC BETTER REF AA: compare's rows
# (STATS_COLS, no header) for one cell: the units FILTER selects, each the
# mean of its rows.
cell_rows() {
	stats_units "$1" "$2" "$3" "$4" "$5" | stats_unit_means | stats_compare "$6" "$7" "$8" "$9"
}

# mean_ci CSV UNIT ARM VALUE FILTER: "arm,units,mean,lo,hi" per arm: the
# mean over the units and its 95 % Fieller interval (compare against a
# reference that is 1 in every unit: the ratio is the mean); nothing when
# FILTER selects no row.
mean_ci() {
	local units
	units=$(stats_units "$1" "$2" "$3" "$4" "$5" | stats_unit_means)
	[ -n "$units" ] || return 0	# no rows selected: no arm
	echo "$units" |
		awk -F, '{ print; if (!($1 in u)) { u[$1] = 1; print $1 ",_unit_one,1" } }' |
		"$VRB_CACHE/stats/compare" --ref _unit_one | tail -n +2 |
		awk -F, '$2 != "_unit_one" { printf "%s,%s,%s,%s,%s\n", $2, $3, $4, $7, $8 }'
}

# REPORT_AWK_PREC: awk functions that print a ratio and its interval to
# the precision the interval allows, as perf stat -r does: two digits of
# the interval's width (at least 2 decimals, at most compare's 4; 4 for
# an interval of no width), more where a bound that excludes 1 would
# otherwise print as 1.
# shellcheck disable=SC2034 # used in the awk programs below
REPORT_AWK_PREC='
function ci_digits(lo, hi,   w, x, f) {
	w = hi - lo; if (w <= 0) return 4
	x = -log(w) / log(10); f = int(x); if (f > x) f--
	f += 2; f = f < 2 ? 2 : f > 4 ? 4 : f
	# a bound that excludes 1 never prints as 1
	while (f < 4 && ((lo > 1 && sprintf("%." f "f", lo) + 0 <= 1) || (hi < 1 && sprintf("%." f "f", hi) + 0 >= 1))) f++
	return f }
function ci_fmt(r, lo, hi,   d) { d = ci_digits(lo, hi); return sprintf("%." d "f [%." d "f, %." d "f]", r, lo, hi) }
function ci_num(x, lo, hi) { return sprintf("%." ci_digits(lo, hi) "f", x) }
'

# ratio_cell ROW: "1.80 [1.50, 2.10]" from a compare row (REPORT_AWK_PREC's
# precision), "-" for the reference, the ratio alone when it has no
# interval.
ratio_cell() {
	awk -F, "$REPORT_AWK_PREC"'{ if ($12 == "reference") print "ref"
		else if ($6 == "") print "-"
		else if ($7 == "") print $6 ($12 ~ /deterministic/ ? " (exact: identical units)" : "")
		else printf "%s%s\n", ci_fmt($6, $7, $8), ($7 == $8 ? " (no spread)" : "") }' <<<"$1"
}

# aa_interval ROW: "[lo, hi]", the A/A arm's interval a compare row
# carries, "-" for none.
aa_interval() {
	awk -F, "$REPORT_AWK_PREC"'{ if ($10 == "") print "-"; else printf "[%s, %s]\n", ci_num($10, $10, $11), ci_num($11, $10, $11) }' <<<"$1"
}

# verb METRIC: how a sentence says the metric grew or shrank.
verb() {
	case $1 in
	drop_pct*) echo "drops" ;;
	pktgen_pps*) echo "sends (pktgen pps)" ;;
	refills_per_1000*|refills/1k*) echo "refills" ;;
	starved_polls_per_1000*|starved/1k*) echo "has starved polls" ;;
	mean_batch*) echo "batches (mean vhost batch)" ;;
	items_per_s*) echo "moves items (items/s)" ;;
	full_share*) echo "finds the ring full" ;;
	*) echo "measures ($1)" ;;
	esac
}

# words ROW CONTEXT: a compare row as a sentence, e.g. "legacy drops 1.8 x
# as much as auto at 0.9 x capacity, ring 256 (95 % CI 1.5-2.1): worse."
# Nothing for the reference row.
words() {
	local row=$1 ctx=$2 metric arm ratio lo hi verdict refname
	IFS=, read -r metric arm _ _ _ ratio lo hi _ _ _ verdict _ <<<"$row"
	refname=${3:-the reference}
	# to the precision the interval allows
	[ -z "$lo" ] || read -r ratio lo hi < <(awk -v r="$ratio" -v l="$lo" -v h="$hi" \
		"$REPORT_AWK_PREC"'BEGIN { print ci_num(r, l, h), ci_num(l, l, h), ci_num(h, l, h) }')
	case $verdict in
	reference) return 0 ;;
	A/A*) printf -- '- %s, %s: the A/A arm (%s measured again) gives %s%s: %s.\n' \
		"$ctx" "$metric" "$arm" "$ratio" "${lo:+ [$lo, $hi]}" "$verdict" ;;
	undefined*) ;; # the table says so; no sentence
	"no difference"*)
		if [ -z "$lo" ]; then
			printf -- '- %s: %s vs %s, %s: %s (ratio %s).\n' "$ctx" "$arm" "$refname" "$metric" "$verdict" "$ratio"
		else
			printf -- '- %s: %s vs %s, %s: %s (ratio %s, 95 %% CI %s-%s).\n' \
				"$ctx" "$arm" "$refname" "$metric" "$verdict" "$ratio" "$lo" "$hi"
		fi
		;;
	*)
		local ci spread=''
		[ "$lo" != "$hi" ] || spread=': an interval of no width (every unit gives the same ratio; the A/A arm sets the floor)'
		ci="95 % CI $lo-$hi$spread"
		[ -n "$lo" ] || ci="no interval"
		printf -- '- %s: %s %s %s x as much as %s (%s): %s.\n' \
			"$ctx" "$arm" "$(verb "$metric")" "$ratio" "$refname" "$ci" "$verdict"
		;;
	esac
}

# plot PNG SCRIPT: gnuplot SCRIPT (its data inline or in files) to PNG,
# the run's id (run_id, when set) in its corner; PLOT_SIZE (900,560) its
# size. A warning, and no file, when gnuplot fails.
plot() {
	local png=$1 script=$2 label=''
	[ -z "${run_id:-}" ] || label="set label 999 \"$run_id\" at screen 0.995, screen 0.012 right font \",8\" tc rgb \"grey40\""
	if ! gnuplot 2>"$png.err" <<EOF; then
set terminal pngcairo size ${PLOT_SIZE:-900,560} noenhanced font ",10"
set output '$png.tmp'
$label
set grid
set key outside right top
set offsets graph 0.05, graph 0.05, graph 0.05, graph 0.05
set pointsize 1.2
$script
EOF
		warn "gnuplot failed for ${png##*/}: $(head -n 3 "$png.err")"
		rm -f "$png.tmp" "$png.err"
		return 0
	fi
	rm -f "$png.err"
	mv "$png.tmp" "$png"
}

# forest_add FILE CTX: appends the compare rows on stdin to FILE, each as
# "CTX<TAB>row", for forest_plot.
forest_add() {
	awk -v c="$2" 'NF { print c "\t" $0 }' >>"$1"
}

# forest_plot PNG TITLE METRIC FILE: a forest plot of FILE's rows (from
# forest_add) whose metric is METRIC: per cell and setting, the ratio to
# the reference (log axis) with its 95 % interval, the cell's noise floor
# (its A/A interval mirrored about 1: compare claims no effect within it)
# as a grey band behind it, a line at 1. Points are coloured by what the
# interval says (above 1, below 1, includes 1; a verdict below the noise
# floor, or the A/A arm's own row, apart; so are rows whose units are
# identical: deterministic, no verdict). The plotted
# numbers stay beside the PNG (NAME.dat).
forest_plot() {
	local png=$1 title=$2 metric=$3 file=$4 dat n h ytics xr xt xmin
	dat=${png%.png}.dat
	[ -s "$file" ] || return 0
	awk -F'\t' -v m="$metric" '{ split($2, f, ","); sub(/:boots$/, "", f[1])
			if (f[1] != m || f[12] == "reference" || f[6] == "") next
			lo = f[7] == "" ? f[6] : f[7]; hi = f[8] == "" ? f[6] : f[8]
			if (f[12] ~ /^A\/A/) cls = 4
			else if (f[12] ~ /below the noise floor/) cls = 5
			else if (f[12] ~ /not trusted/) cls = 8
			else if (f[12] ~ /^deterministic/ || (f[7] != "" && f[7] == f[8] && f[12] !~ /^(better|worse|higher|lower)/)) cls = 6
			else if (f[7] != "" && lo > 1) cls = 1
			else if (f[7] != "" && hi < 1) cls = 2
			else cls = 3
			# the band: the noise floor, the A/A interval mirrored about 1
			# (compare)
			bl = bh = "NaN"
			if (f[10] != "" && f[10] > 0) { F = f[11] > 1 / f[10] ? f[11] : 1 / f[10]; F = F < 1 ? 1 : F; bl = sprintf("%.6g", 1 / F); bh = sprintf("%.6g", F) }
			# an A/A interval that reaches 0: a floor of 0-inf, no band (the
			# points say "below the noise floor")
			# a log axis has no 0: such a point sits at its left edge, said in the label
			printf "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s: %s%s\n", ++n, f[6], lo, hi,
				bl, bh, cls, $1, f[2], f[6] + 0 == 0 ? " (ratio 0)" : "" }' "$file" >"$dat"
	n=$(wc -l <"$dat")
	[ "$n" -gt 0 ] || { rm -f "$dat"; return 0; }
	h=$((150 + 18 * n))
	[ "$h" -ge 360 ] || h=360
	ytics=$(awk -F'\t' '{ gsub(/"/, "", $8); printf "%s\"%s\" %d", (NR > 1 ? ", " : ""), $8, $1 }' "$dat")
	# the x range holds every interval, every A/A band and 1
	# and tics a log axis labels: fine ones near 1 on a narrow axis
	read -r xr xt xmin < <(awk -F'\t' 'BEGIN { lo = 1; hi = 1 }
		{ for (i = 2; i <= 6; i++) if ($i != "NaN" && $i > 0) { if ($i < lo) lo = $i; if ($i > hi) hi = $i } }
		END { lo /= 1.08; hi *= 1.08
			t = hi / lo < 3 ? "0.5 0.6 0.7 0.8 0.9 0.95 1 1.05 1.1 1.2 1.3 1.5 1.7 2" : "0.001 0.01 0.1 0.2 0.5 1 2 5 10 100 1000"
			n = split(t, a, " "); for (i = 1; i <= n; i++) if (a[i] >= lo && a[i] <= hi) tics = tics (tics == "" ? "" : ",") a[i]
			printf "[%g:%g] (%s) %g\n", lo, hi, tics, lo * 1.01 }' "$dat")
	PLOT_SIZE="1150,$h" plot "$png" "set title '$title'
set datafile separator '\t'
set logscale x; set xrange $xr; set xtics $xt; set yrange [$n + 0.7:0.3]
set ytics ($ytics) scale 0 font ',8'; set grid xtics noytics
set xlabel 'ratio to the reference (log scale), 95 % interval; grey: the noise floor (the A/A interval mirrored about 1)'
set arrow from 1, graph 0 to 1, graph 1 nohead lc rgb 'black' lw 1.5
set style fill transparent solid 0.35 noborder
set key outside right top
z(x) = x > 0 ? x : $xmin
plot '$dat' using ((z(\$5) + \$6) / 2):1:(z(\$5)):6:(\$1 - 0.4):(\$1 + 0.4) with boxxyerror fc rgb 'grey70' title 'noise floor', \\
	'$dat' using (z(\$2)):1:(z(\$3)):(z(\$4)):(\$7 == 1 ? 0xb2182b : \$7 == 2 ? 0x2166ac : \$7 == 4 ? 0x7f7f7f : \$7 == 5 ? 0xe08214 : \$7 == 6 ? 0x9467bd : \$7 == 8 ? 0x8c510a : 0x000000) with xerrorbars pt 7 ps 0.9 lc rgb variable notitle, \\
	NaN with points pt 7 lc rgb '#b2182b' title 'interval above 1', \\
	NaN with points pt 7 lc rgb '#2166ac' title 'interval below 1', \\
	NaN with points pt 7 lc rgb 'black' title 'interval holds 1', \\
	NaN with points pt 7 lc rgb '#e08214' title 'below the noise floor', \\
	NaN with points pt 7 lc rgb '#8c510a' title 'not trusted (A/A differed, no interval)', \\
	NaN with points pt 7 lc rgb '#7f7f7f' title 'the A/A arm itself', \\
	NaN with points pt 7 lc rgb '#9467bd' title 'units identical (deterministic: no verdict)'"
}

# headline_md FILE REF AA PRIMARY MECH [LABEL]: the headline's lines from the
# per-cell compare rows of FILE (forest_add's format). For each metric in
# PRIMARY: the noise floor (the A/A interval mirrored about 1: its widest
# and narrowest cell, the cells where it excluded 1), the verdicts that
# hold (better or worse, beyond the floor) and how many comparisons they
# come from, the deterministic ones apart; for each metric in MECH, each setting's range of ratios over the
# cells (the mechanism). LABEL: what the lines call the reference
# (default REF; e.g. "auto+auto_aa" where both copies are the reference).
headline_md() {
	local file=$1 ref=$2 aa=$3 m verbs='' label=${6:-$2}
	for m in $4 $5; do verbs+="$m=$(verb "$m");"; done
	[ -n "$aa" ] || echo "- Noise floor: none, the run has no A/A arm; nothing tells a difference from noise."
	for m in $4; do
		[ -z "$aa" ] || awk -F'\t' -v m="$m" -v ref="$ref" -v aa="$aa" '{ split($2, f, ","); sub(/:boots$/, "", f[1]) }
			# every comparison of the metric, and the deterministic ones
			f[1] == m && f[2] != ref { all++; if (f[12] ~ /deterministic/) alldet++ }
			f[1] == m && f[2] == aa { rows++ }
			# the floor F of a cell (compare): its A/A interval mirrored
			# about 1, or the exact ratio of a deterministic A/A arm mirrored
			f[1] == m && f[2] == aa && (f[7] != "" || f[12] ~ /deterministic/) { n++
				if (f[12] ~ /DIFFERS/) bad++
				if (f[12] ~ /deterministic/) { det++; lo = hi = f[6] } else { lo = f[7]; hi = f[8] }
				if (lo <= 0) { inf++; next }
				F = hi > 1 / lo ? hi : 1 / lo; if (F < 1) F = 1
				if (F > mx) { mx = F; wc = $1 }; if (!nf++ || F < mn) mn = F }
			# 1/F-F with the digits that tell both ends from 1
			function span(F,   d, a, b) { if (F <= 1) return "none beyond rounding (the A/A arm reads 1 to the digits printed)"
				for (d = 3; d < 10; d++) { a = sprintf("%." d "g", 1 / F); b = sprintf("%." d "g", F); if (a != "1" && b != "1") break }
				return "ratios " a "-" b }
			END { if (!rows) exit
				if (alldet == all) { printf "- Noise floor (%s): none; the run is deterministic (identical units in every cell): its ratios are exact, and it has no noise estimate and no verdicts.\n", m; exit }
				if (!n) { printf "- Noise floor (%s): not estimated: the A/A arm has no interval in any cell (fewer than 3 units, or a reference too spread to bound a ratio).\n", m; exit }
				printf "- Noise floor (%s): an effect within the A/A arm'"'"'s 95 %% interval mirrored about 1%s is not claimed, whichever way that interval lies: ", m, (det ? " (its exact ratio where its units are identical: deterministic)" : "")
				if (nf == 1 || span(mx) == span(mn)) printf "%s%s", span(mx), (nf == 1 ? " (" wc ")" : " in every cell")
				else if (nf) printf "%s in the widest cell (%s), %s in the narrowest", span(mx), wc, span(mn)
				if (inf) printf "%s%d cell%s whose A/A interval reaches 0 cannot resolve anything", (nf ? "; " : ""), inf, (inf > 1 ? "s" : "")
				printf ". The A/A interval excluded 1 (a difference where there is none) in %d of %d cells; verdicts beyond the floor hold there too.\n", bad + 0, n - det }' "$file"
		awk -F'\t' -v m="$m" -v ref="$ref" -v aa="$aa" -v label="$label" -v verbs="$verbs" "$REPORT_AWK_PREC"'
			BEGIN { k = split(verbs, a, ";"); for (i = 1; i <= k; i++) { split(a[i], p, "="); vb[p[1]] = p[2] } }
			{ split($2, f, ","); sub(/:boots$/, "", f[1]) }
			f[1] != m || f[2] == ref || f[2] == aa { next }
			f[6] == "" || f[12] ~ /^undefined/ { if (!(und++)) why = f[12]; next }
			f[12] ~ /^deterministic/ { det++; next }
			{ n++ }
			f[12] ~ /below the noise floor/ { bf++; next }
			f[12] ~ /not trusted/ { nt++; next }
			f[12] ~ /^(better|worse|higher|lower)/ {
				ci = f[7] == "" ? "(no interval)" : "[" ci_num(f[7], f[7], f[8]) ", " ci_num(f[8], f[7], f[8]) "]"
				if (f[7] != "" && f[7] == f[8]) ci = ci " (no spread between units)"
				printf "- %s %s %sx %s'"'"'s %s at %s: %s.\n", f[2], vb[m], f[7] == "" ? sprintf("%.3f", f[6]) : ci_num(f[6], f[7], f[8]),
					label, ci, $1, f[12]; hold++ }
			END { if (det) printf "- %d comparison%s of %s %s deterministic: identical units in each arm, an exact ratio (in the tables), no noise estimate and no verdict.\n", det, (det > 1 ? "s" : ""), m, (det > 1 ? "are" : "is")
				if (!n) { if (und) printf "- No comparison of %s could be made (%d, %s).\n", m, und, why; exit }
				if (!hold) printf "- No setting'"'"'s %s differs from %s'"'"'s beyond its interval and the noise floor in any cell.\n", m, label
				printf "- %d of %d comparisons of %s have a verdict (95 %% each, not corrected for their number: at most about %.1f by chance, fewer beside a noise floor)%s%s%s.\n",
					hold + 0, n, m, n / 20, bf ? sprintf("; %d more lay below the noise floor (their intervals excluded 1)", bf) : "",
					nt ? sprintf("; %d more from cells whose A/A arm differed (no interval to set a floor), not trusted", nt) : "",
					und ? sprintf("; %d undefined", und) : "" }' "$file"
		family_md "$file" "$ref" "$aa" "$m"
	done
	for m in $5; do
		awk -F'\t' -v m="$m" -v ref="$ref" -v aa="$aa" -v label="$label" -v verbs="$verbs" '
			BEGIN { k = split(verbs, a, ";"); for (i = 1; i <= k; i++) { split(a[i], p, "="); vb[p[1]] = p[2] } }
			{ split($2, f, ","); sub(/:boots$/, "", f[1]) }
			f[1] == m && f[2] != ref && f[2] != aa && f[6] != "" {
				if (!(f[2] in seen)) { S[++ns] = f[2]; seen[f[2]] = 1 }
				# a cell whose A/A arm differed for this metric: left out, counted
				if (f[12] ~ /not trusted/) { out[f[2]]++; next }
				if (!(f[2] in lo) || f[6] < lo[f[2]]) lo[f[2]] = f[6]; if (!(f[2] in hi) || f[6] > hi[f[2]]) hi[f[2]] = f[6] }
			END { for (i = 1; i <= ns; i++) { s = S[i]
				note = out[s] ? sprintf(" (%d cell%s whose A/A arm differed with no interval left out)", out[s], out[s] > 1 ? "s" : "") : ""
				if (!(s in lo)) { printf "- Mechanism: %s: every cell'"'"'s A/A arm differed for %s.\n", s, m; continue }
				r = sprintf("%.3f", lo[s]); if (sprintf("%.3f", hi[s]) != r) r = r "-" sprintf("%.3f", hi[s])
				printf "- Mechanism: %s %s %sx as often per frame as %s over the cells%s.\n", s, vb[m], r, label, note } }' "$file"
	done
}

# family_md FILE REF AA METRIC: the headline's line on METRIC's verdicts
# corrected for their number (bench/stats/family.py: the family is every
# comparison of METRIC in the run with a p value; Holm keeps the chance of
# any false verdict at 5 %, Benjamini-Hochberg the expected share of false
# ones among those that hold). Nothing when the run has no comparison of
# METRIC; a note when its rows carry no p (written by an older layer).
family_md() {
	local file=$1 ref=$2 aa=$3 m=$4 out
	awk -F'\t' -v m="$m" -v ref="$ref" -v aa="$aa" '{ split($2, f, ","); sub(/:boots$/, "", f[1]); sub(/ .*/, "", f[1]) }
		f[1] == m && f[2] != ref && f[2] != aa && f[6] != "" { n++ } END { exit !n }' "$file" || return 0
	if ! awk -F'\t' 'NF { if (split($2, f, ",") != 13) exit 1 }' "$file"; then
		echo "- Not corrected for their number: this run's rows have no p values (its verdicts.csv was written before they were recorded)."
		return 0
	fi
	out=$("$VRB_CACHE/stats/family" --metric "$m" --ref "$ref" ${aa:+--aa "$aa"} "$file") ||
		die "family: no correction for $m"
	awk -F'\t' -v m="$m" 'NR > 1 { n++; if ($7 != "-") { h++; H = H sprintf("%s%s at %s (Holm p %.2g%s)", h > 1 ? "; " : "", $2, $1, $5, $4 == 0 ? ", no spread between units: no noise estimate" : "") }
			if ($8 != "-") b++ }
		END { if (!n) exit
			printf "- Corrected for their number (the family: the run'"'"'s %d comparisons of %s with a p value): %d hold with Holm'"'"'s correction (any false verdict in the family at 5 %%)%s; %d with Benjamini-Hochberg'"'"'s (false verdicts at 5 %% of those that hold).\n",
				n, m, h + 0, h ? ": " H : "", b + 0 }' <<<"$out"
}

# glossary_md SETTINGS: "## Setting codes": what each of SETTINGS means,
# from the settings table of docs/benchmarks.md (the one place it is
# written; a code there stands for its family: mnN for mn16, zZbN for
# z1b64, NAME_aa for any A/A copy). A setting the table does not know gets
# a row that says so, and a warning (tests/unit/docs.bats keeps the table
# complete for every recorded run).
glossary_md() {
	local s base row
	echo "## Setting codes"
	echo
	echo "From [docs/benchmarks.md](../../docs/benchmarks.md#settings); drop % is per frame offered, refills and starved polls per 1000 frames delivered."
	echo
	echo "| code | kernel | meaning |"
	echo "|---|---|---|"
	for s in $1; do
		base=${s%_aa}
		if ! row=$(glossary_row "$base"); then
			warn "setting $base: not in docs/benchmarks.md's settings table"
			row="| \`$base\` | ? | not in docs/benchmarks.md's settings table |"
		fi
		if [ "$base" != "$s" ]; then
			printf '| `%s` | %s | the A/A copy of `%s` (the reference measured again: the noise floor) |\n' "$s" "$(cut -d'|' -f3 <<<"$row" | sed 's/^ *//; s/ *$//')" "$base"
		else
			printf '| `%s` |%s\n' "$s" "$(cut -d'|' -f3- <<<"$row")"
		fi
	done
	echo
}

# glossary_row CODE: the row of docs/benchmarks.md's settings table that
# CODE belongs to (its code column a list of codes, N and Z standing for
# numbers); status 1 when none.
glossary_row() {
	awk -v s="$1" '/^## Settings/ { in_s = 1; next } /^## / { in_s = 0 }
		in_s && /^\| `/ { split($0, c, "|"); n = split(c[2], codes, ",")
			for (i = 1; i <= n; i++) { k = codes[i]; gsub(/[ `]/, "", k); gsub(/[NZ]/, "[0-9]+", k)
				if (s ~ ("^" k "$")) { print; found = 1; exit } } }
		END { exit !found }' "$VRB_ROOT/docs/benchmarks.md"
}
