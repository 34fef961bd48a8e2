# shellcheck shell=bash
# shellcheck disable=SC2016 # awk expressions in single quotes
# The per-cell comparisons of workloads A, B and C, in one place: the run
# scripts write them to verdicts.csv (the metric named with its cell, as
# workload C's run does: "drop_pct r256 299104"), and the report
# (bench/report/summary.sh) computes its tables with the same functions,
# so a run has one set of verdicts. Needs lib/stats.sh.

# B_METRICS: workload B's metrics, one a line: name|better|value|filter|label
# (value and filter awk over the CSV's columns, GR the column of frames the
# guest received: guest_rx in blocks.csv, guest_rx_packets in trials.csv).
# shellcheck disable=SC2034 # used by bench/report/part-b.sh
B_METRICS='drop_pct|lower|$drop_pct|$drop_pct != ""|% dropped
refills_per_1000||div(1000 * $refills, GR)|$kernel == "patched"|refills per 1000 frames
starved_polls_per_1000||div(1000 * $starved_polls, GR)|$kernel == "patched"|starved polls per 1000 frames'

# cell_verdict_rows CSV UNIT VALUE FILTER METRIC BETTER REF AA: compare's
# rows (STATS_COLS, no header) for the rows FILTER selects, a unit the mean
# of its rows.
cell_verdict_rows() {
	stats_units "$1" "$2" '$setting' "$3" "$4" | stats_unit_means | stats_compare "$5" "$6" "$7" "$8"
}

# a_cell_verdicts CSV REF AA Q: workload A's comparisons at tx_queue_len Q
# (trials.csv), a unit a repeat: pktgen pps, drop % and, where the probe
# measured it, the mean vhost batch.
a_cell_verdicts() {
	local csv=$1 ref=$2 aa=$3 f="\$txqlen == $4"
	cell_verdict_rows "$csv" '"r" $repeat' '$pktgen_pps' "$f" pktgen_pps higher "$ref" "$aa"
	cell_verdict_rows "$csv" '"r" $repeat' '$drop_pct' "$f" drop_pct lower "$ref" "$aa"
	grep -m 1 -v '^#' "$csv" | tr ',' '\n' | grep -x mean_batch >/dev/null || return 0
	cell_verdict_rows "$csv" '"r" $repeat' '$mean_batch' "($f) && \$mean_batch != \"\"" mean_batch "" "$ref" "$aa"
}

# c_cell_verdicts CSV REF AA RING FRAC REGIME: workload C's comparisons in
# one cell (trials.csv), a unit a seed: drop %, refills and starved polls
# per 1000 frames offered, the metric named with its cell ("drop_pct r256
# x0.9 none").
c_cell_verdicts() {
	local csv=$1 ref=$2 aa=$3 cell="r$4 x$5 $6" filt="\$ring == $4 && \$rate_frac == \"$5\" && \$regime == \"$6\""
	stats_units "$csv" '$unit' '$setting' '$drop_pct' "$filt" |
		stats_compare "drop_pct $cell" lower "$ref" "$aa"
	stats_units "$csv" '$unit' '$setting' 'div(1000 * $refills, $offered)' "$filt && \$refills != \"\"" |
		stats_compare "refills/1k $cell" "" "$ref" "$aa"
	stats_units "$csv" '$unit' '$setting' 'div(1000 * $starved_polls, $offered)' "$filt && \$starved_polls != \"\"" |
		stats_compare "starved/1k $cell" "" "$ref" "$aa"
}

# b_cell_verdicts CSV REF AA RING RATE: workload B's comparisons in one
# cell: drop %, refills and starved polls per 1000 frames the guest
# received. Paired design (blocks.csv): the reference's kernel by pairs
# of rounds of a boot (ABBA), the other kernel's settings by boot (their
# metric NAME:boots); boots design (trials.csv): by repeat.
b_cell_verdicts() {
	local csv=$1 ref=$2 aa=$3 cf="\$rx_queue_size == $4 && \$rate_pps == $5"
	local m better value filter k others gr='$guest_rx_packets'
	if [ "$(basename "$csv")" = blocks.csv ]; then
		gr='$guest_rx'
		# (awk reads to the end: an early exit would break the pipe)
		k=$(stats_units "$csv" '$setting' '$kernel' 1 | awk -F, -v s="$ref" '$1 == s && k == "" { k = $2 } END { print k }')
		others=$(stats_units "$csv" '$setting' '$kernel' 1 | awk -F, -v k="$k" '$2 != k { print $1 }' | sort -u)
	fi
	while IFS='|' read -r m better value filter _; do
		value=${value//GR/$gr}
		if [ -z "${k:-}" ]; then
			cell_verdict_rows "$csv" '"r" $repeat' "$value" "($cf) && ($filter)" "$m" "$better" "$ref" "$aa"
			continue
		fi
		cell_verdict_rows "$csv" '"r" $repeat "p" int(($round + 1) / 2)' "$value" \
			"($cf) && ($filter) && \$kernel == \"$k\"" "$m" "$better" "$ref" "$aa"
		[ -z "$others" ] || cell_verdict_rows "$csv" '"r" $repeat' "$value" "($cf) && ($filter)" "$m:boots" "$better" "$ref" "$aa" |
			awk -F, -v list="$others" 'BEGIN { n = split(list, a, "\n"); for (i = 1; i <= n; i++) o[a[i]] = 1 } ($2 in o)'
	done <<<"$B_METRICS"
}

# cell_label CELL: the compare rows on stdin with CELL after each metric
# name (how verdicts.csv names a cell's rows: "drop_pct r256 299104").
cell_label() {
	awk -F, -v OFS=, -v c="$1" 'NF { $1 = $1 " " c; print }'
}

# b_cells CSV: "RING RATE" per cell of a workload B result CSV, in the
# order of the file.
b_cells() {
	stats_units "$1" '$rx_queue_size' '$rate_pps' 1 | awk -F, '!seen[$0]++ { print $1, $2 }'
}
