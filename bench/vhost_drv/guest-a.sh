#!/usr/bin/env bash
# Runs inside the guest of workload A, as root: for each trial, sets the
# tun knob, starts vhost_drv with the device's rx batch (the userspace "guest" of
# vhost-net, which creates the tap and attaches it) or, with --consumer read,
# tap_read (which creates the tap and reads its fd), sends COUNT pktgen
# frames on the tap from kpktgend_1 or _0 (the driver runs on CPU 0), waits until
# vhost-net took every frame the tap queued, stops the driver (which drains
# its used ring first), and prints one line per trial:
#   trial=ID key=value ...  (pktgen's sent count and pps, the driver's totals)
# Usage: guest-a.sh [--probe FILE] [--work N] [--consumer vhost|read] TOOLS COUNT SIZE RING MODE TRIAL...
#   TOOLS: the directory of vhost_drv and tap_read (bench/vhost_drv's build).
#   MODE: poll, event, or paced:PPS (vhost_drv --mode paced --rate PPS).
#   TRIAL: ID:RX_BATCH:ZERO_BATCH:BACKPRESSURE:TXQLEN; RX_BATCH and
#          ZERO_BATCH "-" to leave the knob alone (the stock kernel has
#          neither). RX_BATCH is set per device by vhost_drv --rx-batch
#          (VHOST_NET_SET_VRING_RX_BATCH), ZERO_BATCH through
#          tun.tx_ring_zero_batch (benchmark-only patch), BACKPRESSURE 1
#          creates the tap with IFF_BACKPRESSURE (--backpressure).
#   --probe FILE: a probe (a systemtap module from stap/build.sh, or a
#          bpftrace script from stap/bpftrace/) run around each trial; its
#          output lines are printed prefixed "probe[ID] ".
#   --work N: vhost_drv --work N (the consumer's cost per frame).
#   --consumer: vhost (default: vhost-net into vhost_drv) or read (tap_read;
#          its --work N likewise; RING and MODE unused).
# pktgen runs on kpktgend_1 when the guest has 2 vCPUs or more, else on
# kpktgend_0, sharing the one vCPU with vhost-net and the driver.
set -euo pipefail
probe='' work=0 consumer=vhost
while [ $# -gt 0 ]; do
	case $1 in
	--probe) probe=$2; shift 2 ;;
	--work) work=$2; shift 2 ;;
	--consumer) consumer=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 6 ] || { echo "usage: guest-a.sh [--probe FILE] [--work N] [--consumer vhost|read] TOOLS COUNT SIZE RING MODE TRIAL..." >&2; exit 2; }
tools=$1 count=$2 size=$3 ring=$4 mode=(--mode "$5")
[[ "$5" != paced:* ]] || mode=(--mode paced --rate "${5#paced:}")
shift 5
# shellcheck source=bench/guest/pktgen.sh
. "$(dirname "$0")/../guest/pktgen.sh"
# shellcheck source=bench/guest/vhost_drv.sh
. "$(dirname "$0")/../guest/vhost_drv.sh"
# shellcheck source=bench/guest/probe.sh
. "$(dirname "$0")/../guest/probe.sh"
ZB=/sys/module/tun/parameters/tx_ring_zero_batch
TAP=vtapA
PG_THREAD=0
[ "$(nproc)" -lt 2 ] || PG_THREAD=1
work_dir=$(mktemp -d)

# step ID WHAT: a progress line on stderr (where a stuck trial stopped).
step() {
	echo "guest-a: $(cut -d' ' -f1 /proc/uptime)s trial $1: $2" >&2
}

# knob FILE VALUE: sets a module parameter ("-": leaves it).
knob() {
	[ "$2" != - ] || return 0
	[ -w "$1" ] || { echo "guest-a: no $1 in this kernel" >&2; return 1; }
	echo "$2" >"$1"
}

# trial ID RX_BATCH ZERO_BATCH BACKPRESSURE TXQLEN
trial() {
	local id=$1 rxb=$2 zb=$3 bp=$4 qlen=$5 log=$work_dir/drv-$1.log pid sent errors pps bargs=()
	knob $ZB "$zb"
	[ "$rxb" = - ] || bargs=(--rx-batch "$rxb")
	[ "$bp" = 0 ] || bargs+=(--backpressure)
	if [ -n "$probe" ]; then
		step "$id" "starting probe $(basename "$probe")"
		probe_start "$probe"
	fi
	step "$id" "starting $consumer consumer"
	if [ "$consumer" = read ]; then
		drv_start "$log" "$tools/tap_read" --tap $TAP "${bargs[@]}" --txqlen "$qlen" --work "$work"
	else
		drv_start "$log" "$tools/vhost_drv" --tap $TAP --ring "$ring" "${mode[@]}" "${bargs[@]}" \
			--txqlen "$qlen" --cpu 0 --work "$work"
	fi
	pid=$DRV_PID
	step "$id" "pktgen: $count frames"
	pg_reset
	pg_setup $TAP $PG_THREAD "$count" 0 "$size" 02:00:00:00:00:01
	pg_start
	sent=$(pg_sent $TAP)
	errors=$(pg_errors $TAP)
	pps=$(sed -n 's/.* \([0-9]*\)pps .*/\1/p' "$PG_DIR/$TAP" | head -n 1)
	pg_reset
	# everything in the tap's ring reaches vhost-net (tx_packets counts what
	# it took); then the driver drains its used ring and exits
	for _ in $(seq 600); do
		[ "$(cat /sys/class/net/$TAP/statistics/tx_packets)" -lt "$sent" ] || break
		sleep 0.1
	done
	step "$id" "stopping the $consumer consumer"
	kill -TERM "$pid"
	wait "$pid" || { cat "$log" >&2; echo "guest-a: the $consumer consumer failed" >&2; return 1; }
	if [ -n "$probe" ]; then
		step "$id" "stopping the probe"
		# not in a pipeline: probe_stop waits for the probe, a child of this shell
		probe_stop >"$work_dir/probe-$id.txt"
		sed "s/^/probe[$id] /" "$work_dir/probe-$id.txt"
	fi
	echo "trial=$id rx_batch=$(sed -n 's/^vhost_drv: ready: .* rx_batch=\([0-9]*\) .*/\1/p' "$log") zero_batch=$(cat $ZB 2>/dev/null || echo 0)" \
		"txqlen=$qlen pktgen_sent=$sent pktgen_errors=${errors:-0} pktgen_pps=${pps:-0}" \
		"$(sed -n 's/^[a-z_]*: totals: //p' "$log")"
}

for t in "$@"; do
	IFS=: read -r id rxb zb bp qlen <<<"$t"
	trial "$id" "$rxb" "$zb" "$bp" "$qlen"
done
rm -rf "$work_dir"
