# shellcheck shell=bash disable=SC2154 # run-b.sh's globals
# Workload B's zero-loss rate search (sourced by run-b.sh, whose globals
# it uses; RFC 2544 style): per setting and ring a binary search on the
# offered rate between 0 and TOP, one trial (trial.sh) a step, a step
# passing when its drop % is at most the tolerance. Writes ndr_trials.csv
# and ndr.csv.

# ndr_search TOP: the zero-loss rate searches, every setting and ring
# stepping together (one trial each per step, settings rotated per step);
# rows to ndr_trials.csv and ndr.csv.
ndr_search() {
	local top=$1 q step ring s rate row pct n=0 total t0
	declare -A lo hi
	t0=$(now)
	total=$((ndr_repeats * ndr_steps * $(wc -w <<<"$rings") * $(wc -w <<<"$settings")))
	for q in $(seq "$ndr_repeats"); do
		for ring in $rings; do for s in $settings; do lo[$s,$ring]=0 hi[$s,$ring]=$top; done; done
		for step in $(seq "$ndr_steps"); do
			for ring in $rings; do
				# shellcheck disable=SC2086 # word lists
				for s in $(rotate $((step + q)) $settings); do
					n=$((n + 1))
					rate=$(((lo[$s,$ring] + hi[$s,$ring]) / 2))
					log "B: zero-loss search $n/$total: search $q step $step, $s, ring $ring, $rate pps$(progress_eta $((n - 1)) "$total" "$t0")"
					row=$(run_trial "ndr$q-$step-$s-$ring" "$q" "$s" "$ring" "$rate" "$out/ndr_trials.csv")
					pct=$(cut -d, -f9 <<<"$row")
					if awk -v p="$pct" -v t="$ndr_tolerance" 'BEGIN { exit !(p <= t) }'; then
						lo[$s,$ring]=$rate
					else
						hi[$s,$ring]=$rate
					fi
				done
			done
		done
		for ring in $rings; do for s in $settings; do
			echo "$q,$s,$ring,${lo[$s,$ring]},${hi[$s,$ring]},$ndr_tolerance,$ndr_steps,$top" >>"$out/ndr.csv"
		done; done
	done
}
