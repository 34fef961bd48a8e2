#!/usr/bin/env bash
# Runs inside the guest of a paired workload B boot: one flood, the refill
# setting switched between blocks. Brings the virtio-net interface up (the
# flood starts), waits for the first frame, then for each BLOCK: writes
# "switch" to PHASE_FILE, sets its knobs, waits SETTLE s, and runs
# rx_window for the rest of the block: it writes "N:ARM" to PHASE_FILE
# (vhost_src, on the host, stamps its interval rows with it), reads the
# counters, waits, writes "switch" and reads them again, so that the
# guest's counters and the source's rows cover the same frames. Prints
# the block's deltas:
#   block=N round=R arm=ARM knobs=KNOBS rx=.. refills=.. starved_polls=.. ... seconds=..
# At the end it writes "end" (vhost_src stops) and prints the totals.
# Usage: guest-rx-paired.sh --rx-window PATH [--load N] [--probe FILE] BLOCK_S SETTLE_S PHASE_FILE BLOCK...
#   BLOCK: ROUND:ARM:KNOBS, KNOBS "name=value;..." (rx queue knobs) or "-".
#   --rx-window PATH: bench/vhost_src's rx_window, built on the host.
#   --load N, --probe FILE: as in guest-rx.sh.
set -euo pipefail
load=0 probe='' rx_window=''
while [ $# -gt 0 ]; do
	case $1 in
	--load) load=$2; shift 2 ;;
	--probe) probe=$2; shift 2 ;;
	--rx-window) rx_window=$2; shift 2 ;;
	*) break ;;
	esac
done
usage="usage: guest-rx-paired.sh --rx-window PATH [--load N] [--probe FILE] BLOCK_S SETTLE_S PHASE_FILE BLOCK..."
[ $# -ge 4 ] || { echo "$usage" >&2; exit 2; }
[ -x "$rx_window" ] || { echo "guest-rx-paired.sh: --rx-window '$rx_window' is not an executable; $usage" >&2; exit 2; }
block_s=$1 settle_s=$2 phase_file=$3
shift 3
# shellcheck source=bench/guest/virtio.sh
. "$(dirname "$0")/../guest/virtio.sh"
# shellcheck source=bench/guest/probe.sh
. "$(dirname "$0")/../guest/probe.sh"

# phase TEXT: the phase vhost_src reads (renamed into place: never half-written).
phase() {
	echo "$1" >"$phase_file.tmp"
	mv -f "$phase_file.tmp" "$phase_file"
}

trap 'vn_load_stop; phase end 2>/dev/null || true' EXIT
vn_find
vn_load_start "$load"
[ "$load" -eq 0 ] || echo "guest_load=$load"
[ -z "$probe" ] || probe_start "$probe"
ip link set "$VN_IFACE" up
vn_wait_first 120
n=0
for b in "$@"; do
	n=$((n + 1))
	IFS=: read -r round arm knobs <<<"$b"
	# "switch" first: the knob change and the settle belong to no block
	phase switch
	vn_set_knobs "$knobs" >/dev/null
	sleep "$settle_s"
	# $VN_COUNTERS: a word list, one name an argument
	# shellcheck disable=SC2086
	c=$("$rx_window" "$VN_IFACE" "$phase_file" "$n:$arm" \
		"$(awk -v b="$block_s" -v s="$settle_s" 'BEGIN { printf "%d", (b - s) * 1000 }')" $VN_COUNTERS)
	echo "block=$n round=$round arm=$arm knobs=$knobs $c"
done
phase end
vn_wait_quiet 0.5 2
vn_load_stop
if [ -n "$probe" ]; then
	probe_stop >/tmp/probe-rx.txt
	sed 's/^/probe[rx] /' /tmp/probe-rx.txt
fi
echo "guest_rx_packets=$(vn_rx)"
vn_counters | sed -n '/^rx=/!s/^/guest_rxq0_/p'
