# shellcheck shell=bash
# shellcheck disable=SC2016 # awk expressions in single quotes
# shellcheck disable=SC2154 # dir, plot_dir, plots, verdicts_md, plots_md: set by summary.sh
# summary.md for workload B (blocks.csv of the paired design, trials.csv of
# the boots design): per ring and rate, seed 003's columns (drops per
# interval, % dropped, refills and starved polls per 1000 frames) with
# every setting against the reference and the A/A line; the zero-loss
# rates (boots design); plots of % dropped against the offered rate per
# setting (95 % interval bars) and of the zero-loss rate per setting.

# b_frac RATE: " (0.9 x capacity)" when the run's metadata maps RATE to a
# fraction of its measured capacity.
b_frac() {
	local rates fracs i=0 r
	rates=$(meta "$csv" rates_pps)
	fracs=$(meta "$csv" fractions_of_capacity)
	# rates given (--rates): the fractions were not applied
	[[ "$(meta "$csv" capacity_pps)" =~ ^[0-9]+$ ]] && [ -n "$fracs" ] || return 0
	read -ra fa <<<"$fracs"
	for r in $rates; do
		[ "$r" != "$1" ] || { echo " (${fa[$i]:-?} x capacity)"; return 0; }
		i=$((i + 1))
	done
}

# b_rows CELL_FILTER METRIC BETTER VALUE ROW_FILTER: compare rows for one
# cell. Paired design: the reference's kernel by rounds (pairs of rounds,
# ABBA), the other kernel by boot (its boots against the reference's, by
# repeat); boots design: by repeat.
b_rows() {
	local cf=$1 m=$2 better=$3 value=$4 rf=$5 k
	if [ "$design" = boots ]; then
		cell_rows "$csv" '"r" $repeat' '$setting' "$value" "($cf) && ($rf)" "$m" "$better" "$ref" "$aa_arm"
		return
	fi
	k=$(awk -F, -v s="$ref" '$5 == s { print $2; exit }' <(grep -v '^#' "$csv"))
	cell_rows "$csv" '"r" $repeat "p" int(($round + 1) / 2)' '$setting' "$value" \
		"($cf) && ($rf) && \$kernel == \"$k\"" "$m" "$better" "$ref" "$aa_arm"
	cell_rows "$csv" '"r" $repeat' '$setting' "$value" "($cf) && ($rf)" "$m" "$better" "$ref" "$aa_arm" |
		awk -F, -v k="$k" -v list="$(other_kernel_settings "$k")" \
			'BEGIN { n = split(list, a, " "); for (i = 1; i <= n; i++) o[a[i]] = 1 } ($2 in o)'
}

# other_kernel_settings K: the settings of the paired run not on kernel K.
other_kernel_settings() {
	grep -v '^#' "$csv" | awk -F, -v k="$1" 'NR > 1 && $2 != k { s[$5] = 1 } END { for (x in s) printf "%s ", x }'
}

# b_totals CELL_FILTER: "setting,units,offered,dropped,drop%,drops/interval,
# refills/1k,starved/1k" per setting, sums over the cell's rows.
b_totals() {
	local header prog grx='$guest_rx_packets' ivs='dur / ivl'
	header=$(grep -m 1 -v '^#' "$csv")
	# intervals: a trial's duration / interval (boots); a block's count (paired)
	if [ "$design" = paired ]; then
		grx='$guest_rx' ivs="\$$(stats_expr "$header" '$intervals' | tr -d '$')"
	fi
	prog="NR > 1 && ($(stats_expr "$header" "$1")) {
		s = \$$(stats_expr "$header" '$setting' | tr -d '$'); if (!(s in n)) S[++ns] = s
		n[s]++; o[s] += \$$(stats_expr "$header" '$offered' | tr -d '$')
		d[s] += \$$(stats_expr "$header" '$dropped' | tr -d '$')
		g[s] += \$$(stats_expr "$header" "$grx" | tr -d '$')
		rf[s] += \$$(stats_expr "$header" '$refills' | tr -d '$')
		sp[s] += \$$(stats_expr "$header" '$starved_polls' | tr -d '$')
		iv[s] += $ivs }"
	prog="$prog
		END { for (k = 1; k <= ns; k++) { s = S[k]
			printf \"%s,%d,%.0f,%.0f,%.3f,%.1f,%s,%s\\n\", s, n[s], o[s], d[s], o[s] ? 100 * d[s] / o[s] : 0,
				iv[s] ? d[s] / iv[s] : 0, (s ~ /^stock/ || !g[s]) ? \"-\" : sprintf(\"%.2f\", 1000 * rf[s] / g[s]),
				(s ~ /^stock/ || !g[s]) ? \"-\" : sprintf(\"%.3f\", 1000 * sp[s] / g[s]) } }"
	grep -v '^#' "$csv" | awk -F, -v dur="$(meta "$csv" duration_s)" \
		-v ivl="$(awk -v m="$(meta "$csv" interval_ms)" 'BEGIN { print (m ? m : 1000) / 1000 }')" "$prog"
}

# b_cell RING RATE: the markdown of one cell.
b_cell() {
	local ring=$1 rate=$2 cf ctx rows_d rows_r rows_s row s n o d dp dpi rf sp gr
	cf="\$rx_queue_size == $ring && \$rate_pps == $rate"
	gr='$guest_rx'
	[ "$design" = paired ] || gr='$guest_rx_packets'
	ctx="ring $ring, $rate pps$(b_frac "$rate")"
	rows_d=$(b_rows "$cf" drop_pct lower '$drop_pct' '$drop_pct != ""')
	rows_r=$(b_rows "$cf" refills_per_1000 "" "div(1000 * \$refills, $gr)" '$kernel == "patched"')
	rows_s=$(b_rows "$cf" starved_polls_per_1000 "" "div(1000 * \$starved_polls, $gr)" '$kernel == "patched"')
	echo "### $ctx"
	echo
	if [ -n "$aa_arm" ]; then
		for row in "$(grep "^drop_pct,$aa_arm," <<<"$rows_d" || true)" \
			"$(grep "^refills_per_1000,$aa_arm," <<<"$rows_r" || true)" \
			"$(grep "^starved_polls_per_1000,$aa_arm," <<<"$rows_s" || true)"; do
			[ -z "$row" ] || echo "**A/A** ($aa_arm against $ref, the noise floor): $(cut -d, -f1 <<<"$row") ratio $(ratio_cell "$row"), $(cut -d, -f12 <<<"$row")."
			echo
		done
	fi
	echo "Seed 003's columns (sums over the cell's counted ${unit_words}; ratios of the per-unit means to $ref's with 95 % intervals):"
	echo
	echo "| setting | $rows_noun | offered | dropped | drops / interval | % dropped | ratio to $ref [95 % CI] | verdict | refills / 1000 frames | ratio [95 % CI] | starved polls / 1000 frames | ratio [95 % CI] |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
	while IFS=, read -r s n o d dp dpi rf sp; do
		local rd rr rs
		rd=$(grep "^drop_pct,$s," <<<"$rows_d" || true)
		rr=$(grep "^refills_per_1000,$s," <<<"$rows_r" || true)
		rs=$(grep "^starved_polls_per_1000,$s," <<<"$rows_s" || true)
		echo "| $s | $n | $o | $d | $dpi | $dp | $(ratio_cell "$rd") | $(cut -d, -f12 <<<"$rd") | $rf | $(ratio_cell "$rr") ${rr:+$(cut -d, -f12 <<<"$rr" | sed 's/^reference$//')} | $sp | $(ratio_cell "$rs") ${rs:+$(cut -d, -f12 <<<"$rs" | sed 's/^reference$//')} |"
	done < <(b_totals "$cf")
	echo
	{ grep -v '^$' <<<"$rows_d" || true; grep -v '^$' <<<"$rows_r" || true; grep -v '^$' <<<"$rows_s" || true; } |
		while IFS= read -r row; do words "$row" "$ctx" "$ref"; done >>"$verdicts_md"
}

# b_zero_loss: the zero-loss rate table (boots design, ndr.csv).
b_zero_loss() {
	local ndr=$dir/ndr.csv
	echo "## Zero-loss rate"
	echo
	if [ ! -s "$ndr" ]; then
		echo "No zero-loss search in this run ($design design; \`--design boots\` with \`--ndr-steps\` > 0 runs one)."
		echo
		return 0
	fi
	echo "The highest rate whose trial dropped at most the tolerance (a binary search; its resolution is the step: the last passing and the first failing rate):"
	echo
	echo "| ring | setting | searches | zero-loss pps (median) | first failing pps | tolerance % |"
	echo "|---|---|---|---|---|---|"
	grep -v '^#' "$ndr" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = $c["rx_queue_size"] "," $c["setting"]; if (!(k in n)) K[++nk] = k
		  n[k]++; v[k, n[k]] = $c["ndr_pps"]; f[k, n[k]] = $c["first_fail_pps"]; t[k] = $c["tolerance_pct"] }
		END { for (j = 1; j <= nk; j++) { k = K[j]; m = n[k]
			# sorted by the zero-loss rate, each search with its own first failing rate
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[k, b] < v[k, a]) {
				x = v[k, a]; v[k, a] = v[k, b]; v[k, b] = x; x = f[k, a]; f[k, a] = f[k, b]; f[k, b] = x }
			mid = int((m + 1) / 2)
			split(k, p, ","); printf "| %s | %s | %d | %s | %s | %s |\n", p[1], p[2], m, v[k, mid], f[k, mid], t[k] } }'
	echo
	if [ "$plots" = 1 ]; then
		# one column per ring, a row per setting (the median search)
		grep -v '^#' "$ndr" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ s = $c["setting"]; r = $c["rx_queue_size"]; if (!(s in S)) O[++ns] = s; S[s] = 1
			  if (!(r in R)) Q[++nr] = r; R[r] = 1; k = s SUBSEP r; n[k]++; v[k, n[k]] = $c["ndr_pps"] }
			END { printf "setting"; for (j = 1; j <= nr; j++) printf " ring%s", Q[j]; print ""
				for (i = 1; i <= ns; i++) { printf "%s", O[i]
					for (j = 1; j <= nr; j++) { k = O[i] SUBSEP Q[j]; m = n[k]
						for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[k, b] < v[k, a]) { x = v[k, a]; v[k, a] = v[k, b]; v[k, b] = x }
						printf " %s", m ? v[k, int((m + 1) / 2)] : "NaN" }
					print "" } }' >"$plot_dir/ndr.dat"
		plot "$plot_dir/b-zero-loss.png" "set title 'Workload B: zero-loss rate per setting and ring (median search)'
set style data histogram; set style histogram cluster gap 1; set style fill solid 0.6 border -1
set ylabel 'pps (zero loss)'; set key autotitle columnhead; set yrange [0:*]
plot for [i=2:$(($(head -n 1 "$plot_dir/ndr.dat" | wc -w)))] '$plot_dir/ndr.dat' using i:xtic(1)"
		rm -f "$plot_dir/ndr.dat"
		[ ! -f "$plot_dir/b-zero-loss.png" ] || plots_md+=("![zero-loss rate](plots/b-zero-loss.png)")
	fi
}

# b_plots: % dropped against the offered rate, a line per setting and ring
# (mean over units, 95 % interval bars).
b_plots() {
	local ring rate s n mean lo hi lines=() unit others=0 base
	unit='"r" $repeat'
	if [ "$design" = paired ]; then
		unit='"r" $repeat "p" int(($round + 1) / 2)'
		for s in $(other_kernel_settings "$(awk -F, -v s="$ref" '$5 == s { print $2; exit }' <(grep -v '^#' "$csv"))"); do
			others="$others || \$setting == \"$s\""
		done
	fi
	for ring in $(cells | cut -d' ' -f1 | sort -un); do
		lines=()
		: >"$plot_dir/b-$ring.dat"
		for rate in $(cells | awk -v r="$ring" '$1 == r { print $2 }'); do
			base="\$rx_queue_size == $ring && \$rate_pps == $rate && \$drop_pct != \"\""
			# the other kernel's settings (paired design) by boot, as in the table
			{
				mean_ci "$csv" "$unit" '$setting' '$drop_pct' "$base && !($others)"
				[ "$others" = 0 ] || mean_ci "$csv" '"r" $repeat' '$setting' '$drop_pct' "$base && ($others)"
			} | while IFS=, read -r s n mean lo hi; do echo "$s $rate $mean ${lo:-$mean} ${hi:-$mean}"; done >>"$plot_dir/b-$ring.dat"
		done
		while read -r s; do
			awk -v s="$s" '$1 == s' "$plot_dir/b-$ring.dat" >"$plot_dir/b-$ring-$s.dat"
			lines+=("'$plot_dir/b-$ring-$s.dat' using 2:3:4:5 with yerrorlines title '$s'")
		done < <(cut -d' ' -f1 "$plot_dir/b-$ring.dat" | awk '!seen[$0]++')
		plot "$plot_dir/b-drops-ring$ring.png" "set title 'Workload B, ring $ring: % dropped by offered rate (mean per unit, 95 % CI)'
set xlabel 'offered pps'; set ylabel '% dropped'; set offsets graph 0.05, graph 0.05, 0, 0
plot $(IFS=,; echo "${lines[*]}")"
		rm -f "$plot_dir/b-$ring".dat "$plot_dir/b-$ring"-*.dat
		[ ! -f "$plot_dir/b-drops-ring$ring.png" ] || plots_md+=("![ring $ring: % dropped by rate](plots/b-drops-ring$ring.png)")
	done
}

# cells: "RING RATE" per cell, in the order of the file.
cells() {
	grep -v '^#' "$csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = $c["rx_queue_size"] " " $c["rate_pps"]; if (!(k in s)) { s[k] = 1; print k } }'
}

summary_b() {
	local ring rate
	if [ -f "$dir/blocks.csv" ]; then
		csv=$dir/blocks.csv design=paired rows_noun=blocks
		unit_words="blocks; a unit is a pair of rounds of one boot (a boot for the other kernel)"
	else
		csv=$dir/trials.csv design=boots rows_noun=trials unit_words="trials; a unit is a repeat"
	fi
	ref=$(meta "$csv" reference)
	aa_arm=$(meta "$csv" aa_arm)
	[ "$aa_arm" != none ] || aa_arm=''
	[ -n "$ref" ] || die "$csv: no reference in its metadata (a run before the verdicts)"
	echo "# Workload B: $(meta "$csv" workload)"
	echo
	md_meta "$csv"
	echo
	echo "Settings: $(meta "$csv" settings); reference $ref; $design design$( [ "$design" = boots ] || echo ": $(meta "$csv" blocks)")."
	echo
	while read -r ring rate; do b_cell "$ring" "$rate"; done < <(cells)
	b_zero_loss
	[ "$plots" = 0 ] || b_plots
}
