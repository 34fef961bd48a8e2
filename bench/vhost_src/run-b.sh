#!/usr/bin/env bash
# Workload B (the 2019 thread "virtio-net: parameterize min ring num_free"):
# a paced flood into a guest's virtio-net rx queue over vhost-user, from
# vhost_src, for each refill setting and rate. This driver parses the
# options, builds what the run needs, measures the capacity and writes the
# metadata; the rest is one file per part, as the kernel's pktgen samples:
#   b-guest.sh  the guest: its kernel, probe and QEMU command line
#   trial.sh    one boot, one setting, one rate: a trials.csv row
#   paired.sh   the paired design (default): settings switched per block
#   boots.sh    the boots design: one boot per trial
#   ndr.sh      the zero-loss rate search (boots design)
set -euo pipefail
VRB_PROG="run-b.sh"
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
# shellcheck source=lib/stats.sh
. "$VRB_ROOT/lib/stats.sh"
# shellcheck source=lib/cell-verdicts.sh
. "$VRB_ROOT/lib/cell-verdicts.sh"
# shellcheck source=bench/vhost_src/b-guest.sh
. "$VRB_ROOT/bench/vhost_src/b-guest.sh"
# shellcheck source=bench/vhost_src/trial.sh
. "$VRB_ROOT/bench/vhost_src/trial.sh"
# shellcheck source=bench/vhost_src/paired.sh
. "$VRB_ROOT/bench/vhost_src/paired.sh"
# shellcheck source=bench/vhost_src/boots.sh
. "$VRB_ROOT/bench/vhost_src/boots.sh"
# shellcheck source=bench/vhost_src/ndr.sh
. "$VRB_ROOT/bench/vhost_src/ndr.sh"

settings="stock auto legacy mn16 mn64 cap64"
design=paired
ref=''
no_aa=0
pool_ref=''
block=6
settle=1
rounds=4
vcpus=1
rates=''
fractions="0.5 0.9"
probe_rate=400000
capacity_trials=3
repeats=5
duration=10
interval=''
rings="256 1024"
guest_load=0
ndr_steps=6
ndr_tolerance=0.1
ndr_repeats=1
ndr_max=''
down_after=''
check_args=''
probe=''
out=''
# --kernel-dir: one kernel, not the harness's, for every setting
kdir='' kdir_image='' kdir_initrd='' kdir_build='' kdir_probe=''
meta=() tdir='' cpu_vcpu='' cpu_other='' aa='' verdicts_of='' hypotheses='' hyp_copy=''

usage() {
	cat <<EOF
Usage: bench/vhost_src/run-b.sh [options]

Workload B: vhost_src (DPDK vhost library) serves a vhost-user socket for the
guest's virtio-net device (rx_queue_size RING) and enqueues UDP frames into
its rx queue at a set rate; frames finding no free guest buffer are dropped
and counted.

Two designs:
  paired (default)  one flood per boot; the guest switches the refill setting
             between blocks of BLOCK s (ROUNDS rounds per boot, each round
             every setting of the kernel once: odd rounds are rows of a
             Williams design, which balances what a block carries over
             from the one before, even rounds reverse them: ABBA);
             vhost_src stamps its interval rows with the block
             the guest is in; the first SETTLE s of a block are not counted.
             The stock kernel differs only across boots: its boots run the
             same rounds with the stock setting(s). A unit is a boot (its
             blocks of a setting averaged: its pairs of rounds share it);
             every setting is compared with REF (default auto) in the same
             rounds, and REF_aa, the reference measured as a second arm, is
             added (unless --no-aa): the run's noise floor.
             Writes blocks.csv and verdicts.csv (ratios to REF, 95 %
             Fieller intervals, verdicts), intervals.csv, tables.txt.
  boots      one guest boot per trial, settings interleaved (their order
             rotates every repeat); then a zero-loss rate search per setting
             and ring (RFC 2544 style: a binary search on the rate between 0
             and the capacity, a trial passing when its drop % is at most the
             tolerance). Writes trials.csv, intervals.csv, summary.csv,
             verdicts.csv (a unit is a repeat), ndr_trials.csv, ndr.csv and
             tables.txt (the 2019 thread's "interval / avgDropPackets / pps").

Both pin QEMU and vhost_src to separate host CPUs (lib/parameters.sh) and
refuse to start on a busy host (--allow-busy-host overrides).

Settings (kernel and virtio_net knobs):
  stock    stock kernel (refill when free > min(budget, ring)/2)
  auto     patched, min_numfree=auto (the same rule, through the knob)
  legacy   patched, min_numfree=legacy (free > ring/2, before v5.3)
  adaptive patched, min_numfree=adaptive (legacy after a poll that used
           its budget, auto after one that drained the ring)
  adaptive-dry  patched, min_numfree=adaptive-dry (adaptive, but auto also
           after a busy poll that began with the device holding no buffer)
  mnN      patched, min_numfree=N (0-64)
  capN     patched, min_numfree=auto, refill_max=N (bounded NAPI refill)

  stock_aa, auto_aa, ...: the A/A copy of a setting (same knobs, own arm)

  --settings LIST    (default: "$settings")
  --design D         paired or boots (default: $design)
  --ref SETTING      the reference (default: auto if listed, else the first)
  --no-aa            no A/A arm
  --pool-ref, --no-pool-ref
                     compare with the mean of the reference and its A/A
                     copy per unit, both copies as data (the default where
                     there is an A/A arm; the A/A row stays the A/A arm
                     against the reference alone), or with the reference
                     alone; with --verdicts-of, --pool-ref pools a run
                     that did not
  --block S          paired: seconds per block, 2-600 (default: $block)
  --settle S         paired: seconds not counted after a switch, 0-60, less
                     than BLOCK (default: $settle)
  --rounds N         paired: rounds per boot, even, 2-100 (default: $rounds)
  --verdicts-of DIR  paired: print the verdicts of the run in DIR (its
                     blocks.csv) with this harness's statistics; writes nothing
  --vcpus N          guest vCPUs, 1-8 (default: $vcpus: NAPI fits one; QEMU
                     and vhost_src then each have a host CPU)
  --allow-busy-host  run even when the host is busy (recorded)
  --rates LIST       offered pps, the same at every ring; default: FRACTIONS
                     x the capacity measured first (the median of
                     --capacity-trials stock trials at --probe-rate, at the
                     first ring; capacity.csv)
  --fractions LIST   of the capacity, each in (0, 2): above 1 an overload
                     (default: "$fractions")
  --probe-rate PPS   (default: $probe_rate)
  --capacity-trials N  stock trials the capacity is the median of, 1-9
                     (default: $capacity_trials)
  --repeats N        boots per kernel (paired) or trials per setting (boots)
                     (default: $repeats)
  --duration S       boots: seconds of traffic per trial (default: $duration)
  --interval MS      interval of the per-interval rows (default: 500 paired,
                     1000 boots)
  --rings LIST       rx_queue_size values: 256, 512 and/or 1024 (QEMU's
                     virtio-net takes powers of 2 from 256 to 1024) (default: "$rings")
  --ring N           the same, one value
  --guest-load N     N busy loops in the guest while the flood runs, 0-8
                     (default: $guest_load)
  --ndr-steps N      steps of each zero-loss rate search, 0 for none
                     (default: $ndr_steps; resolution capacity / 2^N)
  --ndr-tolerance P  drop % a trial may have and pass (default: $ndr_tolerance)
  --ndr-repeats N    searches per setting and ring (default: $ndr_repeats)
  --ndr-max PPS      top of the search (default: the measured capacity, or
                     the highest of --rates)
  --down-after S     take the guest's interface down once it received S
                     seconds' worth of frames: a guest that stops
                     refilling (a test)
  --kernel-dir DIR   boot this kernel for every setting instead of the
                     harness's two builds: a kernel build dir (yours, the
                     series applied or not: arch/x86/boot/bzImage) or the
                     output of scripts/debian-kernel.sh (vmlinuz, initrd.img,
                     build/); probes are built against it. Settings other
                     than stock need the series in it (the knobs)
  --probe NAME       run probe NAME ($VRB_PROBES): systemtap
                     (stap/NAME.stp), or NAME.bt: its bpftrace twin (stap/bpftrace/)
                     in every trial's guest; its output goes to
                     trials/ID/probe-NAME.txt and, summaries with the trial
                     named, to probe-NAME.txt
  --hypotheses FILE  a pre-registration: the run's hypotheses, primary
                     endpoint and analysis, written before it starts; taken
                     when run-b.sh starts (before it builds or measures
                     anything; run-bench.sh builds the kernels before it
                     starts run-b.sh), kept in the result dir as
                     hypotheses.txt, its sha256 in every result file's
                     metadata, and quoted in summary.md after the headline
  --out DIR          result dir (default: a new results/<date>-B-<base>)
  --check-args       check the options and exit (run-bench.sh does, before
                     building anything)
  -h, --help         this text
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--settings) [ $# -ge 2 ] || die "$1 needs a value"; settings=$2; shift 2 ;;
		--design) [ $# -ge 2 ] || die "$1 needs a value"; design=$2; shift 2 ;;
		--ref) [ $# -ge 2 ] || die "$1 needs a value"; ref=$2; shift 2 ;;
		--no-aa) no_aa=1; shift ;;
		--pool-ref) pool_ref=1; shift ;;
		--no-pool-ref) pool_ref=0; shift ;;
		--block) [ $# -ge 2 ] || die "$1 needs a value"; block=$2; shift 2 ;;
		--settle) [ $# -ge 2 ] || die "$1 needs a value"; settle=$2; shift 2 ;;
		--rounds) [ $# -ge 2 ] || die "$1 needs a value"; rounds=$2; shift 2 ;;
		--vcpus) [ $# -ge 2 ] || die "$1 needs a value"; vcpus=$2; shift 2 ;;
		--allow-busy-host) export VRB_ALLOW_BUSY_HOST=1; shift ;;
		--verdicts-of) [ $# -ge 2 ] || die "$1 needs a value"; verdicts_of=$2; shift 2 ;;
		--rates) [ $# -ge 2 ] || die "$1 needs a value"; rates=$2; shift 2 ;;
		--fractions) [ $# -ge 2 ] || die "$1 needs a value"; fractions=$2; shift 2 ;;
		--probe-rate) [ $# -ge 2 ] || die "$1 needs a value"; probe_rate=$2; shift 2 ;;
		--capacity-trials) [ $# -ge 2 ] || die "$1 needs a value"; capacity_trials=$2; shift 2 ;;
		--repeats) [ $# -ge 2 ] || die "$1 needs a value"; repeats=$2; shift 2 ;;
		--duration) [ $# -ge 2 ] || die "$1 needs a value"; duration=$2; shift 2 ;;
		--interval) [ $# -ge 2 ] || die "$1 needs a value"; interval=$2; shift 2 ;;
		--ring | --rings) [ $# -ge 2 ] || die "$1 needs a value"; rings=$2; shift 2 ;;
		--guest-load) [ $# -ge 2 ] || die "$1 needs a value"; guest_load=$2; shift 2 ;;
		--ndr-steps) [ $# -ge 2 ] || die "$1 needs a value"; ndr_steps=$2; shift 2 ;;
		--ndr-tolerance) [ $# -ge 2 ] || die "$1 needs a value"; ndr_tolerance=$2; shift 2 ;;
		--ndr-repeats) [ $# -ge 2 ] || die "$1 needs a value"; ndr_repeats=$2; shift 2 ;;
		--ndr-max) [ $# -ge 2 ] || die "$1 needs a value"; ndr_max=$2; shift 2 ;;
		--down-after) [ $# -ge 2 ] || die "$1 needs a value"; down_after=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		--hypotheses) [ $# -ge 2 ] || die "$1 needs a value"; hypotheses=$2; shift 2 ;;
		--probe) [ $# -ge 2 ] || die "$1 needs a value"; probe=$2; shift 2 ;;
		--kernel-dir) [ $# -ge 2 ] || die "$1 needs a value"; kdir=$2; shift 2 ;;
		--check-args) check_args=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	local s r f
	[ -n "$settings" ] || die "--settings is empty"
	for s in $settings; do setting_knobs "$s" >/dev/null; done
	case $design in paired | boots) ;; *) die "--design must be paired or boots, not '$design'" ;; esac
	if [ -z "$ref" ]; then
		ref=${settings%% *}
		[[ " $settings " != *" auto "* ]] || ref=auto
	fi
	[[ " $settings " == *" $ref "* ]] || die "--ref $ref is not one of the settings ($settings)"
	# shellcheck disable=SC2086 # a word list
	settings=$(with_aa "$ref" "$no_aa" $settings)
	[ "$pool_ref" != 1 ] || [ "$no_aa" = 0 ] || die "--pool-ref pools the reference with its A/A copy: not with --no-aa"
	[ "$(tr ' ' '\n' <<<"$settings" | sort | uniq -d)" = "" ] || die "--settings names a setting twice"
	check_range --block "$block" 2 600
	check_range --settle "$settle" 0 60
	[ "$settle" -lt "$block" ] || die "--settle ($settle) must be less than --block ($block)"
	check_range --rounds "$rounds" 2 100
	[ $((rounds % 2)) -eq 0 ] || die "--rounds must be even (a round and its reverse make a pair: ABBA), not $rounds"
	check_range --vcpus "$vcpus" 1 8
	[ -n "$interval" ] || { interval=1000; [ "$design" = boots ] || interval=500; }
	for r in $rates; do check_range --rates "$r" 1 100000000; done
	for f in $fractions; do
		# above 1: an overload of the measured capacity (the model's 1.1)
		[[ "$f" =~ ^(0\.[0-9]*[1-9][0-9]*|1(\.[0-9]+)?)$ ]] || die "--fractions: '$f' is not a number in (0, 2)"
	done
	check_range --probe-rate "$probe_rate" 1 100000000
	check_range --capacity-trials "$capacity_trials" 1 9
	check_range --repeats "$repeats" 1 1000
	check_range --duration "$duration" 1 3600
	check_range --interval "$interval" 10 60000
	[ -n "$rings" ] || die "--rings is empty"
	for r in $rings; do
		case $r in 256 | 512 | 1024) ;; *) die "--ring must be 256, 512 or 1024, not '$r'" ;; esac
	done
	check_range --guest-load "$guest_load" 0 8
	check_range --ndr-steps "$ndr_steps" 0 20
	if ! [[ "$ndr_tolerance" =~ ^[0-9]+(\.[0-9]+)?$ ]] ||
		! awk -v t="$ndr_tolerance" 'BEGIN { exit !(t < 100) }'; then
		die "--ndr-tolerance: '$ndr_tolerance' is not a percentage in [0, 100)"
	fi
	check_range --ndr-repeats "$ndr_repeats" 1 100
	[ -z "$ndr_max" ] || check_range --ndr-max "$ndr_max" 2 100000000
	[ -z "$down_after" ] || check_range --down-after "$down_after" 1 3600
	[ -z "$probe" ] || check_probe "$probe"
	if [ -n "$hypotheses" ]; then
		{ [ -f "$hypotheses" ] && [ -r "$hypotheses" ]; } || die "--hypotheses: cannot read $hypotheses"
		grep -q -- '[^[:space:]]' "$hypotheses" || die "--hypotheses: $hypotheses is empty"
		grep -qI -- . "$hypotheses" || die "--hypotheses: $hypotheses is not text"
		[ "$(wc -c <"$hypotheses")" -le 65536 ] || die "--hypotheses: $hypotheses is over 64 KiB"
		[ -z "$verdicts_of" ] || die "--hypotheses: a pre-registration is for a run, not for --verdicts-of"
		# taken now, before anything is built or measured: what the result
		# dir gets is the file as it was when the run began
		hyp_copy=$(mktemp "${TMPDIR:-/tmp}/vrb-hypotheses.XXXXXX")
		cp -- "$hypotheses" "$hyp_copy"
	fi
	# a unit is a boot: fewer than 3 give no interval
	[ "$design" != paired ] || [ "$repeats" -ge 3 ] ||
		warn "--repeats $repeats: a unit is a boot, so each cell has $repeats units; an interval needs 3 (bench/stats)"
	if [ -n "$kdir" ]; then
		kernel_dir_resolve
		# the results' kernel lines name this kernel, not the harness's builds
		VRB_META_KERNEL_DIR=$kdir VRB_META_KERNEL_RELEASE=$(kernel_dir_release)
		VRB_META_KERNEL_CONFIG=$kdir_build/.config
		export VRB_META_KERNEL_DIR VRB_META_KERNEL_RELEASE VRB_META_KERNEL_CONFIG
	fi
}

# setting_knobs NAME: the virtio_net knobs a setting sets (lib/workload.sh).
setting_knobs() {
	refill_knobs "$1"
}

build() {
	make -s -C "$VRB_ROOT/bench/vhost_src" BUILD="$VRB_CACHE/vhost_src" \
		"$VRB_CACHE/vhost_src/vhost_src" "$VRB_CACHE/vhost_src/rx_window" >/dev/null
}

# measure_capacity: first, the median delivered pps of --capacity-trials
# stock trials at --probe-rate on the first ring (one boot each: a
# single trial's capacity moves with that boot's stalls); their rows in
# cap_rows; rates, FRACTIONS x first, the same at every ring.
measure_capacity() {
	local ring=${rings%% *} i kv f
	for i in $(seq "$capacity_trials"); do
		log "B: measuring capacity: stock trial $i/$capacity_trials at $probe_rate pps, ring $ring"
		kv=$(trial "probe$i" stock "$ring" "$probe_rate")
		cap_rows+="${cap_rows:+$'\n'}$(trial_row "$i" stock "$ring" "$probe_rate" "$kv")"
	done
	first=$(cut -d, -f10 <<<"$cap_rows" | sort -n | awk '{ v[NR] = $1 } END { printf "%d", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
	log "B: capacity $first pps delivered (the median of $(capacity_list))"
	for f in $fractions; do rates+="$(awk -v c="$first" -v f="$f" 'BEGIN { printf "%d", c * f }') "; done
}

# capacity_list: the capacity trials' delivered pps, space-separated.
capacity_list() {
	cut -d, -f10 <<<"$cap_rows" | tr '\n' ' ' | sed 's/ $//'
}

# capacity_note: the capacity trials' delivered pps and how they were
# taken, or "-" without them (--rates).
capacity_note() {
	if [ -z "$cap_rows" ]; then
		echo -
	else
		echo "$(capacity_list) (stock trials at ring ${rings%% *} and $probe_rate pps offered; the median taken; capacity.csv)"
	fi
}

main() {
	local first='' cap_rows='' accel top busy
	parse_args "$@"
	[ -z "$check_args" ] || exit 0
	if [ -n "$verdicts_of" ]; then
		reanalyse "$verdicts_of"
		exit 0
	fi
	[ -n "$kdir" ] || kernel_check_source
	[[ " $settings " != *" ${ref}_aa "* ]] || aa=${ref}_aa
	# both copies of the reference as the reference, where there are two
	[ -n "$aa" ] || pool_ref=0
	busy=$(host_check_quiet)
	read -r cpu_vcpu cpu_other < <(host_cpus)
	if [ -z "$kdir" ]; then
		stage "kernels" "$VRB_ROOT/scripts/build-kernels.sh" --variant all
	else
		log "kernel: $kdir_image${kdir_initrd:+ with $kdir_initrd} for every setting (--kernel-dir)"
	fi
	stage "build vhost_src" build
	stage "build the statistics" stats_build
	local probed=("$settings")
	# the capacity trial (no --rates) boots the stock kernel
	[ -n "$rates" ] || probed+=(stock)
	# shellcheck disable=SC2068 # word lists
	if [ -n "$probe" ] && [ -n "$kdir" ]; then
		stage "probe $probe" build_probe_kdir
	elif [ -n "$probe" ]; then
		stage "probe $probe" build_probe_for "$probe" ${probed[@]}
	fi
	accel=$(guest_accel "$VRB_ACCEL" "${kdir_image:-$(kernel_image stock)}")
	log "accelerator: ${accel%% *} (${accel#* })"
	if [ -n "$out" ]; then out=$(results_claim "$out"); else out=$(results_new_dir B); fi
	tdir=$out/trials
	mkdir -p "$tdir"
	# the pre-registration goes in first: nothing measured yet
	if [ -n "$hyp_copy" ]; then
		mv -- "$hyp_copy" "$out/hypotheses.txt"
		chmod 644 "$out/hypotheses.txt"
		hyp_copy=''
		cmp -s -- "$hypotheses" "$out/hypotheses.txt" ||
			warn "--hypotheses: $hypotheses changed since the run began; the result dir keeps it as it was then"
	fi
	[ -n "$rates" ] || measure_capacity
	top=${ndr_max:-${first:-$(tr ' ' '\n' <<<"$rates" | sort -n | tail -n 1)}}
	meta=("workload=B (vhost_src -> vhost-user -> virtio-net rx)"
		"accel=${accel%% *} (${accel#* })" "clock=realtime" "design=$design" "settings=$settings"
		"reference=$ref" "aa_arm=${aa:-none}"
		"rates_pps=$rates" "fractions_of_capacity=$(if [ -n "$first" ]; then echo "$fractions"; else echo -; fi)" "capacity_pps=${first:-not measured}"
		"capacity_trials_pps=$(capacity_note)"
		"repeats=$repeats" "down_after_s=${down_after:-never}")
	[ "${pool_ref:-1}" != 1 ] ||
		meta+=("reference_pool=$ref and $aa: the reference is their mean per unit; the A/A row is $aa against $ref alone (the noise floor)")
	[ -z "$hypotheses" ] ||
		meta+=("hypotheses=hypotheses.txt (sha256 $(sha256_of "$out/hypotheses.txt" | cut -c1-16); taken when run-b.sh started)")
	if [ "$design" = paired ]; then
		meta+=("blocks=$rounds rounds per boot, ${block} s per block, first ${settle} s not counted"
			"windows=matched: the guest reads its counters beside its phase writes (rx_window; both writes after a wake-up); the source closes a row when the phase changes (polled every 1 ms)")
	else
		meta+=("duration_s=$duration"
			"ndr=steps $ndr_steps, tolerance ${ndr_tolerance}%, searches $ndr_repeats, top $top pps")
	fi
	meta+=("interval_ms=$interval" "rx_queue_sizes=$rings" "guest_load=$guest_load"
		"probe=${probe:-none}" "guest_vcpus=$vcpus"
		"kernel_dir=${kdir:-none (the stock and patched builds of the harness)}${kdir:+ (release $(kernel_dir_release), every setting)}"
		"host_cpus=QEMU (all threads) on $cpu_vcpu; vhost_src on $cpu_other" "host_busy_cpus_at_start=$busy"
		"guest_nic=virtio-net-pci vectors=0 (INTx; QEMU 7.2 TCG + vhost-user + MSI-X crashes)"
		"source=bench/vhost_src/vhost_src (DPDK $(pkg-config --modversion libdpdk)), burst 32, 60-byte UDP frames")
	if [ -n "$cap_rows" ]; then
		# the capacity trials are trials of their own (one boot each, no
		# phases): the run's design, windows and blocks are not theirs
		local cap_meta=() m
		for m in "${meta[@]}"; do
			case $m in design=* | windows=* | blocks=* | reference_pool=* | aa_arm=* | settings=*) ;;
			*) cap_meta+=("$m") ;;
			esac
		done
		results_csv_open "$out/capacity.csv" "$TRIAL_COLS" "${cap_meta[@]}" \
			"design=capacity trials (stock; $probe_rate pps offered; one boot each; $duration s each)"
		echo "$cap_rows" >>"$out/capacity.csv"
	fi
	if [ "$design" = paired ]; then
		paired_main
	else
		boots_main
	fi
	cat "$out/tables.txt" >&2
	out=$(results_finish "$out")
	log "B: results in $out"
}

trap 'rc=$?; rm -f -- "${hyp_copy:-/nonexistent}"; vrb_exit_report "$rc"' EXIT
main "$@"
