#!/usr/bin/env bash
# Workload B (seed 003): a paced flood into a guest's virtio-net rx queue
# over vhost-user, from vhost_src, for each refill setting and rate, the
# settings interleaved, repeated. One guest boot per trial.
set -euo pipefail
VRB_PROG="run-b.sh"
export VRB_COMMAND_LINE="${VRB_COMMAND_LINE:-$0 $*}"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/results.sh
. "$VRB_ROOT/lib/results.sh"
# shellcheck source=lib/guest.sh
. "$VRB_ROOT/lib/guest.sh"

settings="stock auto legacy mn16 mn64 cap64"
rates=''
fractions="0.5 0.9"
probe_rate=400000
repeats=5
duration=10
interval=1000
ring=256
down_after=''
out=''

usage() {
	cat <<EOF
Usage: bench/vhost_src/run-b.sh [options]

Workload B: vhost_src (DPDK vhost library) serves a vhost-user socket for the
guest's virtio-net device (rx_queue_size RING) and enqueues UDP frames into
its rx queue at a set rate for DURATION seconds; frames finding no free guest
buffer are dropped and counted. One guest boot per trial; settings are
interleaved (their order rotates every repeat). Writes to DIR: trials.csv
(one row per trial), intervals.csv (one row per interval of every trial) and
summary.csv (medians per setting and rate, ratios to stock).

Settings (kernel and virtio_net knobs):
  stock    stock kernel (refill when free > min(budget, ring)/2)
  auto     patched, min_numfree=auto (the same rule, through the knob)
  legacy   patched, min_numfree=legacy (free > ring/2, before v5.3)
  mnN      patched, min_numfree=N (0-64)
  capN     patched, min_numfree=auto, refill_max=N (bounded NAPI refill)

  --settings LIST    (default: "$settings")
  --rates LIST       offered pps; default: FRACTIONS x the capacity measured
                     first (one stock trial at --probe-rate)
  --fractions LIST   (default: "$fractions")
  --probe-rate PPS   (default: $probe_rate)
  --repeats N        (default: $repeats)
  --duration S       seconds of traffic per trial (default: $duration)
  --interval MS      interval of the per-interval rows (default: $interval)
  --ring N           rx_queue_size: 256 or 1024 (default: $ring)
  --down-after S     take the guest's interface down once it received S
                     seconds' worth of frames: a guest that stops
                     refilling (a test)
  --out DIR          result dir (default: a new results/<date>-B)
  -h, --help         this text
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--settings) [ $# -ge 2 ] || die "$1 needs a value"; settings=$2; shift 2 ;;
		--rates) [ $# -ge 2 ] || die "$1 needs a value"; rates=$2; shift 2 ;;
		--fractions) [ $# -ge 2 ] || die "$1 needs a value"; fractions=$2; shift 2 ;;
		--probe-rate) [ $# -ge 2 ] || die "$1 needs a value"; probe_rate=$2; shift 2 ;;
		--repeats) [ $# -ge 2 ] || die "$1 needs a value"; repeats=$2; shift 2 ;;
		--duration) [ $# -ge 2 ] || die "$1 needs a value"; duration=$2; shift 2 ;;
		--interval) [ $# -ge 2 ] || die "$1 needs a value"; interval=$2; shift 2 ;;
		--ring) [ $# -ge 2 ] || die "$1 needs a value"; ring=$2; shift 2 ;;
		--down-after) [ $# -ge 2 ] || die "$1 needs a value"; down_after=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	local s r f
	[ -n "$settings" ] || die "--settings is empty"
	for s in $settings; do setting_knobs "$s" >/dev/null; done
	for r in $rates; do check_range --rates "$r" 1 100000000; done
	for f in $fractions; do
		[[ "$f" =~ ^(0\.[0-9]+|1(\.0+)?)$ ]] || die "--fractions: '$f' is not a number in (0, 1]"
	done
	check_range --probe-rate "$probe_rate" 1 100000000
	check_range --repeats "$repeats" 1 1000
	check_range --duration "$duration" 1 3600
	check_range --interval "$interval" 10 60000
	case $ring in 256 | 1024) ;; *) die "--ring must be 256 or 1024, not '$ring'" ;; esac
	[ -z "$down_after" ] || check_range --down-after "$down_after" 1 3600
}

# setting_kernel NAME / setting_knobs NAME: what a setting boots and sets.
setting_kernel() {
	if [ "$1" = stock ]; then echo stock; else echo patched; fi
}

setting_knobs() {
	case $1 in
	stock) echo - ;;
	auto) echo "min_numfree=auto refill_max=0" ;;
	legacy) echo "min_numfree=legacy refill_max=0" ;;
	mn[0-9]*)
		check_range "setting $1" "${1#mn}" 0 64 >/dev/null
		echo "min_numfree=${1#mn} refill_max=0"
		;;
	cap[0-9]*)
		check_range "setting $1" "${1#cap}" 1 32768 >/dev/null
		echo "min_numfree=auto refill_max=${1#cap}"
		;;
	*) die "unknown setting '$1' (stock, auto, legacy, mnN, capN)" ;;
	esac
}

build() {
	make -s -C "$VRB_ROOT/bench/vhost_src" BUILD="$VRB_CACHE/vhost_src" \
		"$VRB_CACHE/vhost_src/vhost_src" >/dev/null
}

# trial ID SETTING RATE [DOWN_AFTER HOLD]: one guest boot with the flood;
# prints the trial's key=value lines (source totals and guest counters).
trial() {
	local id=$1 setting=$2 rate=$3 down=${4:-} hold=${5:-} dir sock src_pid rc=0 gargs=()
	dir=$tdir/$id
	mkdir -p "$dir"
	sock=$dir/vu.sock
	"$VRB_CACHE/vhost_src/vhost_src" --socket "$sock" --rate "$rate" --duration "$duration" \
		--interval "$interval" --out "$dir/intervals.csv" --wait 300 >"$dir/source.log" 2>&1 &
	src_pid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ] || { cat "$dir/source.log" >&2; die "vhost_src did not create $sock"; }
	[ -z "$down" ] || gargs=("$down" "$hold")
	# vectors=0: QEMU 7.2 under TCG crashes starting vhost-user with MSI-X
	# (msix_set_vector_notifiers); INTx works.
	"$VRB_ROOT/scripts/guest-run.sh" --kernel "$(setting_kernel "$setting")" --run-dir "$dir/guest" \
		--timeout $((duration + 300)) \
		--qemu-arg -chardev --qemu-arg "socket,id=vu0,path=$sock" \
		--qemu-arg -netdev --qemu-arg "vhost-user,id=n0,chardev=vu0" \
		--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n0,rx_queue_size=$ring,vectors=0,romfile=" \
		-- "$VRB_ROOT/bench/vhost_src/guest-rx.sh" "$(setting_knobs "$setting")" $((duration + 120)) "${gargs[@]}" \
		>"$dir/guest.log" 2>&1 || rc=$?
	wait "$src_pid" || true
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$dir/guest.log" >&2
		die "trial $id ($setting, $rate pps): the guest failed (status $rc); see $dir"
	fi
	sed -n 's/^vhost_src: totals: offered=\([0-9]*\) delivered=\([0-9]*\) dropped=\([0-9]*\) seconds=\([0-9.]*\).*/offered=\1\ndelivered=\2\ndropped=\3\nseconds=\4/p' "$dir/source.log"
	grep -E '^(guest_|knob_)[a-z0-9_]*=' "$dir/guest.log" || true
}

TRIAL_COLS="repeat,setting,kernel,knobs,rate_pps,offered,delivered,dropped,drop_pct,delivered_pps,guest_rx_packets,refills,refill_bufs,starved"

# trial_row REPEAT SETTING RATE KV: a trials.csv row from trial's output.
trial_row() {
	local kv=$4 o d x s
	o=$(kv_line "$kv" offered)
	d=$(kv_line "$kv" delivered)
	x=$(kv_line "$kv" dropped)
	s=$(kv_line "$kv" seconds)
	if [ -z "$o" ] || [ -z "$d" ]; then die "trial ($2, $3 pps): no totals from vhost_src"; fi
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$1" "$2" "$(setting_kernel "$2")" \
		"$(setting_knobs "$2" | tr ' ' ';')" "$3" "$o" "$d" "$x" \
		"$(awk -v o="$o" -v x="$x" 'BEGIN { printf "%.4f", o ? 100 * x / o : 0 }')" \
		"$(awk -v d="$d" -v s="$s" 'BEGIN { printf "%.0f", s ? d / s : 0 }')" \
		"$(kv_line "$kv" guest_rx_packets)" "$(kv_line "$kv" guest_rxq0_refills)" \
		"$(kv_line "$kv" guest_rxq0_refill_bufs)" "$(kv_line "$kv" guest_rxq0_starved)"
}

kv_line() {
	sed -n "s/^$2=//p" <<<"$1" | head -n 1
}

# summary TRIALS: medians per (setting, rate): drop %, delivered pps, mean
# drops per interval; and the drop % and delivered pps as ratios to stock.
summary() {
	grep -v '^#' "$1" | tail -n +2 | sort -t, -k2,2 -k5,5n |
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
		{ k = $2","$5; if (k != key) { flush(); key = k; n = 0 }
		  p[++n] = $9 + 0; v[n] = $10 + 0; x[n] = $8 + 0 }
		END {
			flush()
			for (i = 1; i <= nk; i++) {
				split(keys[i], f, ","); s = "stock," f[2]
				printf "%s,%d,%.4f,%.1f,%.0f,%s,%s\n", keys[i], runs[keys[i]], dp[keys[i]], dd[keys[i]], dv[keys[i]],
					(s in dp && dp[s] > 0) ? sprintf("%.3f", dp[keys[i]] / dp[s]) : "",
					(s in dv && dv[s] > 0) ? sprintf("%.3f", dv[keys[i]] / dv[s]) : ""
			}
		}'
}

main() {
	local r s rate order n=0 total kv id first accel
	parse_args "$@"
	kernel_check_source
	stage "kernels" "$VRB_ROOT/scripts/build-kernels.sh" --variant all
	stage "build vhost_src" build
	accel=$(guest_accel "$VRB_ACCEL" "$(kernel_image stock)")
	log "accelerator: ${accel%% *} (${accel#* })"
	[ -n "$out" ] || out=$(results_new_dir B)
	mkdir -p "$out"
	tdir=$out/trials
	mkdir -p "$tdir"
	if [ -z "$rates" ]; then
		log "B: measuring capacity: one stock trial at $probe_rate pps"
		kv=$(trial probe stock "$probe_rate")
		first=$(trial_row 0 stock "$probe_rate" "$kv" | cut -d, -f10)
		log "B: capacity $first pps delivered"
		for s in $fractions; do rates+="$(awk -v c="$first" -v f="$s" 'BEGIN { printf "%d", c * f }') "; done
	fi
	local meta=("workload=B (vhost_src -> vhost-user -> virtio-net rx)"
		"accel=${accel%% *} (${accel#* })" "settings=$settings"
		"rates_pps=$rates" "fractions_of_capacity=$fractions" "repeats=$repeats"
		"down_after_s=${down_after:-never}"
		"duration_s=$duration" "interval_ms=$interval" "rx_queue_size=$ring"
		"guest_vcpus=$VRB_GUEST_VCPUS" "guest_nic=virtio-net-pci vectors=0 (INTx; QEMU 7.2 TCG + vhost-user + MSI-X crashes)"
		"source=bench/vhost_src/vhost_src (DPDK $(pkg-config --modversion libdpdk)), burst 32, 60-byte UDP frames")
	results_csv_open "$out/trials.csv" "$TRIAL_COLS" "${meta[@]}"
	results_csv_open "$out/intervals.csv" "repeat,setting,rate_pps,t_s,offered,delivered,dropped,avail_min,avail_mean" "${meta[@]}"
	total=0
	for s in $settings; do for rate in $rates; do total=$((total + repeats)); done; done
	for r in $(seq "$repeats"); do
		# rotate the settings so that none always runs first
		order=$(echo "$settings" | tr ' ' '\n' | sed '/^$/d' | awk -v r="$r" '{ a[NR] = $0 } END { for (i = 0; i < NR; i++) print a[(i + r - 1) % NR + 1] }')
		for s in $order; do for rate in $rates; do
			n=$((n + 1))
			id=r$r-$s-$rate
			log "B: trial $n/$total: repeat $r, $s, $rate pps"
			if [ -n "$down_after" ]; then
				kv=$(trial "$id" "$s" "$rate" $((down_after * rate)) "$duration")
			else
				kv=$(trial "$id" "$s" "$rate")
			fi
			trial_row "$r" "$s" "$rate" "$kv" >>"$out/trials.csv"
			tail -n +2 "$tdir/$id/intervals.csv" | sed "s/^/$r,$s,$rate,/" >>"$out/intervals.csv"
		done; done
	done
	results_csv_open "$out/summary.csv" \
		"setting,rate_pps,runs,median_drop_pct,median_drops_per_interval,median_delivered_pps,drop_pct_over_stock,delivered_over_stock" \
		"${meta[@]}"
	summary "$out/trials.csv" >>"$out/summary.csv"
	log "B: $n trials; results in $out"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
