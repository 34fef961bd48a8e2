#!/usr/bin/env bash
# compare-runs.sh OLD NEW: two result directories of one workload side by
# side (e.g. before and after a patch change): per cell, setting and
# metric, NEW's mean against OLD's as a ratio with a 95 % Fieller
# interval (Welch's: the two runs' units are independent, nothing pairs them), a
# verdict, and each run's own A/A interval in that cell.
# shellcheck disable=SC2016 # awk expressions in single quotes
set -euo pipefail
VRB_PROG="compare-runs.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"
# shellcheck source=lib/stats.sh
. "$VRB_ROOT/lib/stats.sh"
# shellcheck source=lib/cell-verdicts.sh
. "$VRB_ROOT/lib/cell-verdicts.sh"
# shellcheck source=bench/report/lib.sh
. "$VRB_ROOT/bench/report/lib.sh"

usage() {
	cat <<EOF
Usage: bench/report/compare-runs.sh [--out FILE] OLD NEW
       ./run-bench.sh compare OLD NEW

Puts two result directories of the same workload (A or B) side by side:
per cell (A: tx_queue_len; B: ring and fraction of capacity, or ring and
rate when a run has no fractions), per setting both runs have and per
metric, the ratio of NEW's mean to OLD's over their units (A: repeats;
B: boots, or repeats), a 95 % Fieller interval with Welch's
variance (the runs' units are independent), and a verdict. Each run's A/A interval in
the cell (its own reference against its A/A arm) is printed alongside: a
run whose A/A arm differs in a cell cannot be trusted there. Writes
markdown to standard output (or FILE, replaced whole).

  --out FILE   write to FILE instead of standard output
  -h, --help   this text
EOF
}

out='' dirs=()
while [ $# -gt 0 ]; do
	case $1 in
	--out) [ $# -ge 2 ] || die "--out needs a value"; out=$2; shift 2 ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) dirs+=("$1"); shift ;;
	esac
done
[ "${#dirs[@]}" -eq 2 ] || { usage >&2; die "two result directories, OLD and NEW, not ${#dirs[@]}"; }
for d in "${dirs[@]}"; do [ -d "$d" ] || die "$d: not a directory"; done

# run_csv DIR: the file with a run's units (A: trials.csv; B: blocks.csv
# of the paired design, else trials.csv), and its kind: "A", "Bp", "Bb".
run_csv() {
	local w
	if [ -f "$1/blocks.csv" ]; then
		echo "$1/blocks.csv Bp"
	elif [ -f "$1/trials.csv" ]; then
		w=$(meta "$1/trials.csv" workload)
		case $w in
		A*) echo "$1/trials.csv A" ;;
		B*) echo "$1/trials.csv Bb" ;;
		*) die "$1: trials.csv of an unknown workload '$w'" ;;
		esac
	else
		die "$1: not a workload A or B result dir (no trials.csv or blocks.csv)"
	fi
}

# cells CSV KIND: "KEY|FILTER" per cell; KEY names the cell across runs.
cells() {
	local csv=$1 kind=$2 q rates fracs i r
	if [ "$kind" = A ]; then
		for q in $(meta "$csv" txqlens); do echo "tx_queue_len $q|\$txqlen == $q"; done
		return
	fi
	rates=$(meta "$csv" rates_pps)
	fracs=$(meta "$csv" fractions_of_capacity)
	# rates given (--rates): the fractions were not applied
	[[ "$(meta "$csv" capacity_pps)" =~ ^[0-9]+$ ]] || fracs=''
	read -ra fa <<<"$fracs"
	for ring in $(meta "$csv" rx_queue_sizes); do
		i=0
		for r in $rates; do
			if [ -n "$fracs" ]; then
				echo "ring $ring, ${fa[$i]} x capacity|\$rx_queue_size == $ring && \$rate_pps == $r|$r"
			else
				echo "ring $ring, $r pps|\$rx_queue_size == $ring && \$rate_pps == $r|$r"
			fi
			i=$((i + 1))
		done
	done
}

# metrics KIND: "NAME|BETTER|VALUE|FILTER" per metric.
metrics() {
	case $1 in
	# from lib/cell-verdicts.sh (A: not the probe's mean batch; B: GR the
	# guest's received frames)
	A) grep -v '^mean_batch|' <<<"$A_METRICS" | cut -d'|' -f1-4 ;;
	Bp) cut -d'|' -f1-4 <<<"${B_METRICS//GR/\$guest_rx}" ;;
	Bb) cut -d'|' -f1-4 <<<"${B_METRICS//GR/\$guest_rx_packets}" ;;
	esac
}

# unit_expr KIND: a run's unit within the run (its A/A column); between
# two runs the unit is the boot (a repeat) in every design: a boot's
# rounds are not independent of each other across runs.
unit_expr() {
	case $1 in
	Bp) echo "$B_PAIRED_UNIT" ;;
	*) echo '"r" $repeat' ;;
	esac
}

# aa_cell CSV KIND FILTER METRIC BETTER VALUE MFILTER: the run's own A/A
# interval in the cell ("lo-hi verdict"), or "-".
aa_cell() {
	local csv=$1 kind=$2 ref aa row
	ref=$(meta "$csv" reference)
	aa=$(meta "$csv" aa_arm)
	if [ -z "$aa" ] || [ "$aa" = none ]; then echo "-"; return; fi
	row=$(cell_rows "$csv" "$(unit_expr "$kind")" '$setting' "$6" "($3) && ($7)" "$4" "$5" "$ref" "$aa" |
		grep "^[^,]*,$aa," || true)
	[ -n "$row" ] || { echo "-"; return; }
	awk -F, '{ if ($12 ~ /deterministic/) print "deterministic"; else if ($7 == "") print "undefined"; else printf "[%.4f, %.4f] %s\n", $7, $8, ($12 ~ /DIFFERS/ ? "DIFFERS" : "ok") }' <<<"$row"
}

main() {
	local old=${dirs[0]} new=${dirs[1]} oc ok nc nk key f nf s m better value mf rows row settings
	read -r oc ok <<<"$(run_csv "$old")"
	read -r nc nk <<<"$(run_csv "$new")"
	[ "${ok:0:1}" = "${nk:0:1}" ] || die "$old is workload ${ok:0:1}, $new is workload ${nk:0:1}: nothing to compare"
	[ "$ok" = "$nk" ] || die "$old and $new are workload B runs of different designs (paired, boots): their units differ"
	stats_build	# make: rebuilt when bench/stats changed, not only when missing
	echo "# $new against $old"
	echo
	echo "| | old | new |"
	echo "|---|---|---|"
	for k in date command kernel_version series_hash kernel_flavour config_hash accel clock design harness_commit; do
		printf '| %s | `%s` | `%s` |\n' "$k" "$(meta "$oc" "$k")" "$(meta "$nc" "$k")"
	done
	echo
	local differ=()
	for k in kernel_version series_hash kernel_flavour config_hash accel clock design; do
		[ "$(meta "$oc" "$k")" = "$(meta "$nc" "$k")" ] || differ+=("$k")
	done
	if [ "${#differ[@]}" -gt 0 ]; then
		echo "**The runs differ in ${differ[*]}**: a difference below may come from that, not from a setting."
		echo
	fi
	echo "Units: boots (a repeat: one boot per kernel and repeat). Ratios new / old of the mean over each run's units, 95 % Fieller intervals (Welch's: two runs are not paired, so these intervals are wider than a run's own; one within 0.01 % of 1 is no difference, compare --margin); A/A: each run's own noise floor in the cell."
	echo
	echo "| cell | setting | metric | old: units, mean | new: units, mean | new / old [95 % CI] | verdict | old A/A | new A/A |"
	echo "|---|---|---|---|---|---|---|---|---|"
	settings=$(for s in $(meta "$oc" settings); do if grep -qw -- "$s" <<<"$(meta "$nc" settings)"; then echo "$s"; fi; done)
	[ -n "$settings" ] || die "the runs share no setting"
	local shared=0
	while IFS='|' read -r key f orate; do
		IFS='|' read -r nf nrate <<<"$(cells "$nc" "$nk" | awk -F'|' -v k="$key" '$1 == k { print $2 "|" $3 }')"
		[ -n "$nf" ] || continue
		# each run measured its own capacity: say when the rates differ
		[ "$orate" = "$nrate" ] || key="$key (old $orate pps, new $nrate pps)"
		shared=$((shared + 1))
		while IFS='|' read -r m better value mf; do
			for s in $settings; do
				rows=$( {
					stats_units "$oc" '"r" $repeat' '"old"' "$value" "($f) && ($mf) && \$setting == \"$s\"" |
						stats_unit_means | sed 's/^/o/'
					stats_units "$nc" '"r" $repeat' '"new"' "$value" "($nf) && ($mf) && \$setting == \"$s\"" |
						stats_unit_means | sed 's/^/n/'
				} )
				if ! grep -q ',old,' <<<"$rows" || ! grep -q ',new,' <<<"$rows"; then continue; fi
				local args=(--ref old --unpaired --metric "$m")
				[ -z "$better" ] || args+=(--better "$better")
				row=$("$VRB_CACHE/stats/compare" "${args[@]}" <<<"$rows" | grep '^[^,]*,new,')
				IFS=, read -r _ _ _ mean ref_mean _ _ _ _ _ _ verdict _ <<<"$row"
				printf '| %s | %s | %s | %s, %s | %s, %s | %s | %s | %s | %s |\n' "$key" "$s" "$m" \
					"$(grep -c ',old,' <<<"$rows")" "$ref_mean" "$(grep -c ',new,' <<<"$rows")" "$mean" \
					"$(ratio_cell "$row")" "$verdict" \
					"$(aa_cell "$oc" "$ok" "$f" "$m" "$better" "$value" "$mf")" \
					"$(aa_cell "$nc" "$nk" "$nf" "$m" "$better" "$value" "$mf")"
			done
		done < <(metrics "$ok")
	done < <(cells "$oc" "$ok")
	[ "$shared" -gt 0 ] || die "the runs share no cell (tx_queue_len; ring and fraction of capacity)"
	echo
	echo "Made by \`bench/report/compare-runs.sh\` (harness $(git -C "$VRB_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown))."
}

if [ -n "$out" ]; then
	main >"$out.tmp"
	mv "$out.tmp" "$out"
else
	main
fi
