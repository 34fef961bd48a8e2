# shellcheck shell=bash
# Workload C's device inside the guest: the software vDPA net device
# (vdpa_sim_net, driven by the kernel's own virtio_net through virtio_vdpa)
# and the rx generator the suite's aid patch gives it
# (patches/BASE/aids/: debugfs vdpa_sim_net/). Source it.

VG_DIR=/sys/kernel/debug/vdpa_sim_net
VG_QUEUE_MAX=/sys/module/vdpa_sim/parameters/queue_max
VG_NAME=vdpa0
VG_MAC=02:00:00:00:00:02
VG_IFACE=''

# vg_present: does this kernel have the generator?
vg_present() {
	[ -d "$VG_DIR" ] && [ -w "$VG_QUEUE_MAX" ]
}

# vg_add RING: the device with an rx ring of RING entries, its interface up
# (VG_IFACE). The simulator's default MAC is all-zero, which ip refuses.
vg_add() {
	local d
	vg_present || { echo "guest: no vdpa_sim_net generator in this kernel" >&2; return 1; }
	echo "$1" >"$VG_QUEUE_MAX"
	vdpa dev add mgmtdev vdpasim_net name "$VG_NAME" mac "$VG_MAC"
	VG_IFACE=''
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address")" = "$VG_MAC" ] && VG_IFACE=$(basename "$d")
	done
	[ -n "$VG_IFACE" ] || { echo "guest: vdpa device $VG_NAME has no interface" >&2; return 1; }
	ip link set "$VG_IFACE" up
}

vg_del() {
	vdpa dev del "$VG_NAME"
	VG_IFACE=''
}

# vg_set NAME VALUE: one generator parameter (rate, burst, len, jitter,
# anchored, frames, warmup, seed, delay_ms).
vg_set() {
	echo "$2" >"$VG_DIR/$1"
}

# vg_stalls FILE: the stall schedule ("<offset_ns> <len_ns>" lines) from
# FILE, "-" for none. Written 100 lines a write: the kernel takes a write
# whole or not at all, and wants whole lines.
vg_stalls() {
	local tmp p
	echo clear >"$VG_DIR/stalls"
	[ "$1" != - ] || return 0
	tmp=$(mktemp -d)
	split -l 100 "$1" "$tmp/s."
	for p in "$tmp"/s.*; do
		[ -e "$p" ] || continue
		cat "$p" >"$VG_DIR/stalls"
	done
	rm -rf "$tmp"
	[ "$(cat "$VG_DIR/stalls")" -eq "$(grep -c . "$1")" ]
}

# vg_stat NAME: one of the generator's counters.
vg_stat() {
	sed -n "s/^$1 //p" "$VG_DIR/stats"
}

# vg_run: runs the generator until it has offered every frame ("run"
# blocks in the kernel: nothing in userspace runs meanwhile, so a run in
# virtual time repeats exactly).
vg_run() {
	echo run >"$VG_DIR/ctl"
}

# vg_stats: the generator's counters, "gen_NAME=VALUE" words on one line.
vg_stats() {
	awk '{ printf "%sgen_%s=%s", (NR > 1 ? " " : ""), $1, $2 } END { print "" }' "$VG_DIR/stats"
}
