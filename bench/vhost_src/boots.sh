# shellcheck shell=bash disable=SC2154,SC2016 # run-b.sh's globals; awk expressions
# Workload B's boots design (sourced by run-b.sh, whose globals it uses):
# one guest boot per trial (trial.sh), the settings interleaved and their
# order rotated every repeat; a unit is a repeat. Then the zero-loss rate
# search (ndr.sh). Writes trials.csv, intervals.csv, summary.csv,
# verdicts.csv and tables.txt.

# summary TRIALS: medians per (setting, ring, rate): drop %, delivered pps,
# mean drops per interval; and the drop % and delivered pps as ratios to
# stock at the same ring and rate.
summary() {
	grep -v '^#' "$1" | tail -n +2 | sort -t, -k2,2 -k15,15n -k5,5n |
		awk -F, -v ivs="$(awk -v d="$duration" -v i="$interval" 'BEGIN { print d * 1000 / i }')" '
		function isort(a, n,  i, j, t) {
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		}
		function med(a, n) { isort(a, n); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		function flush() {
			if (!n) return
			dp[key] = med(p, n); dv[key] = med(v, n); dd[key] = med(x, n) / ivs; runs[key] = n
			keys[++nk] = key
		}
		{ k = $2","$15","$5; if (k != key) { flush(); key = k; n = 0 }
		  p[++n] = $9 + 0; v[n] = $10 + 0; x[n] = $8 + 0 }
		END {
			flush()
			for (i = 1; i <= nk; i++) {
				split(keys[i], f, ","); s = "stock," f[2] "," f[3]
				printf "%s,%d,%.4f,%.1f,%.0f,%s,%s\n", keys[i], runs[keys[i]], dp[keys[i]], dd[keys[i]], dv[keys[i]],
					(s in dp && dp[s] > 0) ? sprintf("%.3f", dp[keys[i]] / dp[s]) : "",
					(s in dv && dv[s] > 0) ? sprintf("%.3f", dv[keys[i]] / dv[s]) : ""
			}
		}'
}

# tables: tables.txt from the CSVs: the 2019 thread's per-interval drop table per
# ring and rate (mean drops per interval over the repeats, one column per
# setting), the summary, and the zero-loss rates, as ratios to stock.
tables() {
	{
		echo "Workload B: $(sed -n 's/^# command: //p' "$out/trials.csv")"
		echo "accelerator: $(sed -n 's/^# accel: //p' "$out/trials.csv"); guest load: $guest_load busy loops"
		echo
		grep -v '^#' "$out/intervals.csv" | tail -n +2 | awk -F, -v settings="$settings" -v ms="$interval" '
			BEGIN { ns = split(settings, S, " "); w = 14; for (s = 1; s <= ns; s++) if (length(S[s]) > w) w = length(S[s]) }
			{ t = $1 "," $2 "," $3 "," $11; i = ++idx[t]; k = $11 "," $3
			  if (!(k in seen)) { seen[k] = 1; K[++nk] = k }
			  sum[k, i, $2] += $7; cnt[k, i, $2]++; if (i > maxi[k]) maxi[k] = i }
			END {
				for (a = 1; a <= nk; a++) {
					split(K[a], f, ",")
					printf "rx_queue_size %s, %s pps offered: drops per %d ms interval, mean over repeats\n", f[1], f[2], ms
					printf "%-9s", "interval"
					for (s = 1; s <= ns; s++) printf " %" w "s", S[s]
					printf " %9s\n", "pps"
					for (i = 1; i <= maxi[K[a]]; i++) {
						printf "%-9d", i
						for (s = 1; s <= ns; s++)
							printf " %" w "s", cnt[K[a], i, S[s]] ? sprintf("%.1f", sum[K[a], i, S[s]] / cnt[K[a], i, S[s]]) : "-"
						printf " %9s\n", f[2]
					}
					print ""
				}
			}'
		echo "Medians per setting (drop % and delivered pps as ratios to stock at the same ring and rate):"
		grep -v '^#' "$out/summary.csv" | column -t -s,
		if [ -s "$out/ndr.csv" ]; then
			echo
			echo "Zero-loss rate (drop % <= $ndr_tolerance, $ndr_steps-step binary search; median over $ndr_repeats search(es)), ratio to stock:"
			grep -v '^#' "$out/ndr.csv" | tail -n +2 | sort -t, -k2,2 -k3,3n | awk -F, '
				function isort(a, n,  i, j, t) {
					for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
				}
				function med(a, n) { isort(a, n); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
				function flush() { if (n) { m[key] = med(v, n); K[++nk] = key; all[key] = list } }
				{ k = $2 "," $3; if (k != key) { flush(); key = k; n = 0; list = "" }
				  v[++n] = $4; list = list (list ? " " : "") $4 }
				END {
					flush()
					printf "%-10s %6s %10s %10s  %s\n", "setting", "ring", "ndr_pps", "vs_stock", "searches"
					for (i = 1; i <= nk; i++) {
						split(K[i], f, ","); s = "stock," f[2]
						printf "%-10s %6s %10.0f %10s  %s\n", f[1], f[2], m[K[i]],
							(s in m && m[s] > 0) ? sprintf("%.3f", m[K[i]] / m[s]) : "-", all[K[i]]
					}
				}'
		fi
	} >"$out/tables.txt"
}

# boots_verdicts: verdicts.csv for the boots design: per ring and rate
# (the metric named with its cell), a unit is a repeat (b_run_verdicts:
# b_cell_verdicts, which the report uses too).
boots_verdicts() {
	b_run_verdicts "$out/trials.csv" "$ref" "$aa" >>"$out/verdicts.csv"
}

# boots_main: the boots design: one boot per trial; then the searches.
boots_main() {
	local r s rate ring n=0 total id t0
	t0=$(now)
	results_csv_open "$out/trials.csv" "$TRIAL_COLS" "${meta[@]}"
	results_csv_open "$out/intervals.csv" "repeat,setting,rate_pps,t_s,offered,delivered,dropped,avail_min,avail_mean,phase,rx_queue_size" "${meta[@]}"
	total=$((repeats * $(wc -w <<<"$settings") * $(wc -w <<<"$rates") * $(wc -w <<<"$rings")))
	for r in $(seq "$repeats"); do
		# rotate the settings so that none always runs first
		# shellcheck disable=SC2086 # word list
		for s in $(rotate "$r" $settings); do for ring in $rings; do for rate in $rates; do
			n=$((n + 1))
			id=r$r-$s-$ring-$rate
			log "B: trial $n/$total: repeat $r, $s, ring $ring, $rate pps$(progress_eta $((n - 1)) "$total" "$t0")"
			run_trial "$id" "$r" "$s" "$ring" "$rate" "$out/trials.csv" \
				${down_after:+$((down_after * rate))} >/dev/null
			tail -n +2 "$tdir/$id/intervals.csv" | sed "s/^/$r,$s,$rate,/; s/\$/,$ring/" >>"$out/intervals.csv"
		done; done; done
	done
	results_csv_open "$out/summary.csv" \
		"setting,rx_queue_size,rate_pps,runs,median_drop_pct,median_drops_per_interval,median_delivered_pps,drop_pct_over_stock,delivered_over_stock" \
		"${meta[@]}"
	summary "$out/trials.csv" >>"$out/summary.csv"
	results_csv_open "$out/verdicts.csv" "$STATS_COLS" "${meta[@]}" "unit=repeat (per ring and rate)"
	boots_verdicts
	if [ "$ndr_steps" -gt 0 ]; then
		results_csv_open "$out/ndr_trials.csv" "$TRIAL_COLS" "${meta[@]}"
		results_csv_open "$out/ndr.csv" "search,setting,rx_queue_size,ndr_pps,first_fail_pps,tolerance_pct,steps,top_pps" "${meta[@]}"
		ndr_search "$top"
	fi
	tables
	{
		echo
		echo "Against $ref, paired by repeat (95 % Fieller intervals; ${aa:-no A/A arm}: the A/A arm, the noise floor):"
		stats_table "$out/verdicts.csv"
	} >>"$out/tables.txt"
	log "B: $n trials"
}
