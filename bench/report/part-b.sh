# shellcheck shell=bash
# shellcheck disable=SC2016 # awk expressions in single quotes
# shellcheck disable=SC2154 # dir, plot_dir, plots, verdicts_md, plots_md: set by summary.sh
# summary.md for workload B (blocks.csv of the paired design, trials.csv of
# the boots design): per ring and rate, the 2019 thread's columns (drops per
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

# other_kernel_settings K: the settings of the paired run not on kernel K.
other_kernel_settings() {
	grep -v '^#' "$csv" | awk -F, -v k="$1" 'NR > 1 && $2 != k { s[$5] = 1 } END { for (x in s) printf "%s ", x }'
}

# b_totals CELL_FILTER: "setting,units,offered,dropped,drop%,drops/interval,
# refills/1k,starved/1k" per setting, sums over the cell's rows.
b_totals() {
	local header prog grx='$guest_rx_packets' ivs='dur / ivl'
	header=$(grep -m 1 -v '^#' "$csv")
	# intervals: a trial's duration / interval (boots); a block's count
	# (paired), or its seconds / interval where a phase change closes a
	# row (windows matched: a block's last row is partial)
	if [ "$design" = paired ] && windows_matched "$csv"; then
		grx='$guest_rx' ivs="\$$(stats_expr "$header" '$block_s' | tr -d '$') / ivl"
	elif [ "$design" = paired ]; then
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
	local ring=$1 rate=$2 cf ctx raw rows rows_d rows_r rows_s row s n o d dp dpi rf sp ivl_ms
	ivl_ms=$(meta "$csv" interval_ms)
	ivl_ms=${ivl_ms:-1000}
	cf="\$rx_queue_size == $ring && \$rate_pps == $rate"
	ctx="ring $ring, $rate pps$(b_frac "$rate")"
	# the run's verdicts.csv has the same rows (the same function wrote
	# them); the other kernel's rows (NAME:boots) read as NAME here
	raw=$(b_cell_verdicts "$csv" "$ref" "$aa_arm" "$ring" "$rate")
	# shellcheck disable=SC2001 # a regex: the metric before ":boots"
	rows=$(sed 's/^\([^,:]*\):boots,/\1,/' <<<"$raw")
	rows_d=$(grep '^drop_pct,' <<<"$rows" || true)
	rows_r=$(grep '^refills_per_1000,' <<<"$rows" || true)
	rows_s=$(grep '^starved_polls_per_1000,' <<<"$rows" || true)
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
	echo "The columns of the 2019 thread \"virtio-net: parameterize min ring num_free\" (sums over the cell's counted ${unit_words}; ratios of the per-unit means to $ref_label's with 95 % intervals):"
	echo
	echo "| setting | $rows_noun | offered | dropped | drops / $ivl_ms ms | % dropped | ratio to $ref_label [95 % CI] | verdict | refills / 1000 frames | ratio [95 % CI] | starved polls / 1000 frames | ratio [95 % CI] |"
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
		while IFS= read -r row; do words "$row" "$ctx" "$ref_label"; done >>"$verdicts_md"
	forest_add "$cell_rows_file" "r$ring $rate" <<<"$raw"
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
		# a row per setting, the A/A copy next to its setting; per ring two
		# columns: the median search's zero-loss rate and its first failing
		# rate (the whisker: the search's resolution)
		grep -v '^#' "$ndr" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ s = $c["setting"]; r = $c["rx_queue_size"]; if (!(s in S)) O[++ns] = s; S[s] = 1
			  if (!(r in R)) Q[++nr] = r; R[r] = 1; k = s SUBSEP r; n[k]++; v[k, n[k]] = $c["ndr_pps"]; f[k, n[k]] = $c["first_fail_pps"] }
			END { for (i = 1; i <= ns; i++) if (O[i] !~ /_aa$/) { L[++nl] = O[i]; if ((O[i] "_aa") in S) L[++nl] = O[i] "_aa" }
				for (i = 1; i <= ns; i++) if (O[i] ~ /_aa$/ && !(substr(O[i], 1, length(O[i]) - 3) in S)) L[++nl] = O[i]
				printf "setting"; for (j = 1; j <= nr; j++) printf " ring%s ring%s_fail", Q[j], Q[j]; print ""
				for (i = 1; i <= nl; i++) { printf "%s", L[i]
					for (j = 1; j <= nr; j++) { k = L[i] SUBSEP Q[j]; m = n[k]
						for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (v[k, b] < v[k, a]) {
							x = v[k, a]; v[k, a] = v[k, b]; v[k, b] = x; x = f[k, a]; f[k, a] = f[k, b]; f[k, b] = x }
						printf " %s %s", m ? v[k, int((m + 1) / 2)] : "NaN", m && f[k, int((m + 1) / 2)] != "" ? f[k, int((m + 1) / 2)] : "NaN" }
					print "" } }' >"$plot_dir/b-zero-loss.dat"
		plot "$plot_dir/b-zero-loss.png" "set title 'Workload B: zero-loss rate per setting and ring (median search; whisker: its first failing rate, the resolution)'
set style data histogram; set style histogram errorbars gap 1 lw 1; set style fill solid 0.6 border -1
set ylabel 'pps (zero loss: at most the tolerance dropped)'; set key autotitle columnhead; set yrange [0:*]; set offsets 0, 0, graph 0.05, 0
plot for [i=2:$(($(head -n 1 "$plot_dir/b-zero-loss.dat" | wc -w) - 1)):2] '$plot_dir/b-zero-loss.dat' using i:i:i+1:xtic(1) title columnhead(i)"
		[ ! -f "$plot_dir/b-zero-loss.png" ] || plots_md+=("![zero-loss rate](plots/b-zero-loss.png)")
	fi
}

# b_plots: per ring, % dropped, refills and starved polls per 1000 frames
# against the offered rate, a line per setting (mean over units, 95 %
# interval bars; the settings' points side by side at each rate, the
# measured rates on the x axis, y from 0); a forest plot per metric.
b_plots() {
	local ring rate s n mean lo hi lines=() unit others=0 base metric value filter label name i ns xt
	local gr='$guest_rx'
	[ "$design" = paired ] || gr='$guest_rx_packets'
	unit='"r" $repeat'
	if [ "$design" = paired ]; then
		unit=$B_PAIRED_UNIT
		for s in $(other_kernel_settings "$(awk -F, -v s="$ref" '$5 == s { print $2; exit }' <(grep -v '^#' "$csv"))"); do
			others="$others || \$setting == \"$s\""
		done
	fi
	while IFS='|' read -r metric _ value filter label; do
		value=${value//GR/$gr}
		name=${metric%%_*}
		for ring in $(cells | cut -d' ' -f1 | sort -un); do
			lines=()
			: >"$plot_dir/b-$ring.dat"
			for rate in $(cells | awk -v r="$ring" '$1 == r { print $2 }'); do
				base="\$rx_queue_size == $ring && \$rate_pps == $rate && ($filter)"
				# the other kernel's settings (paired design) by boot, as in the table
				{
					mean_ci "$csv" "$unit" '$setting' "$value" "$base && !($others)"
					[ "$others" = 0 ] || mean_ci "$csv" '"r" $repeat' '$setting' "$value" "$base && ($others)"
				} | while IFS=, read -r s n mean lo hi; do echo "$s $rate $mean ${lo:-$mean} ${hi:-$mean}"; done >>"$plot_dir/b-$ring.dat"
			done
			[ -s "$plot_dir/b-$ring.dat" ] || continue
			# each setting's points a little apart (dodged), in the run's order
			ns=$(cut -d' ' -f1 "$plot_dir/b-$ring.dat" | awk '!seen[$0]++' | wc -l)
			i=0
			while read -r s; do
				awk -v s="$s" -v i="$i" -v n="$ns" '$1 == s { $2 = $2 * (1 + 0.012 * (i - (n - 1) / 2)); print }' \
					"$plot_dir/b-$ring.dat" >"$plot_dir/b-$ring-$s.dat"
				lines+=("'$plot_dir/b-$ring-$s.dat' using 2:3:4:5 with yerrorlines title '$s'")
				i=$((i + 1))
			done < <(cut -d' ' -f1 "$plot_dir/b-$ring.dat" | awk '!seen[$0]++')
			xt=$(cells | awk -v r="$ring" '$1 == r { printf "%s\"%s\" %s", (n++ ? ", " : ""), $2, $2 }')
			plot "$plot_dir/b-$name-ring$ring.png" "set title 'Workload B, ring $ring: $label by offered rate (mean per unit, 95 % CI)'
set xlabel 'offered pps (the rates measured; points side by side)'; set ylabel '$label'
set xtics ($xt); set yrange [0:*]; set offsets graph 0.12, graph 0.12, graph 0.05, 0
plot $(IFS=,; echo "${lines[*]}")"
			rm -f "$plot_dir/b-$ring".dat "$plot_dir/b-$ring"-*.dat
			[ ! -f "$plot_dir/b-$name-ring$ring.png" ] || plots_md+=("![ring $ring: $label by rate](plots/b-$name-ring$ring.png)")
		done
	done <<<"$B_METRICS"
	for metric in drop_pct refills_per_1000 starved_polls_per_1000; do
		forest_plot "$plot_dir/b-forest-$metric.png" "$run_id: $metric, each setting against $ref_label per cell (ring, rate)" \
			"$metric" "$cell_rows_file"
		[ ! -f "$plot_dir/b-forest-$metric.png" ] || plots_md+=("![$metric against $ref_label](plots/b-forest-$metric.png)")
	done
}

# cells: "RING RATE" per cell, in the order of the file.
cells() {
	b_cells "$csv"
}

summary_b() {
	local cells_md
	if [ -f "$dir/blocks.csv" ]; then
		csv=$dir/blocks.csv design=paired rows_noun=blocks
		unit_words="blocks; a unit is a boot (its blocks of a setting averaged)"
	else
		csv=$dir/trials.csv design=boots rows_noun=trials unit_words="trials; a unit is a repeat"
	fi
	ref=$(meta "$csv" reference)
	aa_arm=$(meta "$csv" aa_arm)
	[ "$aa_arm" != none ] || aa_arm=''
	[ -n "$ref" ] || die "$csv: no reference in its metadata (a run before the verdicts)"
	# what the comparisons divide by, in words: the reference, or the mean
	# of both its copies (b_pooled)
	ref_label=$ref
	! b_pooled "$csv" "$aa_arm" || ref_label="$ref+$aa_arm"
	echo "# Workload B: $(meta "$csv" command)"
	echo
	# the cells first: the headline is made from their rows
	cells_md=$(while read -r ring rate; do b_cell "$ring" "$rate"; done < <(cells))
	echo "## Headline"
	echo
	b_design
	[ "$design" != paired ] || b_windows
	headline_md "$cell_rows_file" "$ref" "$aa_arm" drop_pct "refills_per_1000 starved_polls_per_1000" "$ref_label"
	echo
	b_preregistration
	glossary_md "$(meta "$csv" settings)"
	echo "## Cells"
	echo
	echo "$cells_md"
	b_zero_loss
	[ "$plots" = 0 ] || b_plots
}

# run_md_B: the run's metadata and files, the summary's last section.
run_md_B() {
	echo "## Run"
	echo
	md_meta "$csv"
	echo
	echo "Files: [$(basename "$csv")]($(basename "$csv")) (one row per $( [ "$design" = paired ] && echo block || echo trial)), [verdicts.csv](verdicts.csv), [tables.txt](tables.txt), boots/ or trials/ (the guests' logs)."
	echo
}

# b_preregistration: a run's pre-registration (run-b.sh --hypotheses):
# hypotheses.txt as written before the first boot, and whether it still
# has the sha256 the run recorded then.
b_preregistration() {
	local f=$dir/hypotheses.txt recorded now fence
	recorded=$(meta "$csv" hypotheses | sed -n 's/.*(sha256 \([0-9a-f]\{16\}\);.*/\1/p')
	if [ ! -f "$f" ]; then
		[ -z "$recorded" ] || printf '## Pre-registration\n\nThe run recorded a pre-registration (sha256 %s) but its hypotheses.txt is missing.\n\n' "$recorded"
		return 0
	fi
	now=$(sha256_of "$f" | cut -c1-16)
	echo "## Pre-registration"
	echo
	if [ -z "$recorded" ]; then
		echo "[hypotheses.txt](hypotheses.txt) ($now): the run recorded no sha256 for it, so it is not a pre-registration of this run."
	elif [ "$now" = "$recorded" ]; then
		echo "[hypotheses.txt](hypotheses.txt), copied into the run before its first boot; its sha256 ($recorded) is the one recorded in the metadata then. The headline above answers it where the run's arms are the hypotheses' (its Holm family is every drop comparison of the run)."
	else
		echo "[hypotheses.txt](hypotheses.txt): its sha256 ($now) is NOT the one the run recorded before its first boot ($recorded): it was changed afterwards, and is no pre-registration."
	fi
	echo
	# a fence longer than any run of backticks in the file
	fence=$(awk '{ while (match($0, /`+/)) { if (RLENGTH > m) m = RLENGTH; $0 = substr($0, RSTART + RLENGTH) } } END { n = (m >= 3 ? m + 1 : 3); while (n--) printf "`" }' "$f")
	echo "$fence"
	cat "$f"
	# a last line without its newline still ends before the fence
	[ -z "$(tail -c 1 "$f")" ] || echo
	echo "$fence"
	echo
}

# b_windows: the headline's line on what each side counted in a block
# (paired design). Runs whose metadata say windows=matched (rx_window):
# the block's rows on the source's clock (block_s), the guest's time
# between its two counter reads, and how much of the frames the source
# delivered in the block the guest's counters saw: 100 % when the windows
# match (a block's frames still in the ring at either end aside). Earlier
# runs: the source's counted window (its interval rows after the settle),
# the block's length (block_s, where blocks.csv has it) and the same share,
# with the guest's reads at the ends of its own window.
b_windows() {
	local ivl header d iv g gs='0' bs='0' prog
	ivl=$(meta "$csv" interval_ms)
	ivl=${ivl:-1000}
	header=$(grep -m 1 -v '^#' "$csv")
	d=$(stats_expr "$header" '$delivered')
	iv=$(stats_expr "$header" '$intervals')
	g=$(stats_expr "$header" '$guest_rx')
	[[ ",$header," != *,guest_seconds,* ]] || gs=$(stats_expr "$header" '$guest_seconds')
	[[ ",$header," != *,block_s,* ]] || bs=$(stats_expr "$header" '$block_s')
	# per block: the rows' seconds, the guest's, the share it saw
	prog="NR > 1 && $d > 0 {
			n++; w += $iv * $ivl / 1000; b += $bs; t += $gs
			r = $g / $d; s += r; if (n == 1 || r < lo) lo = r; if (r > hi) hi = r }
		END { if (!n) exit
			if (matched) {
				printf \"- Windows: matched (rx_window): a block's rows lasted %.3f s on the source's clock on average and the guest's counter reads were %.3f s apart\", b / n, t / n
				printf \"; the guest's counters saw %.2f %% (%.2f-%.2f %% over the blocks) of the frames the source delivered in the block. Drop %% is per frame the source offered, refills and starved polls per frame the guest counted.\\n\", 100 * s / n, 100 * lo, 100 * hi
				exit }
			printf \"- Windows: the source counted %.1f s of a block on average\", w / n
			if (b) printf \" (a block lasted %.1f s on its clock, the guest's counter reads included)\", b / n
			printf \"; the guest's counters, read at the ends of its own window, saw %.0f %% (%.0f-%.0f %% over the blocks) of the frames the source delivered in its window. Drop %% is per frame the source offered, refills and starved polls per frame the guest counted: each within one side's window.\\n\", 100 * s / n, 100 * lo, 100 * hi }"
	grep -v '^#' "$csv" | awk -F, -v matched="$(windows_matched "$csv" && echo 1 || echo 0)" "$prog"
}

# b_pool_note: " pooled with AA ..." when the run's comparisons take the
# mean of both copies of the reference (b_pooled).
b_pool_note() {
	! b_pooled "$csv" "$aa_arm" ||
		echo " pooled with $aa_arm (both copies as data: the reference of a comparison, $ref_label, is their mean per unit; the A/A row is $aa_arm against $ref alone)"
}

# b_design: the headline's design line.
b_design() {
	local units
	if [ "$design" = paired ]; then
		units="a unit is a boot ($(meta "$csv" blocks); its blocks of a setting averaged)"
		# (a run of one kernel has no other kernel to pair)
		[ -z "$(other_kernel_settings "$(awk -F, -v s="$ref" '$5 == s { print $2; exit }' <(grep -v '^#' "$csv"))")" ] ||
			units+=", the other kernel's settings paired by repeat"
	else
		units="a unit is a repeat, one boot per trial"
	fi
	echo "- Design: $design; settings $(meta "$csv" settings), reference $ref$(b_pool_note), A/A arm ${aa_arm:-none}; $units; rings $(cells | cut -d' ' -f1 | sort -un | tr '\n' ' ' | sed 's/ $//'); rates $(cells | cut -d' ' -f2 | sort -un | tr '\n' ' ' | sed 's/ $//') pps$(b_fracs); accelerator $(meta "$csv" accel | cut -d' ' -f1), clock $(meta "$csv" clock). $(verdicts_note cell '')"
}

# b_fracs: " (F1 F2 x the capacity measured, C pps)" when the rates are
# fractions of the run's measured capacity.
b_fracs() {
	local c f
	c=$(meta "$csv" capacity_pps)
	f=$(meta "$csv" fractions_of_capacity)
	[[ "$c" =~ ^[0-9]+$ ]] && [ -n "$f" ] && [ "$f" != - ] || return 0
	echo " ($f x the capacity measured at the run's start, $c pps)"
}
