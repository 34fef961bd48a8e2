#!/usr/bin/env bash
# Runs inside the guest of the patched kernel, as root: the series' knobs
# changed again and again while traffic flows. No splat (the caller scans
# the console), no stall (the delivered count rises in every 1 s interval
# while the flood runs), counters consistent afterwards.
#   tap VHOST_DRV     workload A's path: pktgen floods a tap whose slow
#                     vhost-net consumer (vhost_drv --work) changes its rx
#                     batch every 10 ms (1, 256, 7, 64, 16, 128, 2); every
#                     knob tick (about 50 ms) tun.tx_ring_zero_batch changes,
#                     every 5th tick the tap's ring is resized larger (64 ->
#                     1024, each resize under the zeroing batch just set). Afterwards every frame
#                     the tap took was delivered to the driver.
#   virtio TX RX      workload B's path (two virtio-net devices on a QEMU
#                     hub, MACs TX and RX): pktgen floods TX -> RX while
#                     RX's min_numfree and refill_max change every tick.
#                     Afterwards, back at auto, 1000 frames sent one per ms
#                     all arrive (the queue did not stall), and the counters
#                     agree: every counted refill posted a buffer
#                     (refill_bufs >= refills), starvations <= starved_polls.
# Usage: check-knob-churn.sh tap VHOST_DRV | virtio TX_MAC RX_MAC
set -euo pipefail
mode=${1:-}
# shellcheck source=bench/guest/pktgen.sh
. "$(dirname "$0")/../../bench/guest/pktgen.sh"
# shellcheck source=bench/guest/virtio.sh
. "$(dirname "$0")/../../bench/guest/virtio.sh"
# shellcheck source=bench/guest/vhost_drv.sh
. "$(dirname "$0")/../../bench/guest/vhost_drv.sh"
# shellcheck source=tests/guest/checks.sh
. "$(dirname "$0")/checks.sh"
FLOOD_S=8
MIN_TICKS=20	# the tap's schedule resizes at ticks 4, 9, 14 and 19
MAX_S=60	# a slow (debug) guest gets this long to reach MIN_TICKS
TAP=vtapC
ZB=/sys/module/tun/parameters/tx_ring_zero_batch

# now_ms: NOW_MS = the time in ms (no fork: the flood leaves little CPU).
now_ms() {
	NOW_MS=$((${EPOCHREALTIME/./} / 1000))
}

# rising COUNTER_CMD...: for FLOOD_S seconds of pktgen's background run
# ($pg_pid, count 0: until stopped), and at least MIN_TICKS ticks (a debug
# kernel under TCG took 0.6 s a tick: 13 in 8 s; at most MAX_S s), calls
# churn_tick N (N = 0, 1, ...) every 50 ms or as often as the guest gets
# to it, and samples COUNTER_CMD every second; then stops pktgen. Prints
# the samples; fails when one 1 s interval delivered nothing.
rising() {
	local last now stalls=0 ticks=0 samples='' t0 tlast sfd fifo
	# a pipe nobody writes to: read -t sleeps on it without a fork
	fifo=$(mktemp -u)
	mkfifo "$fifo"
	exec {sfd}<>"$fifo"
	rm -f "$fifo"
	last=$("$@")
	now_ms
	t0=$NOW_MS tlast=$NOW_MS
	while [ $((NOW_MS - t0)) -lt $((FLOOD_S * 1000)) ] ||
		{ [ "$ticks" -lt $MIN_TICKS ] && [ $((NOW_MS - t0)) -lt $((MAX_S * 1000)) ]; }; do
		churn_tick "$ticks"
		ticks=$((ticks + 1))
		read -r -t 0.05 -u "$sfd" _ || true
		now_ms
		[ $((NOW_MS - tlast)) -ge 1000 ] || continue
		tlast=$NOW_MS
		now=$("$@")
		samples+=" $((now - last))"
		[ "$now" -gt "$last" ] || stalls=$((stalls + 1))
		last=$now
	done
	exec {sfd}<&-
	pg_write "$PG_DIR/pgctrl" stop
	wait "$pg_pid" || true
	echo "  delivered per second:$samples ($ticks knob changes)"
	[ "$stalls" -eq 0 ]
}

tap_mode() {
	local drv=$1 log pid accepted delivered harvested sets qlen
	log=$(mktemp)
	drv_start "$log" "$drv" --tap $TAP --txqlen 64 --work 4000 --rx-batch-churn 10 --cpu 0
	pid=$DRV_PID
	pg_reset
	pg_setup $TAP "$(($(nproc) > 1 ? 1 : 0))" 0 0 60 02:00:00:00:00:01
	pg_start &
	pg_pid=$!
	churn_tick() {
		local zbs=(0 1 4 16 32) sizes=(128 256 512 1024)
		echo "${zbs[$(($1 % 5))]}" >$ZB
		if [ $(($1 % 5)) -eq 4 ] && [ $(($1 / 5)) -lt 4 ]; then
			ip link set $TAP txqlen "${sizes[$(($1 / 5))]}"
		fi
	}
	check "tap: the driver's deliveries rise every second while the knobs change" \
		rising cat /sys/class/net/$TAP/statistics/tx_packets
	accepted=$(pg_sent $TAP)
	pg_reset
	echo 0 >$ZB
	for _ in $(seq 60); do
		[ "$(cat /sys/class/net/$TAP/statistics/tx_packets)" -lt "$accepted" ] || break
		sleep 1
	done
	qlen=$(cat /sys/class/net/$TAP/tx_queue_len)
	kill -TERM "$pid"
	wait "$pid" || { cat "$log" >&2; return 1; }
	delivered=$(sed -n 's/^vhost_drv: totals: .* tap_tx_packets=\([0-9]*\).*/\1/p' "$log")
	harvested=$(sed -n 's/^vhost_drv: totals: .* pktgen_packets=\([0-9]*\).*/\1/p' "$log")
	sets=$(sed -n 's/^vhost_drv: totals: .* batch_sets=\([0-9]*\).*/\1/p' "$log")
	echo "  accepted=$accepted delivered=$delivered harvested=$harvested rx_batch_sets=$sets txqlen=$qlen"
	check "tap: the rx batch changed under load (>= 100 times)" [ "${sets:-0}" -ge 100 ]
	check "tap: the ring was resized under load (txqlen 1024)" [ "$qlen" -eq 1024 ]
	check "tap: every frame the tap took was delivered" [ "$delivered" -eq "$accepted" ]
	check "tap: the driver harvested every delivered frame" [ "$harvested" -eq "$delivered" ]
	rm -f "$log"
}

virtio_mode() {
	local tx rx mn rm before s
	tx=$(vn_iface_of "$1")
	rx=$(vn_iface_of "$2")
	ip link set "$tx" up
	ip link set "$rx" up
	mn=/sys/class/net/$rx/queues/rx-0/virtio_net/min_numfree
	rm=/sys/class/net/$rx/queues/rx-0/virtio_net/refill_max
	stat() { vn_stat "$rx" "$1"; }
	pg_reset
	pg_setup "$tx" 0 0 0 60 "$2"
	pg_start &
	pg_pid=$!
	churn_tick() {
		local mns=(auto legacy 0 adaptive 8 16 64 1 adaptive-dry) rms=(0 1 8 64 32768 0 2)
		echo "${mns[$(($1 % 9))]}" >"$mn"
		echo "${rms[$((($1 / 9) % 7))]}" >"$rm"
	}
	check "virtio: rx packets rise every second while min_numfree and refill_max change" \
		rising stat packets
	pg_reset
	echo auto >"$mn"
	echo 0 >"$rm"
	# QEMU's hub holds back what RX had no buffer for: let that arrive
	before=-1
	for _ in $(seq 60); do
		[ "$(stat packets)" -ne "$before" ] || break
		before=$(stat packets)
		sleep 1
	done
	before=$(stat packets)
	pg_setup "$tx" 0 1000 1000000 60 "$2"
	pg_start
	for _ in $(seq 100); do
		[ "$(stat packets)" -lt $((before + 1000)) ] || break
		sleep 0.1
	done
	echo "  after the churn: $(($(stat packets) - before)) of 1000 frames arrived;" \
		"$(for s in refills refill_bufs starvations starved_polls; do printf '%s=%s ' "$s" "$(stat "$s")"; done)"
	check "virtio: after the churn, 1000 frames one per ms all arrive" [ "$(stat packets)" -eq $((before + 1000)) ]
	check "virtio: every counted refill posted buffers (refill_bufs >= refills)" [ "$(stat refill_bufs)" -ge "$(stat refills)" ]
	check "virtio: starvations <= starved_polls" [ "$(stat starvations)" -le "$(stat starved_polls)" ]
}

case $mode in
tap) [ $# -eq 2 ] || { echo "usage: check-knob-churn.sh tap VHOST_DRV" >&2; exit 2; }; tap_mode "$2" ;;
virtio) [ $# -eq 3 ] || { echo "usage: check-knob-churn.sh virtio TX_MAC RX_MAC" >&2; exit 2; }; virtio_mode "$2" "$3" ;;
*) echo "usage: check-knob-churn.sh tap VHOST_DRV | virtio TX_MAC RX_MAC" >&2; exit 2 ;;
esac
checks_done
