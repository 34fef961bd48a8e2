# shellcheck shell=bash
# The statistics layer every workload's tables use: each setting (arm)
# against a reference, paired by unit (a boot or repeat for A and B; a
# seed for C), as a ratio of means with a 95 % confidence interval (Fieller's:
# the ratios a paired t test does not reject; its coverage is tested on
# simulated runs), the A/A arm's interval (the reference measured twice:
# the noise floor) on every row, and a verdict (bench/stats/compare.py does
# the arithmetic, on numpy and scipy). A difference whose interval lies
# within 0.01 % of no difference gets none (compare --margin, a
# tolerance): in virtual time repeats agree to the last digit, and an A/A
# arm 0.0004 % off excluded 1.
#
# An A/A arm is named REF_aa: a setting with the same knobs as REF, run as
# a separate arm, interleaved like any other (aa_base gives REF back).

# shellcheck disable=SC2034 # used by the workload scripts
STATS_COLS="metric,arm,units,mean,ref_mean,ratio,ci_lo,ci_hi,detectable_pct,aa_ci_lo,aa_ci_hi,verdict,p"

# stats_build: bench/stats/compare.py and family.py, installed into the
# cache as compare and family.
stats_build() {
	make -s -C "$VRB_ROOT/bench/stats" BUILD="$VRB_CACHE/stats" "$VRB_CACHE/stats/compare" "$VRB_CACHE/stats/family" >/dev/null
}

# aa_base SETTING: the setting an A/A arm repeats (SETTING itself otherwise).
aa_base() {
	echo "${1%_aa}"
}

# stats_expr HEADER EXPR: EXPR (awk) with each $NAME of a HEADER column
# (comma-separated) replaced by its field number; dies on an unknown $NAME.
stats_expr() {
	local header=$1 expr=$2 name i=0 out
	out=$expr
	# longest names first: $refill_bufs before $refills
	while read -r _ name; do
		i=$(tr ',' '\n' <<<"$header" | grep -nx -- "$name" | cut -d: -f1)
		out=${out//\$$name/\$$i}
	done < <(tr ',' '\n' <<<"$header" | awk '{ print length($0), $0 }' | sort -rn)
	# a name left over, or a known name glued to more name ($refills_x)
	if [[ "$out" =~ \$[A-Za-z_] ]] || [[ "$out" =~ \$[0-9]+[A-Za-z_] ]]; then
		die "stats: '$expr' names a column that is not in '$header'"
	fi
	echo "$out"
}

# stats_units CSV UNIT ARM VALUE [FILTER]: "UNIT,ARM,VALUE" lines from a
# result CSV (its "#" metadata and header skipped). UNIT, ARM and VALUE are
# awk expressions over the columns, named $NAME; div(a, b) is a / b, or no
# value when b is 0 (the row is left out: put every factor inside, e.g.
# div(1000 * $a, $b), since "" * 1000 is 0). FILTER: an awk condition.
stats_units() {
	local csv=$1 header prog
	header=$(grep -m 1 -v '^#' "$csv")
	prog="function div(a, b) { return b == 0 ? \"\" : a / b }
		NR > 1 && ($(stats_expr "$header" "${5:-1}")) {
			v = $(stats_expr "$header" "$4")
			if (v != \"\") printf \"%s,%s,%.10g\\n\", $(stats_expr "$header" "$2"), $(stats_expr "$header" "$3"), v
		}"
	grep -v '^#' "$csv" | awk -F, "$prog"
}

# stats_unit_means: UNIT,ARM,VALUE lines (stdin) with one line per unit
# and arm: the mean of its values (a unit of several blocks), sorted.
stats_unit_means() {
	awk -F, '{ k = $1 "," $2; s[k] += $3; n[k]++ } END { for (k in s) printf "%s,%.10g\n", k, s[k] / n[k] }' | sort
}

# stats_compare METRIC BETTER REF AA [POOL]: compare's rows (no header)
# for the UNIT,ARM,VALUE lines on standard input. BETTER: lower, higher or
# "" (a mechanism has no better direction); AA: the A/A arm or ""; POOL 1:
# the reference is the mean of REF and AA per unit (compare --pool-aa),
# where the input has AA. No rows when
# the input has no measurement of REF (e.g. a counter only the patched
# kernel has, in a run of stock alone), and then no A/A arm either.
stats_compare() {
	local args=(--metric "$1" --ref "$3") data
	data=$(cat)
	grep -q "^[^,]*,$3," <<<"$data" || return 0
	[ -z "$2" ] || args+=(--better "$2")
	if [ -n "$4" ] && grep -q "^[^,]*,$4," <<<"$data"; then
		args+=(--aa "$4")
		# POOL 1: the reference is both its copies (compare --pool-aa)
		[ "${5:-}" != 1 ] || args+=(--pool-aa)
	fi
	"$VRB_CACHE/stats/compare" "${args[@]}" <<<"$data" | tail -n +2
}

# stats_table FILE: verdicts.csv (STATS_COLS rows) as aligned text.
stats_table() {
	# the metric and arm columns as wide as their longest entry
	grep -v '^#' "$1" | awk -F, '
		NR == 1 { next }
		{ r[++n] = $0; if (length($1) > wm) wm = length($1); if (length($2) > wa) wa = length($2) }
		END { if (wm < 6) wm = 6; if (wa < 3) wa = 3
			printf "%-" wm "s %-" wa "s %5s %12s %8s %-18s %8s %-18s %s\n", "metric", "arm", "units", "mean", "ratio", "95% CI", "detect", "A/A 95% CI", "verdict"
			for (i = 1; i <= n; i++) { split(r[i], f, ",")
				ci = (f[7] == "") ? "-" : sprintf("[%s, %s]", f[7], f[8])
				aa = (f[10] == "") ? "-" : sprintf("[%s, %s]", f[10], f[11])
				printf "%-" wm "s %-" wa "s %5s %12s %8s %-18s %8s %-18s %s\n", f[1], f[2], f[3], f[4], (f[6] == "" ? "-" : f[6]), ci,
					(f[9] == "" ? "-" : "+-" f[9] "%"), aa, f[12] } }'
	grep -v '^#' "$1" | awk -F, 'NR > 1 && $7 != "" && $12 !~ /^A\/A/ { n++ }
		END { if (n) printf "%d comparisons, each at 95 %%: about %.1f would say better/worse/higher/lower by chance when nothing differs.\n", n, n / 20 }'
}
