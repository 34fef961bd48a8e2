#!/usr/bin/env bash
# Workload A (seeds 000 and 002): pktgen -> tap -> vhost-net -> vhost_drv,
# inside one guest, for each setting and tap tx_queue_len; stock and
# patched kernels alternate, the settings' order rotates every repeat.
set -euo pipefail
VRB_PROG="run-a.sh"
export VRB_COMMAND_LINE="${VRB_COMMAND_LINE:-$(printf '%q' "$0"; printf ' %q' "$@")}"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/results.sh
. "$VRB_ROOT/lib/results.sh"
# shellcheck source=lib/guest.sh
. "$VRB_ROOT/lib/guest.sh"
# shellcheck source=lib/workload.sh
. "$VRB_ROOT/lib/workload.sh"
# shellcheck source=lib/stats.sh
. "$VRB_ROOT/lib/stats.sh"
# shellcheck source=lib/cell-verdicts.sh
. "$VRB_ROOT/lib/cell-verdicts.sh"

settings="stock b1 b2 b4 b8 b16 b32 b64 b128 b256 z1b1 z1b64"
txqlens="64 500 1000"
repeats=5
count=100000
size=60
ring=256
mode=poll
consumer=vhost
regime=seeds
work=''
probe=''
clock=''
vcpus=''
ref=''
no_aa=0
out=''
check_args=''
meta=() cpu_vcpu='' cpu_other='' aa=''
# The regimes (--regime): the consumer's cost per frame (vhost_drv --work)
# and the probe that gives the mean vhost batch.
#   seeds:  the driver is the bottleneck: the tap's ring is full most of the
#           time and vhost's batches full, as in the 2017 threads. Measured
#           (icount, tx_queue_len 500, rx batch 64, 20000 frames, one boot
#           each, not kept): mean batch 1.3 at --work 0, 14.1 at 2000, 63.5
#           at 3000, 5000, 10000 and 20000 (every batch but the last full)
#   keepup: no cost: the driver keeps up with pktgen (batches set by the
#           scheduler, not by the knob)
REGIME_SEEDS_WORK=4000

usage() {
	cat <<EOF
Usage: bench/vhost_drv/run-a.sh [options]

Workload A: in a guest, vhost_drv (a userspace driver of /dev/vhost-net)
creates a tap and attaches it to vhost-net; pktgen sends COUNT frames on
the tap; tun_net_xmit() queues them into the tap's tx ptr_ring
(tx_queue_len entries) or drops them when it is full; vhost-net moves them
in batches into vhost_drv's rx ring. pktgen resends a dropped frame until
COUNT went: xmit = COUNT, dropped = pktgen's errors = the tap's tx_dropped.
One guest boot per kernel and repeat runs all of that kernel's settings x
tx_queue_len (settings inside one boot: paired); the kernels alternate, the
order rotates. By default the guest runs in virtual time (--clock icount:
1 vCPU, TCG counting instructions), so a trial does not depend on the host.
Writes to DIR: trials.csv, summary.csv (medians, ratios to stock at the
same tx_queue_len), verdicts.csv (each setting against REF, paired by
repeat: ratios with 95 % Fieller intervals, the A/A arm REF_aa as the
noise floor) and tables.txt ("batch: pps" as in the 2017 thread "ptr_ring:
add ptr_ring_unconsume", "xmit / dropped / total / % dropped" as in
"ptr_ring: batch ring zeroing", the verdicts).

Settings:
  stock    stock kernel (vhost-net batch 64, ptr_ring's zeroing batch)
  bN       patched, the device's vhost-net rx batch N (1-256, VHOST_NET_SET_VRING_RX_BATCH)
  zZbN     patched, tun.tx_ring_zero_batch=Z (1-256), rx_batch=N: z1b1 is
           "before" in the batch ring zeroing thread (no batch zeroing, no batch dequeue)
  zqbN     the same with Z a quarter of the ring: tx_queue_len / 4 (1-256)
  bpbN     patched, the tap with IFF_BACKPRESSURE (a full ring stops the
           queue: pktgen waits instead of the ring dropping), rx_batch=N
  bp       patched, IFF_BACKPRESSURE, nothing else set (--consumer read)
  patched  patched, nothing set: its defaults (bp's reference)
  NAME_aa  the A/A copy of a setting (same knobs, its own arm)

  --settings LIST    (default: "$settings")
  --txqlens LIST     tap tx_queue_len values, 1-65536 (default: "$txqlens")
  --repeats N        (default: $repeats)
  --count N          frames pktgen gets through per trial (default: $count)
  --size B           frame size, 60-1514 (default: $size)
  --ring N           vhost_drv's rx ring size, a power of 2, 2-32768 (default: $ring)
  --mode M           vhost_drv's mode: poll, event, or paced:PPS (harvests at
                     most PPS buffers a second: a slow guest) (default: $mode)
  --consumer C       who takes the frames off the tap's ring: vhost (vhost-net,
                     into vhost_drv's rings) or read (tap_read reading the tap
                     fd; settings stock, patched and bp only) (default: $consumer)
  --regime R         seeds (the driver is the bottleneck: --work
                     $REGIME_SEEDS_WORK, probe vhost_batch for the mean batch) or keepup
                     (--work 0, no probe unless --probe) (default: $regime)
  --work N           vhost_drv's cost per frame, 0-1000000 (overrides the regime's)
  --clock C          icount (virtual time, TCG, 1 vCPU) or realtime (default:
                     icount under TCG, realtime with a KVM that boots)
  --vcpus N          guest vCPUs, 1-8; icount needs 1 (default: 1: pktgen, vhost-net
                     and the driver share it; QEMU's vCPU thread gets a host CPU)
  --ref SETTING      the reference of the verdicts (default: b64 if listed, else
                     the first setting)
  --no-aa            no A/A arm (REF_aa is added otherwise)
  --allow-busy-host  run even when the host is busy (recorded)
  --probe NAME       run probe NAME ($VRB_PROBES): systemtap
                     (stap/NAME.stp), or NAME.bt: its bpftrace twin (stap/bpftrace/)
                     around every trial; its output goes to
                     probes/REPEAT-SETTING-TXQLEN-NAME.txt and, summaries
                     with the trial named, to probe-NAME.txt
  --out DIR          result dir (default: a new results/<date>-A-<base>)
  --check-args       check the options and exit (run-bench.sh does, before
                     building anything)
  -h, --help         this text
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--settings) [ $# -ge 2 ] || die "$1 needs a value"; settings=$2; shift 2 ;;
		--txqlens) [ $# -ge 2 ] || die "$1 needs a value"; txqlens=$2; shift 2 ;;
		--repeats) [ $# -ge 2 ] || die "$1 needs a value"; repeats=$2; shift 2 ;;
		--count) [ $# -ge 2 ] || die "$1 needs a value"; count=$2; shift 2 ;;
		--size) [ $# -ge 2 ] || die "$1 needs a value"; size=$2; shift 2 ;;
		--ring) [ $# -ge 2 ] || die "$1 needs a value"; ring=$2; shift 2 ;;
		--mode) [ $# -ge 2 ] || die "$1 needs a value"; mode=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		--regime) [ $# -ge 2 ] || die "$1 needs a value"; regime=$2; shift 2 ;;
		--work) [ $# -ge 2 ] || die "$1 needs a value"; work=$2; shift 2 ;;
		--consumer) [ $# -ge 2 ] || die "$1 needs a value"; consumer=$2; shift 2 ;;
		--clock) [ $# -ge 2 ] || die "$1 needs a value"; clock=$2; shift 2 ;;
		--vcpus) [ $# -ge 2 ] || die "$1 needs a value"; vcpus=$2; shift 2 ;;
		--ref) [ $# -ge 2 ] || die "$1 needs a value"; ref=$2; shift 2 ;;
		--no-aa) no_aa=1; shift ;;
		--allow-busy-host) export VRB_ALLOW_BUSY_HOST=1; shift ;;
		--probe) [ $# -ge 2 ] || die "$1 needs a value"; probe=$2; shift 2 ;;
		--check-args) check_args=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	local s q
	[ -n "$settings" ] || die "--settings is empty"
	for s in $settings; do setting_knobs "$s" >/dev/null; done
	case $consumer in
	vhost) ;;
	read)
		for s in $settings; do
			[[ "$(setting_knobs "$s")" == -:-:* ]] ||
				die "setting $s sets a vhost-net or zeroing knob: --consumer read takes stock, patched and bp"
		done
		;;
	*) die "--consumer must be vhost or read, not '$consumer'" ;;
	esac
	[ -n "$txqlens" ] || die "--txqlens is empty"
	for q in $txqlens; do check_range --txqlens "$q" 1 65536; done
	check_range --repeats "$repeats" 1 1000
	check_range --count "$count" 1 1000000000
	check_range --size "$size" 60 1514
	check_range --ring "$ring" 2 32768
	[ $((ring & (ring - 1))) -eq 0 ] || die "--ring must be a power of 2, not '$ring'"
	case $mode in
	poll | event) ;;
	paced:*) check_range "--mode paced:PPS" "${mode#paced:}" 1 1000000000 ;;
	*) die "--mode must be poll, event or paced:PPS, not '$mode'" ;;
	esac
	case $regime in
	seeds)
		work=${work:-$REGIME_SEEDS_WORK}
		# vhost's batches: no vhost-net when a process reads the tap
		[ "$consumer" = read ] || probe=${probe:-$(default_probe vhost_batch)}
		;;
	keepup) work=${work:-0} ;;
	*) die "--regime must be seeds or keepup, not '$regime'" ;;
	esac
	check_range --work "$work" 0 1000000
	[ -z "$probe" ] || check_probe "$probe"
	case $clock in
	'' | realtime) ;;
	icount)
		[ "${vcpus:-1}" -eq 1 ] 2>/dev/null ||
			die "--clock icount runs 1 vCPU (QEMU 7.2 hangs at SMP bring-up under icount), not '$vcpus'"
		;;
	*) die "--clock must be icount or realtime, not '$clock'" ;;
	esac
	[ -z "$vcpus" ] || check_range --vcpus "$vcpus" 1 8
	if [ -z "$ref" ]; then
		ref=${settings%% *}
		[[ " $settings " != *" b64 "* ]] || ref=b64
	fi
	[[ " $settings " == *" $ref "* ]] || die "--ref $ref is not one of the settings ($settings)"
	# shellcheck disable=SC2086 # a word list
	settings=$(with_aa "$ref" "$no_aa" $settings)
	[ "$(tr ' ' '\n' <<<"$settings" | sort | uniq -d)" = "" ] || die "--settings names a setting twice"
}

# setting_knobs NAME [TXQLEN]: "RX_BATCH:ZERO_BATCH:BACKPRESSURE" ("-"
# leaves a knob alone; BACKPRESSURE 0 or 1); zqbN's zeroing batch is a
# quarter of TXQLEN (default 4: a check).
setting_knobs() {
	case $(aa_base "$1") in
	stock | patched) echo "-:-:0" ;;
	bp) echo "-:-:1" ;;
	bpb[0-9]*)
		local b
		b=$(aa_base "${1#bpb}")
		check_range "setting $1" "$b" 1 256 >/dev/null
		echo "$b:0:1"
		;;
	b[0-9]*)
		local b
		b=$(aa_base "${1#b}")
		check_range "setting $1" "$b" 1 256 >/dev/null
		echo "$b:0:0"
		;;
	zqb[0-9]*)
		local z b
		b=$(aa_base "${1#zqb}")
		z=$((${2:-4} / 4))
		[ "$z" -ge 1 ] || z=1
		[ "$z" -le 256 ] || z=256
		check_range "setting $1: rx batch" "$b" 1 256 >/dev/null
		echo "$b:$z:0"
		;;
	z[0-9]*b[0-9]*)
		local z b
		z=$(aa_base "${1#z}") b=$(aa_base "${1#*b}")
		z=${z%%b*}
		check_range "setting $1: zeroing batch" "$z" 1 256 >/dev/null
		check_range "setting $1: rx batch" "$b" 1 256 >/dev/null
		echo "$b:$z:0"
		;;
	*) die "unknown setting '$1' (stock, patched, bN, zZbN, zqbN, bpbN, bp, each also as NAME_aa)" ;;
	esac
}

build() {
	make -s -C "$VRB_ROOT/bench/vhost_drv" BUILD="$VRB_CACHE/vhost_drv" \
		"$VRB_CACHE/vhost_drv/vhost_drv" "$VRB_CACHE/vhost_drv/tap_read" >/dev/null
}

TRIAL_COLS="repeat,setting,kernel,rx_batch,zero_batch,txqlen,xmit,dropped,total,drop_pct,pktgen_pps,rx_packets,pktgen_packets,tap_tx_packets,tap_tx_dropped,kicks,harvests,seconds,vhost_batches,mean_batch,host_load1"

# boot REPEAT KERNEL TRIAL...: one guest running the trials; appends their
# rows to trials.csv. TRIAL: SETTING:TXQLEN.
boot() {
	local r=$1 kernel=$2 t s q gt=() dir line rc=0 pargs=() load1 batch
	shift 2
	load1=$(host_load1)
	for t in "$@"; do
		s=${t%%:*} q=${t#*:}
		gt+=("$s-$q:$(setting_knobs "$s" "$q"):$q")
	done
	dir=$out/boots/r$r-$kernel
	mkdir -p "$dir"
	[ -z "$probe" ] || pargs=(--probe "$(probe_file "$probe" "$kernel")")
	"$VRB_ROOT/scripts/guest-run.sh" --kernel "$kernel" --run-dir "$dir/guest" \
		--vcpus "$vcpus" --clock "$clock" --host-cpus "$cpu_other" --vcpu-cpus "$cpu_vcpu" \
		--timeout $((300 + 60 * $#)) -- "$VRB_ROOT/bench/vhost_drv/guest-a.sh" "${pargs[@]}" --work "$work" \
		--consumer "$consumer" "$VRB_CACHE/vhost_drv" "$count" "$size" "$ring" "$mode" "${gt[@]}" \
		>"$dir/guest.log" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$dir/guest.log" >&2
		die "repeat $r, $kernel kernel: the guest failed (status $rc); see $dir"
	fi
	for t in "$@"; do
		s=${t%%:*} q=${t#*:}
		line=$(grep "^trial=$s-$q " "$dir/guest.log") || die "repeat $r: no result for $s at txqlen $q; see $dir"
		batch=","
		if [ -n "$probe" ]; then
			mkdir -p "$out/probes"
			sed -n "s/^probe\[$s-$q\] //p" "$dir/guest.log" >"$out/probes/r$r-$s-$q-$probe.txt"
			probe_summary "$probe" "$out/probes/r$r-$s-$q-$probe.txt" |
				sed "s/^/repeat=$r setting=$s txqlen=$q /" >>"$out/probe-$probe.txt"
			[ "$(probe_name "$probe")" != vhost_batch ] ||
				batch=$(mean_batch "$out/probes/r$r-$s-$q-$probe.txt")
		fi
		echo "$(row "$r" "$s" "$kernel" "$line"),$batch,$load1" >>"$out/trials.csv"
	done
}

# mean_batch FILE: "BATCHES,MEAN" from a vhost_batch probe's output (the
# systemtap probe's summary lines, or its twin's @batches and @entries maps):
# vhost's rx batches (produces, empty ones included) and the entries per
# batch, over the trial's virtqueues.
mean_batch() {
	awk '/^vhost_batch: summary vq=/ {
			delete v
			for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			b += v["batches"]; e += v["entries"] }
		/^@batches\[/ { b += $2 }
		/^@entries\[/ { e += $2 }
		END { if (b) printf "%d,%.3f", b, e / b; else printf "0," }' "$1"
}

# row REPEAT SETTING KERNEL LINE: a trials.csv row from a guest-a.sh line
# (without the columns boot adds: vhost_batches, mean_batch, host_load1).
row() {
	awk -v r="$1" -v s="$2" -v k="$3" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		x = v["pktgen_sent"]; d = v["pktgen_errors"]
		printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%.4f,%s,%s,%s,%s,%s,%s,%s,%s\n", r, s, k,
			v["rx_batch"], v["zero_batch"], v["txqlen"], x, d, x + d, (x + d) ? 100 * d / (x + d) : 0,
			v["pktgen_pps"], v["rx_packets"], v["pktgen_packets"], v["tap_tx_packets"],
			v["tap_tx_dropped"], v["kicks"], v["harvests"], v["seconds"]
	}' <<<"$4"
}

# summary: medians per (setting, txqlen) of pps, xmit, dropped, total and
# drop %; pps and drop % as ratios to stock at the same txqlen.
summary() {
	grep -v '^#' "$out/trials.csv" | tail -n +2 | sort -t, -k2,2 -k6,6n | awk -F, '
		function isort(a, n,  i, j, t) {
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		}
		function med(a, n) { isort(a, n); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		function flush() {
			if (!n) return
			P[key] = med(p, n); X[key] = med(x, n); D[key] = med(d, n); T[key] = med(t, n)
			Q[key] = med(q, n); N[key] = n; K[++nk] = key
		}
		{ k = $2 "," $6; if (k != key) { flush(); key = k; n = 0 }
		  p[++n] = $11; x[n] = $7; d[n] = $8; t[n] = $9; q[n] = $10 }
		END {
			flush()
			for (i = 1; i <= nk; i++) {
				split(K[i], f, ","); s = "stock," f[2]
				printf "%s,%d,%.0f,%.0f,%.0f,%.0f,%.4f,%s,%s\n", K[i], N[K[i]], P[K[i]], X[K[i]], D[K[i]], T[K[i]], Q[K[i]],
					(s in P && P[s] > 0) ? sprintf("%.3f", P[K[i]] / P[s]) : "",
					(s in Q && Q[s] > 0) ? sprintf("%.3f", Q[K[i]] / Q[s]) : ""
			}
		}'
}

# verdicts: verdicts.csv: every setting against REF per tx_queue_len (the
# metric named with it: "pktgen_pps q500"), a unit is a repeat: pktgen pps,
# drop %, and the mean vhost batch when measured (a_cell_verdicts, which
# the report uses too).
verdicts() {
	local q
	results_csv_open "$out/verdicts.csv" "$STATS_COLS" "${meta[@]}" "unit=repeat (per tx_queue_len)"
	for q in $txqlens; do
		a_cell_verdicts "$out/trials.csv" "$ref" "$aa" "$q" | cell_label "q$q"
	done >>"$out/verdicts.csv"
}

# tables: tables.txt in the seeds' shapes, from summary.csv.
tables() {
	local q
	{
		echo "Workload A: $(sed -n 's/^# command: //p' "$out/trials.csv")"
		echo "accelerator: $(sed -n 's/^# accel: //p' "$out/trials.csv"), clock $clock; regime $regime (vhost_drv --work $work); medians of $repeats repeats"
		for q in $txqlens; do
			echo
			echo "tx_queue_len $q: vhost-net rx batch -> pktgen pps (ratio to stock, batch 64)"
			grep -v '^#' "$out/summary.csv" | tail -n +2 | awk -F, -v q="$q" '
				$2 == q && ($1 == "stock" || $1 ~ /^b[0-9]+$/) {
					b = ($1 == "stock") ? "stock" : substr($1, 2)
					printf "  %-6s %9s pps  %s\n", b, $4, $9 }' | sort -k1,1n
			echo
			echo "tx_queue_len $q: xmit / dropped / total / % dropped (drop % ratio to stock)"
			printf '  %-28s %9s %9s %9s %7s %7s\n' "" xmit dropped total "%drop" ratio
			grep -v '^#' "$out/summary.csv" | tail -n +2 | awk -F, -v q="$q" '
				BEGIN { n["z1b1"] = "before (z1b1)"; n["b1"] = "with zeroing (b1)"; n["b64"] = "with batch dequeue (b64)"; n["stock"] = "stock 6.1"
					o["z1b1"] = 1; o["b1"] = 2; o["b64"] = 3; o["stock"] = 4 }
				$2 == q && ($1 in n) { printf "%d   %-28s %9s %9s %9s %7.2f %7s\n", o[$1], n[$1], $5, $6, $7, $8, $10 }' |
				sort -n | cut -c2-
			if [ "$(probe_name "${probe:-none}")" = vhost_batch ]; then
				echo
				echo "Mean vhost rx batch (entries per produce, empty ones included), tx_queue_len $q: median over repeats"
				grep -v '^#' "$out/trials.csv" | awk -F, -v q="$q" 'NR > 1 && $6 == q && $20 != "" { m[$2] = m[$2] " " $20 }
					END { for (s in m) printf "  %-10s %s\n", s, m[s] }' | sort
			fi
		done
		echo
		echo "Against $ref, paired by repeat (95 % Fieller intervals; ${aa:-no A/A arm}: the A/A arm, the noise floor):"
		stats_table "$out/verdicts.csv"
	} >"$out/tables.txt"
}

main() {
	local r k s q accel trials kernels busy
	parse_args "$@"
	[ -z "$check_args" ] || exit 0
	[[ " $settings " != *" ${ref}_aa "* ]] || aa=${ref}_aa
	kernel_check_source
	busy=$(host_check_quiet)
	read -r cpu_vcpu cpu_other < <(host_cpus)
	stage "kernels" "$VRB_ROOT/scripts/build-kernels.sh" --variant all
	stage "build vhost_drv" build
	stage "build the statistics" stats_build
	# shellcheck disable=SC2086 # a word list
	[ -z "$probe" ] || stage "probe $probe" build_probe_for "$probe" $settings
	accel=$(guest_accel "$VRB_ACCEL" "$(kernel_image stock)")
	if [ -z "$clock" ]; then
		clock=icount
		[ "${accel%% *}" != kvm ] || clock=realtime
	fi
	vcpus=${vcpus:-1}
	log "accelerator: ${accel%% *} (${accel#* })"
	if [ -n "$out" ]; then out=$(results_claim "$out"); else out=$(results_new_dir A); fi
	[ "$clock" = realtime ] || accel="tcg icount: instructions counted, virtual time"
	if [ "$consumer" = vhost ]; then
		meta=("workload=A (pktgen -> tap -> vhost-net -> vhost_drv, in one guest)")
	else
		meta=("workload=A (pktgen -> tap -> tap_read reading the tap fd, in one guest)")
	fi
	meta+=("consumer=$consumer"
		"accel=${accel%% *} (${accel#* })" "clock=$clock" "settings=$settings" "txqlens=$txqlens"
		"reference=$ref" "aa_arm=${aa:-none}" "regime=$regime"
		"repeats=$repeats" "count=$count" "frame_size=$size"
		"vhost_drv=ring $ring, mode $mode, work $work per frame, CPU 0"
		"pktgen=kpktgend_$([ "$vcpus" -ge 2 ] && echo 1 || echo 0), clone_skb 0, burst 1, delay 0"
		"probe=${probe:-none}" "guest_vcpus=$vcpus"
		"host_cpus=vCPU threads on $cpu_vcpu; QEMU's other threads on $cpu_other" "host_busy_cpus_at_start=$busy")
	results_csv_open "$out/trials.csv" "$TRIAL_COLS" "${meta[@]}"
	local t0 n=0 boots ndone=0 total
	t0=$(now)
	# shellcheck disable=SC2086 # word list
	boots=$((repeats * $(for s in $settings; do setting_kernel "$s"; done | sort -u | wc -l)))
	total=$((repeats * $(wc -w <<<"$settings") * $(wc -w <<<"$txqlens")))
	for r in $(seq "$repeats"); do
		# the kernels alternate: stock first on odd repeats
		kernels="stock patched"
		[ $((r % 2)) -eq 1 ] || kernels="patched stock"
		for k in $kernels; do
			trials=()
			# shellcheck disable=SC2086 # word list
			for s in $(rotate "$r" $settings); do
				[ "$(setting_kernel "$s")" = "$k" ] || continue
				for q in $txqlens; do trials+=("$s:$q"); done
			done
			[ "${#trials[@]}" -gt 0 ] || continue
			n=$((n + 1))
			log "A: boot $n/$boots: repeat $r/$repeats, $k kernel: ${#trials[@]} trials$(progress_eta "$ndone" "$total" "$t0")"
			ndone=$((ndone + ${#trials[@]}))
			boot "$r" "$k" "${trials[@]}"
		done
	done
	results_csv_open "$out/summary.csv" \
		"setting,txqlen,runs,median_pktgen_pps,median_xmit,median_dropped,median_total,median_drop_pct,pps_over_stock,drop_pct_over_stock" \
		"${meta[@]}"
	summary >>"$out/summary.csv"
	verdicts
	tables
	cat "$out/tables.txt" >&2
	out=$(results_finish "$out")
	log "A: results in $out"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
