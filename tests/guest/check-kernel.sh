#!/usr/bin/env bash
# Runs inside the guest: is this the kernel that was built, and does it have
# what the benchmarks need (virtio-net, tun, vhost-net, pktgen)?
# Usage: check-kernel.sh EXPECTED_RELEASE EXPECTED_UTS_VERSION
set -euo pipefail
# shellcheck source=tests/guest/checks.sh
. "$(dirname "$0")/checks.sh"
virtio_net_iface() {
	local d
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = virtio_net ] && return 0
	done
	return 1
}
make_tap() {
	ip tuntap add dev vrbchk0 mode tap && ip link show vrbchk0 >/dev/null && ip tuntap del dev vrbchk0 mode tap
}
open_vhost() {
	exec 3<>/dev/vhost-net && exec 3>&-
}
check "release $(uname -r) is the one built ($1)" [ "$(uname -r)" = "$1" ]
check "version '$(uname -v)' is the one built" [ "$(uname -v)" = "$2" ]
check "a virtio-net interface bound to virtio_net" virtio_net_iface
check "tun: /dev/net/tun and a tap can be made" make_tap
check "vhost-net: /dev/vhost-net opens" open_vhost
check "pktgen: /proc/net/pktgen/pgctrl" [ -w /proc/net/pktgen/pgctrl ]
check "kprobes, debugfs, BPF events" [ -d /sys/kernel/debug/kprobes ] && [ -f /sys/kernel/tracing/kprobe_events ]
checks_done
