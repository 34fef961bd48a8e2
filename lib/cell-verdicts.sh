# shellcheck shell=bash
# shellcheck disable=SC2016 # awk expressions in single quotes
# The per-cell comparisons of workloads A, B and C, in one place: the run
# scripts write them to verdicts.csv (the metric named with its cell, as
# workload C's run does: "drop_pct r256 299104"), and the report
# (bench/report/summary.sh) computes its tables with the same functions,
# so a run has one set of verdicts. Needs lib/stats.sh.

# The metrics of workloads A, B and C, one place for each definition of
# what a verdict compares (the runs' verdicts, the report's verdicts and
# compare-runs read them here; the report's sum tables add up the same
# columns): one a line,
# name|better|value|filter|label; value and filter are awk over the result
# CSV's columns (lib/stats.sh's stats_units), better is lower, higher or
# empty (a mechanism: no better direction).
#
# A_METRICS: workload A's, over trials.csv (mean_batch only where the
# probe measured it).
# shellcheck disable=SC2034 # used by bench/report
A_METRICS='pktgen_pps|higher|$pktgen_pps|1|pktgen pps
drop_pct|lower|$drop_pct|1|% dropped
mean_batch||$mean_batch|$mean_batch != ""|mean vhost batch'

# B_METRICS: workload B's; GR is the column of frames the guest received
# (guest_rx in blocks.csv, guest_rx_packets in trials.csv): refills and
# starved polls per 1000 frames the guest received.
# shellcheck disable=SC2034 # used by bench/report
B_METRICS='drop_pct|lower|$drop_pct|$drop_pct != ""|% dropped
refills_per_1000||div(1000 * $refills, GR)|$kernel == "patched"|refills per 1000 frames
starved_polls_per_1000||div(1000 * $starved_polls, GR)|$kernel == "patched"|starved polls per 1000 frames'

# C_METRICS: workload C's, over trials.csv: refills and starved polls per
# 1000 frames offered (the generator counts every frame it offers).
C_METRICS='drop_pct|lower|$drop_pct|1|% dropped
refills/1k||div(1000 * $refills, $offered)|$refills != ""|refills per 1000 frames offered
starved/1k||div(1000 * $starved_polls, $offered)|$starved_polls != ""|starved polls per 1000 frames offered'

# B_PAIRED_UNIT: the unit of workload B's paired design (blocks.csv), as
# an awk expression: a boot, its blocks of each setting averaged. A boot's
# rounds come in pairs, a round and its reverse (ABBA), so a pair is the
# smallest unit a linear drift cancels in; but the pairs of one boot share
# the boot (their drops correlated about 0.12, their refills 0.21, in the
# committed runs), so they are not independent units. Until 2026-12-06 a
# unit was a pair; a run with one pair per boot (--rounds 2) reads the same.
# shellcheck disable=SC2034 # used by bench/report
B_PAIRED_UNIT='"r" $repeat'

# cell_verdict_rows CSV UNIT VALUE FILTER METRIC BETTER REF AA [POOL]:
# compare's rows (STATS_COLS, no header) for the rows FILTER selects, a
# unit the mean of its rows; POOL as stats_compare's.
cell_verdict_rows() {
	stats_units "$1" "$2" '$setting' "$3" "$4" | stats_unit_means | stats_compare "$5" "$6" "$7" "$8" "${9:-}"
}

# b_pool_override: how workload B's comparisons take their reference: ""
# as each run's metadata says (reference_pool), 1 pooled, 0 not (run-b.sh
# --verdicts-of with --pool-ref or --no-pool-ref). Set here, so that
# nothing in the environment decides it.
b_pool_override=''

# b_pooled CSV AA: true when CSV's comparisons take the mean of the
# reference and its A/A copy AA as the reference: the run has AA and says
# so in its metadata (run-b.sh from c97ba49 on), or b_pool_override is 1.
b_pooled() {
	[ -n "$2" ] && grep -q "^[^#].*,$2," "$1" || return 1
	case $b_pool_override in
	1) return 0 ;;
	0) return 1 ;;
	esac
	grep -q '^# reference_pool: ' "$1"
}

# a_cell_verdicts CSV REF AA Q: workload A's comparisons at tx_queue_len Q
# (trials.csv), a unit a repeat: pktgen pps, drop % and, where the probe
# measured it, the mean vhost batch.
a_cell_verdicts() {
	local csv=$1 ref=$2 aa=$3 f="\$txqlen == $4" m better value filter
	while IFS='|' read -r m better value filter _; do
		# a column only some runs have (the probe's)
		[ "$m" != mean_batch ] || grep -m 1 -v '^#' "$csv" | tr ',' '\n' | grep -x mean_batch >/dev/null || continue
		cell_verdict_rows "$csv" '"r" $repeat' "$value" "($f) && ($filter)" "$m" "$better" "$ref" "$aa"
	done <<<"$A_METRICS"
}

# c_cell_verdicts CSV REF AA RING FRAC REGIME: workload C's comparisons in
# one cell (trials.csv), a unit a seed: drop %, refills and starved polls
# per 1000 frames offered, the metric named with its cell ("drop_pct r256
# x0.9 none").
c_cell_verdicts() {
	local csv=$1 ref=$2 aa=$3 cell="r$4 x$5 $6" filt="\$ring == $4 && \$rate_frac == \"$5\" && \$regime == \"$6\""
	local m better value filter
	while IFS='|' read -r m better value filter _; do
		stats_units "$csv" '$unit' '$setting' "$value" "($filt) && ($filter)" |
			stats_compare "$m $cell" "$better" "$ref" "$aa"
	done <<<"$C_METRICS"
}

# b_cell_verdicts CSV REF AA RING RATE: workload B's comparisons in one
# cell: drop %, refills and starved polls per 1000 frames the guest
# received. Paired design (blocks.csv): the reference's kernel by boot
# (B_PAIRED_UNIT), the other kernel's settings by boot too, each paired
# with the reference's boot of the same repeat (their metric NAME:boots);
# boots design (trials.csv): by repeat. Where b_pooled, each comparison's
# reference is the mean of the reference and its A/A copy per unit
# (compare --pool-aa); the A/A row stays the A/A arm against the
# reference alone.
b_cell_verdicts() {
	local csv=$1 ref=$2 aa=$3 cf="\$rx_queue_size == $4 && \$rate_pps == $5"
	local m better value filter k others gr='$guest_rx_packets' pool=''
	! b_pooled "$csv" "$aa" || pool=1
	if [ "$(basename "$csv")" = blocks.csv ]; then
		gr='$guest_rx'
		# (awk reads to the end: an early exit would break the pipe)
		k=$(stats_units "$csv" '$setting' '$kernel' 1 | awk -F, -v s="$ref" '$1 == s && k == "" { k = $2 } END { print k }')
		others=$(stats_units "$csv" '$setting' '$kernel' 1 | awk -F, -v k="$k" '$2 != k { print $1 }' | sort -u)
	fi
	while IFS='|' read -r m better value filter _; do
		value=${value//GR/$gr}
		if [ -z "${k:-}" ]; then
			cell_verdict_rows "$csv" '"r" $repeat' "$value" "($cf) && ($filter)" "$m" "$better" "$ref" "$aa" "$pool"
			continue
		fi
		cell_verdict_rows "$csv" "$B_PAIRED_UNIT" "$value" \
			"($cf) && ($filter) && \$kernel == \"$k\"" "$m" "$better" "$ref" "$aa" "$pool"
		[ -z "$others" ] || cell_verdict_rows "$csv" '"r" $repeat' "$value" "($cf) && ($filter)" "$m:boots" "$better" "$ref" "$aa" "$pool" |
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

# b_run_verdicts CSV REF AA: every cell's comparisons of a workload B
# result CSV (trials.csv of the boots design, blocks.csv of the paired),
# each metric named with its cell: the rows run-b.sh appends to
# verdicts.csv.
b_run_verdicts() {
	local ring rate
	while read -r ring rate; do
		b_cell_verdicts "$1" "$2" "$3" "$ring" "$rate" | cell_label "r$ring $rate"
	done < <(b_cells "$1")
}
