#!/usr/bin/env bash
# The rx ring model against workload C: per setting and
# ring, the model's costs fitted (calib) to one of the run's probed trials;
# per cell, setting and seed, the model run with that trial's source (rate,
# bursts, jitter, the generator's cost per frame) and the very stall
# schedule the guest ran; predicted and counted drops side by side.
set -euo pipefail
VRB_PROG="model-c.sh"
export VRB_COMMAND_LINE="${VRB_COMMAND_LINE:-$(printf '%q' "$0"; printf ' %q' "$@")}"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/results.sh
. "$VRB_ROOT/lib/results.sh"
# shellcheck source=bench/report/lib.sh
. "$VRB_ROOT/bench/report/lib.sh"

from=''
out=''
tolerance=20
check_args=''
frames='' burst='' jitter='' pacing='' ref='' cd_='' cr_='' co_='' cg_='' cal_frac='' cal_regime=''
BUILD=$VRB_CACHE/ringsim

usage() {
	cat <<EOF
Usage: bench/ringsim/model-c.sh --from DIR [options]

Checks the rx ring model (bench/ringsim) against a workload C run
(bench/vdpa_gen/run-c.sh) that has its probed trials (costs/, costs.csv).
Per setting and ring, the model's costs are fitted (calib) to the setting's
probed trial at that ring: the highest rate up to 1.0x capacity, regime
none if the run has it (else its first). The probe times polls in guest
time and the generator's interrupts fall inside them: the fitted costs are
scaled down by the generator's share of the trial's time (gen_share, its
interrupts taken as spread evenly over time), and the model charges the
generator's cost per frame (the cell's mean gen_ns_per_frame) itself. The
probe's own cost is in what it times too; one scale per ring takes it out
(probe_scale, 0.5-1, fitted on the reference setting at the calibration
cell: the largest at which the model drops no more than that cell's
counted, unprobed, trials). That cell is marked fitted; every other cell,
and every other setting, is a prediction.

Per cell, setting and seed the model runs with the cell's rate, the run's
frames, burst, jitter and pacing, the setting's refill rule (stock: auto, the same
rule) and the stall schedule the guest ran for that seed (stalls/). Stalls
in the model start only between polls, as the generator's stall thread
does.

Writes to DIR: calib.csv (the costs the model runs with, per setting and
ring, with gen_share and probe_scale), model.csv (per cell and setting:
counted and modelled drop %, their ratio, within +-TOL % or not; refills
per 1000 frames both ways), tables.txt and warnings.txt (what the fits
and the run give reason to doubt; also at the end of tables.txt).

  --from DIR         a workload C result dir with costs/ (run-c.sh without --no-costs)
  --tolerance PCT    a cell's model is off when its drop % is outside
                     +-PCT % of the counted one (default: $tolerance)
  --out DIR          result dir (default: a new results/<date>-model-c-<base>)
  --check-args       check the options and exit
  -h, --help         this text
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--from) [ $# -ge 2 ] || die "$1 needs a value"; from=${2%/}; shift 2 ;;
		--tolerance) [ $# -ge 2 ] || die "$1 needs a value"; tolerance=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		--check-args) check_args=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	[ -n "$from" ] || die "--from is needed (a workload C result dir)"
	case $from in *.partial) die "--from: $from is a run not finished (.partial)" ;; esac
	check_range --tolerance "$tolerance" 1 1000
	if [ ! -f "$from/trials.csv" ] || [ "$(meta "$from/trials.csv" workload | cut -c1)" != C ]; then
		die "--from: $from is not a workload C result dir (no trials.csv of workload C)"
	fi
	if [ ! -f "$from/costs.csv" ] || [ ! -d "$from/costs" ]; then
		die "--from: $from has no probed trials (costs.csv, costs/): run C without --no-costs"
	fi
	# the model counts a whole trial's drops; such a run's drop_pct is a window's
	[ "$(meta "$from/trials.csv" warmup)" = "" ] || [ "$(meta "$from/trials.csv" warmup)" = 0 ] ||
		die "--from: $from counts drops after a warm-up ($(meta "$from/trials.csv" warmup) frames), which the model does not"
}

# note TEXT...: a warning, also kept with the results (warnings.txt, and
# at the end of tables.txt).
note() {
	warn "$*"
	echo "$*" >>"$out/warnings.txt"
}

# rule_args SETTING: the model's refill rule for a C setting.
rule_args() {
	local s=${1%_aa}
	case $s in
	stock | auto) echo "--rule auto" ;;
	legacy) echo "--rule legacy" ;;
	adaptive) echo "--rule adaptive" ;;
	adaptive-dry) echo "--rule adaptive-dry" ;;
	mn[0-9]*) echo "--rule ${s#mn}" ;;
	cap[0-9]*) echo "--rule auto --refill-max ${s#cap}" ;;
	*) die "no model rule for setting '$1'" ;;
	esac
}

# col FILE NAME: the column number of NAME in a results CSV.
col() {
	awk -F, -v n="$2" '!/^#/ { for (i = 1; i <= NF; i++) if ($i == n) print i; exit }' "$1"
}

# calibrate: per setting and ring, "setting,ring,rate_frac,regime,gen_share,
# poll_ns,frame_ns,refill_ns,buf_ns,irq_ns": calib's fit of the probed
# trial, net of the generator's share of its time.
calibrate() {
	local s r f g id line share fit w frac=$cal_frac regime=$cal_regime
	# shellcheck disable=SC2013 # setting names are words
	for s in $(grep -v '^#' "$from/costs.csv" | awk -F, 'NR > 1 && !seen[$1]++ { print $1 }'); do
		for r in $(meta "$from/trials.csv" rings); do
			id=cost-$r-$frac-${regime//:/_}
			f=$from/costs/$s/$id.txt
			if ! fit=$("$BUILD/calib" "$f" 2>&1) || ! line=$(sed -n 's/^ringsim_args: //p' <<<"$fit") || [ -z "$line" ]; then
				[ "$s" != "$ref" ] || die "no calibration of the reference $ref at ring $r: calib on $f: $(tail -n 1 <<<"$fit")"
				note "$s, ring $r: not modelled (calib on $f: $(tail -n 1 <<<"$fit"))"
				continue
			fi
			# a line through fewer than 2 classes of 10 or more is no line
			for w in work refill; do
				[ "$(grep -c "^calib: class what=$w .* n=\([1-9][0-9]\+\)" <<<"$fit")" -ge 2 ] ||
					note "$s, ring $r: its $w costs rest on fewer than 2 sizes seen 10 times or more in $f: a fixed cost, or a line through one sample"
			done
			# the generator's share of the trial's guest time (costs.csv)
			share=$(grep -v '^#' "$from/costs.csv" | awk -F, -v s="$s" -v r="$r" -v f="$frac" -v g="$regime" \
				-v ce="$(col "$from/costs.csv" elapsed_ns)" -v cg="$(col "$from/costs.csv" gen_ns)" \
				'$1 == s && $3 == r && $4 == f "" && $6 == g && $ce > 0 { printf "%.4f", $cg / $ce; n++ }
				END { exit n != 1 }') || die "costs.csv: no single row with the generator's time for $s, ring $r, ${frac}x, $regime"
			# a probe that lost more than a tenth of its polls' events
			grep -v '^#' "$from/costs.csv" | awk -F, -v s="$s" -v r="$r" -v f="$frac" -v g="$regime" \
				-v cp="$(col "$from/costs.csv" probe_polls)" -v cs="$(col "$from/costs.csv" probe_skipped)" \
				-v cm="$(col "$from/costs.csv" probe_entry_missed)" \
				'$1 == s && $3 == r && $4 == f "" && $6 == g && $cs + $cm > $cp / 10 { exit 1 }' ||
				note "$s, ring $r: the probe skipped or missed more than a tenth of its polls' events in $f: its costs are less sure"
			g=$(awk -v k="$(awk -v x="$share" 'BEGIN { print 1 - x }')" '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) }
				END { printf "%.0f,%.0f,%.0f,%.0f,%.0f", k * v["--poll-ns"], k * v["--frame-ns"], k * v["--refill-ns"],
					k * v["--buf-ns"], k * v["--irq-ns"] }' <<<"$line")
			echo "$s,$r,$frac,$regime,$share,$g"
		done
	done
}

# cell_rows SETTING RING FRAC REGIME: the cell's rows of trials.csv.
cell_rows() {
	grep -v '^#' "$from/trials.csv" | awk -F, -v s="$1" -v r="$2" -v f="$3" -v g="$4" \
		'$1 == s && $3 == r && $4 == f "" && $6 == g'
}

# sim_cell SETTING RING REGIME PPS SRC_NS SEEDS K POLL FRAME REFILL BUF IRQ:
# the model over SEEDS (a list) with the run's source at PPS, the
# generator's SRC_NS per frame, the costs times K: "DROP_PCT REFILLS_PER_1K"
# (means over the seeds).
sim_cell() {
	local s=$1 r=$2 g=$3 pps=$4 src=$5 seeds=$6 k=$7 seed sched=() c=() rule
	rule=$(rule_args "$s")
	read -r -a c < <(awk -v k="$k" 'BEGIN { for (i = 1; i < ARGC; i++) printf "%.0f ", k * ARGV[i]; print "" }' "${@:8}")
	for seed in $seeds; do
		sched=()
		[ "$g" = none ] || sched=(--stall-file "$from/stalls/${g//:/_}-s$seed.txt")
		# shellcheck disable=SC2086 # rule: words
		"$BUILD/ringsim" $rule --ring "$r" --rate "${pps%.*}" --frames "$frames" \
			--burst "$burst" --jitter "$jitter" --pacing "$pacing" --src-ns "$src" --poll-ns "${c[0]}" --frame-ns "${c[1]}" \
			--refill-ns "${c[2]}" --buf-ns "${c[3]}" --irq-ns "${c[4]}" --seed "$seed" "${sched[@]}" ||
			die "ringsim failed for $s, ring $r, $g, seed $seed"
	done | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			d += 100 * v["dropped"] / v["offered"]; f += 1000 * v["refills"] / v["offered"]; n++ }
		END { if (n) printf "%.4f %.3f\n", d / n, f / n }'
}

# sim_rows SETTING RING REGIME ROWS K COSTS...: sim_cell over a cell's
# counted trials (ROWS): their rate, mean generator cost and seeds.
sim_rows() {
	local pps src seeds
	pps=$(head -n 1 <<<"$4" | cut -d, -f5)
	src=$(awk -F, -v c="$cg_" '{ s += $c; n++ } END { printf "%.0f", s / n }' <<<"$4")
	seeds=$(cut -d, -f8 <<<"$4" | tr '\n' ' ')
	sim_cell "$1" "$2" "$3" "$pps" "$src" "$seeds" "${@:5}"
}

# fit_probe RING NET: "K HOW": the scale K of the reference's costs at RING
# (NET: calibrate's rows) at which the model drops at most what the
# reference counted at the calibration cell, the largest in 0.5-1
# (bisection, 10 steps: to 1/2048): the probe's own cost, taken as
# proportional to what it times. HOW: fitted; none-needed (the model drops
# no more than counted at 1); at-bound (more than counted even at 0.5).
fit_probe() {
	local r=$1 net=$2 row rows counted lo=0.5 hi=1 mid d c
	row=$(awk -F, -v s="$ref" -v r="$r" '$1 == s && $2 == r' <<<"$net")
	[ -n "$row" ] || die "no calibration of the reference ($ref) at ring $r: its probed trial is needed"
	IFS=, read -r -a c <<<"$row"
	rows=$(cell_rows "$ref" "$r" "$cal_frac" "$cal_regime")
	[ -n "$rows" ] || die "no counted trials of $ref at ring $r, ${cal_frac}x, $cal_regime"
	counted=$(awk -F, -v c="$cd_" '{ s += $c; n++ } END { printf "%.4f", s / n }' <<<"$rows")
	d=$(sim_rows "$ref" "$r" "$cal_regime" "$rows" 1 "${c[@]:5}")
	if awk -v d="${d% *}" -v c="$counted" 'BEGIN { exit !(d <= c) }'; then
		echo "1 none-needed"
		return 0
	fi
	d=$(sim_rows "$ref" "$r" "$cal_regime" "$rows" "$lo" "${c[@]:5}")
	if ! awk -v d="${d% *}" -v c="$counted" 'BEGIN { exit !(d <= c) }'; then
		echo "$lo at-bound"
		return 0
	fi
	for _ in $(seq 10); do
		mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.6f", (a + b) / 2 }')
		d=$(sim_rows "$ref" "$r" "$cal_regime" "$rows" "$mid" "${c[@]:5}")
		if awk -v d="${d% *}" -v c="$counted" 'BEGIN { exit !(d <= c) }'; then lo=$mid; else hi=$mid; fi
	done
	echo "$lo fitted"
}

# calib_csv: calib.csv, a row per setting and ring: the probed guest's
# costs (net of the generator's share) and the ring's probe scale.
calib_csv() {
	local net r k how
	net=$(calibrate)
	echo "setting,ring,rate_frac,regime,gen_share,probe_scale,probe_fit,poll_ns,frame_ns,refill_ns,buf_ns,irq_ns" >>"$out/calib.csv"
	for r in $(meta "$from/trials.csv" rings); do
		read -r k how < <(fit_probe "$r" "$net")
		[ "$how" != at-bound ] || note "ring $r: the model drops more than $ref counted at ${cal_frac}x, $cal_regime even with the costs halved: probe scale left at $k, the model is off there"
		log "ring $r: probe scale $k ($how; on $ref at ${cal_frac}x, $cal_regime)"
		awk -F, -v r="$r" -v k="$k" -v how="$how" 'BEGIN { OFS = "," } $2 == r {
			print $1, $2, $3, $4, $5, k, how, $6, $7, $8, $9, $10 }' <<<"$net" >>"$out/calib.csv"
	done
}

# model_rows: model.csv, a row per cell and probed setting: the counted
# trials against the model with the probe scale; the probed trial against
# the model without it (its seed and stalls; no fitted number in between).
model_rows() {
	local s r f g rows m mp k cal pr c=()
	echo "setting,ring,rate_frac,regime,seeds,calibration,counted_drop_pct,model_drop_pct,ratio,within,counted_refills_per_1k,model_refills_per_1k,probed_drop_pct,model_probed_drop_pct,probed_ratio" >>"$out/model.csv"
	while IFS=, read -r -a c; do
		s=${c[0]} r=${c[1]} k=${c[5]}
		for f in $(meta "$from/trials.csv" rates); do
			for g in $(meta "$from/trials.csv" stall_regimes); do
				rows=$(cell_rows "$s" "$r" "$f" "$g")
				[ -n "$rows" ] || continue
				m=$(sim_rows "$s" "$r" "$g" "$rows" "$k" "${c[@]:7}")
				# the reference's calibration cell is fitted (when the scale is)
				cal=no
				[ "$s" != "$ref" ] || [ "$f" != "$cal_frac" ] || [ "$g" != "$cal_regime" ] || [ "${c[6]}" != fitted ] || cal=yes
				# the probed trial: offered, dropped, its seed and generator cost
				pr=$(grep -v '^#' "$from/costs.csv" | awk -F, -v s="$s" -v r="$r" -v f="$f" -v g="$g" \
					-v co="$(col "$from/costs.csv" offered)" -v cx="$(col "$from/costs.csv" dropped)" \
					-v cg="$(col "$from/costs.csv" gen_ns)" \
					'$1 == s && $3 == r && $4 == f "" && $6 == g { printf "%s %.4f %.0f %.0f", $7, 100 * $cx / $co, $cg / $co, $5 }')
				mp=''
				if [ -n "$pr" ]; then
					read -r -a pr <<<"$pr"
					mp=$(sim_cell "$s" "$r" "$g" "${pr[3]}" "${pr[2]}" "${pr[0]}" 1 "${c[@]:7}")
					mp="${pr[1]} ${mp% *}"
				fi
				awk -F, -v cd_="$cd_" -v cr_="$cr_" -v co_="$co_" -v s="$s" -v r="$r" -v f="$f" -v g="$g" \
					-v tol="$tolerance" -v m="$m" -v mp="$mp" -v cal="$cal" '
					{ cd += $cd_; if ($cr_ != "") { cr += 1000 * $cr_ / $co_; nr++ }; n++ }
					END {
						split(m, w, " "); md = w[1]; mr = w[2]
						cd /= n; cr = nr ? sprintf("%.3f", cr / nr) : ""
						ratio = cd > 0 ? md / cd : ""
						within = cd > 0 ? (ratio >= 1 - tol / 100 && ratio <= 1 + tol / 100 ? "yes" : "no") : (md < 0.001 ? "yes" : "no")
						pd = pm = pratio = ""
						if (mp != "") { split(mp, q, " "); pd = q[1]; pm = q[2]; pratio = pd > 0 ? sprintf("%.3f", pm / pd) : "" }
						printf "%s,%s,%s,%s,%d,%s,%.4f,%.4f,%s,%s,%s,%.3f,%s,%s,%s\n", s, r, f, g, n, cal, cd, md,
							ratio == "" ? "" : sprintf("%.3f", ratio), within, cr, mr, pd, pm, pratio }' <<<"$rows" >>"$out/model.csv"
			done
		done
	done < <(grep -v '^#' "$out/calib.csv" | tail -n +2)
}

# tables: tables.txt.
tables() {
	{
		echo "The rx ring model against workload C: $(basename "$from")"
		echo "Costs per setting and ring from its probed trial at ${cal_frac}x, $cal_regime (the calibration cell), net of the generator's share; the probe scale per ring fitted on $ref there (marked cal; calib.csv); the guest's own stall schedules."
		echo "counted: mean drop % over the cell's seeds, unprobed; model: the same seeds, costs times the probe scale; probed / model: the probed trial (seed of unit 1) and the model of it with the probe's costs as measured."
		grep -v '^#' "$out/calib.csv" | awk -F, -v s="$ref" 'NR > 1 && $1 == s { printf "ring %s: probe scale %s (%s)\n", $2, $6, $7 }'
		echo "A predicted cell is OFF when the model's mean drop % is outside +-$tolerance % of the counted one (a cell that drops nothing: when the model drops 0.001 % or more)."
		echo
		printf '%-8s %5s %5s %-16s %9s %9s %7s %-4s %9s %9s %7s\n' setting ring rate stalls counted model ratio "" probed model ratio
		grep -v '^#' "$out/model.csv" | awk -F, 'NR > 1 {
				printf "%-8s %5s %5s %-16s %9.4f %9.4f %7s %-4s %9s %9s %7s\n", $1, $2, $3, $4, $7, $8,
					($9 == "" ? "-" : $9), ($6 == "yes" ? "cal" : $10 == "yes" ? "" : "OFF"),
					($13 == "" ? "-" : $13), ($14 == "" ? "-" : $14), ($15 == "" ? "-" : $15) }'
		echo
		grep -v '^#' "$out/model.csv" | awk -F, -v tol="$tolerance" 'NR > 1 && $6 == "no" { n++; if ($10 == "yes") y++ }
				NR > 1 && $15 != "" { pn++; if ($15 >= 1 - tol / 100 && $15 <= 1 + tol / 100) py++ }
			END { printf "%d of %d predicted cells within +-%s %% of the counted drops; %d of %d probed trials within +-%s %% of the model of them\n", y, n, tol, py, pn, tol }'
		if [ -s "$out/warnings.txt" ]; then
			echo
			echo "Warnings:"
			sed 's/^/- /' "$out/warnings.txt"
		fi
	} >"$out/tables.txt"
}

main() {
	parse_args "$@"
	[ -z "$check_args" ] || exit 0
	stage "build ringsim and calib" make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BUILD" "$BUILD/ringsim" "$BUILD/calib"
	if [ -n "$out" ]; then out=$(results_claim "$out"); else out=$(results_new_dir model-c); fi
	results_meta "workload=model (bench/ringsim against workload C)" "from=$(basename "$from")" \
		"from_command=$(meta "$from/trials.csv" command)" "from_kernel_source=$(meta "$from/trials.csv" kernel_source)" \
		"from_series_hash=$(meta "$from/trials.csv" series_hash)" "from_harness_commit=$(meta "$from/trials.csv" harness_commit)" \
		"tolerance_pct=$tolerance" | sed 's/^/# /' >"$out/calib.csv"
	grep '^#' "$out/calib.csv" >"$out/model.csv"
	# what every step reads: the run's source, trials.csv's columns, the
	# reference and the calibration cell (the highest rate up to 1.0x, no
	# stalls if the run has a cell without)
	frames=$(meta "$from/trials.csv" frames)
	burst=$(meta "$from/trials.csv" burst)
	jitter=$(meta "$from/trials.csv" jitter_pct)
	# runs before the generator's anchored pacing drifted (no pacing line)
	pacing=$(meta "$from/trials.csv" pacing)
	pacing=${pacing:-drift}
	ref=$(meta "$from/trials.csv" reference)
	cd_=$(col "$from/trials.csv" drop_pct)
	cr_=$(col "$from/trials.csv" refills)
	co_=$(col "$from/trials.csv" offered)
	cg_=$(col "$from/trials.csv" gen_ns_per_frame)
	if [ -z "$cd_" ] || [ -z "$cr_" ] || [ -z "$co_" ] || [ -z "$cg_" ]; then
		die "$from/trials.csv lacks one of drop_pct refills offered gen_ns_per_frame"
	fi
	cal_regime=$(meta "$from/trials.csv" stall_regimes | tr ' ' '\n' | grep -x none ||
		meta "$from/trials.csv" stall_regimes | cut -d' ' -f1)
	cal_frac=$(meta "$from/trials.csv" rates | tr ' ' '\n' | sort -g |
		awk '$1 <= 1 { f = $1 } NR == 1 { m = $1 } END { print (f != "" ? f : m) }')
	# the model has no resync (the generator skipping gaps it was late for)
	[ "$(grep -v '^#' "$from/trials.csv" | awk -F, -v c="$(col "$from/trials.csv" resyncs)" 'NR > 1 && $c > 0' | wc -l)" -eq 0 ] ||
		note "some trials of $from resynced (resyncs > 0): the model has no resync, their cells are off by that"
	local s
	for s in $(meta "$from/trials.csv" settings); do
		[ "$s" != "$(meta "$from/trials.csv" aa_arm)" ] || continue
		grep -v '^#' "$from/costs.csv" | cut -d, -f1 | grep -qxF "$s" || note "$s: no probed trial in $from/costs.csv: not modelled"
	done
	awk -v f="$cal_frac" 'BEGIN { exit !(f > 1) }' && note "every rate of $from is above 1.0x: calibrating at ${cal_frac}x"
	stage "calibrate" calib_csv
	stage "model every cell and seed" model_rows
	tables
	cat "$out/tables.txt" >&2
	out=$(results_finish "$out")
	log "model-c: results in $out"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
