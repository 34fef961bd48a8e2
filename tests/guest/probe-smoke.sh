#!/usr/bin/env bash
# Runs inside the guest, as root, with one virtio-net device (QEMU user
# networking is enough): prints whether the device negotiated a packed ring
# ("packed=0|1", feature bit 34, VIRTIO_F_RING_PACKED), then, for each
# PROBE (a systemtap module or a bpftrace script), runs it while the link
# goes down and up (virtnet_open schedules a NAPI poll of each rx queue)
# and a datagram to the user network's gateway draws an ARP reply (a
# received frame), and prints its output (bench/guest/probe.sh).
# Usage: probe-smoke.sh PROBE...
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: probe-smoke.sh PROBE..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=bench/guest/probe.sh
. "$root/bench/guest/probe.sh"

dev=''
for d in /sys/class/net/*; do
	[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = virtio_net ] || continue
	dev=${d##*/}
	break
done
[ -n "$dev" ] || { echo "probe-smoke: no virtio-net device" >&2; exit 1; }
features=$(cat "/sys/class/net/$dev/device/features")
echo "packed=${features:34:1}"
for p in "$@"; do
	probe_start "$p"
	ip link set "$dev" down
	ip link set "$dev" up
	ip addr replace 10.0.2.15/24 dev "$dev"
	sleep 1
	echo probe >/dev/udp/10.0.2.2/9 || true
	sleep 1
	probe_stop
done
