# shellcheck shell=bash
# shellcheck disable=SC2016 # awk expressions in single quotes
# shellcheck disable=SC2154 # dir, plot_dir, plots, verdicts_md, plots_md: set by summary.sh
# summary.md for workload C (bench/vdpa_gen/run-c.sh): per cell (ring, rate,
# stall regime), each setting's drops against the reference, paired by
# seed, with the A/A arm as the noise floor; refills and starved polls
# per 1000 frames (the mechanism); plots of drop % and refills against rate.

# c_cells: "ring,rate_frac,regime" lines, in the run's order.
c_cells() {
	grep -v '^#' "$dir/trials.csv" | awk -F, 'NR > 1 && !seen[$3 "," $4 "," $6]++ { print $3 "," $4 "," $6 }'
}

# c_means: "setting,ring,rate_frac,regime,drop_pct,refills_per_1k,starved_per_1k,gen_ns_per_frame" per
# setting and cell: means over the seeds.
c_means() {
	grep -v '^#' "$dir/trials.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = $c["setting"] "," $c["ring"] "," $c["rate_frac"] "," $c["regime"]
		  if (!(k in n)) o[++m] = k
		  n[k]++; d[k] += $c["drop_pct"]; g[k] += $c["gen_ns_per_frame"]
		  if ($c["refills"] != "") { r[k] += 1000 * $c["refills"] / $c["offered"]; s[k] += 1000 * $c["starved_polls"] / $c["offered"]; nr[k]++ } }
		END { for (i = 1; i <= m; i++) { k = o[i]
			printf "%s,%.4f,%s,%s,%.0f\n", k, d[k] / n[k], nr[k] ? sprintf("%.3f", r[k] / nr[k]) : "", nr[k] ? sprintf("%.4f", s[k] / nr[k]) : "", g[k] / n[k] } }'
}

# c_cost SETTING RING RATE REGIME: "POLL/REFILL (PCT %)" from costs.csv:
# guest ns per frame received in rx polls (refill included) / in refill,
# and the polls' share of the run's guest time; "-" without one.
c_cost() {
	[ -f "$dir/costs.csv" ] || { echo -; return 0; }
	grep -v '^#' "$dir/costs.csv" | awk -F, -v s="$1" -v r="$2" -v x="$3" -v g="$4" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$1 == s && $3 == r && $4 == x "" && $6 == g {
			printf "%.0f/%.0f (%.1f %%)", $c["poll_ns_per_frame"], $c["refill_ns_per_frame"], $c["poll_pct_of_time"]; f = 1 }
		END { if (!f) print "-" }'
}

# pacing_of DIR: the generator's pacing in the run (runs without the
# metadata line drifted: the generator had no other pacing then).
pacing_of() {
	local p
	p=$(meta "$1/trials.csv" pacing)
	echo "${p:-drift}"
}

# aa_seeds_of DIR: which seeds the run's A/A arm had, in words (runs
# without the metadata line gave it seeds of its own).
aa_seeds_of() {
	if [ "$(meta "$1/trials.csv" aa_seeds)" = same ]; then echo "the same seeds in a boot of its own"; else echo "other seeds"; fi
}

# window_of DIR: the frames drop % counts, in words (runs without the
# warmup metadata line had none).
window_of() {
	local w p
	w=$(meta "$1/trials.csv" warmup)
	p=$(meta "$1/trials.csv" phase)
	if [ -z "$w" ] || [ "$w" = 0 ]; then echo "of all of them"; return 0; fi
	if [ -n "$p" ] && [ "$p" != 0 ]; then p=" (both lengthened by 0-$((p - 1)) a unit)"; else p=''; fi
	echo "of those after a warm-up of $w$p (refills and starved polls: the whole trial)"
}

# c_verdicts: every cell's comparisons (verdicts.csv's rows, no header)
# into c_rows_file, computed from trials.csv with the function the run
# wrote its verdicts.csv with (lib/cell-verdicts.sh): a run has one set
# of verdicts, the current layer's.
c_verdicts() {
	local ref aa ring rate regime
	ref=$(meta "$dir/trials.csv" reference)
	aa=$(meta "$dir/trials.csv" aa_arm)
	[ "$aa" != none ] || aa=''
	: >"$c_rows_file"
	while IFS=, read -r ring rate regime; do
		c_cell_verdicts "$dir/trials.csv" "$ref" "$aa" "$ring" "$rate" "$regime" >>"$c_rows_file"
	done < <(c_cells)
}

# c_cell_rows: the comparisons in forest_add's format: "ring, rate,
# regime<TAB>row", the metric without its cell.
c_cell_rows() {
	awk '{ i = index($0, " "); j = index($0, ",")
		print substr($0, i + 1, j - i - 1) "\t" substr($0, 1, i - 1) substr($0, j) }' "$c_rows_file"
}

# c_headline: what the run shows, generated from its verdicts.
c_headline() {
	local ref aa
	ref=$(meta "$dir/trials.csv" reference)
	aa=$(meta "$dir/trials.csv" aa_arm)
	[ "$aa" != none ] || aa=''
	echo "## Headline"
	echo
	echo "- Design: settings $(meta "$dir/trials.csv" settings), reference $ref; $(meta "$dir/trials.csv" seeds) seeds per cell (the unit), the same seeds for every setting, $( [ -n "$aa" ] && echo "$(aa_seeds_of "$dir") for the A/A arm ($aa)" || echo "no A/A arm"); one boot per setting, a fresh device per trial; capacity $(meta "$dir/trials.csv" capacity_pps) frames/s of guest time; rates $(meta "$dir/trials.csv" rates) of it; rings $(meta "$dir/trials.csv" rings); stall regimes $(meta "$dir/trials.csv" stall_regimes); bursts of $(meta "$dir/trials.csv" burst), jitter +-$(meta "$dir/trials.csv" jitter_pct) %, pacing $(pacing_of "$dir"); $(meta "$dir/trials.csv" frames) frames a trial, drop % $(window_of "$dir")."
	c_cell_rows >"$cell_rows_file"
	echo "- $(verdicts_note cell '')"
	headline_md "$cell_rows_file" "$ref" "$aa" drop_pct "refills/1k starved/1k"
	echo
}

summary_c() {
	local f=$dir/trials.csv ring rate regime ref means rows
	ref=$(meta "$f" reference)
	c_verdicts
	echo "# Workload C: $(meta "$f" command)"
	echo
	c_headline
	glossary_md "$(meta "$f" settings)"
	echo "## Cells"
	echo
	echo "Means over the seeds; ratios to $ref paired by seed with 95 % Fieller intervals; the A/A arm's interval is the cell's noise floor."
	[ ! -f "$dir/costs.csv" ] || echo "The last column is from one more trial per cell under the $(meta "$f" cost_probe | cut -d' ' -f1) probe (seed $(grep -v '^#' "$dir/costs.csv" | awk -F, 'NR == 2 { print $7; exit }')): guest ns per frame received in virtio_net's rx polls (refill included) / in the refills inside them, and the polls' share of the run's guest time. The probe's own cost and the generator's interrupts (same vCPU) are inside: compare settings, not absolute values; costs.csv has the probed trial's drops next to the same seed's unprobed ones."
	echo
	means=$(c_means)
	while IFS=, read -r ring rate regime; do
		rows=$(grep " r$ring x$rate $regime," "$c_rows_file" || true)
		echo "### Ring $ring, ${rate}x capacity, stalls $regime"
		echo
		if [ -f "$dir/costs.csv" ]; then
			echo "| setting | drop % | ratio to $ref [95 % CI] | verdict | refills / 1000 frames | starved polls / 1000 frames | generator ns / frame | rx poll / refill ns per frame (share of time), probed |"
			echo "|---|---|---|---|---|---|---|---|"
		else
			echo "| setting | drop % | ratio to $ref [95 % CI] | verdict | refills / 1000 frames | starved polls / 1000 frames | generator ns / frame |"
			echo "|---|---|---|---|---|---|---|"
		fi
		while IFS=, read -r s _ _ _ d rf sp g; do
			local rd cost=''
			rd=$(grep "^drop_pct r$ring x$rate $regime,$s," <<<"$rows" || true)
			[ ! -f "$dir/costs.csv" ] || cost=" $(c_cost "$s" "$ring" "$rate" "$regime") |"
			echo "| $s | $d | $(ratio_cell "$rd") | $(cut -d, -f12 <<<"$rd") | ${rf:--} | ${sp:--} | $g |$cost"
		done < <(awk -F, -v r="$ring" -v x="$rate" -v g="$regime" '$2 == r && $3 == x "" && $4 == g' <<<"$means")
		echo
		grep '^drop_pct ' <<<"$rows" | while IFS= read -r row; do words "$row" "ring $ring, ${rate}x capacity, stalls $regime" "$ref"; done >>"$verdicts_md"
	done < <(c_cells)
	[ "$plots" = 0 ] || c_plots "$means"
}

# run_md_C: the run's metadata and files, the summary's last section.
run_md_C() {
	echo "## Run"
	echo
	md_meta "$dir/trials.csv"
	echo
	[ ! -f "$dir/costs.csv" ] || echo "Costs: [costs.csv](costs.csv) (one probed trial per cell and setting), costs/ (the probe's output)."
	echo "Files: [trials.csv](trials.csv) (one row per trial), [verdicts.csv](verdicts.csv), [tables.txt](tables.txt), [capacity.txt](capacity.txt), stalls/ (the schedules), boots/ (the guests' logs)."
	echo
}

# c_plots MEANS: drop % and refills per 1000 frames against rate, one line
# per setting, a plot per ring and stall regime.
c_plots() {
	local means=$1 ring regime s cmd metric col label run
	run=$(basename "$dir")
	run=${run%.partial}
	while IFS=, read -r ring regime; do
		for metric in drop refills; do
			case $metric in
			drop) col=5 label='drop % (mean over seeds)' ;;
			refills) col=6 label='refills per 1000 frames (mean over seeds)' ;;
			esac
			cmd=""
			while IFS= read -r s; do
				awk -F, -v s="$s" -v r="$ring" -v g="$regime" -v c="$col" '$1 == s && $2 == r && $4 == g && $c != "" { print $3, $c }' \
					<<<"$means" | sort -g >"$plot_dir/c-$s.dat"
				[ -s "$plot_dir/c-$s.dat" ] || continue
				cmd+="${cmd:+, }'$plot_dir/c-$s.dat' using 1:2 with linespoints title '$s'"
			done < <(cut -d, -f1 <<<"$means" | awk '!seen[$0]++')
			[ -n "$cmd" ] || continue
			local png="C-$metric-r$ring-${regime//:/_}.png"
			plot "$plot_dir/$png" "set title '$run: ring $ring, stalls $regime: $label'
set xlabel 'offered rate, fraction of capacity'; set ylabel '$label'; set yrange [0:*]; set offsets graph 0.05, graph 0.05, graph 0.05, 0
plot $cmd"
			rm -f "$plot_dir"/c-*.dat
			[ ! -f "$plot_dir/$png" ] || plots_md+=("![$png](plots/$png)")
		done
	done < <(c_cells | awk -F, '!seen[$1 "," $3]++ { print $1 "," $3 }')
	for metric in drop_pct refills/1k starved/1k; do
		local name=${metric%%/*}
		forest_plot "$plot_dir/C-forest-$name.png" "$run: $metric, each setting against $(meta "$dir/trials.csv" reference) per cell (ring, rate, stalls)" \
			"$metric" "$cell_rows_file"
		[ ! -f "$plot_dir/C-forest-$name.png" ] || plots_md+=("![$metric against the reference](plots/C-forest-$name.png)")
	done
}
