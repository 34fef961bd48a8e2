#!/usr/bin/env bash
# Workload C: the guest's own virtio_net receive path in virtual time. In a
# 1-vCPU icount guest the software vDPA net device's rx generator (the
# suite's aid, carried by both kernels) offers frames at a set rate of guest
# time with seeded jitter and seeded stalls (NAPI held off); it counts every
# frame as delivered or dropped for want of an rx buffer, exactly.
set -euo pipefail
VRB_PROG="run-c.sh"
export VRB_COMMAND_LINE="${VRB_COMMAND_LINE:-$(printf '%q' "$0"; printf ' %q' "$@")}"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/results.sh
. "$VRB_ROOT/lib/results.sh"
# shellcheck source=lib/guest.sh
. "$VRB_ROOT/lib/guest.sh"
# shellcheck source=lib/workload.sh
. "$VRB_ROOT/lib/workload.sh"
# shellcheck source=lib/cell-verdicts.sh
. "$VRB_ROOT/lib/cell-verdicts.sh"
# shellcheck source=lib/stats.sh
. "$VRB_ROOT/lib/stats.sh"
# shellcheck source=bench/report/lib.sh
. "$VRB_ROOT/bench/report/lib.sh"
# shellcheck source=bench/report/part-c.sh
. "$VRB_ROOT/bench/report/part-c.sh"

settings="stock auto legacy mn16 mn64"
rings="256 1024"
rates="0.7 0.9 1.0 1.1"
stall_regimes="none exp:200:100"
seeds=20
frames=30000
warmup=0
phase=0
burst=32
len=64
jitter=50
pacing=anchored
capacity=''
ref=''
no_aa=0
aa_seeds=own
cost_probe=''
no_costs=0
out=''
check_args=''
meta=() aa=''
STALL_TABLES=${VRB_STALL_TABLES:-$VRB_ROOT/bench/vdpa_gen/stall-tables}

usage() {
	cat <<EOF
Usage: bench/vdpa_gen/run-c.sh [options]

Workload C: inside one guest (1 vCPU, QEMU TCG counting instructions: the
guest's clock is virtual, a run repeats exactly), the software vDPA net
device offers FRAMES frames to the kernel's own virtio_net at RATE frames a
second of guest time, in bursts of BURST (jittered, see --pacing), while
seeded stalls hold NAPI off; it counts each frame delivered (an rx
buffer was there) or dropped (none was). The rates are fractions of the
guest's capacity, measured first: the highest rate dropping at most 0.1 %
with no stalls, ring 256, the reference setting. A unit is a seed (the
jitter and the stall draws): SEEDS per cell, the same seeds for every
setting, other seeds for the A/A arm (REF_aa; see --aa-seeds). One boot
per setting, a fresh device per trial.

Writes to DIR: capacity.txt, stalls/ (the schedules, and a copy of each
stall table they were drawn from), trials.csv (one row per trial),
verdicts.csv (per cell: each setting's drop % and refills and
starved polls per 1000 frames against REF, paired by seed, 95 % Fieller
intervals, the A/A arm as the noise floor), costs.csv and costs/ (below)
and tables.txt.

Cost: after its counted trials, each boot runs every cell once more with
the first unit's seed under the rx_costs probe (systemtap on 6.1, its
bpftrace twin on 6.12), which times virtio_net's rx polls and the refills
inside them in guest time. costs.csv has, per setting and cell, the guest
time in rx polls (refill included) and in refill, per frame received and
as a share of the generator's elapsed time (the probe's time runs on to
the quiet queue after the run: the share can pass 100 %), and the probe's
own counts (probe_*), skipped events and missed entries. Inside the
times are the generator's interrupts (it shares the vCPU) and the probe's
own cost, which is in the run's time too (the probed trial's drops are
next to the same seed's unprobed ones): compare settings, not absolute
values. Probed trials are not in trials.csv; the A/A arm is not probed.
One probed trial per cell and setting, a module load each: 1/(SEEDS+1) of
a boot's trials. A probe that fails costs its row (a warning), not the run.

Settings: stock (the stock kernel), auto, legacy, adaptive, adaptive-dry,
mnN (0-64), capN (patched, the per-queue min_numfree / refill_max knobs),
each also NAME_aa.

  --settings LIST    (default: "$settings")
  --rings LIST       rx ring sizes, powers of 2 from 2 to 32768 (default: "$rings")
  --rates LIST       rates as fractions of capacity, 0.01-10 (default: "$rates")
  --stalls LIST      stall regimes (default: "$stall_regimes"):
                       none             no stalls
                       exp:MEAN_US:N    N a second (Poisson), lengths exponential
                                        with mean MEAN_US microseconds (1-10000)
                       table:NAME:N     N a second, lengths drawn from
                                        bench/vdpa_gen/stall-tables/NAME.txt
  --seeds N          units per cell, 2-1000 (default: $seeds)
  --frames N         frames offered per trial, 100-100000000 (default: $frames)
  --warmup N         of those, frames offered before the counted window (0: none,
                     the default): drop % counts the frames after it (it ends
                     with the burst that offers frame N). Above the guest's
                     capacity a window that starts at the fresh, full ring
                     and ends at the last frame counts as drops the freed
                     buffers a rule holds back at the end: a boundary effect
                     of up to its threshold per trial, not a rate. With a
                     warm-up past the full ring's drain both ends are in the
                     steady state (see --phase)
  --phase N          per unit, lengthen the warm-up and the trial by two seeded
                     draws from 0 to N-1 frames, the same for every setting
                     of the unit (default: $phase), so that the window's ends
                     fall at every point of a refill cycle (draws over the
                     ring, or more) even if a saturated guest in virtual
                     time reached a frame count at the same point of it in
                     every trial. Needs --warmup; the warm-up, the draws and
                     a burst must fit in FRAMES
  --burst N          frames per burst, 1-32768, at most the smallest ring (default: $burst)
  --len B            Ethernet frame bytes, 60-1514 (default: $len)
  --jitter P         +- % of the mean gap between bursts, 0-100 (default: $jitter)
  --pacing MODE      anchored: each burst within +-P/2 % of a mean gap from its
                     slot on a fixed grid: the rate is exact in every trial;
                     drift: each gap drawn anew within +-P %: a trial's rate
                     is a random walk about RATE (runs before this option)
                     (default: $pacing)
  --capacity PPS     skip the capacity search, use PPS (1-100000000)
  --ref SETTING      the reference (default: auto if listed, else the first)
  --no-aa            no A/A arm
  --aa-seeds WHICH   own: the A/A arm gets seeds of its own (1000001...), its
                     contrast holds the seed-to-seed spread as well as the
                     boots'; same: the reference's seeds in a boot of its
                     own, the floor of the comparisons paired by seed
                     (default: $aa_seeds)
  --cost-probe P     rx_costs or rx_costs.bt (default: the base's: $(default_probe rx_costs))
  --no-costs         no probed trials (no costs.csv)
  --allow-busy-host  run even when the host is busy (recorded)
  --out DIR          result dir (default: a new results/<date>-C-<base>)
  --check-args       check the options and exit
  -h, --help         this text

C stands for one vCPU whose time the generator shares (its cost per frame is
in trials.csv: gen_ns_per_frame), and a device that never waits: it is not a
host backend's timing, and not several queues.
EOF
}

# uniq_dups: the lines of stdin that occur more than once.
uniq_dups() {
	sort | uniq -d
}

# stall_tables: the names of the stall tables there are.
stall_tables() {
	local t names=()
	for t in "$STALL_TABLES"/*.txt; do
		[ -e "$t" ] || continue
		t=${t##*/}
		names+=("${t%.txt}")
	done
	echo "${names[*]:-none}"
}

# table_names: the stall tables the run's regimes use, each once.
table_names() {
	local r a b c
	for r in $stall_regimes; do
		IFS=: read -r a b c <<<"$r"
		[ "$a" != table ] || echo "$b"
	done | sort -u
}

# copy_tables: the run's own copy of each table it uses (out/stalls/
# table-NAME.txt), which its schedules are drawn from: the table's file may
# change later.
copy_tables() {
	local b
	for b in $(table_names); do
		cp "$STALL_TABLES/$b.txt" "$out/stalls/table-$b.txt"
	done
}

# table_hashes: "NAME=HASH ..." of the lengths (comments aside) of the
# tables the run drew from, or none.
table_hashes() {
	local b hs=()
	for b in $(table_names); do
		hs+=("$b=$(grep -v '^#' "$out/stalls/table-$b.txt" | sha256sum | cut -c1-12)")
	done
	echo "${hs[*]:-none}"
}

# check_regime R: dies unless R is a stall regime this script knows.
check_regime() {
	local a b c
	IFS=: read -r a b c <<<"$1"
	case $a in
	none) [ "$1" = none ] || die "stall regime '$1': none takes no values" ;;
	exp)
		# lengths are cut at 100 ms: a larger mean would not be the mean
		check_range "stall regime $1: MEAN_US" "$b" 1 10000 >/dev/null
		if [[ "$b" == 0* ]] || [[ "$c" == 0* ]]; then die "stall regime $1: numbers without leading zeros"; fi
		check_range "stall regime $1: stalls a second" "$c" 1 100000 >/dev/null
		;;
	table)
		if ! [[ "$b" =~ ^[A-Za-z0-9_-]+$ ]] || [ ! -f "$STALL_TABLES/$b.txt" ]; then
			die "stall regime $1: unknown stall table '$b' (known: $(stall_tables))"
		fi
		check_range "stall regime $1: stalls a second" "$c" 1 100000 >/dev/null
		;;
	*) die "unknown stall regime '$1' (none, exp:MEAN_US:N, table:NAME:N)" ;;
	esac
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--settings) [ $# -ge 2 ] || die "$1 needs a value"; settings=$2; shift 2 ;;
		--rings) [ $# -ge 2 ] || die "$1 needs a value"; rings=$2; shift 2 ;;
		--rates) [ $# -ge 2 ] || die "$1 needs a value"; rates=$2; shift 2 ;;
		--stalls) [ $# -ge 2 ] || die "$1 needs a value"; stall_regimes=$2; shift 2 ;;
		--seeds) [ $# -ge 2 ] || die "$1 needs a value"; seeds=$2; shift 2 ;;
		--frames) [ $# -ge 2 ] || die "$1 needs a value"; frames=$2; shift 2 ;;
		--warmup) [ $# -ge 2 ] || die "$1 needs a value"; warmup=$2; shift 2 ;;
		--phase) [ $# -ge 2 ] || die "$1 needs a value"; phase=$2; shift 2 ;;
		--burst) [ $# -ge 2 ] || die "$1 needs a value"; burst=$2; shift 2 ;;
		--len) [ $# -ge 2 ] || die "$1 needs a value"; len=$2; shift 2 ;;
		--jitter) [ $# -ge 2 ] || die "$1 needs a value"; jitter=$2; shift 2 ;;
		--pacing) [ $# -ge 2 ] || die "$1 needs a value"; pacing=$2; shift 2 ;;
		--capacity) [ $# -ge 2 ] || die "$1 needs a value"; capacity=$2; shift 2 ;;
		--ref) [ $# -ge 2 ] || die "$1 needs a value"; ref=$2; shift 2 ;;
		--no-aa) no_aa=1; shift ;;
		--aa-seeds) [ $# -ge 2 ] || die "$1 needs a value"; aa_seeds=$2; shift 2 ;;
		--cost-probe)
			if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value"; fi
			cost_probe=$2; shift 2 ;;
		--no-costs) no_costs=1; shift ;;
		--allow-busy-host) export VRB_ALLOW_BUSY_HOST=1; shift ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		--check-args) check_args=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	local s r f g v
	# no leading zeros: the kernel reads 010 as octal, bash too
	for v in "$seeds" "$frames" "$warmup" "$phase" "$burst" "$len" "$jitter" "$capacity" $rings; do
		[[ "$v" != 0[0-9]* ]] || die "'$v': give numbers without leading zeros"
	done
	[ -n "$(series_aids "$VRB_PATCHES")" ] ||
		die "workload C needs the generator aid (patches/<base>/aids/): base ${VRB_BASE:-6.1} has none"
	# the guest's trial specs are ':'-separated and carry the schedules' paths
	case ${out:-$VRB_RESULTS}:$VRB_CACHE in
	*:*:*) die "--out ${out:-$VRB_RESULTS}, $VRB_CACHE: a ':' in the result or cache path would split the guest's trial specs" ;;
	esac
	if [ -n "$out" ] && guest_hidden "$out"; then
		die "--out $out: the guest does not see it (its own tmpfs there), and it reads the stall schedules from it"
	fi
	[ -n "$settings" ] || die "--settings is empty"
	for s in $settings; do refill_knobs "$s" >/dev/null; done
	[ -n "$rings" ] || die "--rings is empty"
	for r in $rings; do
		check_range --rings "$r" 2 32768
		[ $((r & (r - 1))) -eq 0 ] || die "--rings: $r is not a power of 2"
		[ "$burst" -le "$r" ] 2>/dev/null || die "--burst $burst is larger than ring $r: a burst could never be taken whole"
	done
	[ -n "$rates" ] || die "--rates is empty"
	for f in $rates; do
		if ! [[ "$f" =~ ^[0-9]+(\.[0-9]+)?$ ]] || ! awk -v f="$f" 'BEGIN { exit !(f >= 0.01 && f <= 10) }'; then
			die "--rates: '$f' is not a fraction of capacity from 0.01 to 10"
		fi
	done
	[ -n "$stall_regimes" ] || die "--stalls is empty"
	for g in $stall_regimes; do check_regime "$g"; done
	# a cell named twice would give a unit two rows
	[ -z "$(tr ' ' '\n' <<<"$rings" | uniq_dups)" ] || die "--rings names a ring twice"
	[ -z "$(tr ' ' '\n' <<<"$rates" | awk '{ print $1 + 0 }' | uniq_dups)" ] || die "--rates names a rate twice"
	[ -z "$(tr ' ' '\n' <<<"$stall_regimes" | uniq_dups)" ] || die "--stalls names a regime twice"
	check_range --seeds "$seeds" 2 1000
	check_range --frames "$frames" 100 100000000
	check_range --warmup "$warmup" 0 100000000
	check_range --phase "$phase" 0 1000000
	[ "$phase" = 0 ] || [ "$warmup" != 0 ] || die "--phase $phase without --warmup: the window would start at the fresh ring"
	if [ "$warmup" != 0 ] && [ $((warmup + phase + burst)) -gt "$frames" ]; then
		die "--warmup $warmup, --phase $phase and a burst ($burst) leave --frames $frames no counted window: give more frames"
	fi
	check_range --burst "$burst" 1 32768
	check_range --len "$len" 60 1514
	check_range --jitter "$jitter" 0 100
	case $aa_seeds in
	own | same) ;;
	*) die "--aa-seeds: '$aa_seeds' is not own or same" ;;
	esac
	[ "$no_aa" = 0 ] || [ "$aa_seeds" = own ] || die "--aa-seeds same with --no-aa: there is no A/A arm to give seeds"
	case $pacing in
	anchored | drift) ;;
	*) die "--pacing: '$pacing' is not anchored or drift" ;;
	esac
	[ -z "$capacity" ] || check_range --capacity "$capacity" 1 100000000
	[ -n "$cost_probe" ] || cost_probe=$(default_probe rx_costs)
	case $cost_probe in
	rx_costs) stap_base || die "--cost-probe rx_costs: systemtap does not build for base ${VRB_BASE:-6.1}: use rx_costs.bt" ;;
	rx_costs.bt) ;;
	*) die "--cost-probe: '$cost_probe' is not rx_costs or rx_costs.bt (the costs need the rx_costs probe)" ;;
	esac
	[ "$no_costs" = 0 ] || cost_probe=''
	if [ -z "$ref" ]; then
		ref=${settings%% *}
		[[ " $settings " != *" auto "* ]] || ref=auto
	fi
	[[ " $settings " == *" $ref "* ]] || die "--ref $ref is not one of the settings ($settings)"
	# shellcheck disable=SC2086 # a word list
	settings=$(with_aa "$ref" "$no_aa" $settings)
	[ "$(tr ' ' '\n' <<<"$settings" | sort | uniq -d)" = "" ] || die "--settings names a setting twice"
}

build() {
	make -s -C "$VRB_ROOT/bench/vdpa_gen" BUILD="$VRB_CACHE/vdpa_gen" "$VRB_CACHE/vdpa_gen/stall_sched" >/dev/null
	[ -z "$cost_probe" ] || make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$VRB_CACHE/ringsim" "$VRB_CACHE/ringsim/calib" >/dev/null
}

# probed SETTING: does the setting's boot run the probed trials?
probed() {
	[ -n "$cost_probe" ] && [ "$1" != "$aa" ]
}

# seed_of SETTING UNIT: the seed of a unit; the A/A arm has its own seeds
# unless --aa-seeds same.
seed_of() {
	if [ "$1" = "$aa" ] && [ "$aa_seeds" = own ]; then echo $((1000000 + $2)); else echo "$2"; fi
}

# draw SEED SALT N: a seeded draw from 0 to N-1 (0 when N is 0), the same
# for every setting of a unit: splitmix64's mix of SEED + SALT * its
# increment (bash's >> is arithmetic: the masks make it logical).
draw() {
	local z
	[ "$3" != 0 ] || { echo 0; return 0; }
	z=$(($1 + $2 * 0x9E3779B97F4A7C15))
	z=$(((z ^ (z >> 30 & 0x3FFFFFFFF)) * 0xBF58476D1CE4E5B9))
	z=$(((z ^ (z >> 27 & 0x1FFFFFFFFF)) * 0x94D049BB133111EB))
	z=$((z ^ (z >> 31 & 0x1FFFFFFFF)))
	echo $(((z >> 1 & 0x7FFFFFFFFFFFFFFF) % $3))
}

# unit_frames SEED, unit_warmup SEED: a unit's frames and warm-up (--phase).
unit_frames() {
	echo $((frames + $(draw "$1" 1 "$phase")))
}
unit_warmup() {
	if [ "$warmup" = 0 ]; then echo 0; else echo $((warmup + $(draw "$1" 2 "$phase"))); fi
}

# schedule REGIME SEED DURATION_NS: the stall schedule file ("-": none).
schedule() {
	local f a b c dist
	[ "$1" != none ] || { echo -; return 0; }
	IFS=: read -r a b c <<<"$1"
	case $a in
	exp) dist=exp:$((b * 1000)) ;;
	table) dist=table:$out/stalls/table-$b.txt ;;
	esac
	f=$out/stalls/${1//:/_}-s$2.txt
	[ -f "$f" ] || "$VRB_CACHE/vdpa_gen/stall_sched" --seed "$2" --duration-ns "$3" --per-s "$c" \
		--dist "$dist" >"$f" || die "stall schedule for $1, seed $2 failed"
	echo "$f"
}

# check_pace: every rate's mean gap between bursts is one the generator
# takes (1 us to 1 s).
check_pace() {
	local f gap
	for f in $rates; do
		gap=$(awk -v c="$capacity" -v f="$f" -v b="$burst" 'BEGIN { printf "%d", 1e9 * b / int(c * f) }')
		[ "$gap" -ge 1000 ] || die "rate ${f}x capacity ($capacity) with bursts of $burst: a gap of $gap ns between bursts (the generator takes 1 us to 1 s)"
		[ "$gap" -le 1000000000 ] ||
			die "rate ${f}x capacity ($capacity) with bursts of $burst: a gap of $gap ns between bursts (the generator takes 1 us to 1 s)"
	done
}

# guest KERNEL LOG ARGS...: guest-c.sh in the 1-vCPU icount guest.
guest() {
	local k=$1 log=$2 rc=0
	shift 2
	"$VRB_ROOT/scripts/guest-run.sh" --kernel "$k" --vcpus 1 --clock icount --run-dir "${log%.log}" \
		--timeout 14400 -- "$VRB_ROOT/bench/vdpa_gen/guest-c.sh" "$@" >"$log" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || { tail -n 20 "$log" >&2; die "the $k guest failed (status $rc); see $log"; }
}

# anchored: the generator's "anchored" value for --pacing.
anchored() {
	if [ "$pacing" = anchored ]; then echo 1; else echo 0; fi
}

# capacity_ring: the ring the capacity is measured on: 256, or the
# smallest ring of the run that takes a whole burst.
capacity_ring() {
	if [ "$burst" -le 256 ]; then echo 256; else tr ' ' '\n' <<<"$rings" | sort -n | awk -v b="$burst" '$1 >= b { print; exit }'; fi
}

measure_capacity() {
	mkdir -p "$out/boots"
	guest "$(setting_kernel "$ref")" "$out/boots/capacity.log" capacity "$(capacity_ring)" \
		"$(refill_knobs "$ref" | tr ' ' ';')" "$burst" "$len" "$jitter" "$(anchored)" "$frames"
	capacity=$(sed -n 's/^capacity=//p' "$out/boots/capacity.log")
	[ -n "$capacity" ] || die "no capacity in $out/boots/capacity.log"
	{
		echo "ring=$(capacity_ring) setting=$ref burst=$burst len=$len jitter=$jitter pacing=$pacing frames=$frames"
		grep '^capacity step' "$out/boots/capacity.log"
		echo "capacity=$capacity"
	} >"$out/capacity.txt"
}

# offered, delivered, dropped and the driver's counters: the whole trial;
# drop_pct: of the frames offered after the warm-up (the whole trial
# without one); warmup_*: the generator's counters when the warm-up ended
# (0 without one).
TRIAL_COLS="setting,kernel,ring,rate_frac,rate_pps,regime,unit,seed,offered,delivered,dropped,drop_pct,errors,bursts,late,resyncs,notifies,gen_ns_per_frame,stalls,stall_ns,stall_delay_ns,elapsed_ns,rx,refills,refill_bufs,refill_oom,starved_polls,starvations,kicks,vn_drops,warmup_offered,warmup_delivered,warmup_dropped,warmup_ns"

# check_trial LINE RING SEED: a guest's trial line adds up: every frame of
# the unit's offered, offered = delivered + dropped, no descriptor error,
# the ring asked for, virtio_net received every delivered frame; with a
# warm-up, it ended with the burst that offered its last frame, before the
# trial's end, and adds up too.
check_trial() {
	awk -v n="$(unit_frames "$3")" -v w="$(unit_warmup "$3")" -v b="$burst" -v r="$2" '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		END {
			if (v["gen_offered"] != n) { print "offered " v["gen_offered"] ", not " n; exit 1 }
			if (v["gen_delivered"] + v["gen_dropped"] != v["gen_offered"]) { print "delivered + dropped != offered"; exit 1 }
			wo = v["gen_warmup_offered"]; want = w ? b * int((w + b - 1) / b) : 0
			if (wo != want) { print "the warm-up ended at " wo " frames, not " want; exit 1 }
			if (w && !(wo < n && v["gen_warmup_ns"] > 0 && v["gen_warmup_ns"] <= v["gen_elapsed_ns"])) { print "the warm-up ended outside the trial"; exit 1 }
			if (v["gen_warmup_delivered"] + v["gen_warmup_dropped"] != wo) { print "warm-up delivered + dropped != offered"; exit 1 }
			if (v["gen_errors"] != 0) { print v["gen_errors"] " descriptor errors"; exit 1 }
			if (v["gen_ring"] != r) { print "ring " v["gen_ring"] ", not " r; exit 1 }
			if (v["rx"] != v["gen_delivered"]) { print "virtio_net received " v["rx"] " of " v["gen_delivered"]; exit 1 } }' <<<"$1"
}

# row SETTING KERNEL RING FRAC PPS REGIME UNIT SEED LINE: a trials.csv row.
row() {
	awk -v pre="$1,$2,$3,$4,$5,$6,$7,$8" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		o = v["gen_offered"]; wo = o - v["gen_warmup_offered"]; wd = v["gen_dropped"] - v["gen_warmup_dropped"]
		printf "%s,%s,%s,%s,%.6f,%s,%s,%s,%s,%s,%.1f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", pre,
			o, v["gen_delivered"], v["gen_dropped"], 100 * wd / wo, v["gen_errors"],
			v["gen_bursts"], v["gen_late"], v["gen_resyncs"], v["gen_notifies"], o ? v["gen_gen_ns"] / o : 0,
			v["gen_stalls"], v["gen_stall_ns"], v["gen_stall_delay_ns"], v["gen_elapsed_ns"], v["rx"],
			v["refills"], v["refill_bufs"], v["refill_oom"], v["starved_polls"], v["starvations"], v["kicks"], v["drops"],
			v["gen_warmup_offered"], v["gen_warmup_delivered"], v["gen_warmup_dropped"], v["gen_warmup_ns"]
	}' <<<"$9"
}

COST_COLS="setting,kernel,ring,rate_frac,rate_pps,regime,seed,offered,delivered,dropped,dropped_unprobed,elapsed_ns,gen_ns,probe_polls,probe_repolls,probe_frames,probe_refills,probe_bufs,probe_other_refills,poll_ns,refill_ns,poll_ns_per_frame,refill_ns_per_frame,poll_pct_of_time,refill_pct_of_time,probe_skipped,probe_entry_missed"

# cost_row SETTING KERNEL RING FRAC PPS REGIME LINE TOTALS FILE: a costs.csv
# row from a probed trial's line, calib's totals of its probe output (the
# probe's own counts: probe_*) and that output (FILE: the probe's skipped
# events and missed entries). The polls' time runs from the probe's start to
# its stop, the quiet rx queue after the run included; the shares are of
# the generator's elapsed time (they can pass 100 % by that tail).
cost_row() {
	local unprobed skipped missed
	unprobed=$(awk -F, -v s="$1" -v r="$3" -v f="$4" -v g="$6" \
		'!/^#/ && $1 == s && $3 == r && $4 == f "" && $6 == g && $7 == 1 { print $11 }' "$out/trials.csv")
	skipped=$(sed -n 's/^stap: WARNING: .*skipped probes: \([0-9]*\).*/\1/p; s/^bpftrace: .*Lost \([0-9]*\) events.*/\1/p' "$9" | head -n 1)
	missed=$(sed -n 's/^rx_costs: summary .* entry_missed=\([0-9]*\).*/\1/p' "$9" | head -n 1)
	awk -v pre="$1,$2,$3,$4,$5,$6,$(seed_of "$1" 1)" -v unprobed="$unprobed" -v skipped="${skipped:-0}" -v missed="$missed" '
		NR == 1 { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		NR == 2 { for (i = 3; i <= NF; i++) { split($i, kv, "="); t[kv[1]] = kv[2] } }
		END {
			e = v["gen_elapsed_ns"]; n = t["frames"]
			printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.0f,%.0f,%.3f,%.3f,%s,%s\n", pre,
				v["gen_offered"], v["gen_delivered"], v["gen_dropped"], unprobed, e, v["gen_gen_ns"], t["polls"],
				t["repolls"], n, t["refills"], t["bufs"], t["other_refills"], t["poll_ns"],
				t["refill_ns"], n ? t["poll_ns"] / n : 0, n ? t["refill_ns"] / n : 0,
				e ? 100 * t["poll_ns"] / e : 0, e ? 100 * t["refill_ns"] / e : 0, skipped, missed }' <<<"$7"$'\n'"$8"
}

# cost_id RING FRAC REGIME: the id of a cell's probed trial.
cost_id() {
	echo "cost-$1-$2-${3//:/_}"
}

# boot SETTING: one guest running the setting's trials, then (probed) one
# probed trial per cell; appends their rows.
boot() {
	local s=$1 k r f pps g u seed sched dur trials=() line log id totals pf=''
	k=$(setting_kernel "$s")
	# the schedules cover the slowest rate's run and a quarter more (its
	# jitter; a stall after the last frame is not run)
	dur=$(awk -v n="$((frames + phase))" -v c="$capacity" -v m="$(tr ' ' '\n' <<<"$rates" | sort -g | head -n 1)" \
		'BEGIN { printf "%d", 1.25e9 * n / (c * m) + 1e6 }')
	for r in $rings; do
		for f in $rates; do
			pps=$(awk -v c="$capacity" -v f="$f" 'BEGIN { printf "%d", c * f }')
			for g in $stall_regimes; do
				for u in $(seq "$seeds"); do
					seed=$(seed_of "$s" "$u")
					sched=$(schedule "$g" "$seed" "$dur")
					trials+=("$r-$f-${g//:/_}-$u:$r:$pps:$seed:$(unit_frames "$seed"):$(unit_warmup "$seed"):$sched")
				done
			done
		done
	done
	if probed "$s"; then
		pf=$(probe_file "$cost_probe" "$k")
		for r in $rings; do
			for f in $rates; do
				pps=$(awk -v c="$capacity" -v f="$f" 'BEGIN { printf "%d", c * f }')
				for g in $stall_regimes; do
					seed=$(seed_of "$s" 1)
					trials+=("$(cost_id "$r" "$f" "$g"):$r:$pps:$seed:$(unit_frames "$seed"):$(unit_warmup "$seed"):$(schedule "$g" "$seed" "$dur"):$pf")
				done
			done
		done
	fi
	log=$out/boots/$s.log
	guest "$k" "$log" trials "$(refill_knobs "$s" | tr ' ' ';')" "$burst" "$len" "$jitter" "$(anchored)" "${trials[@]}"
	for r in $rings; do
		for f in $rates; do
			pps=$(awk -v c="$capacity" -v f="$f" 'BEGIN { printf "%d", c * f }')
			for g in $stall_regimes; do
				for u in $(seq "$seeds"); do
					seed=$(seed_of "$s" "$u")
					line=$(grep -F "trial=$r-$f-${g//:/_}-$u " "$log" | grep "^trial=") || die "$s: no result for ring $r, rate $f, $g, unit $u; see $log"
					check_trial "$line" "$r" "$seed" || die "$s, ring $r, rate $f, $g, unit $u: $(check_trial "$line" "$r" "$seed" 2>&1 || true); see $log"
					row "$s" "$k" "$r" "$f" "$pps" "$g" "$u" "$(seed_of "$s" "$u")" "$line" >>"$out/trials.csv"
				done
			done
		done
	done
	[ -n "$pf" ] || return 0
	mkdir -p "$out/costs/$s"
	for r in $rings; do
		for f in $rates; do
			pps=$(awk -v c="$capacity" -v f="$f" 'BEGIN { printf "%d", c * f }')
			for g in $stall_regimes; do
				id=$(cost_id "$r" "$f" "$g")
				seed=$(seed_of "$s" 1)
				if ! line=$(grep -F "trial=$id " "$log" | grep "^trial=") || ! check_trial "$line" "$r" "$seed" 2>/dev/null; then
					warn "$s, probed trial $id: no consistent result ($(check_trial "$line" "$r" "$seed" 2>&1 || true)): no cost row; see $log"
					continue
				fi
				{ grep -F "probe[$id] " "$log" || true; } | sed "s/^probe\[$id\] //" >"$out/costs/$s/$id.txt"
				if ! totals=$("$VRB_CACHE/ringsim/calib" --totals "$out/costs/$s/$id.txt" 2>&1); then
					warn "$s, probed trial $id: no costs ($totals; the probe's output: $out/costs/$s/$id.txt)"
					continue
				fi
				cost_row "$s" "$k" "$r" "$f" "$pps" "$g" "$line" "$totals" "$out/costs/$s/$id.txt" >>"$out/costs.csv"
			done
		done
	done
}

# verdicts: per cell (ring, rate, regime), every setting against REF,
# paired by unit (seed): drop %, refills and starved polls per 1000 frames
# (lib/cell-verdicts.sh: the report recomputes them with the same function).
verdicts() {
	local r f g
	results_csv_open "$out/verdicts.csv" "$STATS_COLS" "${meta[@]}" "unit=seed (per ring, rate, stall regime)"
	for r in $rings; do
		for f in $rates; do
			for g in $stall_regimes; do
				c_cell_verdicts "$out/trials.csv" "$ref" "$aa" "$r" "$f" "$g" >>"$out/verdicts.csv"
			done
		done
	done
}

# cost_table: guest ns in rx polls (refill included) / in refill per frame
# received, per cell and setting, from costs.csv.
cost_table() {
	echo
	echo "Guest time per frame received, ns, in virtio_net's rx polls (refill included) / in their refills,"
	echo "and (frames dropped probed / the same seed unprobed): one trial per cell under $cost_probe (seed"
	echo "$(seed_of "$ref" 1)); the probe's cost and the generator's interrupts are inside: compare settings, not absolute values"
	grep -v '^#' "$out/costs.csv" | awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ k = sprintf("%6s %5s %-16s", $3, $4, $6)
			v[k, $1] = sprintf("%.0f/%.0f (%s/%s)", $c["poll_ns_per_frame"], $c["refill_ns_per_frame"],
				$c["dropped"], $c["dropped_unprobed"]); K[k]; S[$1] }
		END {
			printf "%-29s", "ring  rate  stalls"; for (x in S) { o[++m] = x }
			for (i = 1; i <= m; i++) printf " %22s", o[i]; print ""
			for (k in K) { printf "%s", k; for (i = 1; i <= m; i++) printf " %22s", v[k, o[i]]; print "" } }' |
		sort -k1,1n -k2,2n
}

# tables: tables.txt: mean drop % per cell and setting, then the verdicts.
tables() {
	{
		echo "Workload C: $(sed -n 's/^# command: //p' "$out/trials.csv")"
		echo "capacity $capacity frames/s of guest time (ring 256, $ref, no stalls, <= 0.1 % dropped); $seeds seeds per cell; bursts of $burst, +-$jitter % ($pacing); $frames frames per trial, drop % $(window_of "$out")"
		echo
		echo "Mean drop % over seeds (ring, rate as a fraction of capacity, stall regime):"
		grep -v '^#' "$out/trials.csv" | awk -F, 'NR > 1 {
				k = sprintf("%6s %5s %-16s", $3, $4, $6); s[k, $1] += $12; n[k, $1]++; K[k]; S[$1] }
			END {
				# a column as wide as the longest setting name
				w = 9; for (x in S) { o[++m] = x; if (length(x) > w) w = length(x) }
				printf "%-29s", "ring  rate  stalls"
				for (i = 1; i <= m; i++) printf " %" w "s", o[i]; print ""
				for (k in K) { printf "%s", k; for (i = 1; i <= m; i++) printf " %" w ".3f", s[k, o[i]] / n[k, o[i]]; print "" } }' |
			sort -k1,1n -k2,2n
		echo
		echo "Against $ref, paired by seed (95 % Fieller intervals; ${aa:-no A/A arm}: the A/A arm, the noise floor):"
		stats_table "$out/verdicts.csv"
		[ -z "$cost_probe" ] || cost_table
	} >"$out/tables.txt"
}

main() {
	local busy s n=0 t0
	parse_args "$@"
	[ -z "$check_args" ] || exit 0
	[[ " $settings " != *" ${ref}_aa "* ]] || aa=${ref}_aa
	kernel_check_source
	busy=$(host_check_quiet)
	stage "kernels" "$VRB_ROOT/scripts/build-kernels.sh" --variant all
	stage "build stall_sched${cost_probe:+ and calib}" build
	if [ -n "$cost_probe" ]; then
		# shellcheck disable=SC2086 # a word list
		stage "probe $cost_probe" build_probe_for "$cost_probe" $settings
	fi
	stage "build the statistics" stats_build
	if [ -n "$out" ]; then out=$(results_claim "$out"); else out=$(results_new_dir C); fi
	mkdir -p "$out/stalls" "$out/boots"
	copy_tables
	if [ -z "$capacity" ]; then
		stage "capacity (ring 256, $ref)" measure_capacity
	else
		echo "capacity=$capacity (given: --capacity; measured elsewhere, maybe with another pacing or jitter than this run's $pacing, +-$jitter %)" >"$out/capacity.txt"
	fi
	log "C: capacity $capacity frames/s of guest time"
	check_pace
	meta=("workload=C (vdpa_sim_net rx generator -> virtio_net, in one guest)"
		"accel=tcg icount: instructions counted, virtual time" "clock=icount" "guest_vcpus=1"
		"settings=$settings" "reference=$ref" "aa_arm=${aa:-none}" "aa_seeds=$aa_seeds" "rings=$rings" "rates=$rates"
		"capacity_pps=$capacity" "stall_regimes=$stall_regimes" "seeds=$seeds" "frames=$frames"
		"warmup=$warmup" "phase=$phase"
		"burst=$burst" "frame_len=$len" "jitter_pct=$jitter" "pacing=$pacing" "host_busy_cpus_at_start=$busy"
		"stall_tables=$(table_hashes)"
		"cost_probe=${cost_probe:-none}${cost_probe:+ (one probed trial per cell and setting, seed of unit 1; costs.csv)}")
	results_csv_open "$out/trials.csv" "$TRIAL_COLS" "${meta[@]}"
	[ -z "$cost_probe" ] || results_csv_open "$out/costs.csv" "$COST_COLS" "${meta[@]}"
	t0=$(now)
	for s in $settings; do
		n=$((n + 1))
		log "C: boot $n/$(wc -w <<<"$settings"): $s$(progress_eta $((n - 1)) "$(wc -w <<<"$settings")" "$t0")"
		boot "$s"
	done
	verdicts
	tables
	cat "$out/tables.txt" >&2
	out=$(results_finish "$out")
	log "C: results in $out"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
