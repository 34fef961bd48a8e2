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
# reference that is 1 in every unit: the ratio is the mean).
mean_ci() {
	stats_units "$1" "$2" "$3" "$4" "$5" | stats_unit_means |
		awk -F, '{ print; if (!($1 in u)) { u[$1] = 1; print $1 ",_unit_one,1" } }' |
		"$VRB_CACHE/stats/compare" --ref _unit_one | tail -n +2 |
		awk -F, '$2 != "_unit_one" { printf "%s,%s,%s,%s,%s\n", $2, $3, $4, $7, $8 }'
}

# ratio_cell ROW: "1.80 [1.50, 2.10]" from a compare row, "-" for the
# reference, the ratio alone when it has no interval.
ratio_cell() {
	awk -F, '{ if ($12 == "reference") print "ref"
		else if ($6 == "") print "-"
		else if ($7 == "") print $6
		else printf "%.4f [%.4f, %.4f]%s\n", $6, $7, $8, ($7 == $8 ? " (no spread)" : "") }' <<<"$1"
}

# aa_interval ROW: "[lo, hi]", the A/A arm's interval a compare row
# carries, "-" for none.
aa_interval() {
	awk -F, '{ if ($10 == "") print "-"; else printf "[%.4f, %.4f]\n", $10, $11 }' <<<"$1"
}

# verb METRIC: how a sentence says the metric grew or shrank.
verb() {
	case $1 in
	drop_pct*) echo "drops" ;;
	pktgen_pps*) echo "sends (pktgen pps)" ;;
	refills_per_1000*) echo "refills" ;;
	starved_polls_per_1000*) echo "has starved polls" ;;
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
	IFS=, read -r metric arm _ _ _ ratio lo hi _ _ _ verdict <<<"$row"
	refname=${3:-the reference}
	case $verdict in
	reference) return 0 ;;
	A/A*) printf -- '- %s, %s: the A/A arm (%s measured again) gives %s [%s, %s]: %s.\n' \
		"$ctx" "$metric" "$arm" "$ratio" "$lo" "$hi" "$verdict" ;;
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
		[ "$lo" != "$hi" ] || spread=': no spread between units (deterministic, e.g. virtual time: no noise estimate)'
		ci="95 % CI $lo-$hi$spread"
		[ -n "$lo" ] || ci="no interval"
		printf -- '- %s: %s %s %s x as much as %s (%s): %s.\n' \
			"$ctx" "$arm" "$(verb "$metric")" "$ratio" "$refname" "$ci" "$verdict"
		;;
	esac
}

# plot PNG SCRIPT: gnuplot SCRIPT (its data inline or in files) to PNG;
# a warning, and no file, when gnuplot fails.
plot() {
	local png=$1 script=$2
	if ! gnuplot 2>"$png.err" <<EOF; then
set terminal pngcairo size 900,560 noenhanced font ",10"
set output '$png.tmp'
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
