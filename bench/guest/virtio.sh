# shellcheck shell=bash
# The guest's virtio-net interface for workload B's guest scripts: finding
# it, setting the series' per-queue knobs, reading its counters, and the
# busy loops that load the guest. Source it.

VN_IFACE='' VN_LOADERS=()

# vn_find: sets VN_IFACE to the (only) virtio-net interface, or fails.
vn_find() {
	local d
	for d in /sys/class/net/*; do
		if [ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = virtio_net ]; then
			VN_IFACE=$(basename "$d")
			return 0
		fi
	done
	echo "guest: no virtio-net interface" >&2
	return 1
}

# vn_iface_of MAC: prints the interface with MAC, or fails.
vn_iface_of() {
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "$1" ] && { basename "$d"; return 0; }
	done
	echo "guest: no interface with MAC $1" >&2
	return 1
}

# vn_set_knobs KNOBS: "name=value ..." (or ";"-separated) written to every
# rx queue's /sys/class/net/IFACE/queues/rx-N/virtio_net/NAME; "-" for
# none. Prints knob_NAME=VALUE as read back.
vn_set_knobs() {
	local kv p
	[ "$1" != - ] || return 0
	for kv in ${1//;/ }; do
		for p in /sys/class/net/"$VN_IFACE"/queues/rx-*/virtio_net/"${kv%%=*}"; do
			[ -w "$p" ] || { echo "guest: no knob ${kv%%=*} in this kernel" >&2; return 1; }
			echo "${kv#*=}" >"$p"
		done
		echo "knob_${kv%%=*}=$(cat "$p")"
	done
}

# vn_rx: the interface's rx_packets.
vn_rx() {
	cat "/sys/class/net/$VN_IFACE/statistics/rx_packets"
}

# VN_COUNTERS: rx queue 0's driver counters vn_counters reports (the
# patched kernel's; the stock kernel has packets, drops and kicks only).
# 6.1 names them rx_queue_0_NAME in ethtool -S, 6.12 rx0_NAME; 6.12 has
# no packets there (the netdev queue stats have them) and reports
# allocation failures as the queue's alloc-fail queue stat, not as
# refill_oom: absent counters are left out.
VN_COUNTERS="packets drops kicks refills refill_bufs refill_oom starved_polls starvations"
VN_RXQ0='\(rx_queue_0\|rx0\)_'

# vn_ethtool_rxq0 IFACE NAMES: "NAME=VALUE" lines of rx queue 0's ethtool
# -S counters among NAMES (space separated), under either kernel's naming.
vn_ethtool_rxq0() {
	local names=${2// /\\|}
	ethtool -S "$1" | sed -n "s/^ *${VN_RXQ0}\\($names\\): \\([0-9]*\\)\$/\\2=\\3/p"
}

# vn_stat IFACE NAME: rx queue 0's ethtool -S counter NAME (empty if the
# kernel has none); packets, which 6.12 has only in the queue stats, is
# then the device's rx_packets (our devices have one queue pair).
vn_stat() {
	local v
	v=$(vn_ethtool_rxq0 "$1" "$2" | sed -n 's/^[^=]*=//p')
	if [ -z "$v" ] && [ "$2" = packets ]; then
		v=$(cat "/sys/class/net/$1/statistics/rx_packets")
	fi
	echo "$v"
}

# vn_counters: rx_packets and rx queue 0's counters, "NAME=VALUE" lines
# (rx=... first; absent counters are left out).
vn_counters() {
	echo "rx=$(vn_rx)"
	vn_ethtool_rxq0 "$VN_IFACE" "$VN_COUNTERS"
}

# vn_load_start N: N busy loops, one per vCPU round robin (under load NAPI
# moves to ksoftirqd, which shares its vCPU with a busy task).
vn_load_start() {
	local i ncpu
	ncpu=$(nproc)
	for i in $(seq "$1"); do
		taskset -c $(((i - 1) % ncpu)) sh -c 'while :; do :; done' &
		VN_LOADERS+=($!)
	done
}

vn_load_stop() {
	[ "${#VN_LOADERS[@]}" -eq 0 ] || kill "${VN_LOADERS[@]}" 2>/dev/null || true
	VN_LOADERS=()
}

# vn_wait_first MAX: waits (0.1 s steps) until a frame arrived; fails after MAX s.
vn_wait_first() {
	local start=$SECONDS
	while [ "$(vn_rx)" -eq 0 ]; do
		[ $((SECONDS - start)) -lt "$1" ] || { echo "guest: no frame arrived in $1 s" >&2; return 1; }
		sleep 0.1
	done
}

# vn_wait_quiet STEP N: waits until rx_packets did not move for N polls STEP s apart.
vn_wait_quiet() {
	local last now quiet=0
	last=$(vn_rx)
	while [ "$quiet" -lt "$2" ]; do
		sleep "$1"
		now=$(vn_rx)
		if [ "$now" = "$last" ]; then quiet=$((quiet + 1)); else quiet=0 last=$now; fi
	done
}
