#!/usr/bin/env bash
# Runs inside the guest of a paired workload B boot: one flood, the refill
# setting switched between blocks. Brings the virtio-net interface up (the
# flood starts), waits for the first frame, then for each BLOCK: writes
# "switch" to PHASE_FILE, sets its knobs, writes "N:ARM" to PHASE_FILE (vhost_src, on the host, stamps its
# interval rows with it), waits SETTLE s, reads the counters, waits the rest
# of the block, reads them again, and prints the block's deltas:
#   block=N round=R arm=ARM rx=.. refills=.. starved_polls=.. ... seconds=..
# At the end it writes "end" (vhost_src stops) and prints the totals.
# Usage: guest-rx-paired.sh [--load N] [--probe FILE] BLOCK_S SETTLE_S PHASE_FILE BLOCK...
#   BLOCK: ROUND:ARM:KNOBS, KNOBS "name=value;..." (rx queue knobs) or "-".
#   --load N, --probe FILE: as in guest-rx.sh.
set -euo pipefail
load=0 probe=''
while [ $# -gt 0 ]; do
	case $1 in
	--load) load=$2; shift 2 ;;
	--probe) probe=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 4 ] || { echo "usage: guest-rx-paired.sh [--load N] [--probe FILE] BLOCK_S SETTLE_S PHASE_FILE BLOCK..." >&2; exit 2; }
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

# delta BEFORE AFTER: "NAME=AFTER-BEFORE ..." for the counters in both.
# (one stream: the guest has no /dev/fd for process substitution)
delta() {
	printf '%s\n--\n%s\n' "$1" "$2" |
		awk -F= '$0 == "--" { after = 1; next }
			!after { b[$1] = $2; next }
			($1 in b) { printf "%s=%d ", $1, $2 - b[$1] }'
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
	# "switch" first: the intervals while the knobs change belong to no block
	phase switch
	vn_set_knobs "$knobs" >/dev/null
	phase "$n:$arm"
	sleep "$settle_s"
	t0=$(cut -d' ' -f1 /proc/uptime)
	c0=$(vn_counters)
	sleep "$(awk -v b="$block_s" -v s="$settle_s" 'BEGIN { print b - s }')"
	c1=$(vn_counters)
	t1=$(cut -d' ' -f1 /proc/uptime)
	echo "block=$n round=$round arm=$arm knobs=$knobs $(delta "$c0" "$c1")seconds=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
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
