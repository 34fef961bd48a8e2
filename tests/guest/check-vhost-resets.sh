#!/usr/bin/env bash
# Runs inside the guest, as root: no frame vanishes across vhost resets
# (the 2017 unconsume thread: "I often start sending packets to VM before it's fully booted.
# Several vhost resets might follow."). For each case, vhost_drv consumes
# slowly (--work: the tap's ring fills, as at overload) and resets its rx
# queue every RESET_MS ms (detach the tap with VHOST_NET_SET_BACKEND -1, which
# makes vhost-net put the frames it took from the ring back with
# ptr_ring_unconsume(); harvest; a fresh ring; attach again) while pktgen
# sends COUNT frames on the tap. Then it waits until the tap's ring is
# drained and accounts for every frame pktgen handed to the tap:
#   accepted   pktgen's pkts-sofar: tun_net_xmit() queued it (NETDEV_TX_OK)
#   refused    pktgen's errors: the ring was full (tail drop, tap tx_dropped)
#   delivered  the tap's tx_packets (tun_put_user(): vhost-net took it into
#              the rx ring), which vhost_drv must have harvested, all of it
#   unconsume  what vhost-net's unconsume destroyed and counted (the tap's
#              tx_dropped beyond the tail drops; 0 on a kernel that does not
#              count them)
#   lost       accepted - delivered - unconsume: frames that vanished
# and prints one line per case:
#   case=ID txqlen=N rx_batch=N reset_ms=N resets=N accepted=N refused=N
#   delivered=N harvested=N unconsume=N lost=N
# then one check line per case: "ok: ..." when nothing was lost and vhost_drv
# harvested every delivered frame, "FAIL: ..." otherwise (EXPECT lost: the
# line says LOST and does not fail; used on kernels known to lose frames).
# Usage: check-vhost-resets.sh [--expect lost|none] VHOST_DRV COUNT CASE...
#   CASE: TXQLEN:RX_BATCH:RESET_MS (RX_BATCH "-": the kernel's, 64)
set -euo pipefail
expect=none
if [ "${1:-}" = --expect ]; then
	expect=$2
	shift 2
fi
case $expect in none | lost) ;; *) echo "check-vhost-resets: --expect lost or none, not '$expect'" >&2; exit 2 ;; esac
[ $# -ge 3 ] || { echo "usage: check-vhost-resets.sh [--expect lost|none] VHOST_DRV COUNT CASE..." >&2; exit 2; }
drv=$1 count=$2
shift 2
# shellcheck source=bench/guest/pktgen.sh
. "$(dirname "$0")/../../bench/guest/pktgen.sh"
# shellcheck source=bench/guest/vhost_drv.sh
. "$(dirname "$0")/../../bench/guest/vhost_drv.sh"
# shellcheck source=tests/guest/checks.sh
. "$(dirname "$0")/checks.sh"
TAP=vtapR
PG_THREAD=0
[ "$(nproc)" -lt 2 ] || PG_THREAD=1
# the consumer's cost per frame: slow enough for the ring to fill
WORK=4000
work_dir=$(mktemp -d)

tap_stat() {
	cat "/sys/class/net/$TAP/statistics/$1"
}

# drv_total LOG KEY: a key of vhost_drv's totals line.
drv_total() {
	sed -n "s/^vhost_drv: totals: .*\\b$2=\\([0-9]*\\).*/\\1/p" "$1"
}

# drained ACCEPTED: waits until the tap's ring is empty: vhost-net took
# every accepted frame, or the tap's counters stood still for a second (lost
# frames are never counted, so "all taken" may never come); at most 60 s.
drained() {
	local last='' now
	for _ in $(seq 60); do
		[ "$(tap_stat tx_packets)" -lt "$1" ] || return 0
		now="$(tap_stat tx_packets) $(tap_stat tx_dropped)"
		[ "$now" != "$last" ] || return 0
		last=$now
		sleep 1
	done
}

# one_case ID TXQLEN RX_BATCH RESET_MS
one_case() {
	local id=$1 qlen=$2 rxb=$3 reset=$4 log=$work_dir/drv-$1.log pid bargs=()
	local accepted refused delivered harvested dropped unconsume lost resets
	[ "$rxb" = - ] || bargs=(--rx-batch "$rxb")
	drv_start "$log" "$drv" --tap $TAP --txqlen "$qlen" "${bargs[@]}" --work $WORK --reset-every "$reset" --cpu 0
	pid=$DRV_PID
	pg_reset
	pg_setup $TAP $PG_THREAD "$count" 0 60 02:00:00:00:00:01
	pg_start
	accepted=$(pg_sent $TAP)
	refused=$(pg_errors $TAP)
	pg_reset
	drained "$accepted"
	kill -TERM "$pid"
	wait "$pid" || { cat "$log" >&2; echo "check-vhost-resets: vhost_drv failed" >&2; return 1; }
	delivered=$(drv_total "$log" tap_tx_packets)
	dropped=$(drv_total "$log" tap_tx_dropped)
	harvested=$(drv_total "$log" pktgen_packets)
	resets=$(drv_total "$log" resets)
	unconsume=$((dropped - ${refused:-0}))
	lost=$((accepted - delivered - unconsume))
	echo "case=$id txqlen=$qlen rx_batch=$(sed -n 's/^vhost_drv: ready: .* rx_batch=\([0-9]*\) .*/\1/p' "$log")" \
		"reset_ms=$reset resets=$resets accepted=$accepted refused=${refused:-0} delivered=$delivered" \
		"harvested=$harvested unconsume=$unconsume lost=$lost"
	if [ "$resets" -eq 0 ]; then
		echo "FAIL: case $id: no reset happened"
		fails=$((fails + 1))
	elif [ "$harvested" -ne "$delivered" ]; then
		echo "FAIL: case $id: vhost-net delivered $delivered frames, vhost_drv harvested $harvested"
		fails=$((fails + 1))
	elif [ "$lost" -ne 0 ] && [ "$expect" = lost ]; then
		echo "LOST: case $id: $lost of $accepted accepted frames vanished over $resets resets"
	elif [ "$lost" -ne 0 ]; then
		echo "FAIL: case $id: $lost of $accepted accepted frames vanished over $resets resets"
		fails=$((fails + 1))
	else
		echo "ok: case $id: all $accepted accepted frames delivered or counted over $resets resets"
	fi
}

n=0
for c in "$@"; do
	n=$((n + 1))
	IFS=: read -r qlen rxb reset <<<"$c"
	one_case "$n" "$qlen" "$rxb" "$reset"
done
rm -rf "$work_dir"
checks_done
