# shellcheck shell=bash
# shellcheck disable=SC2016 # awk expressions in single quotes
# shellcheck disable=SC2154 # dir, plot_dir, plots, verdicts_md, plots_md: set by summary.sh
# summary.md for workload A (trials.csv): per tx_queue_len, the A/A line,
# the 2017 threads' tables ("rx batch -> pps", "xmit / dropped / total /
# % dropped"), every row against the reference with its interval; plots of
# pps against the rx batch and % dropped against the zeroing batch.

# medians CSV FILTER COL...: "setting,median(COL1),..." per setting (in the
# order of first appearance) over the rows FILTER selects.
medians() {
	local csv=$1 filter=$2 header prog cols=() c
	shift 2
	header=$(grep -m 1 -v '^#' "$csv")
	for c in "$@"; do cols+=("$(stats_expr "$header" "\$$c")"); done
	prog="function med(k, n,   i, j, t, a) { for (i = 1; i <= n; i++) a[i] = v[k, i]
			for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		NR > 1 && ($(stats_expr "$header" "$filter")) {
			s = \$$(stats_expr "$header" '$setting' | tr -d '$')
			if (!(s in n)) S[++ns] = s
			n[s]++
			$(i=0; for c in "${cols[@]}"; do i=$((i + 1)); printf 'v["%s", s, n[s]] = %s + 0\n' "$i" "$c"; done)
		}
		END { for (k = 1; k <= ns; k++) { s = S[k]; line = s
			for (c = 1; c <= $#; c++) { for (i = 1; i <= n[s]; i++) v[\"m\", i] = v[c, s, i]
				line = line \",\" med(\"m\", n[s]) }
			print line } }"
	grep -v '^#' "$csv" | awk -F, "$prog"
}

# a_cell Q: the markdown of one tx_queue_len.
a_cell() {
	local q=$1 csv=$dir/trials.csv f rows rows_pps rows_drop s row
	f="\$txqlen == $q"
	# the run's verdicts.csv has the same rows (the same function wrote them)
	rows=$(a_cell_verdicts "$csv" "$ref" "$aa_arm" "$q")
	rows_pps=$(grep '^pktgen_pps,' <<<"$rows" || true)
	rows_drop=$(grep '^drop_pct,' <<<"$rows" || true)
	echo "### tx_queue_len $q"
	echo
	if [ -n "$aa_arm" ]; then
		for row in "$(grep "^pktgen_pps,$aa_arm," <<<"$rows_pps")" "$(grep "^drop_pct,$aa_arm," <<<"$rows_drop")"; do
			[ -z "$row" ] || printf '**A/A** (%s against %s, the noise floor): %s ratio %s, %s.\n\n' "$aa_arm" "$ref" \
				"$(cut -d, -f1 <<<"$row")" "$(ratio_cell "$row")" "$(cut -d, -f12 <<<"$row")"
		done
	fi
	echo "As in the 2017 thread \"ptr_ring: add ptr_ring_unconsume\": vhost-net rx batch -> pktgen pps (mean over repeats with its 95 % interval; ratio to $ref paired by repeat):"
	echo
	echo "| setting | kernel | rx batch | zeroing batch | repeats | pps mean [95 % CI] | pps median | ratio to $ref [95 % CI] | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|"
	join_rows "$csv" "$f" "$rows_pps" pktgen_pps | while IFS='|' read -r info n mean lo hi med rat verdict; do
		IFS=, read -r s kern rxb zb <<<"$info"
		if [ "$n" -ge 3 ]; then mci=$(printf '%.0f [%.0f, %.0f]' "$mean" "$lo" "$hi"); else mci=$(printf '%.0f (no interval: %s units)' "$mean" "$n"); fi
		echo "| $s | $kern | $rxb | ${zb/#0/stock rule} | $n | $mci | $med | $rat | $verdict |"
	done
	echo
	echo "As in the 2017 thread \"ptr_ring: batch ring zeroing\": xmit / dropped / total / % dropped (medians over repeats; ratio of the mean % dropped to $ref's, paired by repeat):"
	echo
	echo "| setting | zeroing batch | rx batch | xmit | dropped | total | % dropped | ratio to $ref [95 % CI] | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|"
	while IFS=, read -r s xm dr to dp; do
		row=$(grep "^drop_pct,$s," <<<"$rows_drop" || true)
		IFS=, read -r _ kern rxb zb _ <<<"$(setting_info "$csv" "$s" "$f")"
		echo "| $s | ${zb/#0/stock rule} | $rxb | $xm | $dr | $to | $dp | $(ratio_cell "$row") | $(cut -d, -f12 <<<"$row") |"
	done < <(medians "$csv" "$f" xmit dropped total drop_pct || true)
	echo
	[ "$(meta "$csv" settings | tr ' ' '\n' | grep -c '^bp')" = 0 ] || a_bp_table "$csv" "$f" "$rows_pps"
	{ grep -v '^$' <<<"$rows_pps"; grep -v '^$' <<<"$rows_drop"; } | while IFS= read -r row; do
		words "$row" "tx_queue_len $q" "$ref"
	done >>"$verdicts_md"
	printf '%s\n%s\n' "$rows_pps" "$rows_drop" | forest_add "$cell_rows_file" "tx_queue_len $q"
}

# a_bp_table CSV FILTER ROWS_PPS: the backpressure settings (bp, bpbN) next
# to the others in the 2026 posting's shape: sent / delivered / lost pps.
# A trial lasts xmit / pktgen_pps seconds (pktgen's run): sent = the frames
# pktgen offered (xmit + dropped) per second of it, delivered = pktgen's pps
# (every frame the tap took reaches the consumer before the trial ends),
# lost = tun's drops per second.
a_bp_table() {
	local csv=$1 f=$2 rows=$3 s se de lo lp row kern
	echo "Backpressure (IFF_BACKPRESSURE: a full ring stops the tap's queue, pktgen waits; the 2026 posting's shape), medians over repeats; delivered against $ref paired by repeat:"
	echo
	echo "| setting | kernel | sent pps | delivered pps | lost pps | % lost | delivered: ratio to $ref [95 % CI] | verdict |"
	echo "|---|---|---|---|---|---|---|---|"
	while IFS=, read -r s se de lo lp; do
		row=$(grep "^pktgen_pps,$s," <<<"$rows" || true)
		IFS=, read -r _ kern _ <<<"$(setting_info "$csv" "$s" "$f")"
		printf '| %s | %s | %.0f | %.0f | %.0f | %s | %s | %s |\n' "$s" "$kern" "$se" "$de" "$lo" "$lp" \
			"$(ratio_cell "$row")" "$(cut -d, -f12 <<<"$row")"
	done < <(medians "$csv" "$f" 'total * $pktgen_pps / $xmit' pktgen_pps 'dropped * $pktgen_pps / $xmit' drop_pct || true)
	echo
}

# setting_info CSV S FILTER: "setting,kernel,rx_batch,zero_batch" of S's
# first row in the cell FILTER (an awk condition on $column names): a
# setting's zeroing batch can differ by cell (zqbN: a quarter of the
# cell's tx_queue_len).
setting_info() {
	local header
	header=$(grep -m 1 -v '^#' "$1")
	grep -v '^#' "$1" | awk -F, -v s="$2" "NR == 1 { for (i = 1; i <= NF; i++) c[\$i] = i; next }
		\$c[\"setting\"] == s && ($(stats_expr "$header" "$3")) {
			print s \",\" \$c[\"kernel\"] \",\" \$c[\"rx_batch\"] \",\" \$c[\"zero_batch\"]; exit }"
}

# join_rows CSV FILTER ROWS METRIC: per setting, in the run's order,
# "s,kernel,rx,zero|units|mean|lo|hi|median|ratio cell|verdict".
join_rows() {
	local csv=$1 f=$2 rows=$3 m=$4 s n mean lo hi med row cis
	cis=$(mean_ci "$csv" '"r" $repeat' '$setting' "\$$m" "$f")
	for s in $(meta "$csv" settings); do
		IFS=, read -r _ n mean lo hi <<<"$(grep "^$s," <<<"$cis" || true)"
		[ -n "$n" ] || continue
		med=$(medians "$csv" "$f" "$m" | awk -F, -v s="$s" '$1 == s { print $2 }')
		row=$(grep "^$m,$s," <<<"$rows" || true)
		printf '%s|%s|%s|%s|%s|%s|%s|%s\n' "$(setting_info "$csv" "$s" "$f")" "$n" "$mean" "${lo:-$mean}" \
			"${hi:-$mean}" "$med" "$(ratio_cell "$row")" "$(cut -d, -f12 <<<"$row")"
	done
}

# a_plots: pps against the rx batch, % dropped against the zeroing batch,
# a line per tx_queue_len (the mean over repeats, 95 % interval bars).
a_plots() {
	local csv=$dir/trials.csv q data="$plot_dir/a-data" s n mean lo hi kern rxb zb
	local pps_plot=() drop_plot=()
	mkdir -p "$data"
	for q in $txqlens; do
		: >"$data/pps-$q.dat"
		: >"$data/drop-$q.dat"
		while IFS=, read -r s n mean lo hi; do
			IFS=, read -r _ kern rxb zb <<<"$(setting_info "$csv" "$s" "\$txqlen == $q")"
			# pps: patched settings with the stock zeroing rule
			[ "$kern" = patched ] && [ "$zb" = 0 ] && [ "$s" = "$(aa_base "$s")" ] &&
				echo "$rxb $mean ${lo:-$mean} ${hi:-$mean}" >>"$data/pps-$q.dat"
		done < <(mean_ci "$csv" '"r" $repeat' '$setting' '$pktgen_pps' "\$txqlen == $q")
		while IFS=, read -r s n mean lo hi; do
			IFS=, read -r _ kern rxb zb <<<"$(setting_info "$csv" "$s" "\$txqlen == $q")"
			[ "$kern" = patched ] && [ "$zb" != 0 ] &&
				echo "$zb $mean ${lo:-$mean} ${hi:-$mean} $rxb" >>"$data/drop-$q.dat"
		done < <(mean_ci "$csv" '"r" $repeat' '$setting' '$drop_pct' "\$txqlen == $q")
		sort -n -o "$data/pps-$q.dat" "$data/pps-$q.dat"
		sort -n -o "$data/drop-$q.dat" "$data/drop-$q.dat"
		[ ! -s "$data/pps-$q.dat" ] || pps_plot+=("'$data/pps-$q.dat' using 1:2:3:4 with yerrorlines title 'tx_queue_len $q'")
		[ ! -s "$data/drop-$q.dat" ] || drop_plot+=("'$data/drop-$q.dat' using 1:2:3:4 with yerrorlines title 'tx_queue_len $q'")
	done
	if [ "${#pps_plot[@]}" -gt 0 ]; then
		plot "$plot_dir/a-pps-vs-rx_batch.png" "set title 'Workload A: pktgen pps by vhost-net rx batch (mean, 95 % CI)'
set xlabel 'vhost-net rx batch'; set ylabel 'pps (the axis does not start at 0)'; set logscale x 2
plot $(IFS=,; echo "${pps_plot[*]}")"
		[ ! -f "$plot_dir/a-pps-vs-rx_batch.png" ] || plots_md+=("![pps by rx batch](plots/a-pps-vs-rx_batch.png)")
	fi
	if [ "${#drop_plot[@]}" -gt 0 ]; then
		plot "$plot_dir/a-drop-vs-zero_batch.png" "set title 'Workload A: % dropped by the tx ring zeroing batch (mean, 95 % CI)'
set xlabel 'tun.tx_ring_zero_batch'; set ylabel '% dropped'; set logscale x 2; set yrange [0:*]
plot $(IFS=,; echo "${drop_plot[*]}")"
		[ ! -f "$plot_dir/a-drop-vs-zero_batch.png" ] || plots_md+=("![% dropped by zeroing batch](plots/a-drop-vs-zero_batch.png)")
	else
		plots_notes+=("No zeroing-batch plot: the run has no zZbN setting.")
	fi
	rm -rf "$data"
	for m in pktgen_pps drop_pct; do
		forest_plot "$plot_dir/a-forest-$m.png" "$run_id: $m, each setting against $ref per tx_queue_len" "$m" "$cell_rows_file"
		[ ! -f "$plot_dir/a-forest-$m.png" ] || plots_md+=("![$m against $ref](plots/a-forest-$m.png)")
	done
}

summary_a() {
	local csv=$dir/trials.csv q cells_md
	[ -f "$csv" ] || die "$dir: no trials.csv (a workload A result dir?)"
	ref=$(meta "$csv" reference)
	aa_arm=$(meta "$csv" aa_arm)
	txqlens=$(meta "$csv" txqlens)
	[ "$aa_arm" != none ] || aa_arm=""
	[ -n "$ref" ] || die "$csv: no reference in its metadata (a run before the paired design)"
	[ -n "$txqlens" ] ||
		die "$csv: no txqlens in its metadata"
	echo "# Workload A: $(meta "$csv" command)"
	echo
	# the cells first: the headline is made from their rows
	cells_md=$(for q in $txqlens; do a_cell "$q"; done)
	echo "## Headline"
	echo
	echo "- Design: settings $(meta "$csv" settings), reference $ref, A/A arm ${aa_arm:-none}; $(meta "$csv" repeats) repeats per tx_queue_len ($txqlens), a unit is a repeat (one boot per kernel runs all its settings); accelerator $(meta "$csv" accel | cut -d' ' -f1), clock $(meta "$csv" clock). $(verdicts_note tx_queue_len 's/^tx_queue_len /q/')"
	headline_md "$cell_rows_file" "$ref" "$aa_arm" "pktgen_pps drop_pct" ""
	echo
	glossary_md "$(meta "$csv" settings)"
	echo "## Cells"
	echo
	echo "$cells_md"
	[ "$plots" = 0 ] || a_plots
}

# run_md_A: the run's metadata and files, the summary's last section.
run_md_A() {
	echo "## Run"
	echo
	md_meta "$dir/trials.csv"
	echo
	echo "Files: [trials.csv](trials.csv) (one row per trial), [verdicts.csv](verdicts.csv), [tables.txt](tables.txt), boots/ (the guests' logs)."
	echo
}
