#!/usr/bin/env bash
# Runs inside the guest, as root: the virtio_net patches (min_numfree,
# refill_max, refill counters) seen from userspace. Traffic: pktgen on one
# virtio-net device (TX_MAC) whose frames QEMU's hub delivers to a second
# one (RX_MAC), one frame per NAPI poll (1 ms apart), rx ring of 256.
#   - both knobs: default, values taken and read back, bad values refused
#     with EINVAL and the old value kept;
#   - ethtool -S has rx_queue_0_{refills,refill_bufs,refill_fails,starved};
#   - the threshold in effect, seen in the counters: with "legacy" (128)
#     60 frames cause no refill, with 0 nearly one refill per frame, with
#     "auto" (32) one or two; refill_max 1 posts a frame's worth per poll
#     instead of refilling the ring in one go.
# On the stock kernel: no knobs, no counters, and the default threshold.
# Usage: check-virtio-refill.sh stock|patched TX_MAC RX_MAC
set -euo pipefail
variant=$1 txmac=$2 rxmac=$3
# shellcheck source=bench/guest/pktgen.sh
. "$(dirname "$0")/../../bench/guest/pktgen.sh"
MN=/sys/module/virtio_net/parameters/min_numfree
RM=/sys/module/virtio_net/parameters/refill_max
# shellcheck source=tests/guest/checks.sh
. "$(dirname "$0")/checks.sh"

iface_of() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "$1" ] && { basename "$d"; return 0; }
	done
	echo "no interface with MAC $1" >&2
	return 1
}

# stat NAME: rx queue 0's counter NAME on the receiving device.
stat() {
	ethtool -S "$rx" | sed -n "s/^ *rx_queue_0_$1: \([0-9]*\)$/\1/p"
}

has_stat() { [ -n "$(stat "$1")" ]; }
no_stat() { [ -z "$(stat "$1")" ]; }
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# send N: N frames, 1 ms apart, from tx to rx; waits until rx has them all.
send() {
	local before
	before=$(stat packets)
	pg_setup "$tx" 0 "$1" 1000000 60 "$rxmac"
	pg_start
	for _ in $(seq 50); do
		[ "$(stat packets)" -ge $((before + $1)) ] && return 0
		sleep 0.1
	done
	echo "  rx got $(($(stat packets) - before)) of $1 frames" >&2
	return 1
}

# delta N STAT...: sends N frames; prints "STAT=delta" for each STAT.
delta() {
	local n=$1 s out=''
	shift
	declare -A b
	for s in "$@"; do b[$s]=$(stat "$s"); done
	send "$n" || return 1
	for s in "$@"; do out+="$s=$(($(stat "$s") - b[$s])) "; done
	echo "$out"
}

tx=$(iface_of "$txmac")
rx=$(iface_of "$rxmac")
ip link set "$tx" up
ip link set "$rx" up
pg_reset

if [ "$variant" = stock ]; then
	check "stock: no min_numfree" [ ! -e $MN ]
	check "stock: no refill_max" [ ! -e $RM ]
	check "stock: no refill counters" no_stat refills
	check "stock: frames flow from $tx to $rx" send 20
	checks_done
	exit
fi

check "min_numfree defaults to auto" is $MN auto
for v in legacy 0 64 auto; do check "min_numfree takes $v" takes $MN "$v"; done
for v in 65 -1 x '' 1.5; do check "min_numfree refuses '$v'" refuses $MN "$v"; done
check "refill_max defaults to 0" is $RM 0
for v in 1 64 32768 0; do check "refill_max takes $v" takes $RM "$v"; done
for v in 32769 -1 x; do check "refill_max refuses '$v'" refuses $RM "$v"; done
for s in refills refill_bufs refill_fails starved; do
	check "ethtool -S $rx has rx_queue_0_$s" has_stat "$s"
done

# legacy right after boot: the ring is full, 60 frames free 60 < 128
takes $MN legacy
d=$(delta 60 refills refill_bufs)
echo "  legacy, 60 frames: $d"
check "legacy (128): 60 frames, no refill" [ "$d" = "refills=0 refill_bufs=0 " ]

# 0: refill on every poll with a free buffer; the 60 left free are posted too
takes $MN 0
d=$(delta 60 refills refill_bufs)
echo "  0, 60 frames: $d"
[[ "$d" =~ refills=([0-9]+)\ refill_bufs=([0-9]+) ]]
check "0: 60 frames, 30 refills or more" [ "${BASH_REMATCH[1]}" -ge 30 ]
check "0: the ring is refilled completely (120 buffers)" [ "${BASH_REMATCH[2]}" -eq 120 ]

# auto on a ring of 256 with budget 64: 32; the ring is full after the 0 run
takes $MN auto
d=$(delta 60 refills refill_bufs)
echo "  auto, 60 frames: $d"
[[ "$d" =~ refills=([0-9]+)\ refill_bufs=([0-9]+) ]]
check "auto (32): 60 frames, one refill" [ "${BASH_REMATCH[1]}" -eq 1 ]
check "auto (32): that refill posts 33 to 40 buffers" between "${BASH_REMATCH[2]}" 33 40

# refill_max 1 with legacy: once past 128 free, each poll posts what it took
takes $MN 0
send 10 >/dev/null
takes $MN legacy
takes $RM 1
d=$(delta 200 refills refill_bufs)
echo "  legacy + refill_max 1, 200 frames: $d"
[[ "$d" =~ refills=([0-9]+)\ refill_bufs=([0-9]+) ]]
bufs=${BASH_REMATCH[2]}
check "refill_max 1: 20 refills or more" [ "${BASH_REMATCH[1]}" -ge 20 ]
check "refill_max 1: no refill posts the 129 an unbounded one would" between "$bufs" 1 80
takes $RM 0
takes $MN auto

check "refill_fails stays 0" [ "$(stat refill_fails)" -eq 0 ]
checks_done
