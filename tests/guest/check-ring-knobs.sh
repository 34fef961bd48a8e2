#!/usr/bin/env bash
# Runs inside the guest, as root: the vhost_net / tun / ptr_ring patches
# (patches 0001-0003) seen from userspace.
#   - vhost_net.rx_batch and tun.tx_ring_zero_batch: defaults, values taken
#     and read back, bad values refused with EINVAL and the old value kept;
#   - the zeroing batch of a tap's tx ring, measured with tap_ring_batch:
#     ptr_ring's own rule for the ring size, and the forced batch.
# On the stock kernel: the knobs do not exist and the rings use 6.1's rule.
# Usage: check-ring-knobs.sh stock|patched TAP_RING_BATCH_BINARY
set -euo pipefail
variant=$1 tool=$2
RX=/sys/module/vhost_net/parameters/rx_batch
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

if [ "$variant" = stock ]; then
	check "stock: no vhost_net.rx_batch" [ ! -e $RX ]
	check "stock: no tun.tx_ring_zero_batch" [ ! -e $ZB ]
	# 6.1's rule: 16 (two cache lines of pointers), none below 32 entries
	for s in 8:1 12:1 16:1 24:1 28:1 32:16 64:16 500:16; do
		check "stock: tx ring of ${s%:*} zeroes in batches of ${s#*:}" batch_is "${s%:*}" "${s#*:}"
	done
else
	check "rx_batch defaults to 64 (VHOST_NET_BATCH)" is $RX 64
	for v in 1 256 17 64; do check "rx_batch takes $v" takes $RX "$v"; done
	for v in 0 257 -1 x '' 99999999999; do check "rx_batch refuses '$v'" refuses $RX "$v"; done

	check "tx_ring_zero_batch defaults to 0 (ptr_ring's own)" is $ZB 0
	# patch 0003's rule: two cache lines of pointers (16) where that is at
	# most half the ring; else a quarter of the ring, or 1 below half a line
	for s in 8:1 12:1 16:4 24:6 28:7 32:16 64:16 500:16; do
		check "tx ring of ${s%:*} zeroes in batches of ${s#*:}" batch_is "${s%:*}" "${s#*:}"
	done
	# forced: SIZE:KNOB:EXPECTED (at most half the ring)
	for s in 64:1:1 64:8:8 64:256:32 8:4:4 8:8:4 500:1:1; do
		IFS=: read -r size knob want <<<"$s"
		check "tx_ring_zero_batch $knob: a ring of $size zeroes in batches of $want" \
			eval "takes $ZB $knob && batch_is $size $want"
	done
	for v in 257 -1 x; do check "tx_ring_zero_batch refuses '$v'" refuses $ZB "$v"; done
	check "tx_ring_zero_batch back to 0" takes $ZB 0
	check "and the ring of 16 uses the rule again" batch_is 16 4
fi
checks_done
