#!/usr/bin/env bash
# Runs inside the guest, as root: the virtio_net patches (per-queue
# min_numfree, rx refill and starvation counters; the benchmark-only
# refill_max) seen from userspace. Traffic: pktgen on one virtio-net device
# (TX_MAC) whose frames QEMU's hub delivers to a second one (RX_MAC), rx
# ring of 256. QEMU holds frames back while the receiver has no buffer, so
# nothing is lost and a flood leaves the receiver's ring all used.
# Modes:
#   stock     no knobs, no counters, frames flow;
#   patched   the knobs per rx queue (default, values taken and read back,
#             bad values refused with EINVAL and the old value kept, two
#             devices at different values at once); the counters exist;
#             the threshold in effect, seen in the counters, with one frame
#             per NAPI poll (1 ms apart): "legacy" (128) 60 frames cause no
#             refill, 0 a refill on most polls, "auto" (32) one; a refill
#             that posts nothing (a full ring at open) is not counted;
#             "adaptive" and "adaptive-dry" refill as auto after polls
#             that do not use their budget (one frame per poll: one refill;
#             their batches under a flood and after stalls are checked in
#             virtual time, check-vdpa-gen.sh rule);
#             then the starvation checks below;
#   starved   only the starvation checks (e.g. on a packed ring): one frame
#             per poll never finds the ring all used; a flood does (the
#             receiver polled every 20 ms meanwhile, so that the flood
#             outruns it on any host), and starvations <= starved_polls.
# With a 4th argument "slow-sender" (a debug kernel: KASAN makes pktgen
# slower than the receiver), a flood need not starve the receiver: its
# starvation counts are printed and only checked for consistency.
# Usage: check-virtio-refill.sh stock|patched|starved TX_MAC RX_MAC [slow-sender]
set -euo pipefail
mode=$1 txmac=$2 rxmac=$3 sender=${4:-}
# shellcheck source=bench/guest/pktgen.sh
. "$(dirname "$0")/../../bench/guest/pktgen.sh"
# shellcheck source=bench/guest/virtio.sh
. "$(dirname "$0")/../../bench/guest/virtio.sh"
# shellcheck source=tests/guest/checks.sh
. "$(dirname "$0")/checks.sh"

# stat NAME: rx queue 0's counter NAME on the receiving device.
stat() { vn_stat "$rx" "$1"; }

has_stat() { [ -n "$(stat "$1")" ]; }
no_stat() { [ -z "$(stat "$1")" ]; }
between() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }

# send N [DELAY_NS]: N frames, DELAY_NS apart (default 1 ms: one per NAPI
# poll), from tx to rx; waits until rx has them all.
send() {
	local before
	before=$(stat packets)
	pg_setup "$tx" 0 "$1" "${2:-1000000}" 60 "$rxmac"
	pg_start
	for _ in $(seq 100); do
		[ "$(stat packets)" -ge $((before + $1)) ] && return 0
		sleep 0.1
	done
	echo "  rx got $(($(stat packets) - before)) of $1 frames" >&2
	return 1
}

# delta N DELAY_NS STAT...: sends N frames; prints "STAT=delta" for each STAT.
delta() {
	local n=$1 delay=$2 s out=''
	shift 2
	declare -A b
	for s in "$@"; do b[$s]=$(stat "$s"); done
	send "$n" "$delay" || return 1
	for s in "$@"; do out+="$s=$(($(stat "$s") - b[$s])) "; done
	echo "$out"
}

# defer COUNT NS: rx's NAPI keeps interrupts off for COUNT polls that did
# work and polls again NS later (0 0: the interrupt after every poll).
defer() {
	echo "$1" >"/sys/class/net/$rx/napi_defer_hard_irqs"
	echo "$2" >"/sys/class/net/$rx/gro_flush_timeout"
}

# starvation_checks: one frame per poll never finds the device without a
# buffer; a flood does, counted as polls and as episodes.
starvation_checks() {
	local d polls episodes
	d=$(delta 60 1000000 starved_polls starvations)
	echo "  one frame per poll, 60 frames: $d"
	check "one frame per poll: no poll finds the ring all used" [ "$d" = "starved_polls=0 starvations=0 " ]
	# The flood must outrun the receiver whatever the host's speed: each
	# poll under budget arms a 20 ms timer instead of the interrupt
	# (napi_defer_hard_irqs, gro_flush_timeout), and a sender of more
	# than 256 frames in 20 ms fills the ring before the next poll.
	defer 1 20000000
	d=$(delta 20000 0 starved_polls starvations packets)
	defer 0 0
	echo "  flood, 20000 frames, receiver polled every 20 ms: $d"
	[[ "$d" =~ starved_polls=([0-9]+)\ starvations=([0-9]+) ]]
	polls=${BASH_REMATCH[1]} episodes=${BASH_REMATCH[2]}
	if [ "$sender" != slow-sender ]; then
		check "flood: polls find the ring all used (starved_polls > 0)" [ "$polls" -gt 0 ]
		check "flood: starvations counted (> 0)" [ "$episodes" -gt 0 ]
	fi
	check "flood: starvations <= starved_polls" [ "$episodes" -le "$polls" ]
}

tx=$(vn_iface_of "$txmac")
rx=$(vn_iface_of "$rxmac")
ip link set "$tx" up
ip link set "$rx" up
pg_reset

if [ "$mode" = stock ]; then
	check "stock: no min_numfree" [ ! -e "/sys/class/net/$rx/queues/rx-0/virtio_net/min_numfree" ]
	check "stock: no refill counters" no_stat refills
	check "stock: frames flow from $tx to $rx" send 20
	checks_done
	exit
fi
if [ "$mode" = starved ]; then
	starvation_checks
	checks_done
	exit
fi

MN=/sys/class/net/$rx/queues/rx-0/virtio_net/min_numfree
RM=/sys/class/net/$rx/queues/rx-0/virtio_net/refill_max
TXMN=/sys/class/net/$tx/queues/rx-0/virtio_net/min_numfree
check "min_numfree defaults to auto on both devices" eval "is $MN auto && is $TXMN auto"
for v in legacy 0 64 adaptive adaptive-dry auto; do check "min_numfree takes $v" takes "$MN" "$v"; done
for v in 65 -1 x '' 1.5 ' 64' '64abc' 'auto1' 'adaptivex' 'Adaptive' 'adaptive-' 'adaptive-dryx' 'adaptive_dry' 'adaptive-dry ' -3 -4; do
	check "min_numfree refuses '$v'" refuses "$MN" "$v"
done
check "two devices hold different values at once (legacy, 16)" \
	eval "takes $MN legacy && takes $TXMN 16 && is $MN legacy && is $TXMN 16"
takes "$MN" auto
takes "$TXMN" auto
check "mergeable_rx_buffer_size is still there (mergeable buffers)" \
	[ -r "/sys/class/net/$rx/queues/rx-0/virtio_net/mergeable_rx_buffer_size" ]
check "refill_max (benchmark-only) defaults to 0" is "$RM" 0
for v in 1 64 32768 0; do check "refill_max takes $v" takes "$RM" "$v"; done
for v in 32769 -1 x '' ' 64' '64abc'; do check "refill_max refuses '$v'" refuses "$RM" "$v"; done
for s in refills refill_bufs starvations starved_polls; do
	check "ethtool -S $rx has rx queue 0's $s" has_stat "$s"
done
# 6.1 counts allocation failures as refill_oom; 6.12 (rx0_ names) as the
# queue's alloc-fail in the netdev queue stats, and not in ethtool -S too.
if ethtool -S "$rx" | grep -q '^ *rx0_kicks:'; then
	oom=''
	check "ethtool -S $rx: no refill_oom (6.12: the queue's alloc-fail)" no_stat refill_oom
	check "ethtool -S $rx: no alloc_fail either (not duplicated)" no_stat alloc_fail
else
	oom=refill_oom
	check "ethtool -S $rx has rx queue 0's refill_oom" has_stat refill_oom
fi

# legacy right after boot: the ring is full, 60 frames free 60 < 128
takes "$MN" legacy
d=$(delta 60 1000000 refills refill_bufs)
echo "  legacy, 60 frames: $d"
check "legacy (128): 60 frames, no refill" [ "$d" = "refills=0 refill_bufs=0 " ]

# 0: refill on every poll with a free buffer; the 60 left free are posted too
takes "$MN" 0
d=$(delta 60 1000000 refills refill_bufs)
echo "  0, 60 frames: $d"
[[ "$d" =~ refills=([0-9]+)\ refill_bufs=([0-9]+) ]]
check "0: 60 frames, 30 refills or more" [ "${BASH_REMATCH[1]}" -ge 30 ]
check "0: the ring is refilled completely (120 buffers)" [ "${BASH_REMATCH[2]}" -eq 120 ]

# one_refill_at_32 SETTING WHAT: on a full ring of 256 (min_numfree 0
# refills it whole), 60 frames one per poll under SETTING make one refill
# of 33 to 40 buffers: threshold 32
one_refill_at_32() {
	local d
	takes "$MN" 0
	send 10 >/dev/null
	takes "$MN" "$1"
	d=$(delta 60 1000000 refills refill_bufs)
	echo "  $1, 60 frames one per poll: $d"
	[[ "$d" =~ refills=([0-9]+)\ refill_bufs=([0-9]+) ]]
	check "$2, one frame per poll: one refill" [ "${BASH_REMATCH[1]}" -eq 1 ]
	check "$2, one frame per poll: it posts 33 to 40 buffers" between "${BASH_REMATCH[2]}" 33 40
}

# auto on a ring of 256 with budget 64: 32; the ring is full after the 0 run
one_refill_at_32 auto "auto (32)"

# a full ring at open: try_fill_recv runs, posts nothing, and is not counted
takes "$MN" 0
send 10 >/dev/null
b_refills=$(stat refills) b_kicks=$(stat kicks)
ip link set "$rx" down
ip link set "$rx" up
check "open on a full ring: no refill counted" [ "$(stat refills)" -eq "$b_refills" ]
echo "  kicks across down/up: $b_kicks -> $(stat kicks)"

# adaptive on the full ring: polls under their budget decide as auto (32)
one_refill_at_32 adaptive "adaptive (as auto)"
one_refill_at_32 adaptive-dry "adaptive-dry (as auto)"
takes "$MN" auto

starvation_checks
[ -z "$oom" ] || check "refill_oom stays 0" [ "$(stat refill_oom)" -eq 0 ]
checks_done
