#!/usr/bin/env bash
# Runs inside the guest of a workload B trial: applies the virtio_net knobs,
# brings the (only) virtio-net interface up so that the driver posts its rx
# buffers (which starts vhost_src's flood), and waits until the flood is
# over; then prints the interface's rx counters as key=value lines.
# Usage: guest-rx.sh [--load N] [--down FRAMES HOLD] [--probe FILE] KNOBS [MAX_SECONDS]
#   KNOBS: "name=value ..." written to every rx queue's
#          /sys/class/net/IFACE/queues/rx-N/virtio_net/NAME (min_numfree,
#          refill_max), or "-" for none (the stock kernel has none).
#   --load N: N busy loops (one per vCPU, round robin) while the flood runs:
#          under load NAPI polling moves to ksoftirqd, which then shares
#          its vCPU with a busy task: the jitter that starves the rx ring.
#   --down FRAMES HOLD: take the interface down once that many frames
#          arrived (the guest stops refilling: the source must count drops),
#          then stay up HOLD more seconds for the source to finish. (A count,
#          not a time: under TCG the guest's loop is slow and uneven.)
#   --probe FILE: a probe (a systemtap module from stap/build.sh, or a
#          bpftrace script from stap/bpftrace/) started before the interface
#          comes up, stopped once the flood is over; its output is printed
#          before the counters, each line prefixed "probe[rx] ".
set -euo pipefail
load=0 down_frames='' hold=5 probe=''
while [ $# -gt 0 ]; do
	case $1 in
	--load) load=$2; shift 2 ;;
	--down) down_frames=$2 hold=$3; shift 3 ;;
	--probe) probe=$2; shift 2 ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || { echo "usage: guest-rx.sh [--load N] [--down FRAMES HOLD] [--probe FILE] KNOBS [MAX_SECONDS]" >&2; exit 2; }
# shellcheck source=bench/guest/virtio.sh
. "$(dirname "$0")/../guest/virtio.sh"
# shellcheck source=bench/guest/probe.sh
. "$(dirname "$0")/../guest/probe.sh"
knobs=$1 max=${2:-120}

vn_find
iface=$VN_IFACE
vn_set_knobs "$knobs"
rx() { vn_rx; }
trap vn_load_stop EXIT
vn_load_start "$load"
[ "$load" -eq 0 ] || echo "guest_load=$load"
[ -z "$probe" ] || probe_start "$probe"
# The count before the link is up: the flood starts when it is, and a slow
# guest (KASAN, a busy loop on its one vCPU) may take longer to read the
# count than a short flood lasts.
start=$SECONDS last=$(rx) quiet=0 first=''
ip link set "$iface" up

# Wait for the first frame, then until no frame came for 2 s (polled every
# 0.5 s; every 0.05 s when it must go down at a frame count).
step=0.5 quiet_max=4
[ -z "$down_frames" ] || step=0.05 quiet_max=40
while [ $((SECONDS - start)) -lt "$max" ]; do
	sleep "$step"
	now=$(rx)
	if [ "$now" != "$last" ]; then
		[ -n "$first" ] || first=$SECONDS
		last=$now quiet=0
	elif [ -n "$first" ]; then
		quiet=$((quiet + 1))
		[ "$quiet" -lt "$quiet_max" ] || break
	fi
	if [ -n "$down_frames" ] && [ "$now" -ge "$down_frames" ]; then
		ip link set "$iface" down
		echo "guest_went_down=1"
		sleep "$hold"
		break
	fi
done
vn_load_stop
if [ -n "$probe" ]; then
	# not in a pipeline: probe_stop waits for the probe, a child of this shell
	probe_stop >/tmp/probe-rx.txt
	sed 's/^/probe[rx] /' /tmp/probe-rx.txt
fi
[ -n "$first" ] || { echo "guest-rx: no frame arrived in $max s" >&2; exit 1; }

echo "guest_rx_packets=$(rx)"
vn_counters | sed -n '/^rx=/!s/^/guest_rxq0_/p'
