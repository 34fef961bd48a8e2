#!/usr/bin/env bash
# The rx ring model against the guest: workload B's paired run
# with the rx_costs probe in every boot; per boot, the model's costs and
# stalls fitted to what the probe measured (calib); per boot and setting,
# the model run with those costs at the boot's rate and ring, its drops,
# refills and starved polls next to the ones the guest measured, and the
# model's drops split into those of the refill rule (the model without
# stalls) and those of the stalls. A model, not a measurement.
set -euo pipefail
VRB_PROG="run-model.sh"
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
seeds=5
stall_factor=4
stall_min_ns=20000
project=1
hw_capacity=1000000
hw_stalls="0:0 100:100000 1:4000000"
p_rates="300000 400000 1000000 2000000 5000000 10000000"
p_rings="256 1024 4096"
p_rules="auto legacy 8 16 64"
p_ms=1000
out=''
check_args=''
b_args=()
BUILD=$VRB_CACHE/ringsim

usage() {
	cat <<EOF
Usage: bench/ringsim/run-model.sh [options] [-- RUN-B-OPTIONS]

Calibrates the rx ring model (bench/ringsim) with the guest's own costs and
checks it against the guest. Runs workload B (bench/vhost_src/run-b.sh,
paired design) with the rx_costs probe (stap/rx_costs.stp) in every boot,
or takes such a run (--from); then per boot fits the model's costs and
stalls to the probe's histograms (calib), and per boot and setting runs
the model at the boot's rate and ring with the setting's refill rule.

Writes to DIR: calib.csv (per boot: the fitted costs and stalls),
validation.csv (per boot and setting: measured and modelled drop %,
refills and starved polls per 1000 frames; the model's drops without
stalls = the rule's share), tables.txt, and the B run it used (b/, unless
--from). Then a projection (projection.csv, tables.txt, one plot per ring
and stall scenario: projection-RING-STALLS.png): the same model with the
costs scaled to a hardware-speed guest, per rate, ring and refill rule:
drops, refills and the refill work per poll. A model, not a measurement:
its costs are the guest's medians, its stalls start as a Poisson process
at the measured rate with lengths drawn from the measured histogram
(calib's stall_len); the projection's stalls are assumed (exponential).

  --from DIR           a workload B result dir of the paired design, run with
                       --probe rx_costs (or rx_costs.bt)
  --seeds N            model runs per boot and setting, 1-100 (default: $seeds)
  --stall-factor X     calib: a stall is a value above X times its class's
                       median (default: $stall_factor) ...
  --stall-min-ns N     ... and N ns above it (default: $stall_min_ns)
  --no-project         no projection (below)
  --hw-capacity PPS    the projection's guest: the calibrated costs (the boots'
                       medians) scaled by one factor so that the model takes
                       PPS frames a second with no stalls (default: $hw_capacity,
                       an assumption: a virtio-net queue on one vCPU of a
                       hardware-speed guest, small UDP frames into the stack)
  --hw-stalls LIST     its stall scenarios, RATE:MEAN_NS (stalls a second, mean
                       length: host preemption, interrupts; assumptions, not
                       measured) (default: "$hw_stalls": none; 100 a second
                       of 100 us; one a second of 4 ms, a host scheduler tick
                       at HZ 250)
  --project-rates LIST (default: "$p_rates")
  --project-rings LIST (default: "$p_rings")
  --project-rules LIST (default: "$p_rules")
  --project-ms MS      model time per projection run (default: $p_ms)
  --out DIR            result dir (default: a new results/<date>-model-<base>)
  --check-args         check the options and exit
  -h, --help           this text

RUN-B-OPTIONS go to run-b.sh (default: --settings "auto legacy mn16"
--fractions "0.7 0.9 1.1" --rings "256 1024" --repeats 1); run-model.sh
adds --design paired --probe rx_costs unless they name a probe.
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--from) [ $# -ge 2 ] || die "$1 needs a value"; from=$2; shift 2 ;;
		--seeds) [ $# -ge 2 ] || die "$1 needs a value"; seeds=$2; shift 2 ;;
		--stall-factor) [ $# -ge 2 ] || die "$1 needs a value"; stall_factor=$2; shift 2 ;;
		--stall-min-ns) [ $# -ge 2 ] || die "$1 needs a value"; stall_min_ns=$2; shift 2 ;;
		--no-project) project=''; shift ;;
		--hw-capacity) [ $# -ge 2 ] || die "$1 needs a value"; hw_capacity=$2; shift 2 ;;
		--hw-stalls) [ $# -ge 2 ] || die "$1 needs a value"; hw_stalls=$2; shift 2 ;;
		--project-rates) [ $# -ge 2 ] || die "$1 needs a value"; p_rates=$2; shift 2 ;;
		--project-rings) [ $# -ge 2 ] || die "$1 needs a value"; p_rings=$2; shift 2 ;;
		--project-rules) [ $# -ge 2 ] || die "$1 needs a value"; p_rules=$2; shift 2 ;;
		--project-ms) [ $# -ge 2 ] || die "$1 needs a value"; p_ms=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		--check-args) check_args=1; shift ;;
		-h | --help) usage; exit 0 ;;
		--) shift; b_args=("$@"); break ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	check_range --seeds "$seeds" 1 100
	check_range --hw-capacity "$hw_capacity" 1000 1000000000
	check_range --project-ms "$p_ms" 1 60000
	local v
	[ -n "$p_rates" ] || die "--project-rates is empty"
	for v in $p_rates; do check_range --project-rates "$v" 1 1000000000; done
	[ -n "$p_rings" ] || die "--project-rings is empty"
	for v in $p_rings; do check_range --project-rings "$v" 2 32768; done
	[ -n "$p_rules" ] || die "--project-rules is empty"
	for v in $p_rules; do
		[[ $v =~ ^(auto|legacy|adaptive|adaptive-dry|[0-9]|[1-5][0-9]|6[0-4])$ ]] || die "--project-rules: '$v' is not auto, legacy, adaptive, adaptive-dry or 0-64"
	done
	[ -n "$hw_stalls" ] || die "--hw-stalls is empty"
	for v in $hw_stalls; do
		[[ $v =~ ^[0-9]+:[0-9]+$ ]] || die "--hw-stalls: '$v' is not RATE:MEAN_NS (whole numbers)"
		check_range "--hw-stalls rate" "${v%%:*}" 0 1000000
		check_range "--hw-stalls length" "${v#*:}" 0 10000000000
	done
	check_range --stall-min-ns "$stall_min_ns" 0 10000000000
	awk -v f="$stall_factor" 'BEGIN { exit !(f ~ /^[0-9]+(\.[0-9]+)?$/ && f >= 1.5 && f <= 1000) }' ||
		die "--stall-factor must be a number from 1.5 to 1000, not '$stall_factor'"
	if [ -n "$from" ]; then
		[ "${#b_args[@]}" -eq 0 ] || die "--from takes a finished run: no run-b.sh options"
		[ -f "$from/blocks.csv" ] || die "--from: $from has no blocks.csv (a paired workload B run)"
		ls "$from"/trials/*/probe-rx_costs*.txt >/dev/null 2>&1 ||
			die "--from: $from has no rx_costs probe output (run B with --probe rx_costs)"
	else
		[ "${#b_args[@]}" -gt 0 ] ||
			b_args=(--settings "auto legacy mn16" --fractions "0.7 0.9 1.1" --rings "256 1024" --repeats 1)
		[[ " ${b_args[*]} " != *" --design boots "* ]] || die "the model takes the paired design's boots, not --design boots"
		[[ " ${b_args[*]} " == *" --probe "* ]] || b_args+=(--probe rx_costs)
		b_args=(--design paired "${b_args[@]}")
		"$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args "${b_args[@]}"
	fi
}

build() {
	make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BUILD" "$BUILD/ringsim" "$BUILD/calib"
}

# kv LINE KEY: the value of KEY=value in LINE.
kv() {
	tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | head -n 1
}

# rule_of KNOBS: ringsim's --rule and --refill-max for a blocks.csv knobs
# field ("min_numfree=auto;refill_max=0", or "-": the stock kernel's rule).
rule_of() {
	local mn=auto rm=0
	if [ "$1" != - ]; then
		mn=$(tr ';' '\n' <<<"$1" | sed -n 's/^min_numfree=//p')
		rm=$(tr ';' '\n' <<<"$1" | sed -n 's/^refill_max=//p')
	fi
	echo "${mn:-auto} ${rm:-0}"
}

# model ARGS...: the mean, min and max over SEEDS runs of ringsim ARGS of
# drop %, refills and starved polls per 1000 delivered frames.
model() {
	local s line
	for s in $(seq "$seeds"); do
		line=$("$BUILD/ringsim" "$@" --seed "$s") || die "ringsim failed: $*"
		[ "$(kv "$line" violations)" = 0 ] || die "the model broke its ring invariants: $line"
		echo "$(kv "$line" offered) $(kv "$line" dropped) $(kv "$line" delivered) $(kv "$line" refills) $(kv "$line" starved_polls)"
	done >"$tmp_model" || return 1
	awk '{
		d = $1 ? 100 * $2 / $1 : 0; r = $3 ? 1000 * $4 / $3 : 0; p = $3 ? 1000 * $5 / $3 : 0
		n++; sd += d; sr += r; sp += p
		if (n == 1 || d < lo) lo = d
		if (n == 1 || d > hi) hi = d
	} END { printf "%.4f %.4f %.4f %.2f %.3f\n", sd / n, lo, hi, sr / n, sp / n }' "$tmp_model"
}

# boot_validation BOOTDIR: the boot's calib row and its settings' rows.
boot_validation() {
	local dir=$1 id r kernel ring rate probe=() cal cline args=() row rule rm ms k skipped res crc=0 polls
	id=$(basename "$dir")
	IFS=- read -r r kernel ring rate <<<"$id"
	r=${r#r}
	probe=("$dir"/probe-rx_costs*.txt)
	# the probe's own losses: skipped probes (systemtap skips one that fires
	# while another of ours runs) are counted; a transport failure (lost
	# output) makes the boot's histograms unusable
	skipped=$(sed -n 's/^stap: WARNING: Number of errors: [0-9]*, skipped probes: \([0-9]*\)$/\1/p' "${probe[0]}" | head -n 1)
	if grep -q 'transport failures' "${probe[0]}"; then
		warn "$id: the probe lost output (systemtap transport failure): boot left out"
		echo "$id: left out: the rx_costs probe lost output (transport failure)" >>"$out/excluded.txt"
		return 0
	fi
	cal=$("$BUILD/calib" --stall-factor "$stall_factor" --stall-min-ns "$stall_min_ns" "${probe[0]}" 2>&1) || crc=$?
	if [ "$crc" -eq 1 ]; then
		warn "$id: nothing to fit ($cal): boot left out"
		echo "$id: left out: $cal" >>"$out/excluded.txt"
		return 0
	fi
	[ "$crc" -eq 0 ] || die "$id: calib failed on ${probe[0]}: $cal"
	polls=$(kv "$(grep '^calib: rxq=' <<<"$cal")" polls)
	if [ "${skipped:-0}" -gt $((polls / 10)) ]; then
		warn "$id: systemtap skipped ${skipped} probes, more than 10 % of the ${polls} polls: its histograms may be biased"
		echo "$id: kept, but the probe skipped ${skipped} events (${polls} polls)" >>"$out/excluded.txt"
	fi
	echo "$cal" >"$out/calib/$id.txt"
	cline=$(grep '^calib: rxq=' <<<"$cal")
	read -ra args < <(sed -n 's/^ringsim_args: //p' <<<"$cal")
	# stall lengths as measured (calib's stall_len histogram), not exponential
	! grep -q '^calib: stall_len ' <<<"$cal" || args+=(--stall-hist "$out/calib/$id.txt")
	printf '%s,%s,%s,%s' "$r" "$kernel" "$ring" "$rate" >>"$out/calib.csv"
	for k in polls repolls frames refills bufs seconds poll_ns frame_ns refill_ns buf_ns repoll_ns irq_ns busy_s stalls stall_ns stall_max_ns stalls_per_s backlog_irq; do
		printf ',%s' "$(kv "$cline" "$k")" >>"$out/calib.csv"
	done
	printf ',%s,%s\n' "${skipped:-0}" "$(kv "$(grep 'rx_costs: summary rxq=0 ' "${probe[0]}")" entry_missed)" >>"$out/calib.csv"
	# the boot's settings: the counted blocks' sums; their milliseconds:
	# the rows' seconds (block_s) where a phase change closes a row
	# (windows matched: a block's last row is partial), else the rows
	# times the interval
	awk -F, -v r="$r" -v k="$kernel" -v ring="$ring" -v rate="$rate" -v ivl="$interval_ms" \
		-v matched="$(windows_matched "$blocks" && echo 1 || echo 0)" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["repeat"] == r && $c["kernel"] == k && $c["rx_queue_size"] == ring && $c["rate_pps"] == rate {
			s = $c["setting"]; kn[s] = $c["knobs"]
			iv[s] += ((matched > 0) ? 1000 * $c["block_s"] : $c["intervals"] * ivl)
			o[s] += $c["offered"]; x[s] += $c["dropped"]
			g[s] += $c["guest_rx"]; f[s] += $c["refills"]; p[s] += $c["starved_polls"]
		}
		END { for (s in o) printf "%s %s %d %s %s %s %s %s\n", s, kn[s], iv[s], o[s], x[s], g[s], f[s], p[s] }' \
		<(grep -v '^#' "$blocks") | sort |
		while read -r setting knobs ms offered dropped grx refills starved; do
			read -r rule rm < <(rule_of "$knobs")
			[ "$ms" -gt 0 ] || continue
			local common=(--rate "$rate" --ring "$ring" --rule "$rule" --refill-max "$rm" --duration-ms "$ms")
			res=$(model "${common[@]}" "${args[@]}") || die "$id, $setting: the model failed"
			read -r md mlo mhi mr mp <<<"$res"
			res=$(model "${common[@]}" "${args[@]}" --stalls-per-s 0) || die "$id, $setting: the model failed"
			read -r nd _ _ _ _ <<<"$res"
			row=$(awk -v o="$offered" -v x="$dropped" -v g="$grx" -v f="$refills" -v p="$starved" \
				-v md="$md" -v nd="$nd" 'BEGIN {
				d = o ? 100 * x / o : 0
				printf "%d,%d,%.4f,%.2f,%.3f,%.4f,%.4f", o, x, d, g ? 1000 * f / g : 0, g ? 1000 * p / g : 0, nd, md - nd }')
			echo "$r,$kernel,$ring,$rate,$setting,$rule,$rm,$((ms / 1000)),$row,$md,$mlo,$mhi,$mr,$mp" >>"$out/validation.csv"
		done
}

# median_col COL: the median of calib.csv's column COL over the boots.
median_col() {
	grep -v '^#' "$out/calib.csv" | awk -F, -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		{ print $k }' | sort -g | awk '{ v[NR] = $1 } END { if (!NR) exit 1; print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# projection: projection.csv and its plots: the model with the boots'
# median costs scaled to a guest of HW_CAPACITY pps, per stall scenario,
# ring, rate and rule.
projection() {
	local poll frame refill buf irq repoll repshare cap scale sc rate ring rule line
	poll=$(median_col poll_ns) frame=$(median_col frame_ns) refill=$(median_col refill_ns)
	buf=$(median_col buf_ns) irq=$(median_col irq_ns) repoll=$(median_col repoll_ns)
	repshare=$(grep -v '^#' "$out/calib.csv" | awk -F, 'NR > 1 { p += $5; r += $6 } END { print p ? r / p : 0 }')
	poll=$(awk -v p="$poll" -v g="$repoll" -v s="$repshare" 'BEGIN { print p + g * s }')
	# a busy poll: 64 frames and a 64-buffer refill
	cap=$(awk -v p="$poll" -v f="$frame" -v r="$refill" -v b="$buf" 'BEGIN { printf "%.0f", 64e9 / (p + 64 * f + r + 64 * b) }')
	scale=$(awk -v c="$cap" -v h="$hw_capacity" 'BEGIN { print c / h }')
	hw=(--poll-ns "$(awk -v v="$poll" -v s="$scale" 'BEGIN { printf "%.0f", v * s }')"
		--frame-ns "$(awk -v v="$frame" -v s="$scale" 'BEGIN { printf "%.0f", v * s }')"
		--refill-ns "$(awk -v v="$refill" -v s="$scale" 'BEGIN { printf "%.0f", v * s }')"
		--buf-ns "$(awk -v v="$buf" -v s="$scale" 'BEGIN { printf "%.0f", v * s }')"
		--irq-ns "$(awk -v v="$irq" -v s="$scale" 'BEGIN { printf "%.0f", v * s }')")
	echo "calibrated (boots' medians): poll $poll ns (repolls' gaps included), frame $frame ns, refill $refill ns, buffer $buf ns, interrupt $irq ns: capacity $cap pps" >"$out/projection.txt"
	echo "projected guest: x $scale: ${hw[*]} (capacity $hw_capacity pps, an assumption)" >>"$out/projection.txt"
	results_csv_open "$out/projection.csv" \
		"stalls_per_s,stall_ns,ring,rate_pps,rule,drop_pct,drop_pct_min,drop_pct_max,refills_per_1000,bufs_per_poll,refill_ns_per_poll,max_refill_ns,starved_per_1000" \
		"${meta[@]}" "calibrated_capacity_pps=$cap" "hw_capacity_pps=$hw_capacity (assumed)" \
		"hw_scale=$scale" "hw_model=${hw[*]}" "hw_stalls=$hw_stalls (assumed)" "project_ms=$p_ms"
	for sc in $hw_stalls; do
		for ring in $p_rings; do
			for rate in $p_rates; do
				for rule in $p_rules; do
					line=$(project_one "$sc" "$ring" "$rate" "$rule")
					echo "${sc%%:*},${sc#*:},$ring,$rate,$rule,$line" >>"$out/projection.csv"
				done
			done
		done
	done
	plots
}

# project_one STALLS RING RATE RULE: the projection's row (after the key).
project_one() {
	local s line
	for s in $(seq "$seeds"); do
		line=$("$BUILD/ringsim" "${hw[@]}" --stalls-per-s "${1%%:*}" --stall-ns "${1#*:}" --ring "$2" \
			--rate "$3" --rule "$4" --duration-ms "$p_ms" --seed "$s")
		[ "$(kv "$line" violations)" = 0 ] || die "the model broke its ring invariants: $line"
		echo "$(kv "$line" offered) $(kv "$line" dropped) $(kv "$line" delivered) $(kv "$line" refills) $(kv "$line" refill_bufs) $(kv "$line" polls) $(kv "$line" max_refill_ns) $(kv "$line" starved_polls)"
	done | awk -v rns="${hw[5]}" -v bns="${hw[7]}" '{
		d = $1 ? 100 * $2 / $1 : 0
		n++; sd += d; if (n == 1 || d < lo) lo = d; if (n == 1 || d > hi) hi = d
		rf += $3 ? 1000 * $4 / $3 : 0; bp += $6 ? $5 / $6 : 0
		rt += $6 ? ($4 * rns + $5 * bns) / $6 : 0; if ($7 > mx) mx = $7
		sp += $3 ? 1000 * $8 / $3 : 0
	} END { printf "%.4f,%.4f,%.4f,%.2f,%.2f,%.0f,%d,%.3f\n", sd / n, lo, hi, rf / n, bp / n, rt / n, mx, sp / n }'
}

# plots: per stall scenario and ring, drop % against rate per rule (the
# report layer's plot: the run's id in the corner).
plots() {
	local sc ring rule data png cmd run_id files=()
	command -v gnuplot >/dev/null || { warn "no gnuplot (package gnuplot-nox): no plots"; return 0; }
	run_id=$(basename "${out%.partial}")
	for sc in $hw_stalls; do
		for ring in $p_rings; do
			png=projection-$ring-${sc/:/x}.png
			cmd="set logscale x; set key inside left top;"
			cmd+=" set title 'model, ring $ring, stalls ${sc%%:*}/s of ${sc#*:} ns (projected guest, $hw_capacity pps capacity)';"
			# log y: the rules differ below capacity, by hundredths of a
			# percent; a 0 (nothing dropped) is not drawn
			cmd+=" set xlabel 'offered pps'; set ylabel 'dropped % (log; 0 not drawn)'; set logscale y;"
			cmd+=" set yrange [0.0001:100]; set format y '%g'; plot"
			for rule in $p_rules; do
				data=$(mktemp)
				files+=("$data")
				grep -v '^#' "$out/projection.csv" | awk -F, -v s="${sc%%:*}" -v l="${sc#*:}" -v r="$ring" -v u="$rule" \
					'$1 == s && $2 == l && $3 == r && $5 == u { print $4, $6, $7, $8 }' >"$data"
				cmd+=" '$data' using 1:(\$2 > 0 ? \$2 : 1/0):(\$3 > 0 ? \$3 : 0.0001):4 with yerrorlines title '$rule',"
			done
			PLOT_SIZE=800,500 plot "$out/$png" "${cmd%,}"
			rm -f "${files[@]}"
			files=()
			[ ! -f "$out/$png" ] || echo "$png"
		done
	done >"$out/plots.txt"
}

tables() {
	{
		echo "The rx ring model against the guest: $VRB_COMMAND_LINE"
		echo "B run: $b_name"
		echo "A model, not a measurement: costs fitted per boot to the rx_costs probe's histograms (medians),"
		echo "stalls with Poisson starts at the measured rate, lengths drawn from the measured histogram;"
		echo "$seeds model runs per row (min-max)."
		[ ! -s "$out/excluded.txt" ] || { echo; cat "$out/excluded.txt"; }
		echo
		echo "Per boot, the fitted model (ns; stalls per second of observed busy time):"
		column -s, -t < <(grep -v '^#' "$out/calib.csv" |
			cut -d, -f1-4,11-24)
		echo
		echo "Per boot and setting: measured (guest) vs model; drops % of offered; refills and starved polls per 1000 frames:"
		grep -v '^#' "$out/validation.csv" | awk -F, 'NR == 1 {
				printf "%-4s %-8s %5s %8s %-8s %9s %16s %9s %9s %12s %12s %10s %10s\n", "rep", "kernel", "ring", "rate",
					"setting", "drop%", "model (min-max)", "rule", "stalls", "refills/1k", "model", "starved/1k", "model"
				next }
			{ printf "%-4s %-8s %5s %8s %-8s %9.3f %7.3f (%.2f-%.2f) %9.3f %9.3f %12.2f %12.2f %10.3f %10.3f\n",
				$1, $2, $3, $4, $5, $11, $16, $17, $18, $14, $15, $12, $19, $13, $20 }'
		echo
		echo "rule: the model's drop % without stalls (what the refill rule loses on its own);"
		echo "stalls: the model's drop % with stalls minus that (what the stalls add)."
		[ -z "$project" ] || {
			echo
			echo "Projection (a model of a hardware-speed guest; its capacity and stalls are assumptions):"
			cat "$out/projection.txt"
			grep -v '^#' "$out/projection.csv" | awk -F, 'NR == 1 {
					printf "%8s %8s %5s %9s %-7s %9s %16s %11s %9s %10s %12s\n", "stalls/s", "stall_ns", "ring", "rate",
						"rule", "drop%", "(min-max)", "refills/1k", "bufs/poll", "refill ns/poll", "max refill ns"
					next }
				{ printf "%8s %8s %5s %9s %-7s %9.3f %7.3f-%-8.3f %11.2f %9.2f %10s %12s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }'
			echo
			echo "plots: $(tr '\n' ' ' <"$out/plots.txt")"
		}
	} >"$out/tables.txt"
}

main() {
	local dir
	parse_args "$@"
	tmp_model=$(mktemp)
	trap 'rm -f "$tmp_model"; vrb_exit_report $?' EXIT
	[ -z "$check_args" ] || exit 0
	stage "build the model" build
	if [ -n "$out" ]; then out=$(results_claim "$out"); else out=$(results_new_dir model); fi
	if [ -n "$from" ]; then
		b_dir=$(cd "$from" && pwd)
	else
		b_dir=$out/b
		"$VRB_ROOT/bench/vhost_src/run-b.sh" --out "$b_dir" "${b_args[@]}"
	fi
	# as it will be named once complete
	b_name=${b_dir/%.partial\/b/\/b}
	blocks=$b_dir/blocks.csv
	interval_ms=$(sed -n 's/^# interval_ms: //p' "$blocks" | head -n 1)
	[ -n "$interval_ms" ] || die "$blocks names no interval_ms"
	mkdir -p "$out/calib"
	meta=("workload=model (bench/ringsim, calibrated by stap/rx_costs.stp)" "b_run=$b_name"
		"seeds=$seeds" "stall_factor=$stall_factor" "stall_min_ns=$stall_min_ns"
		"model=paced source, ring, interrupt -> NAPI (budget 64), linear poll and refill costs (medians per class), stalls with Poisson starts at the measured rate and lengths drawn from the measured histogram")
	results_csv_open "$out/calib.csv" \
		"repeat,kernel,ring,rate_pps,polls,repolls,frames,refills,bufs,seconds,poll_ns,frame_ns,refill_ns,buf_ns,repoll_ns,irq_ns,busy_s,stalls,stall_ns,stall_max_ns,stalls_per_s,backlog_irq,probe_skipped,probe_entry_missed" \
		"${meta[@]}"
	results_csv_open "$out/validation.csv" \
		"repeat,kernel,ring,rate_pps,setting,rule,refill_max,seconds,offered,dropped,drop_pct,refills_per_1000,starved_per_1000,model_rule_drop_pct,model_stall_drop_pct,model_drop_pct,model_drop_pct_min,model_drop_pct_max,model_refills_per_1000,model_starved_per_1000" \
		"${meta[@]}"
	for dir in "$b_dir"/trials/r*-*-*-*; do
		[ -d "$dir" ] || continue
		ls "$dir"/probe-rx_costs*.txt >/dev/null 2>&1 || die "$dir: no rx_costs probe output"
		log "model: $(basename "$dir")"
		boot_validation "$dir"
	done
	[ -z "$project" ] || stage "projection" projection
	tables
	cat "$out/tables.txt" >&2
	out=$(results_finish "$out")
	log "model: results in $out"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
