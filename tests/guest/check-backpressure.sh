#!/usr/bin/env bash
# Runs inside the guest, as root: tun's IFF_BACKPRESSURE (the backpressure
# patches) with both consumers of a tap's ring: a process reading the tap fd
# (tap_read, tun's read path) and vhost-net (vhost_drv). pktgen floods the
# tap (tx_queue_len 64) faster than the consumer takes frames; with two
# vCPUs pktgen runs on CPU 1 and the consumer on CPU 0.
#   off      without the flag the full ring drops (pktgen's errors, the
#            tap's tx_dropped) and every frame the tap took is delivered:
#            stock behaviour, on either kernel.
#   on       with it (patched kernel) nothing is dropped: every frame pktgen
#            sent is delivered, pktgen's errors and tx_dropped stay 0.
#   stall    with it, SOAK_S seconds of short bursts (300 frames) while the
#            consumer stops and restarts (tap_read pauses 30 ms every 20 ms;
#            vhost_drv paced, so vhost-net runs out of rx buffers and stops
#            taking frames until they come back): no burst stalls (pktgen's
#            count moves at least every STALL_S s: a tx queue left stopped
#            with room in the ring stops it for good), nothing dropped,
#            everything delivered.
#   refuses  (stock kernel) the tools refuse --backpressure: the kernel's
#            TUNGETFEATURES has no IFF_BACKPRESSURE.
# Usage: check-backpressure.sh patched|stock TOOLS_DIR [SOAK_S]
#   TOOLS_DIR holds vhost_drv and tap_read (bench/vhost_drv's build).
set -euo pipefail
kernel=${1:-} tools=${2:-} soak=${3:-20}
case $kernel in
patched | stock) ;;
*) echo "usage: check-backpressure.sh patched|stock TOOLS_DIR [SOAK_S]" >&2; exit 2 ;;
esac
if [ ! -x "$tools/vhost_drv" ] || [ ! -x "$tools/tap_read" ]; then
	echo "check-backpressure: no vhost_drv or tap_read in '$tools'" >&2
	exit 2
fi
# shellcheck source=bench/guest/pktgen.sh
. "$(dirname "$0")/../../bench/guest/pktgen.sh"
# shellcheck source=bench/guest/vhost_drv.sh
. "$(dirname "$0")/../../bench/guest/vhost_drv.sh"
# shellcheck source=tests/guest/checks.sh
. "$(dirname "$0")/checks.sh"
TAP=vtapP
TXQLEN=64
COUNT=5000
BURST=300
STALL_S=10
PG_THREAD=0
[ "$(nproc)" -lt 2 ] || PG_THREAD=1

# consumer_start KIND BP ARG...: starts tap_read (KIND read) or vhost_drv
# (KIND vhost) on the tap, with --backpressure when BP is 1; its pid in
# CONS_PID, output in CONS_LOG; returns once it is ready.
consumer_start() {
	local kind=$1 bp=$2 args
	shift 2
	args=(--tap "$TAP" --txqlen "$TXQLEN" "$@")
	[ "$bp" = 0 ] || args+=(--backpressure)
	CONS_LOG=$(mktemp)
	case $kind in
	read) drv_start "$CONS_LOG" taskset -c 0 "$tools/tap_read" "${args[@]}" || return 1 ;;
	vhost) drv_start "$CONS_LOG" "$tools/vhost_drv" --cpu 0 "${args[@]}" || return 1 ;;
	esac
	CONS_PID=$DRV_PID
	# the ring's consumer on CPU 0, pktgen (the producer) on CPU 1 when
	# there are two: stop and wake then race across CPUs. vhost-net's
	# consumer is the device's worker thread (vhost-PID).
	local t
	if [ "$kind" = vhost ]; then
		for t in $(pgrep "^vhost-$CONS_PID" || true); do
			taskset -p -c 0 "$t" >/dev/null
		done
		[ -n "${t:-}" ] || echo "  note: no vhost-$CONS_PID worker found to pin"
	fi
}

# consumer_stop: waits (60 s at most) until the consumer took every frame the
# tap holds, stops it and sets DELIVERED and TAP_DROPPED from its totals.
consumer_stop() {
	local totals
	for _ in $(seq 600); do
		[ "$(cat /sys/class/net/$TAP/statistics/tx_packets)" -lt "$SENT" ] || break
		sleep 0.1
	done
	kill -TERM "$CONS_PID"
	wait "$CONS_PID" || { sed 's/^/  /' "$CONS_LOG"; return 1; }
	totals=$(sed -n 's/^[a-z_]*: totals: //p' "$CONS_LOG")
	DELIVERED=$(sed -n 's/.*\<rx_packets=\([0-9]*\).*/\1/p' <<<"$totals")
	TAP_DROPPED=$(sed -n 's/.*\<tap_tx_dropped=\([0-9]*\).*/\1/p' <<<"$totals")
	rm -f "$CONS_LOG"
}

# flood N: pktgen sends N frames on the tap (resending what tun drops) and
# adds to SENT and ERRORS; fails, and stops pktgen, when its count stays
# still for STALL_S seconds.
flood() {
	local pid last=-1 now still=0
	pg_reset
	pg_setup "$TAP" "$PG_THREAD" "$1" 0 60 02:00:00:00:00:01
	pg_start &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 0.2
		now=$(pg_sent "$TAP")
		if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; fi
		last=$now
		if [ "$still" -ge $((STALL_S * 5)) ]; then
			echo "  stall: pktgen at $now of $1 frames for ${STALL_S} s"
			pg_write "$PG_DIR/pgctrl" stop || true
			wait "$pid" || true
			return 1
		fi
	done
	wait "$pid"
	SENT=$((SENT + $(pg_sent "$TAP")))
	ERRORS=$((ERRORS + $(pg_errors "$TAP")))
}

# run KIND BP SOAK_S ARG...: one consumer, a flood of COUNT frames (SOAK_S 0)
# or bursts of BURST frames for SOAK_S seconds; sets SENT ERRORS DELIVERED
# TAP_DROPPED BURSTS and prints them.
run() {
	local kind=$1 bp=$2 secs=$3 end rc=0
	shift 3
	SENT=0 ERRORS=0 BURSTS=0
	consumer_start "$kind" "$bp" "$@" || return 1
	if [ "$secs" = 0 ]; then
		flood "$COUNT" || rc=1
	else
		end=$((SECONDS + secs))
		while [ "$SECONDS" -lt "$end" ] && [ "$rc" = 0 ]; do
			flood "$BURST" || rc=1
			BURSTS=$((BURSTS + 1))
		done
	fi
	consumer_stop || rc=1
	pg_reset
	echo "  $kind backpressure=$bp: sent=$SENT errors=$ERRORS delivered=$DELIVERED tap_tx_dropped=$TAP_DROPPED bursts=$BURSTS"
	return "$rc"
}

# opts KIND slow|stopping: the consumer's options, in OPTS: slow enough
# that the ring fills under pktgen, or also stopping and restarting.
opts() {
	case $1-$2 in
	*-slow) OPTS=(--work 4000) ;;
	read-stopping) OPTS=(--work 2000 --pause-every 20 --pause-for 30) ;;
	vhost-stopping) OPTS=(--mode paced --rate 20000) ;;
	esac
}

tail_drops() {
	opts "$1" slow
	run "$1" 0 0 "${OPTS[@]}" || return 1
	[ "$ERRORS" -gt 0 ] && [ "$TAP_DROPPED" -eq "$ERRORS" ] && [ "$DELIVERED" -eq "$SENT" ] &&
		[ "$SENT" -eq "$COUNT" ]
}

no_drops() {
	opts "$1" slow
	run "$1" 1 0 "${OPTS[@]}" || return 1
	[ "$ERRORS" -eq 0 ] && [ "$TAP_DROPPED" -eq 0 ] && [ "$DELIVERED" -eq "$SENT" ] &&
		[ "$SENT" -eq "$COUNT" ]
}

no_stall() {
	opts "$1" stopping
	run "$1" 1 "$soak" "${OPTS[@]}" || return 1
	[ "$BURSTS" -gt 1 ] && [ "$ERRORS" -eq 0 ] && [ "$TAP_DROPPED" -eq 0 ] &&
		[ "$DELIVERED" -eq "$SENT" ] && [ "$SENT" -eq $((BURSTS * BURST)) ]
}

refused() {
	local out
	if out=$("$tools/$2" --tap "$TAP" --backpressure 2>&1); then
		echo "  $2 --backpressure started on this kernel"
		return 1
	fi
	[[ "$out" == *"no IFF_BACKPRESSURE"* ]] || { echo "  $out"; return 1; }
}

for kind in read vhost; do
	check "$kind: without backpressure a full ring drops, and every frame taken is delivered" tail_drops "$kind"
	if [ "$kernel" = patched ]; then
		check "$kind: with backpressure nothing is dropped and every frame is delivered" no_drops "$kind"
		check "$kind: with backpressure, bursts for ${soak} s while the consumer stops and restarts: no stall, no drop" no_stall "$kind"
	fi
done
if [ "$kernel" = stock ]; then
	check "tap_read refuses --backpressure on a kernel without IFF_BACKPRESSURE" refused read tap_read
	check "vhost_drv refuses --backpressure on a kernel without IFF_BACKPRESSURE" refused vhost vhost_drv
fi
checks_done
