#!/usr/bin/env bash
# Runs inside the guest, as root: workload C's device (vdpa_sim_net with the
# suite's rx generator, driven by the kernel's virtio_net) seen from
# userspace.
#   checks  bad values refused (EINVAL, the old value kept; EBUSY while
#           running; a burst larger than the ring and an impossible pace
#           refused at start, nothing started), a stall schedule taken or
#           refused whole; then a seeded run with stalls: every frame
#           offered is delivered or dropped, errors 0, virtio_net received
#           every delivered frame, the stalls ran and made the ring drop.
#           An anchored run (the default pacing) lasts its grid's length
#           to within the jitter, a drifting one with that seed does not.
#           A warm-up that leaves less than a burst is refused at start;
#           one shorter ends with the burst that offers its last frame,
#           its counters add up and split the run's drops between the
#           stalls before and after it.
#   run     one seeded run (RATE BURST FRAMES SEED RING STALLS [ANCHORED]): prints its
#           counters and virtio_net's on a "result" line, for the repeat
#           test (two boots: frame counts the same, refill timing within
#           bounds).
#   rule    the patched kernel's min_numfree=adaptive and adaptive-dry,
#           decided per poll, seen in virtio_net's refill counters on a
#           256-entry ring (each count includes the fill at open: one
#           refill of 256): frames one at a time 1 ms apart and bursts of
#           48 (polls under their budget of 64) give auto's refills and
#           buffers exactly, legacy fewer than half as many refills; a
#           flood at about 1.4x the guest's capacity (polls use their
#           budget) gives adaptive legacy's batches, more than 96 buffers
#           a refill, where auto's are at most 96 (its threshold 32 plus a
#           budget); at about half the capacity with four 4 ms stalls,
#           each leaving the device without buffers and a backlog of a
#           whole ring, adaptive-dry refills in the first poll after each
#           stall (it began dry) where adaptive waits for half the ring:
#           fewer polls find the device dry (starved_polls), fewer frames
#           are dropped.
# Usage: check-vdpa-gen.sh checks | rule
#        check-vdpa-gen.sh run RATE BURST FRAMES SEED RING STALLS_FILE|- [ANCHORED]
set -euo pipefail
shopt -s inherit_errexit
# shellcheck source=bench/guest/vdpagen.sh
. "$(dirname "$0")/../../bench/guest/vdpagen.sh"
# shellcheck source=bench/guest/virtio.sh
. "$(dirname "$0")/../../bench/guest/virtio.sh"
# shellcheck source=tests/guest/checks.sh
. "$(dirname "$0")/checks.sh"

# fails_with ERRNO_TEXT CMD...: CMD fails and says ERRNO_TEXT.
fails_with() {
	local want=$1 err
	shift
	if err=$("$@" 2>&1); then
		echo "  accepted"
		return 1
	fi
	[[ "$err" == *"$want"* ]] || { echo "  error was: $err"; return 1; }
}

ctl() { echo "$1" >"$VG_DIR/ctl"; }
# stalls_write TEXT: TEXT (printf %b) into the stalls file in one write
# (printf may write a line at a time; the kernel takes each write whole).
stalls_write() {
	local t rc=0
	t=$(mktemp)
	printf '%b' "$1" >"$t"
	cat "$t" >"$VG_DIR/stalls" || rc=$?
	rm -f "$t"
	return "$rc"
}
stopped() { [ "$(vg_stat running)" = 0 ]; }
in_range() { [ "$1" -ge "$2" ] && [ "$1" -le "$3" ]; }
# further A B MID: A is further from MID than B.
further() {
	local a=$(($1 - $3)) b=$(($2 - $3))
	[ "${a#-}" -gt "${b#-}" ]
}
stall_count() { is "$VG_DIR/stalls" "$1"; }

# seeded RATE BURST FRAMES SEED RING STALLS [ANCHORED [WARMUP]]: one run on
# a fresh device (ANCHORED: the pacing, default 1; WARMUP: frames before
# the counted window, default 0; SEEDED_KNOBS in the environment: virtio_net
# knobs set first, as vn_set_knobs takes them); prints the result line.
seeded() {
	local rx0 rx1
	vg_add "$5"
	vn_find_iface "$VG_IFACE"
	vn_set_knobs "${SEEDED_KNOBS:--}" >/dev/null
	vg_set rate "$1"
	vg_set burst "$2"
	vg_set frames "$3"
	vg_set seed "$4"
	vg_set jitter 50
	vg_set anchored "${7:-1}"
	vg_set warmup "${8:-0}"
	vg_set len 64
	vg_stalls "$6"
	rx0=$(vn_rx)
	vg_run
	# NAPI has run by now (the generator's last burst was an interrupt
	# ago); wait until the count settles anyway
	vn_wait_quiet 0.05 3
	rx1=$(vn_rx)
	echo "result $(vg_stats) rx=$((rx1 - rx0)) $(vn_counters | grep -v '^rx=' | tr '\n' ' ' | sed 's/ $//')"
	vg_del
}

# vn_find_iface IFACE: virtio.sh's helpers on IFACE.
vn_find_iface() { VN_IFACE=$1; }

checks() {
	local line v off tmpd
	tmpd=$(mktemp -d)
	check "queue_max refuses 3 (not a power of 2)" refuses "$VG_QUEUE_MAX" 3
	check "queue_max refuses 1" refuses "$VG_QUEUE_MAX" 1
	check "queue_max refuses 32 (virtio_net's tx queue stops for good on small rings)" refuses "$VG_QUEUE_MAX" 32
	check "queue_max takes 64" takes "$VG_QUEUE_MAX" 64
	check "queue_max refuses 65536" refuses "$VG_QUEUE_MAX" 65536
	case $(uname -r) in
	6.1.*)	# the 6.1 simulator maps every buffer into its iotlb
		check "queue_max refuses 16384 (more than the iotlb holds for its buffers)" refuses "$VG_QUEUE_MAX" 16384 ;;
	*)	# later ones map guest memory through one pass-through entry
		check "queue_max takes 32768 (the iotlb is pass-through)" takes "$VG_QUEUE_MAX" 32768 ;;
	esac
	check "queue_max takes 512" takes "$VG_QUEUE_MAX" 512
	vg_add 256
	check "the device got the ring size set (256)" [ "$(vg_stat ring)" = 256 ]
	check "rate refuses 0" refuses "$VG_DIR/rate" 0
	check "burst refuses 0" refuses "$VG_DIR/burst" 0
	check "len refuses 59" refuses "$VG_DIR/len" 59
	check "len refuses 1515" refuses "$VG_DIR/len" 1515
	check "jitter refuses 101" refuses "$VG_DIR/jitter" 101
	check "anchored refuses 2" refuses "$VG_DIR/anchored" 2
	check "frames refuses 0" refuses "$VG_DIR/frames" 0
	check "warmup refuses 'x'" refuses "$VG_DIR/warmup" x
	check "rate refuses 'x'" refuses "$VG_DIR/rate" x
	vg_set frames 1000
	vg_set rate 10000
	vg_set burst 257
	check "a burst larger than the ring (257 > 256) is refused at start" fails_with "Invalid argument" ctl start
	check "  and nothing started" stopped
	vg_set burst 32
	vg_set warmup 1000
	check "a warm-up as long as the run (1000 of 1000 frames) is refused at start" fails_with "Invalid argument" ctl start
	check "  and nothing started" stopped
	vg_set warmup 969
	check "a warm-up leaving less than a burst (31 < 32 frames) is refused at start" fails_with "Invalid argument" ctl start
	check "  and nothing started" stopped
	# a long run (100 s of guest time: idle, virtual time jumps ahead)
	vg_set rate 1000
	vg_set frames 100000
	vg_set warmup 99968
	ctl start
	check "a warm-up leaving a burst (99968 of 100000 frames) starts" [ "$(vg_stat running)" = 1 ]
	ctl stop
	vg_set warmup 0
	vg_set frames 1000
	vg_set burst 1
	vg_set rate 100000000
	check "a pace faster than a burst per microsecond is refused at start" fails_with "out of range" ctl start
	check "  and nothing started" stopped
	check "ctl refuses 'go'" fails_with "Invalid argument" ctl go
	# the stall schedule: whole writes or nothing
	echo clear >"$VG_DIR/stalls"
	check "stalls refuse a malformed line" fails_with "Invalid argument" stalls_write 'abc\n'
	check "stalls refuse a line without a length" fails_with "Invalid argument" stalls_write '100\n'
	check "stalls refuse a zero length" fails_with "Invalid argument" stalls_write '100 0\n'
	check "stalls refuse a stall over 100 ms" fails_with "Invalid argument" stalls_write '100 100000001\n'
	check "stalls refuse an offset that does not fit 64 bits" fails_with "Invalid argument" stalls_write '18446744073709551616 10\n'
	check "stalls refuse an offset beyond an hour" fails_with "Invalid argument" stalls_write '3600000000001 10\n'
	check "stalls refuse trailing text" fails_with "Invalid argument" stalls_write '100 10 x\n'
	check "stalls refuse a write without its last newline" fails_with "Invalid argument" stalls_write '100 10'
	check "stalls refuse unordered lines, all of the write" fails_with "Invalid argument" stalls_write '1000 10\n500 10\n'
	check "  nothing kept" stall_count 0
	check "stalls take two ordered lines" stalls_write '1000 10\n2000 10\n'
	check "  two kept" stall_count 2
	check "stalls refuse a line overlapping the last one kept" fails_with "Invalid argument" stalls_write '2005 10\n'
	check "  two kept" stall_count 2
	echo clear >"$VG_DIR/stalls"
	check "stalls clear" stall_count 0
	# busy: a long run, then changes refused
	vg_set rate 1000
	vg_set frames 1000000
	ctl start
	check "rate refuses a change while running (EBUSY)" fails_with "busy" vg_set rate 2000
	check "stalls refuse a change while running (EBUSY)" fails_with "busy" stalls_write '1 1\n'
	check "a second start while running is refused (EBUSY)" fails_with "busy" ctl start
	ctl stop
	check "stop stops it" stopped
	check "  the rate kept" is "$VG_DIR/rate" 1000
	# nothing has elapsed before the first burst's slot
	vg_set delay_ms 5000
	ctl start
	check "elapsed_ns is 0 before the first burst's slot" [ "$(vg_stat elapsed_ns)" = 0 ]
	ctl stop
	vg_set delay_ms 100
	# a "run" that "stop" ends early fails: its writer must not take a
	# short run for a whole one
	vg_set frames 100000
	(echo run >"$VG_DIR/ctl") 2>"$tmpd/run.err" &
	v=$!
	for off in $(seq 500); do
		[ "$(vg_stat running)" != 1 ] || break
		sleep 0.01
	done
	ctl stop
	if wait "$v"; then off=0; else off=1; fi
	check "a run stopped early fails" [ "$off" = 1 ]
	check "  with ECANCELED" grep -q "Operation canceled" "$tmpd/run.err"
	check "  and its frames were not all offered" [ "$(vg_stat offered)" -lt 100000 ]
	vg_del
	# the device taken from its driver and given back during a run: frames
	# are dropped meanwhile, every one counted
	vg_add 256
	vg_set rate 100000
	vg_set burst 32
	vg_set frames 60000
	ctl start
	sleep 0.2
	echo "$VG_NAME" >/sys/bus/vdpa/drivers/virtio_vdpa/unbind
	sleep 0.1
	echo "$VG_NAME" >/sys/bus/vdpa/drivers/virtio_vdpa/bind
	for off in $(seq 300); do
		[ "$(vg_stat running)" != 0 ] || break
		sleep 0.01
	done
	check "unbound and bound again during a run: every frame offered" [ "$(vg_stat offered)" = 60000 ]
	check "  offered = delivered + dropped" \
		[ "$(vg_stat offered)" -eq $(($(vg_stat delivered) + $(vg_stat dropped))) ]
	check "  some dropped while unbound" [ "$(vg_stat dropped)" -gt 0 ]
	vg_del
	# the device removed while its stall schedule waits for the next stall
	# (3 s away: removed well before it, at any speed of the guest)
	vg_add 256
	vg_set frames 100000
	stalls_write '50000000 20000000\n3000000000 20000000\n'
	ctl start
	sleep 0.25
	vg_del
	check "removed during a run with stalls pending: stopped" stopped
	check "  offered = delivered + dropped" \
		[ "$(vg_stat offered)" -eq $(($(vg_stat delivered) + $(vg_stat dropped))) ]
	check "  the pending stall did not run" [ "$(vg_stat stalls)" -le 1 ]
	check "  a start finds no device" fails_with "No such device" ctl start
	echo clear >"$VG_DIR/stalls"
	# a seeded run with stalls: 10 ms every 20 ms at 100000 frames/s, bursts
	# of 32: ~1000 frames arrive in a stall, the 256-entry ring must drop
	off=$(mktemp)
	for v in $(seq 5); do echo "$((v * 20000000)) 10000000"; done >"$off"
	line=$(seeded 100000 32 20000 7 256 "$off")
	echo "  $line"
	v() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<" $line"; }
	check "every frame offered (20000)" [ "$(v gen_offered)" = 20000 ]
	check "offered = delivered + dropped" [ "$(v gen_offered)" -eq $(($(v gen_delivered) + $(v gen_dropped))) ]
	check "no descriptor errors" [ "$(v gen_errors)" = 0 ]
	check "virtio_net received every delivered frame" [ "$(v rx)" = "$(v gen_delivered)" ]
	check "the five stalls ran" [ "$(v gen_stalls)" = 5 ]
	check "each held NAPI off 10 ms or more" [ "$(v gen_stall_ns)" -ge 50000000 ]
	check "the stalls made the ring drop" [ "$(v gen_dropped)" -gt 0 ]
	check "without a warm-up its counters are 0" [ "$(v gen_warmup_offered)$(v gen_warmup_dropped)$(v gen_warmup_ns)" = 000 ]
	# the same run with a warm-up of 5000 frames (50 ms): two of the
	# stalls (20 and 40 ms) fall in it, three after it
	line=$(seeded 100000 32 20000 7 256 "$off" 1 5000)
	echo "  $line"
	# bursts of 32: the 157th offers frame 5000 (5024 offered by then), at
	# 157 gaps of 320 us from the start, within the jitter (+-80 us) and
	# the timer's latency
	check "a warm-up of 5000 frames ends with the burst that offers frame 5000 (5024)" \
		[ "$(v gen_warmup_offered)" = 5024 ]
	check "  warm-up offered = delivered + dropped" \
		[ "$(v gen_warmup_offered)" -eq $(($(v gen_warmup_delivered) + $(v gen_warmup_dropped))) ]
	check "  the run's counts go on over it (20000 offered)" [ "$(v gen_offered)" = 20000 ]
	check "  and add up" [ "$(v gen_offered)" -eq $(($(v gen_delivered) + $(v gen_dropped))) ]
	check "  the stalls in it dropped" [ "$(v gen_warmup_dropped)" -gt 0 ]
	check "  the stalls after it dropped too" [ "$(v gen_dropped)" -gt "$(v gen_warmup_dropped)" ]
	check "  it ended 50.24 ms (+- 160 us) after the start" \
		in_range "$(v gen_warmup_ns)" 50080000 50400000
	rm -f "$off"
	# anchored pacing: 1000 bursts of 32 at 100000 frames/s, a gap of
	# 320 us, each burst within +-80 us (jitter 50 %) of its slot: the last
	# one 320 ms after the start, give or take 80 us and the timer's latency
	line=$(seeded 100000 32 32000 3 256 - 1)
	echo "  $line"
	check "an anchored run ends on its grid (320 ms +- 160 us)" \
		in_range "$(v gen_elapsed_ns)" 319840000 320160000
	check "  no burst late, no resync" [ "$(v gen_late)$(v gen_resyncs)" = 00 ]
	off=$(v gen_elapsed_ns)
	# the same seed drifting (anchored 0, the pacing before): its 1000
	# gaps' jitter adds up (about 2.9 ms either way; with this seed 143 us
	# early, against the anchored run's 21 us late)
	line=$(seeded 100000 32 32000 3 256 - 0)
	echo "  $line"
	check "a drifting run with that seed ends further from the grid" \
		further "$(v gen_elapsed_ns)" "$off" 320000000
	rm -rf "$tmpd"
	checks_done
}

# rule: the refill counters of auto, adaptive, adaptive-dry and legacy, each on a
# fresh device, trickling and flooding (see the header).
rule() {
	local mn line flood c stalls
	declare -A refills bufs drops dry
	# about 1.4x the guest's capacity at ring 256, bursts of 32: 178630
	# frames/s on 6.1, where the simulator maps every buffer into its
	# iotlb; about 1.5 times that on later kernels
	case $(uname -r) in
	6.1.*) flood=250000 ;;
	*) flood=380000 ;;
	esac
	# f NAME: the last result line's NAME=VALUE
	f() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<" $line"; }
	for mn in auto adaptive adaptive-dry legacy; do
		line=$(SEEDED_KNOBS="min_numfree=$mn" seeded 1000 1 2000 5 256 -)
		echo "  $mn, one frame a poll: $line"
		refills[$mn-one]=$(f refills) bufs[$mn-one]=$(f refill_bufs)
		check "$mn, one frame a poll: nothing dropped" [ "$(f gen_dropped)" = 0 ]
		line=$(SEEDED_KNOBS="min_numfree=$mn" seeded 48000 48 4800 5 256 -)
		echo "  $mn, bursts of 48: $line"
		refills[$mn-48]=$(f refills) bufs[$mn-48]=$(f refill_bufs)
		check "$mn, bursts of 48: nothing dropped" [ "$(f gen_dropped)" = 0 ]
		line=$(SEEDED_KNOBS="min_numfree=$mn" seeded "$flood" 32 30000 5 256 -)
		echo "  $mn, flood at $flood frames/s: $line"
		refills[$mn-busy]=$(f refills) bufs[$mn-busy]=$(f refill_bufs)
		check "$mn, flood: the ring dropped (above capacity)" [ "$(f gen_dropped)" -gt 0 ]
	done
	stalls=$(mktemp)
	printf '%s 4000000\n' 20000000 40000000 60000000 80000000 >"$stalls"
	for mn in adaptive adaptive-dry; do
		line=$(SEEDED_KNOBS="min_numfree=$mn" seeded 100000 8 10000 5 256 "$stalls")
		echo "  $mn, four 4 ms stalls at 100000 frames/s: $line"
		dry[$mn]=$(f starved_polls) drops[$mn]=$(f gen_dropped)
		check "$mn, stalls: the ring dropped (it ran dry)" [ "${drops[$mn]}" -gt 0 ]
	done
	rm -f "$stalls"
	check "stalls: fewer adaptive-dry polls find the device dry than adaptive's (${dry[adaptive-dry]}, ${dry[adaptive]})" \
		[ "${dry[adaptive-dry]}" -lt "${dry[adaptive]}" ]
	check "stalls: adaptive-dry drops fewer frames than adaptive (${drops[adaptive-dry]}, ${drops[adaptive]})" \
		[ "${drops[adaptive-dry]}" -lt "${drops[adaptive]}" ]
	for c in one 48; do
		for mn in adaptive adaptive-dry; do
			check "$c: $mn refills as auto (${refills[$mn-$c]} of ${bufs[$mn-$c]}, auto ${refills[auto-$c]} of ${bufs[auto-$c]})" \
				[ "${refills[$mn-$c]} ${bufs[$mn-$c]}" = "${refills[auto-$c]} ${bufs[auto-$c]}" ]
		done
		check "$c: legacy less than half as often (${refills[legacy-$c]})" \
			[ $((2 * refills[legacy-$c])) -lt "${refills[auto-$c]}" ]
	done
	check "flood: adaptive posts more than 96 buffers a refill (${bufs[adaptive-busy]} in ${refills[adaptive-busy]})" \
		[ "${bufs[adaptive-busy]}" -gt $((96 * refills[adaptive-busy])) ]
	check "flood: legacy too (${bufs[legacy-busy]} in ${refills[legacy-busy]})" \
		[ "${bufs[legacy-busy]}" -gt $((96 * refills[legacy-busy])) ]
	check "flood: auto at most 96 (${bufs[auto-busy]} in ${refills[auto-busy]})" \
		[ "${bufs[auto-busy]}" -le $((96 * refills[auto-busy])) ]
	# busy polls that began with buffers left wait for half the ring
	check "flood: adaptive-dry refills less often than auto (${refills[adaptive-dry-busy]}, ${refills[auto-busy]})" \
		[ "${refills[adaptive-dry-busy]}" -lt "${refills[auto-busy]}" ]
	checks_done
}

case ${1:-} in
checks) checks ;;
rule) rule ;;
run)
	[ $# -eq 7 ] || [ $# -eq 8 ] || { echo "usage: $0 run RATE BURST FRAMES SEED RING STALLS_FILE|- [ANCHORED]" >&2; exit 2; }
	seeded "$2" "$3" "$4" "$5" "$6" "$7" "${8:-1}"
	;;
*) echo "usage: $0 checks | rule | run RATE BURST FRAMES SEED RING STALLS_FILE|- [ANCHORED]" >&2; exit 2 ;;
esac
