#!/usr/bin/env bash
# Runs inside the guest, as root: the vhost_net patch of the posted series
# and the tun / ptr_ring patches of the benchmark-only set, from userspace.
#   - the per-device vhost-net rx batch (VHOST_NET_SET/GET_VRING_RX_BATCH,
#     driven by vhost_rx_batch on two devices at once): default, values
#     taken and read back, bad values and the tx vring refused with EINVAL
#     and the old value kept;
#   - tun.tx_ring_zero_batch: default, values taken, bad ones refused;
#   - the zeroing batch of a tap's tx ring, measured with tap_ring_batch:
#     ptr_ring's own rule for the ring size, and the forced batch.
# On the stock kernel: the ioctls and the knob do not exist and the rings
# use 6.1's rule.
# Usage: check-ring-knobs.sh stock|patched TOOLS_DIR (tap_ring_batch, vhost_rx_batch)
set -euo pipefail
variant=$1 tool=$2/tap_ring_batch rxb=$2/vhost_rx_batch
ZB=/sys/module/tun/parameters/tx_ring_zero_batch
# shellcheck source=tests/guest/checks.sh
. "$(dirname "$0")/checks.sh"

# ring_batch SIZE: the zeroing batch tun's tx ring of SIZE entries has now.
ring_batch() {
	local out
	out=$("$tool" vrbknob0 "$1") || return 1
	[[ "$out" =~ batch=([0-9]+)\ freed=([0-9]+) ]] || return 1
	# a batch frees exactly that many slots
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ] || { echo "  $out" >&2; return 1; }
	echo "${BASH_REMATCH[1]}"
}

batch_is() {
	local got
	got=$(ring_batch "$1") || return 1
	[ "$got" = "$2" ] || { echo "  ring of $1: batch $got, expected $2"; return 1; }
}

# rx_batch OP...: vhost_rx_batch's answers, one line per OP, joined by "; ".
rx_batch() {
	local out
	out=$("$rxb" "$@") || return 1
	paste -sd ';' <<<"$out" | sed 's/;/; /g'
}

# answers WANT OP...: vhost_rx_batch OP... answers exactly WANT.
answers() {
	local want=$1 got
	shift
	got=$(rx_batch "$@") || return 1
	[ "$got" = "$want" ] || { echo "  got: $got"; return 1; }
}

if [ "$variant" = stock ]; then
	check "stock: no VHOST_NET_GET/SET_VRING_RX_BATCH (ENOTTY)" \
		answers "a get ENOTTY; a set 8 ENOTTY" a:get a:set:8
	check "stock: no tun.tx_ring_zero_batch" [ ! -e $ZB ]
	# 6.1's rule: 16 (two cache lines of pointers), none below 32 entries
	for s in 8:1 12:1 16:1 24:1 28:1 32:16 64:16 500:16; do
		check "stock: tx ring of ${s%:*} zeroes in batches of ${s#*:}" batch_is "${s%:*}" "${s#*:}"
	done
else
	check "rx batch: each device starts at 64 (VHOST_NET_BATCH)" \
		answers "a get 64; b get 64" a:get b:get
	check "rx batch: two devices hold 1 and 256 at once" \
		answers "a set 1 ok; b set 256 ok; a get 1; b get 256" a:set:1 b:set:256 a:get b:get
	for v in 0 257 4294967295; do
		check "rx batch: $v refused with EINVAL, the old value kept" \
			answers "a set 17 ok; a set $v EINVAL; a get 17" a:set:17 "a:set:$v" a:get
	done
	check "rx batch: the tx vring (index 1) refused with EINVAL, rx unchanged" \
		answers "a set 8 ok; a set 32 idx 1 EINVAL; a get 8" a:set:8 a:setidx:1:32 a:get
	check "rx batch: index 2 (no such vring) refused with EINVAL" \
		answers "b set 32 idx 2 EINVAL; b get 64" b:setidx:2:32 b:get

	check "tx_ring_zero_batch defaults to 0 (ptr_ring's own)" is $ZB 0
	# the benchmark-only ptr_ring rule: two cache lines of pointers (16) where that is at
	# most half the ring; else a quarter of the ring for 16-31 entries, or 1
	for s in 8:1 12:1 16:4 24:6 28:7 32:16 64:16 500:16; do
		check "tx ring of ${s%:*} zeroes in batches of ${s#*:}" batch_is "${s%:*}" "${s#*:}"
	done
	# forced: SIZE:KNOB:EXPECTED (at most half the ring)
	for s in 64:1:1 64:8:8 64:256:32 8:4:4 8:8:4 500:1:1; do
		IFS=: read -r size knob want <<<"$s"
		check "tx_ring_zero_batch $knob: a ring of $size zeroes in batches of $want" \
			eval "takes $ZB $knob && batch_is $size $want"
	done
	check "tx_ring_zero_batch takes its limit 256" takes $ZB 256
	for v in 257 -1 x '' ' 64' '64abc' 1.5 4294967296; do
		check "tx_ring_zero_batch refuses '$v'" refuses $ZB "$v"
	done
	check "tx_ring_zero_batch back to 0" takes $ZB 0
	check "and the ring of 16 uses the rule again" batch_is 16 4
fi
checks_done
