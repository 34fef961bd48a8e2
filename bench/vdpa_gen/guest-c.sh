#!/usr/bin/env bash
# Workload C, inside the guest (1 vCPU, icount): the vdpa_sim_net device
# with the suite's rx generator, driven by this kernel's virtio_net. Every
# trial is a fresh device (vdpa dev add/del), so trials do not share a ring.
#   capacity RING KNOBS BURST LEN JITTER ANCHORED FRAMES
#       the highest rate (frames/s of guest time) that drops at most 0.1 %
#       with no stalls (one seed, bisection on a log scale, 10 steps from
#       10000 to 5000000): prints "capacity=RATE"; fails if no step passed
#   trials KNOBS BURST LEN JITTER ANCHORED TRIAL...
#       TRIAL: ID:RING:RATE:SEED:FRAMES:WARMUP:STALLS[:PROBE] (FRAMES to
#       offer, the first WARMUP of them before the generator's counted
#       window (its warmup_* counters), 0 for none; STALLS: a schedule
#       file, or -; PROBE: a probe (bench/guest/probe.sh) loaded around
#       the run);
#       prints "trial=ID gen_...=... rx=... <virtio_net's rx queue 0
#       counters>" per trial, then with PROBE the probe's output, each line
#       prefixed "probe[ID] "
# KNOBS: the patched kernel's per-queue knobs ("min_numfree=16"), or -.
# ANCHORED: the generator's pacing, 1 (bursts jittered about a fixed grid)
# or 0 (each gap drawn anew: the rate drifts).
set -euo pipefail
# a failed command inside $(...) fails the script too
shopt -s inherit_errexit
# shellcheck source=bench/guest/vdpagen.sh
. "$(dirname "$0")/../guest/vdpagen.sh"
# shellcheck source=bench/guest/virtio.sh
. "$(dirname "$0")/../guest/virtio.sh"
# shellcheck source=bench/guest/probe.sh
. "$(dirname "$0")/../guest/probe.sh"

# trial ID RING RATE SEED STALLS KNOBS BURST LEN JITTER ANCHORED FRAMES WARMUP [PROBE]
# The probe is armed after the device is set up and stopped once its rx
# queue is quiet: it sees the run alone (its own cost is in the run's time).
# A probe that does not start or stop costs its trial's cost lines
# ("probe[ID] failed: ..."), not the boot.
trial() {
	local rx0 probed='' pstate=''
	[ -z "${13:-}" ] || probed=$(mktemp)
	vg_add "$2"
	VN_IFACE=$VG_IFACE
	vn_set_knobs "$6" >/dev/null
	vg_set rate "$3"
	vg_set seed "$4"
	vg_set burst "$7"
	vg_set len "$8"
	vg_set jitter "$9"
	vg_set anchored "${10}"
	vg_set frames "${11}"
	vg_set warmup "${12}"
	vg_stalls "$5"
	rx0=$(vn_rx)
	if [ -n "$probed" ]; then
		if probe_start "${13}"; then
			pstate=on
		else
			pstate="it did not start"
			# one that hung before its start line must not stay loaded
			probe_stop >/dev/null 2>&1 || true
		fi
	fi
	vg_run
	vn_wait_quiet 0.05 3
	if [ "$pstate" = on ] && ! probe_stop >"$probed"; then
		pstate="it did not stop cleanly"
	fi
	echo "trial=$1 $(vg_stats) rx=$(($(vn_rx) - rx0)) $(vn_counters | grep -v '^rx=' | tr '\n' ' ' | sed 's/ $//')"
	if [ -n "$probed" ]; then
		if [ "$pstate" = on ]; then
			sed "s/^/probe[$1] /" "$probed"
		else
			echo "probe[$1] failed: $pstate (see above)"
		fi
		rm -f "$probed"
	fi
	vg_del
}

# drop_ppm LINE: dropped frames per million offered in a trial line.
drop_ppm() {
	awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END { print int(1e6 * v["gen_dropped"] / v["gen_offered"]) }' <<<"$1"
}

# field NAME LINE: a trial line's NAME=VALUE.
field() {
	tr ' ' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

capacity() {
	local ring=$1 knobs=$2 burst=$3 len=$4 jitter=$5 anchored=$6 frames=$7 lo=10000 hi=5000000 mid step line passed=0
	for step in $(seq 10); do
		mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%d", sqrt(a * b) }')
		line=$(trial "c$step" "$ring" "$mid" 1 - "$knobs" "$burst" "$len" "$jitter" "$anchored" "$frames" 0)
		[ "$(field gen_offered "$line")" = "$frames" ] || { echo "guest: capacity step $step did not offer $frames frames: $line" >&2; return 1; }
		echo "capacity step $step: rate $mid: drop $(drop_ppm "$line") ppm" >&2
		if [ "$(drop_ppm "$line")" -le 1000 ]; then lo=$mid passed=1; else hi=$mid; fi
	done
	[ "$passed" = 1 ] || { echo "guest: no rate from 10000 up dropped at most 0.1 %" >&2; return 1; }
	[ "$lo" -lt 4000000 ] || echo "capacity step: at the search's ceiling (5000000): capacity is higher" >&2
	echo "capacity=$lo"
}

case ${1:-} in
capacity)
	[ $# -eq 8 ] || { echo "usage: $0 capacity RING KNOBS BURST LEN JITTER ANCHORED FRAMES" >&2; exit 2; }
	capacity "$2" "$3" "$4" "$5" "$6" "$7" "$8"
	;;
trials)
	[ $# -ge 7 ] || { echo "usage: $0 trials KNOBS BURST LEN JITTER ANCHORED TRIAL..." >&2; exit 2; }
	knobs=$2 burst=$3 len=$4 jitter=$5 anchored=$6
	shift 6
	for t in "$@"; do
		IFS=: read -r id ring rate seed frames warmup stalls probe <<<"$t"
		trial "$id" "$ring" "$rate" "$seed" "$stalls" "$knobs" "$burst" "$len" "$jitter" "$anchored" "$frames" "$warmup" "$probe"
	done
	;;
*) echo "usage: $0 capacity ... | trials ..." >&2; exit 2 ;;
esac
