# shellcheck shell=bash
# shellcheck disable=SC2016 # awk expressions in single quotes
# shellcheck disable=SC2154 # dir, plot_dir, plots, verdicts_md, plots_md: set by summary.sh
# summary.md for the ptr_ring sweep (patched against stock per point; a
# heat map of ring size x zeroing batch), the model (its tables and plots)
# and the boot workload (boot times).

# md_csv CSV: a CSV (its metadata skipped) as a markdown table.
md_csv() {
	grep -v '^#' "$1" | awk -F, 'NR == 1 { printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; print ""
			printf "|"; for (i = 1; i <= NF; i++) printf "---|"; print ""; next }
		{ printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; print "" }'
}

# ptr_heatmaps: per mode, consumer work and consumer batch, the patched
# header's median items/s per ring size and zeroing batch, relative to
# the header's own rule at that size (1 = the stock rule).
ptr_heatmaps() {
	local sum=$dir/summary.csv combo mode work cb n=0
	while read -r combo; do
		IFS=, read -r mode work cb <<<"$combo"
		n=$((n + 1))
		[ "$n" -le 8 ] || { plots_notes+=("Heat maps: the first 8 mode/work/batch combinations only."); break; }
		local label kind palette
		rm -f "$plot_dir/heat.dat"
		kind=$(grep -v '^#' "$sum" | awk -F, -v m="$mode" -v w="$work" -v c="$cb" -v out="$plot_dir/heat.dat" '
			NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
			$k["impl"] == "patched" && $k["mode"] == m && $k["work"] == w && $k["cbatch"] == c {
				if ($k["zbatch_req"] == 0) own[$k["size"]] = $k["median_items_per_s"]
				else v[$k["size"] "," $k["zbatch"]] = $k["median_items_per_s"] }
			END { rel = 0; for (x in v) { split(x, p, ","); if (own[p[1]]) rel = 1 }
				for (x in v) { split(x, p, ","); if (rel && !own[p[1]]) continue
					printf "%s %s %.3f\n", p[2], p[1], rel ? v[x] / own[p[1]] : v[x] / 1e6 > out }
				print rel ? "rel" : "abs" }')
		[ -s "$plot_dir/heat.dat" ] || continue
		# absolute rates: a sequential palette; ratios: a diverging one,
		# white at 1 and as far each way (blue slower, red faster)
		label="million items/s" palette='set palette defined (0 "#f7fbff", 1 "#08306b")'
		if [ "$kind" = rel ]; then
			label='items/s relative to zeroing batch 0 (the header rule)'
			palette="set palette defined (0 '#2166ac', 1 '#f7f7f7', 2 '#b2182b'); set cbrange $(awk '{ d = $3 > 1 ? $3 - 1 : 1 - $3; if (d > m) m = d }
				END { m = m ? m * 1.05 : 0.05; printf "[%g:%g]", 1 - m, 1 + m }' "$plot_dir/heat.dat")"
		fi
		plot "$plot_dir/ptr_ring-heat-$mode-w$work-c$cb.png" "set title \"ptr_ring, patched header: $mode, consumer work $work, consumer batch $cb\\n$label\"
set xlabel 'zeroing batch'; set ylabel 'ring size'; set logscale x 2; set logscale y 2
set view map; $palette; set cblabel '$label'; set offsets graph 0.06, graph 0.06, graph 0.06, graph 0.06
plot '$plot_dir/heat.dat' using 1:2:3 with points pt 5 ps 3.5 palette notitle, '' using 1:2:(sprintf('%.2f', \$3)) with labels font ',7' notitle"
		[ ! -f "$plot_dir/ptr_ring-heat-$mode-w$work-c$cb.png" ] ||
			plots_md+=("![ptr_ring $mode work $work batch $cb](plots/ptr_ring-heat-$mode-w$work-c$cb.png)")
	done < <(grep -v '^#' "$sum" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		{ c = $k["mode"] "," $k["work"] "," $k["cbatch"]; if (!(c in s)) { s[c] = 1; print c } }')
	rm -f "$plot_dir/heat.dat"
}

# ptr_verdicts: per point (mode, consumer work, ring size, consumer batch;
# each header's own zeroing rule), patched against stock paired by repeat
# (the sweep interleaves the headers within a repeat): items/s and the
# producer-full share with 95 % intervals, and the A/A arm's interval
# (stock_aa: the stock binary again) where the sweep ran one.
ptr_verdicts() {
	local raw=$dir/raw.csv mode work size cb f all ri rf aa=''
	[ -f "$raw" ] || return 0
	! grep -q '^[^#][^,]*,stock_aa,' "$raw" || aa=stock_aa
	echo "## Patched against stock, with intervals (header's own zeroing rule; a unit is a repeat)"
	echo
	if [ -n "$aa" ]; then
		echo "A/A: stock_aa (the stock binary run again) against stock: the run-to-run noise of each row's ratio. It cannot see a difference of code layout between the two binaries (a few % where both headers run the same code: see above)."
	else
		echo "No A/A arm in this run (sweep.sh --no-aa, or a run from before the sweep had one)."
	fi
	echo
	echo "| mode | work | size | cbatch | repeats | items/s: patched / stock [95 % CI] | A/A [95 % CI] | verdict | producer-full share: patched / stock [95 % CI] | A/A [95 % CI] | verdict |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	while IFS=, read -r mode work size cb; do
		f="\$mode == \"$mode\" && \$work == $work && \$size == $size && \$cbatch == $cb && \$zbatch_req == 0"
		all=$(cell_rows "$raw" '"r" $repeat' '$impl' '$items_per_s' "$f" items_per_s higher stock "$aa"
			cell_rows "$raw" '"r" $repeat' '$impl' 'div($producer_full, $items)' "$f" full_share lower stock "$aa")
		ri=$(grep '^items_per_s,patched,' <<<"$all" || true)
		rf=$(grep '^full_share,patched,' <<<"$all" || true)
		[ -n "$ri" ] || continue
		echo "| $mode | $work | $size | $cb | $(cut -d, -f3 <<<"$ri") | $(ratio_cell "$ri") | $(aa_interval "$ri") | $(cut -d, -f12 <<<"$ri") | $(ratio_cell "$rf") | $(aa_interval "$rf") | $(cut -d, -f12 <<<"$rf") |"
		words "$ri" "ptr_ring $mode, work $work, size $size, cbatch $cb" stock >>"$verdicts_md"
		forest_add "$cell_rows_file" "$mode w$work s$size c$cb" <<<"$all"
	done < <(grep -v '^#' "$raw" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) k[$i] = i; next }
		$k["zbatch_req"] == 0 { c = $k["mode"] "," $k["work"] "," $k["size"] "," $k["cbatch"]; if (!(c in s)) { s[c] = 1; print c } }')
	echo
}

summary_ptr_ring() {
	local f=$dir/summary.csv verdicts_tables aa=''
	[ -f "$f" ] || die "$dir: no summary.csv (a ptr_ring result dir?)"
	echo "# ptr_ring in userspace: stock against patched header"
	echo
	# the verdicts first: the headline is made from their rows
	verdicts_tables=$(ptr_verdicts)
	echo "## Headline"
	echo
	if [ -f "$dir/raw.csv" ]; then
		! grep -q '^[^#][^,]*,stock_aa,' "$dir/raw.csv" || aa=stock_aa
		echo "- Design: the patched header against the stock one per point (mode, consumer work, ring size, consumer batch; each header's own zeroing rule), a unit is a repeat ($(meta "$f" repeats) repeats; the headers interleaved within one), A/A arm ${aa:-none}; one producer and one consumer on two host CPUs, a userspace harness, not a kernel measurement."
		headline_md "$cell_rows_file" stock "$aa" "items_per_s full_share" ""
	else
		echo "- Design: medians over repeats per point; the run has no raw.csv (a run from before the sweep kept every repeat): no intervals, no verdicts."
	fi
	echo
	echo "## Tables"
	echo
	echo "Items/s of one producer and one consumer on two host CPUs (medians over repeats, min and max in summary.csv); producer-full share = full events per item."
	echo "Not a kernel measurement: the header's code in a userspace harness. Where both headers run the same code (sizes of 32 and up at their own rule), a difference of a few % is the binaries' layout, not the header (seen: 1.04 [1.03, 1.05] at size 64, 2026-12-01)."
	echo
	[ -z "$verdicts_tables" ] || echo "$verdicts_tables"
	if [ -f "$dir/patched_vs_stock.csv" ]; then
		echo "## Patched against stock, per point (medians)"
		echo
		md_csv "$dir/patched_vs_stock.csv"
		echo
	fi
	if [ -f "$dir/best_zbatch.csv" ]; then
		echo "## Best zeroing batch per point (patched header)"
		echo
		md_csv "$dir/best_zbatch.csv"
		echo
	fi
	if [ "$plots" = 1 ]; then
		ptr_heatmaps
		forest_plot "$plot_dir/ptr_ring-forest-items_per_s.png" "$run_id: items/s, patched against stock per point (mode, work, size, cbatch)" \
			items_per_s "$cell_rows_file"
		[ ! -f "$plot_dir/ptr_ring-forest-items_per_s.png" ] || plots_md+=("![items/s, patched against stock](plots/ptr_ring-forest-items_per_s.png)")
	fi
}

# run_md_ptr_ring: the run's metadata, the summary's last section.
run_md_ptr_ring() {
	echo "## Run"
	echo
	md_meta "$dir/summary.csv"
	echo
}

summary_model() {
	local f=$dir/calib.csv p
	echo "# The rx ring model: $(meta "$f" command)"
	echo
	[ ! -f "$f" ] || md_meta "$f"
	echo
	echo "A model, not a measurement (bench/ringsim/$(case $(meta "$f" workload) in *"workload C"*) echo model-c.sh ;; *) echo run-model.sh ;; esac) --help says what it assumes); its tables as written by the run:"
	echo
	echo '```'
	cat "$dir/tables.txt"
	echo '```'
	echo
	for p in "$dir"/*.png; do
		[ -f "$p" ] || continue
		plots_md+=("![${p##*/}](${p##*/})")
	done
	[ ! -d "$dir/b" ] || echo "The workload B run it calibrated on: [b/](b/) (its own summary.md when made)."
	echo
}

summary_boot() {
	local f=$dir/boot.csv
	echo "# Boot: $(meta "$f" command)"
	echo
	echo "## Headline"
	echo
	echo "- Design: $(meta "$f" repeats) boots of each kernel, $(meta "$f" vcpus) vCPUs, $(meta "$f" mem_mib) MiB; accelerator $(meta "$f" accel | cut -d' ' -f1)."
	grep -v '^#' "$f" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ v = $c["variant"]; if (!(v in n)) V[++nv] = v; n[v]++; t[v, n[v]] = $c["boot_to_command_s"] }
		END { for (j = 1; j <= nv; j++) { v = V[j]; m = n[v]
			for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (t[v, b] < t[v, a]) { x = t[v, a]; t[v, a] = t[v, b]; t[v, b] = x }
			printf "- %s: %s s from QEMU start to the command (median of %d; %s-%s s).\n", v,
				m % 2 ? t[v, (m + 1) / 2] : (t[v, m / 2] + t[v, m / 2 + 1]) / 2, m, t[v, 1], t[v, m] } }'
	echo
	echo "## Boots"
	echo
	md_csv "$f"
	echo
}

# run_md_boot: the run's metadata, the summary's last section.
run_md_boot() {
	echo "## Run"
	echo
	md_meta "$dir/boot.csv"
	echo
}
