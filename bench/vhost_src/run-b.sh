#!/usr/bin/env bash
# Workload B (the 2019 thread "virtio-net: parameterize min ring num_free"): a paced flood into a guest's virtio-net rx queue
# over vhost-user, from vhost_src, for each refill setting and rate, the
# settings interleaved, repeated; then a zero-loss rate search per setting.
# One guest boot per trial.
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
# shellcheck source=bench/vhost_src/paired.sh
. "$VRB_ROOT/bench/vhost_src/paired.sh"

settings="stock auto legacy mn16 mn64 cap64"
design=paired
ref=''
no_aa=0
block=6
settle=1
rounds=4
vcpus=1
rates=''
fractions="0.5 0.9"
probe_rate=400000
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
meta=() tdir='' cpu_vcpu='' cpu_other='' aa='' verdicts_of='' hypotheses=''

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
             same rounds with the stock setting(s). A unit is a pair of rounds;
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
  --block S          paired: seconds per block, 2-600 (default: $block)
  --settle S         paired: seconds not counted after a switch, 0-60, less
                     than BLOCK (default: $settle)
  --rounds N         paired: rounds per boot, even, 2-100 (default: $rounds)
  --verdicts-of DIR  paired: print the verdicts of the run in DIR (its
                     blocks.csv) with this harness's statistics; writes nothing
  --vcpus N          guest vCPUs, 1-8 (default: $vcpus: NAPI fits one; QEMU
                     and vhost_src then each have a host CPU)
  --allow-busy-host  run even when the host is busy (recorded)
  --rates LIST       offered pps; default: FRACTIONS x the capacity measured
                     first (one stock trial at --probe-rate)
  --fractions LIST   of the capacity, each in (0, 2): above 1 an overload
                     (default: "$fractions")
  --probe-rate PPS   (default: $probe_rate)
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
                     endpoint and analysis, written before it starts; copied
                     to the result dir as hypotheses.txt before the first
                     boot, its sha256 in every result file's metadata, and
                     quoted at the top of summary.md
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
		--block) [ $# -ge 2 ] || die "$1 needs a value"; block=$2; shift 2 ;;
		--settle) [ $# -ge 2 ] || die "$1 needs a value"; settle=$2; shift 2 ;;
		--rounds) [ $# -ge 2 ] || die "$1 needs a value"; rounds=$2; shift 2 ;;
		--vcpus) [ $# -ge 2 ] || die "$1 needs a value"; vcpus=$2; shift 2 ;;
		--allow-busy-host) export VRB_ALLOW_BUSY_HOST=1; shift ;;
		--verdicts-of) [ $# -ge 2 ] || die "$1 needs a value"; verdicts_of=$2; shift 2 ;;
		--rates) [ $# -ge 2 ] || die "$1 needs a value"; rates=$2; shift 2 ;;
		--fractions) [ $# -ge 2 ] || die "$1 needs a value"; fractions=$2; shift 2 ;;
		--probe-rate) [ $# -ge 2 ] || die "$1 needs a value"; probe_rate=$2; shift 2 ;;
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
	[ "$(tr ' ' '\n' <<<"$settings" | sort | uniq -d)" = "" ] || die "--settings names a setting twice"
	check_range --block "$block" 2 600
	check_range --settle "$settle" 0 60
	[ "$settle" -lt "$block" ] || die "--settle ($settle) must be less than --block ($block)"
	check_range --rounds "$rounds" 2 100
	[ $((rounds % 2)) -eq 0 ] || die "--rounds must be even (a round and its reverse make a unit), not $rounds"
	check_range --vcpus "$vcpus" 1 8
	[ -n "$interval" ] || { interval=1000; [ "$design" = boots ] || interval=500; }
	for r in $rates; do check_range --rates "$r" 1 100000000; done
	for f in $fractions; do
		# above 1: an overload of the measured capacity (the model's 1.1)
		[[ "$f" =~ ^(0\.[0-9]*[1-9][0-9]*|1(\.[0-9]+)?)$ ]] || die "--fractions: '$f' is not a number in (0, 2)"
	done
	check_range --probe-rate "$probe_rate" 1 100000000
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
		grep -q '[^[:space:]]' "$hypotheses" || die "--hypotheses: $hypotheses is empty"
	fi
	if [ -n "$kdir" ]; then
		kernel_dir_resolve
		# the results' kernel lines name this kernel, not the harness's builds
		VRB_META_KERNEL_DIR=$kdir VRB_META_KERNEL_RELEASE=$(kernel_dir_release)
		VRB_META_KERNEL_CONFIG=$kdir_build/.config
		export VRB_META_KERNEL_DIR VRB_META_KERNEL_RELEASE VRB_META_KERNEL_CONFIG
	fi
}

# kernel_dir_resolve: the image, initramfs and build dir of --kernel-dir.
kernel_dir_resolve() {
	[ -d "$kdir" ] || die "--kernel-dir: no directory $kdir"
	kdir=$(readlink -f "$kdir")
	if [ -f "$kdir/vmlinuz" ]; then
		kdir_image=$kdir/vmlinuz
	elif [ -f "$kdir/arch/x86/boot/bzImage" ]; then
		kdir_image=$kdir/arch/x86/boot/bzImage
	else
		die "--kernel-dir $kdir: no vmlinuz (scripts/debian-kernel.sh's output) and no arch/x86/boot/bzImage (a build dir)"
	fi
	[ ! -f "$kdir/initrd.img" ] || kdir_initrd=$kdir/initrd.img
	kdir_build=$kdir
	[ ! -d "$kdir/build" ] || kdir_build=$(readlink -f "$kdir/build")
}

# kernel_dir_release: --kernel-dir's kernel release (uname -r).
kernel_dir_release() {
	local f
	for f in "$kdir/release" "$kdir_build/include/config/kernel.release"; do
		[ ! -s "$f" ] || { head -n 1 "$f"; return 0; }
	done
	echo unknown
}

# guest_kernel_opts KERNEL: guest-run.sh's options booting KERNEL (stock or
# patched), or --kernel-dir's kernel, one per line.
guest_kernel_opts() {
	if [ -n "$kdir" ]; then
		printf '%s\n' --kernel "$kdir_image"
		[ -z "$kdir_initrd" ] || printf '%s\n' --initrd "$kdir_initrd"
	else
		printf '%s\n' --kernel "$1"
	fi
}

# b_probe_file KERNEL: what the guest loads for --probe.
b_probe_file() {
	if [ -n "$kdir_probe" ]; then echo "$kdir_probe"; else probe_file "$probe" "$1"; fi
}

# build_probe_kdir: --probe for --kernel-dir's kernel.
build_probe_kdir() {
	if [ "$probe" = "${probe%.bt}" ]; then
		kdir_probe=$("$VRB_ROOT/stap/build.sh" --kernel-dir "$kdir_build" "$probe")
	else
		bt_probe_check "$probe" "$kdir_build" "the kernel in $kdir"
		kdir_probe=$(bt_script "$probe" "$kdir_build/System.map")
	fi
}

# setting_knobs NAME: the virtio_net knobs a setting sets (lib/workload.sh).
setting_knobs() {
	refill_knobs "$1"
}

build() {
	make -s -C "$VRB_ROOT/bench/vhost_src" BUILD="$VRB_CACHE/vhost_src" \
		"$VRB_CACHE/vhost_src/vhost_src" >/dev/null
}

# trial ID SETTING RING RATE [DOWN_FRAMES]: one guest boot with the flood;
# prints the trial's key=value lines (source totals and guest counters).
trial() {
	local id=$1 setting=$2 ring=$3 rate=$4 down=${5:-} dir sock src_pid rc=0 gargs=() load1
	load1=$(host_load1)
	dir=$tdir/$id
	mkdir -p "$dir"
	sock=$dir/vu.sock
	"$VRB_CACHE/vhost_src/vhost_src" --socket "$sock" --rate "$rate" --duration "$duration" \
		--interval "$interval" --out "$dir/intervals.csv" --wait 300 --lcore "$cpu_other" \
		>"$dir/source.log" 2>&1 &
	src_pid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ] || { cat "$dir/source.log" >&2; die "vhost_src did not create $sock"; }
	gargs=(--load "$guest_load")
	[ -z "$down" ] || gargs+=(--down "$down" "$duration")
	[ -z "$probe" ] || gargs+=(--probe "$(b_probe_file "$(setting_kernel "$setting")")")
	b_guest "$(setting_kernel "$setting")" "$dir" "$sock" "$ring" $((duration + 300)) \
		-- "$VRB_ROOT/bench/vhost_src/guest-rx.sh" "${gargs[@]}" "$(setting_knobs "$setting")" $((duration + 120)) \
		>"$dir/guest.log" 2>&1 || rc=$?
	# a failed guest never ends the flood (vhost_src would wait for it)
	[ "$rc" -eq 0 ] || kill "$src_pid" 2>/dev/null || true
	wait "$src_pid" || true
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$dir/guest.log" >&2
		die "trial $id ($setting, ring $ring, $rate pps): the guest failed (status $rc); see $dir"
	fi
	if [ -n "$probe" ]; then
		sed -n 's/^probe\[rx\] //p' "$dir/guest.log" >"$dir/probe-$probe.txt"
		probe_summary "$probe" "$dir/probe-$probe.txt" | sed "s/^/trial=$id /" >>"$out/probe-$probe.txt"
	fi
	echo "host_load1=$load1"
	sed -n 's/^vhost_src: totals: offered=\([0-9]*\) delivered=\([0-9]*\) dropped=\([0-9]*\) seconds=\([0-9.]*\).*/offered=\1\ndelivered=\2\ndropped=\3\nseconds=\4/p' "$dir/source.log"
	grep -E '^(guest_|knob_)[a-z0-9_]*=' "$dir/guest.log" || true
}

# b_guest KERNEL DIR SOCKET RING TIMEOUT -- COMMAND...: a guest on KERNEL
# whose virtio-net device (rx_queue_size RING) is served over vhost-user
# at SOCKET, running COMMAND; its files in DIR/guest. QEMU, all of it, on
# one host CPU, vhost_src on the other: with QEMU's main loop (which
# delivers the device's interrupts) beside vhost_src instead, auto dropped
# 16.8 % of 100 kpps instead of about 8 % (/tmp runs of this session, 8 and
# 6 rounds).
b_guest() {
	local kernel=$1 dir=$2 sock=$3 ring=$4 timeout=$5 kopts
	shift 6
	mapfile -t kopts < <(guest_kernel_opts "$kernel")
	# vectors=0: QEMU 7.2 under TCG crashes starting vhost-user with MSI-X
	# (msix_set_vector_notifiers); INTx works.
	"$VRB_ROOT/scripts/guest-run.sh" "${kopts[@]}" --run-dir "$dir/guest" \
		--vcpus "$vcpus" --host-cpus "$cpu_vcpu" --timeout "$timeout" \
		--qemu-arg -chardev --qemu-arg "socket,id=vu0,path=$sock" \
		--qemu-arg -netdev --qemu-arg "vhost-user,id=n0,chardev=vu0" \
		--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n0,rx_queue_size=$ring,vectors=0,romfile=" \
		-- "$@"
}

# The columns of trials.csv and ndr_trials.csv (new ones go at the end).
TRIAL_COLS="repeat,setting,kernel,knobs,rate_pps,offered,delivered,dropped,drop_pct,delivered_pps,guest_rx_packets,refills,refill_bufs,starved_polls,rx_queue_size,guest_load,starvations,refill_oom,host_load1"

# trial_row REPEAT SETTING RING RATE KV: a trials.csv row from trial's output.
trial_row() {
	local kv=$5 o d x s
	o=$(kv_line "$kv" offered)
	d=$(kv_line "$kv" delivered)
	x=$(kv_line "$kv" dropped)
	s=$(kv_line "$kv" seconds)
	if [ -z "$o" ] || [ -z "$d" ]; then die "trial ($2, ring $3, $4 pps): no totals from vhost_src"; fi
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$1" "$2" "$(setting_kernel "$2")" \
		"$(setting_knobs "$2" | tr ' ' ';')" "$4" "$o" "$d" "$x" \
		"$(awk -v o="$o" -v x="$x" 'BEGIN { printf "%.4f", o ? 100 * x / o : 0 }')" \
		"$(awk -v d="$d" -v s="$s" 'BEGIN { printf "%.0f", s ? d / s : 0 }')" \
		"$(kv_line "$kv" guest_rx_packets)" "$(kv_line "$kv" guest_rxq0_refills)" \
		"$(kv_line "$kv" guest_rxq0_refill_bufs)" "$(kv_line "$kv" guest_rxq0_starved_polls)" \
		"$3" "$guest_load" "$(kv_line "$kv" guest_rxq0_starvations)" "$(kv_line "$kv" guest_rxq0_refill_oom)" \
		"$(kv_line "$kv" host_load1)"
}

kv_line() {
	sed -n "s/^$2=//p" <<<"$1" | head -n 1
}

# run_trial ID REPEAT SETTING RING RATE CSV [DOWN_FRAMES]: a trial, its row
# appended to CSV; prints the row.
run_trial() {
	local kv row
	kv=$(trial "$1" "$3" "$4" "$5" "${7:-}")
	row=$(trial_row "$2" "$3" "$4" "$5" "$kv")
	echo "$row" >>"$6"
	echo "$row"
}

# summary TRIALS: medians per (setting, ring, rate): drop %, delivered pps,
# mean drops per interval; and the drop % and delivered pps as ratios to
# stock at the same ring and rate.
summary() {
	grep -v '^#' "$1" | tail -n +2 | sort -t, -k2,2 -k15,15n -k5,5n |
		awk -F, -v ivs="$(awk -v d="$duration" -v i="$interval" 'BEGIN { print d * 1000 / i }')" '
		function isort(a, n,  i, j, t) {
			for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		}
		function med(a, n) { isort(a, n); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		function flush() {
			if (!n) return
			dp[key] = med(p, n); dv[key] = med(v, n); dd[key] = med(x, n) / ivs; runs[key] = n
			keys[++nk] = key
		}
		{ k = $2","$15","$5; if (k != key) { flush(); key = k; n = 0 }
		  p[++n] = $9 + 0; v[n] = $10 + 0; x[n] = $8 + 0 }
		END {
			flush()
			for (i = 1; i <= nk; i++) {
				split(keys[i], f, ","); s = "stock," f[2] "," f[3]
				printf "%s,%d,%.4f,%.1f,%.0f,%s,%s\n", keys[i], runs[keys[i]], dp[keys[i]], dd[keys[i]], dv[keys[i]],
					(s in dp && dp[s] > 0) ? sprintf("%.3f", dp[keys[i]] / dp[s]) : "",
					(s in dv && dv[s] > 0) ? sprintf("%.3f", dv[keys[i]] / dv[s]) : ""
			}
		}'
}

# ndr_search TOP: the zero-loss rate searches, every setting and ring
# stepping together (one trial each per step, settings rotated per step);
# rows to ndr_trials.csv and ndr.csv.
ndr_search() {
	local top=$1 q step ring s rate row pct n=0 total t0
	declare -A lo hi
	t0=$(now)
	total=$((ndr_repeats * ndr_steps * $(wc -w <<<"$rings") * $(wc -w <<<"$settings")))
	for q in $(seq "$ndr_repeats"); do
		for ring in $rings; do for s in $settings; do lo[$s,$ring]=0 hi[$s,$ring]=$top; done; done
		for step in $(seq "$ndr_steps"); do
			for ring in $rings; do
				# shellcheck disable=SC2086 # word lists
				for s in $(rotate $((step + q)) $settings); do
					n=$((n + 1))
					rate=$(((lo[$s,$ring] + hi[$s,$ring]) / 2))
					log "B: zero-loss search $n/$total: search $q step $step, $s, ring $ring, $rate pps$(progress_eta $((n - 1)) "$total" "$t0")"
					row=$(run_trial "ndr$q-$step-$s-$ring" "$q" "$s" "$ring" "$rate" "$out/ndr_trials.csv")
					pct=$(cut -d, -f9 <<<"$row")
					if awk -v p="$pct" -v t="$ndr_tolerance" 'BEGIN { exit !(p <= t) }'; then
						lo[$s,$ring]=$rate
					else
						hi[$s,$ring]=$rate
					fi
				done
			done
		done
		for ring in $rings; do for s in $settings; do
			echo "$q,$s,$ring,${lo[$s,$ring]},${hi[$s,$ring]},$ndr_tolerance,$ndr_steps,$top" >>"$out/ndr.csv"
		done; done
	done
}

# tables: tables.txt from the CSVs: the 2019 thread's per-interval drop table per
# ring and rate (mean drops per interval over the repeats, one column per
# setting), the summary, and the zero-loss rates, as ratios to stock.
tables() {
	{
		echo "Workload B: $(sed -n 's/^# command: //p' "$out/trials.csv")"
		echo "accelerator: $(sed -n 's/^# accel: //p' "$out/trials.csv"); guest load: $guest_load busy loops"
		echo
		grep -v '^#' "$out/intervals.csv" | tail -n +2 | awk -F, -v settings="$settings" -v ms="$interval" '
			BEGIN { ns = split(settings, S, " "); w = 14; for (s = 1; s <= ns; s++) if (length(S[s]) > w) w = length(S[s]) }
			{ t = $1 "," $2 "," $3 "," $11; i = ++idx[t]; k = $11 "," $3
			  if (!(k in seen)) { seen[k] = 1; K[++nk] = k }
			  sum[k, i, $2] += $7; cnt[k, i, $2]++; if (i > maxi[k]) maxi[k] = i }
			END {
				for (a = 1; a <= nk; a++) {
					split(K[a], f, ",")
					printf "rx_queue_size %s, %s pps offered: drops per %d ms interval, mean over repeats\n", f[1], f[2], ms
					printf "%-9s", "interval"
					for (s = 1; s <= ns; s++) printf " %" w "s", S[s]
					printf " %9s\n", "pps"
					for (i = 1; i <= maxi[K[a]]; i++) {
						printf "%-9d", i
						for (s = 1; s <= ns; s++)
							printf " %" w "s", cnt[K[a], i, S[s]] ? sprintf("%.1f", sum[K[a], i, S[s]] / cnt[K[a], i, S[s]]) : "-"
						printf " %9s\n", f[2]
					}
					print ""
				}
			}'
		echo "Medians per setting (drop % and delivered pps as ratios to stock at the same ring and rate):"
		grep -v '^#' "$out/summary.csv" | column -t -s,
		if [ -s "$out/ndr.csv" ]; then
			echo
			echo "Zero-loss rate (drop % <= $ndr_tolerance, $ndr_steps-step binary search; median over $ndr_repeats search(es)), ratio to stock:"
			grep -v '^#' "$out/ndr.csv" | tail -n +2 | sort -t, -k2,2 -k3,3n | awk -F, '
				function isort(a, n,  i, j, t) {
					for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
				}
				function med(a, n) { isort(a, n); return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
				function flush() { if (n) { m[key] = med(v, n); K[++nk] = key; all[key] = list } }
				{ k = $2 "," $3; if (k != key) { flush(); key = k; n = 0; list = "" }
				  v[++n] = $4; list = list (list ? " " : "") $4 }
				END {
					flush()
					printf "%-10s %6s %10s %10s  %s\n", "setting", "ring", "ndr_pps", "vs_stock", "searches"
					for (i = 1; i <= nk; i++) {
						split(K[i], f, ","); s = "stock," f[2]
						printf "%-10s %6s %10.0f %10s  %s\n", f[1], f[2], m[K[i]],
							(s in m && m[s] > 0) ? sprintf("%.3f", m[K[i]] / m[s]) : "-", all[K[i]]
					}
				}'
		fi
	} >"$out/tables.txt"
}

# boots_verdicts: verdicts.csv for the boots design: per ring and rate
# (the metric named with its cell), a unit is a repeat (b_cell_verdicts,
# which the report uses too).
boots_verdicts() {
	local ring rate
	while read -r ring rate; do
		b_cell_verdicts "$out/trials.csv" "$ref" "$aa" "$ring" "$rate" | cell_label "r$ring $rate"
	done < <(b_cells "$out/trials.csv") >>"$out/verdicts.csv"
}

# boots_main: the boots design: one boot per trial; then the searches.
boots_main() {
	local r s rate ring n=0 total id t0
	t0=$(now)
	results_csv_open "$out/trials.csv" "$TRIAL_COLS" "${meta[@]}"
	results_csv_open "$out/intervals.csv" "repeat,setting,rate_pps,t_s,offered,delivered,dropped,avail_min,avail_mean,phase,rx_queue_size" "${meta[@]}"
	total=$((repeats * $(wc -w <<<"$settings") * $(wc -w <<<"$rates") * $(wc -w <<<"$rings")))
	for r in $(seq "$repeats"); do
		# rotate the settings so that none always runs first
		# shellcheck disable=SC2086 # word list
		for s in $(rotate "$r" $settings); do for ring in $rings; do for rate in $rates; do
			n=$((n + 1))
			id=r$r-$s-$ring-$rate
			log "B: trial $n/$total: repeat $r, $s, ring $ring, $rate pps$(progress_eta $((n - 1)) "$total" "$t0")"
			run_trial "$id" "$r" "$s" "$ring" "$rate" "$out/trials.csv" \
				${down_after:+$((down_after * rate))} >/dev/null
			tail -n +2 "$tdir/$id/intervals.csv" | sed "s/^/$r,$s,$rate,/; s/\$/,$ring/" >>"$out/intervals.csv"
		done; done; done
	done
	results_csv_open "$out/summary.csv" \
		"setting,rx_queue_size,rate_pps,runs,median_drop_pct,median_drops_per_interval,median_delivered_pps,drop_pct_over_stock,delivered_over_stock" \
		"${meta[@]}"
	summary "$out/trials.csv" >>"$out/summary.csv"
	results_csv_open "$out/verdicts.csv" "$STATS_COLS" "${meta[@]}" "unit=repeat (per ring and rate)"
	boots_verdicts
	if [ "$ndr_steps" -gt 0 ]; then
		results_csv_open "$out/ndr_trials.csv" "$TRIAL_COLS" "${meta[@]}"
		results_csv_open "$out/ndr.csv" "search,setting,rx_queue_size,ndr_pps,first_fail_pps,tolerance_pct,steps,top_pps" "${meta[@]}"
		ndr_search "$top"
	fi
	tables
	{
		echo
		echo "Against $ref, paired by repeat (95 % Fieller intervals; ${aa:-no A/A arm}: the A/A arm, the noise floor):"
		stats_table "$out/verdicts.csv"
	} >>"$out/tables.txt"
	log "B: $n trials"
}

# reanalyse DIR: the verdicts of a paired run, recomputed from its blocks.csv.
reanalyse() {
	[ -f "$1/blocks.csv" ] || die "--verdicts-of: no $1/blocks.csv (a paired run's result dir)"
	ref=$(sed -n 's/^# reference: //p' "$1/blocks.csv")
	aa=$(sed -n 's/^# aa_arm: //p' "$1/blocks.csv")
	[ -n "$ref" ] || die "--verdicts-of: $1/blocks.csv names no reference"
	[ "$aa" != none ] || aa=''
	stats_build
	out=$(mktemp -d)
	cp "$1/blocks.csv" "$out/"
	echo "$STATS_COLS" >"$out/verdicts.csv"
	paired_verdicts
	echo "Verdicts of $1, recomputed with $(git -C "$VRB_ROOT" rev-parse --short HEAD 2>/dev/null || echo this tree):"
	stats_table "$out/verdicts.csv"
	rm -rf "$out"
}

main() {
	local kv first accel top busy
	parse_args "$@"
	[ -z "$check_args" ] || exit 0
	if [ -n "$verdicts_of" ]; then
		reanalyse "$verdicts_of"
		exit 0
	fi
	[ -n "$kdir" ] || kernel_check_source
	[[ " $settings " != *" ${ref}_aa "* ]] || aa=${ref}_aa
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
	[ -z "$hypotheses" ] || cp "$hypotheses" "$out/hypotheses.txt"
	if [ -z "$rates" ]; then
		ring=${rings%% *}
		log "B: measuring capacity: one stock trial at $probe_rate pps, ring $ring"
		kv=$(trial probe stock "$ring" "$probe_rate")
		first=$(trial_row 0 stock "$ring" "$probe_rate" "$kv" | cut -d, -f10)
		log "B: capacity $first pps delivered"
		for s in $fractions; do rates+="$(awk -v c="$first" -v f="$s" 'BEGIN { printf "%d", c * f }') "; done
	fi
	top=${ndr_max:-${first:-$(tr ' ' '\n' <<<"$rates" | sort -n | tail -n 1)}}
	meta=("workload=B (vhost_src -> vhost-user -> virtio-net rx)"
		"accel=${accel%% *} (${accel#* })" "clock=realtime" "design=$design" "settings=$settings"
		"reference=$ref" "aa_arm=${aa:-none}"
		"rates_pps=$rates" "fractions_of_capacity=${first:+$fractions}${first:--}" "capacity_pps=${first:-not measured}"
		"repeats=$repeats" "down_after_s=${down_after:-never}")
	[ -z "$hypotheses" ] ||
		meta+=("hypotheses=hypotheses.txt (sha256 $(sha256_of "$out/hypotheses.txt" | cut -c1-16); copied before the first boot)")
	if [ "$design" = paired ]; then
		meta+=("blocks=$rounds rounds per boot, ${block} s per block, first ${settle} s not counted")
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
	if [ "$design" = paired ]; then
		paired_main
	else
		boots_main
	fi
	cat "$out/tables.txt" >&2
	out=$(results_finish "$out")
	log "B: results in $out"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
