#!/usr/bin/env bash
# The benchmark suite: builds the stock and patched kernels, boots QEMU
# guests on them, runs the workloads and writes the results to results/.
set -euo pipefail
VRB_PROG="run-bench.sh"
export VRB_COMMAND_LINE="${VRB_COMMAND_LINE:-$(printf '%q' "$0"; printf ' %q' "$@")}"
# --base picks the kernel base, which lib/parameters.sh reads (VRB_BASE) when
# it is loaded: taken out of the arguments before that, and passed on to
# every script this one runs.
args=()
while [ $# -gt 0 ]; do
	case $1 in
	--base)
		[ $# -ge 2 ] || { echo "$VRB_PROG: error: --base needs a value" >&2; exit 1; }
		export VRB_BASE=$2
		shift 2
		;;
	--) args+=("$@"); break ;;
	*) args+=("$1"); shift ;;
	esac
done
set -- "${args[@]}"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/results.sh
. "$VRB_ROOT/lib/results.sh"
# shellcheck source=lib/workload.sh
. "$VRB_ROOT/lib/workload.sh"
# shellcheck source=bench/profiles.sh
. "$VRB_ROOT/bench/profiles.sh"

WORKLOADS="boot ptr_ring A B C model"
# What runs when no workload is named (model takes workload B's boots again).
DEFAULT_WORKLOADS="boot ptr_ring A B C"
# C needs the generator aid (patches/BASE/aids/), which not every base has
[ -n "$(series_aids "$VRB_PATCHES")" ] || DEFAULT_WORKLOADS="boot ptr_ring A B"
# Workloads that boot guests (and so need the kernels built).
GUEST_WORKLOADS="boot A B C model"

usage() {
	cat <<EOF
Usage: ./run-bench.sh [options] [WORKLOAD...] [-- WORKLOAD-OPTIONS]
       ./run-bench.sh summary DIR        (bench/report/summary.sh --help)
       ./run-bench.sh compare OLD NEW    (bench/report/compare-runs.sh --help)

Installs the packages it needs (as root; scripts/install-deps.sh), builds
the stock and patched guest kernels (incrementally), then runs each
WORKLOAD on both, interleaved, and writes CSV files with their metadata to
results/<date>-<workload>-<base>[-<profile>-step<N>]/, with a summary.md (the tables in the seeds'
shapes, every setting against the reference with its 95 % interval and
verdict, the A/A noise floor, the verdicts in words) and its plots.

With no WORKLOAD, runs a profile (bench/profiles.sh): quick (the default:
every workload with few settings and repeats, about 45 minutes once the
kernels are built) or full (--profile full: the threads' tables, many hours).

Workloads (default: $DEFAULT_WORKLOADS):
  boot      boot each kernel, run a command, power off; times boot-to-command
  ptr_ring  the kernel's ptr_ring.h (stock and patched) in userspace: items/s
            and producer-full events (drops, in drop mode) for mode x consumer
            work x ring size x zeroing batch x consumer batch, with an A/A
            arm (the stock binary run again) (bench/ptr_ring/sweep.sh,
            whose --help lists the axes; --repeats applies)
  A         workload A: pktgen -> tap -> vhost-net -> a userspace vhost-net
            driver, in the guest (bench/vhost_drv/run-a.sh, whose --help
            lists the settings): pktgen pps, tap drops and the mean vhost
            batch per vhost rx batch, zeroing batch and tx_queue_len, stock
            against patched; settings inside one boot, in virtual time
            (icount) under TCG; verdicts against b64 with an A/A arm
            (--repeats applies)
  B         workload B: a paced flood into the guest's virtio-net rx queue
            over vhost-user (bench/vhost_src/run-b.sh, whose --help lists
            the settings): drops, refills and starved polls per refill
            setting; paired design: the setting switched between blocks of
            one flood, verdicts against auto with an A/A arm (--repeats:
            boots per kernel)
  C         workload C: the guest's own virtio_net rx path in virtual time:
            an rx generator in the guest's software vDPA net device offers
            frames at fractions of the guest's capacity with seeded jitter
            and seeded stalls, and counts each delivered or dropped
            (bench/vdpa_gen/run-c.sh, whose --help lists the options):
            drops, refills and starved polls per refill setting, ring, rate
            and stall regime; units are seeds, verdicts against auto with an
            A/A arm on its own seeds (not --repeats: --seeds after --)
  model     the rx ring model (bench/ringsim/run-model.sh, whose --help
            lists its options): workload B with the rx_costs probe, the
            model's costs and stalls fitted per boot, the model against the
            guest per setting, and a projection to a hardware-speed guest
            (assumed costs and stalls: a model, not a measurement); not run
            unless named

Options:
  --base B           the kernel base: ${VRB_BASES// /, } (default 6.1): Debian's
                     linux-source-B and the series in patches/B/
  --profile P        ${PROFILES// /, }: run its steps (only those of the WORKLOADs
                     named, if any); not with -- WORKLOAD-OPTIONS or --repeats
  --steps LIST       only these of the profile's steps (numbers, as --dry-run
                     lists them; a long profile can run in parts)
  --dry-run          print the profile's steps (number, expected minutes,
                     workload and options), their total, and whether the
                     kernels are built yet, then exit
  --variants LIST    kernels to compare, space-separated (default: "$VRB_VARIANTS")
  --repeats N        interleaved repeats per kernel or header (default: 1 for
                     boot, 5 for ptr_ring)
  --vcpus N          guest vCPUs (default: $VRB_GUEST_VCPUS)
  --mem MIB          guest memory (default: $VRB_GUEST_MEM)
  --accel A          auto, kvm or tcg (default: $VRB_ACCEL)
  --results DIR      where result dirs go (default: $VRB_RESULTS)
  --kernel-flavour F base (default) or debug: the same stock and patched trees
                     built with KASAN, lockdep, atomic-sleep and hung-task
                     checks (guest-config/kernel-debug.config); any kernel
                     splat in a guest's console fails the run (its lines are
                     saved in the run dir's "splats"). Rates on a debug kernel
                     are not benchmarks
  --allow-busy-host  run the workloads even when the host is busy (they refuse
                     otherwise; recorded in the results)
  --probe NAME       run systemtap probe NAME (stap/NAME.stp) in the guests
                     of workloads A and B, its output next to their results
                     ($VRB_PROBES); NAME.bt runs its bpftrace twin
                     (stap/bpftrace/NAME.bt) instead
  -h, --help         this text

WORKLOAD-OPTIONS after "--" go to the one workload named (ptr_ring, A, B, C or model),
e.g. ./run-bench.sh B -- --rings 256 --settings "stock legacy mn64"

Under TCG (no usable KVM) absolute rates mean little: compare the kernels
and settings of one run against each other. Each A and B run's
verdicts.csv does: every setting against a reference, paired, with a 95 %
Fieller interval, the A/A arm's interval (the noise floor) and a verdict.
--vcpus and --mem apply to the boot workload; A and B choose their own
(1 vCPU: see their --help).
EOF
}

variants=$VRB_VARIANTS repeats='' vcpus=$VRB_GUEST_VCPUS mem=$VRB_GUEST_MEM
accel=$VRB_ACCEL
workloads=()
workload_args=()
profile='' dry_run='' only_steps=''
have_dashdash=
workload_probe=()
probe=''
declare -A build_wall

parse_args() {
	local v
	while [ $# -gt 0 ]; do
		case $1 in
		--variants) [ $# -ge 2 ] || die "$1 needs a value"; variants=$2; shift 2 ;;
		--repeats) [ $# -ge 2 ] || die "$1 needs a value"; repeats=$2; shift 2 ;;
		--vcpus) [ $# -ge 2 ] || die "$1 needs a value"; vcpus=$2; shift 2 ;;
		--mem) [ $# -ge 2 ] || die "$1 needs a value"; mem=$2; shift 2 ;;
		--accel) [ $# -ge 2 ] || die "$1 needs a value"; accel=$2; shift 2 ;;
		--results) [ $# -ge 2 ] || die "$1 needs a value"; VRB_RESULTS=$2; shift 2 ;;
		--probe) [ $# -ge 2 ] || die "$1 needs a value"; probe=$2; shift 2 ;;
		--profile) [ $# -ge 2 ] || die "$1 needs a value"; profile=$2; shift 2 ;;
		--dry-run) dry_run=1; shift ;;
		--steps) [ $# -ge 2 ] || die "$1 needs a value"; only_steps=$2; shift 2 ;;
		--kernel-flavour)
			[ $# -ge 2 ] || die "$1 needs a value"
			export VRB_KERNEL_FLAVOUR=$2
			kernel_flavour >/dev/null
			shift 2
			;;
		--allow-busy-host) export VRB_ALLOW_BUSY_HOST=1; shift ;;
		-h | --help) usage; exit 0 ;;
		--)
			shift
			workload_args=("$@")
			have_dashdash=1
			break
			;;
		-*) usage >&2; die "unknown option '$1'" ;;
		*)
			case " $WORKLOADS " in
			*" $1 "*) workloads+=("$1") ;;
			*) die "unknown workload '$1' (known: $WORKLOADS)" ;;
			esac
			shift
			;;
		esac
	done
	if [ -n "$profile" ]; then
		case " $PROFILES " in
		*" $profile "*) ;;
		*) die "unknown profile '$profile' (known: $PROFILES)" ;;
		esac
		[ -z "$have_dashdash" ] || die "--profile sets the workloads' options: no -- WORKLOAD-OPTIONS with it"
	elif [ "${#workloads[@]}" -eq 0 ]; then
		profile=quick
	fi
	[ -z "$profile" ] || [ -z "$repeats" ] ||
		die "the $profile profile sets the repeats: no --repeats with it (name a WORKLOAD to set them)"
	[ -z "$dry_run" ] || [ -n "$profile" ] || die "--dry-run prints a profile's steps: name no workload, or give --profile"
	[ -z "$only_steps" ] || [ -n "$profile" ] || die "--steps picks a profile's steps: name no workload, or give --profile"
	if [ "${#workload_args[@]}" -gt 0 ]; then
		case "${workloads[*]}" in
		ptr_ring | A | B | C | model) ;;
		*) die "options after -- need exactly one workload that takes them (ptr_ring, A, B, C or model)" ;;
		esac
		workload_script "${workloads[0]}" --check-args "${workload_args[@]}"
	fi
	if [[ " ${workloads[*]} " == *" C "* ]]; then
		[ -z "$repeats" ] || die "C: its units are seeds: give --seeds N after -- (run-c.sh --help), not --repeats"
		[ -z "$probe" ] || die "C: --probe is not for C: its cost pass runs rx_costs on its own (--cost-probe NAME after --, run-c.sh --help)"
	fi
	[ "${#workloads[@]}" -gt 0 ] || read -ra workloads <<<"$DEFAULT_WORKLOADS"
	if [ -n "$probe" ]; then
		check_probe "$probe"
		workload_probe=(--probe "$probe")
	fi
	[ -z "$repeats" ] || check_range --repeats "$repeats" 1 1000
	check_range --vcpus "$vcpus" 1 8
	check_range --mem "$mem" 256 1048576
	case $accel in auto | kvm | tcg) ;; *) die "unknown accelerator '$accel' (auto, kvm or tcg)" ;; esac
	[ -n "$variants" ] || die "--variants is empty"
	for v in $variants; do
		case " $VRB_VARIANTS " in
		*" $v "*) ;;
		*) die "unknown kernel variant '$v' (known: $VRB_VARIANTS)" ;;
		esac
	done
	VRB_RESULTS=$(mkdir -p "$VRB_RESULTS" && cd "$VRB_RESULTS" && pwd)
}

build_kernels() {
	local v t0
	for v in $variants; do
		t0=$(date +%s)
		"$VRB_ROOT/scripts/build-kernels.sh" --variant "$v"
		build_wall[$v]=$(($(date +%s) - t0))
	done
}

# guest VARIANT RUNDIR CMD...: run CMD in a guest of VARIANT, files in RUNDIR.
guest() {
	local v=$1 dir=$2
	shift 2
	"$VRB_ROOT/scripts/guest-run.sh" --kernel "$v" --vcpus "$vcpus" --mem "$mem" \
		--accel "$accel" --run-dir "$dir" -- "$@"
}

# workload_script NAME ARGS...: run the script of workload NAME.
workload_script() {
	case $1 in
	ptr_ring) "$VRB_ROOT/bench/ptr_ring/sweep.sh" "${@:2}" ;;
	A) "$VRB_ROOT/bench/vhost_drv/run-a.sh" "${@:2}" ;;
	B) "$VRB_ROOT/bench/vhost_src/run-b.sh" "${@:2}" ;;
	C) "$VRB_ROOT/bench/vdpa_gen/run-c.sh" "${@:2}" ;;
	model) "$VRB_ROOT/bench/ringsim/run-model.sh" "${@:2}" ;;
	*) die "workload $1 has no script" ;;
	esac
}

workload_ptr_ring() {
	local r=${repeats:-5}
	[ "$r" -ge 5 ] || warn "ptr_ring: --repeats $r is below 5: the tables want medians of 5 runs or more"
	workload_script ptr_ring --repeats "$r" "${workload_args[@]}"
}

workload_A() {
	local r=${repeats:-5}
	[ "$r" -ge 5 ] || warn "A: --repeats $r is below 5: the tables want medians of 5 runs or more"
	workload_script A --repeats "$r" "${workload_probe[@]}" "${workload_args[@]}"
}

workload_B() {
	local r=${repeats:-5}
	[ "$r" -ge 5 ] || warn "B: --repeats $r is below 5: the tables want medians of 5 runs or more"
	workload_script B --repeats "$r" "${workload_probe[@]}" "${workload_args[@]}"
}

workload_C() {
	workload_script C "${workload_args[@]}"
}

workload_model() {
	[ -z "$probe" ] || die "model: the probe is rx_costs; give other B options after -- (run-model.sh --help)"
	[ -z "$repeats" ] || die "model: give B's --repeats after --: ./run-bench.sh model -- -- --repeats N (run-model.sh --help)"
	workload_script model "${workload_args[@]}"
}

workload_boot() {
	local dir csv r v run accel_used=''
	dir=$(results_new_dir boot)
	csv=$dir/boot.csv
	mkdir -p "$dir/runs"
	for r in $(seq "${repeats:-1}"); do
		for v in $variants; do
			run=$dir/runs/$v-$r
			guest "$v" "$run" uname -rv >/dev/null
			accel_used=$(kv_get "$run/timing" accel)
			if [ ! -f "$csv" ]; then
				results_csv_open "$csv" \
					"repeat,variant,release,boot_to_command_s,guest_uptime_at_command_s,total_s" \
					"workload=boot" "accel=$accel_used ($(kv_get "$run/timing" accel_reason))" \
					"vcpus=$vcpus" "mem_mib=$mem" "repeats=${repeats:-1}"
			fi
			printf '%s,%s,%s,%s,%s,%s\n' "$r" "$v" \
				"$(kv_get "$(kernel_build_info "$v")" release)" \
				"$(kv_get "$run/timing" boot_seconds)" \
				"$(kv_get "$run/timing" guest_uptime_at_start)" \
				"$(kv_get "$run/timing" total_seconds)" >>"$csv"
		done
	done
	{
		results_meta "workload=boot" "accel=$accel_used"
		for v in $variants; do
			echo "build_wall_seconds_$v: ${build_wall[$v]}"
			echo "build_seconds_last_full_$v: $(kv_get "$(kernel_build_info "$v")" build_seconds)"
		done
	} >"$dir/meta.txt"
	log "accelerator: $accel_used"
	for v in $variants; do
		log "$v: build step ${build_wall[$v]}s this run (last real build $(kv_get "$(kernel_build_info "$v")" build_seconds)s)"
	done
	log "boot-to-command times (s), per kernel:"
	for v in $variants; do
		awk -F, -v v="$v" '!/^#/ && $2 == v { t = t " " $4 } END { printf "  %-8s%s\n", v, t }' "$csv" >&2
	done
	dir=$(results_finish "$dir")
	log "results: $dir/boot.csv"
}

# The profile's steps: "MINUTES WORKLOAD OPTIONS..." (bench/profiles.sh),
# those of the workloads asked for, as NUL-separated records.
steps=() step_nos=()
step() {
	step_n=$((${step_n:-0} + 1))
	case " ${workloads[*]} " in
	*" $2 "*) ;;
	*) return 0 ;;
	esac
	local q
	q=$(printf ' %q' "${@:2}")
	steps+=("$1${q}")
	step_nos+=("$step_n")
}

# run_step I N T0 STEP: step I of N (STEP as step() stored it), with the
# progress: elapsed, and what is left by the profile's estimates.
run_step() {
	local i=$1 n=$2 t0=$3 min w left=0 j args=()
	read -r min w <<<"${4%% *} ${4#* }"
	eval "args=(${4#* })"
	w=${args[0]}
	args=("${args[@]:1}")
	# this step and those after it, by the profile's estimates
	for ((j = i - 1; j < n; j++)); do left=$((left + ${steps[$j]%% *})); done
	log "profile $profile: step $i/$n ($w, about $min min), elapsed $(awk -v s="$(since "$t0")" 'BEGIN { printf "%.0f", s / 60 }') min, about $left min left"
	case $w in
	boot)
		[ "${args[0]:-}" != --repeats ] || repeats=${args[1]}
		VRB_RESULT_STEP=$profile-step${step_nos[$((i - 1))]} stage "workload boot" workload_boot
		repeats=''
		;;
	*)
		# shellcheck disable=SC2046 # probe_args: options, no spaces
		VRB_RESULT_STEP=$profile-step${step_nos[$((i - 1))]} \
			stage "workload $w" workload_script "$w" $(probe_args "$w") "${args[@]}"
		;;
	esac
}

# probe_args WORKLOAD: --probe NAME for the workloads that run probes (A, B).
probe_args() {
	case $1 in A | B) echo "${workload_probe[*]}" ;; esac
}

# pick_steps: keep the steps --steps names (the profile's numbers, as
# --dry-run prints them).
pick_steps() {
	local i j kept=() nos=()
	[ -n "$only_steps" ] || return 0
	for i in $only_steps; do
		check_range "--steps" "$i" 1 "$step_n" >/dev/null
		for j in "${!step_nos[@]}"; do
			[ "${step_nos[$j]}" != "$i" ] || { kept+=("${steps[$j]}"); nos+=("$i"); }
		done
	done
	[ "${#kept[@]}" -gt 0 ] || die "--steps $only_steps: none of them is a step of ${workloads[*]}"
	steps=("${kept[@]}") step_nos=("${nos[@]}")
}

# check_steps: every step's options pass its workload's --check-args.
check_steps() {
	local s w args=()
	for s in "${steps[@]}"; do
		eval "args=(${s#* })"
		w=${args[0]}
		# shellcheck disable=SC2046 # probe_args: options, no spaces
		[ "$w" = boot ] || workload_script "$w" --check-args $(probe_args "$w") "${args[@]:1}" ||
			die "profile $profile: the $w step's options are refused: ${s#* }"
	done
}

# dry_run_report: the picked steps, each with its expected minutes, their
# total, and which kernels are still to be built (a built one is rebuilt,
# incrementally, only when the series or config changed).
dry_run_report() {
	local i min total=0 v stale
	for i in "${!steps[@]}"; do
		min=${steps[$i]%% *}
		total=$((total + min))
		echo "${step_nos[$i]}: $min min  ${steps[$i]#* }"
	done
	echo "total: $total min once the kernels are built (a 2-core TCG host)"
	for v in $variants; do
		if [ -f "$(kernel_image "$v")" ]; then
			stale=$(kernel_stale "$v")
			if [ -z "$stale" ]; then
				echo "kernel $v ($VRB_BASE): built, up to date"
			else
				echo "kernel $v ($VRB_BASE): built, out of date (${stale//,/, }): rebuilt incrementally first (a few minutes from ccache)"
			fi
		else
			echo "kernel $v ($VRB_BASE): not built yet: a first build takes about 16 min here, a second from ccache about 5"
		fi
	done
}

run_profile() {
	local i t0 s
	"profile_$profile"
	[ "${#steps[@]}" -gt 0 ] || die "profile $profile has no step for ${workloads[*]}"
	pick_steps
	check_steps
	if [ -n "$dry_run" ]; then
		dry_run_report
		return 0
	fi
	t0=$(now)
	for ((i = 0; i < ${#steps[@]}; i++)); do
		run_step $((i + 1)) "${#steps[@]}" "$t0" "${steps[$i]}"
	done
}

main() {
	local w
	case ${1:-} in
	summary) exec "$VRB_ROOT/bench/report/summary.sh" "${@:2}" ;;
	compare) exec "$VRB_ROOT/bench/report/compare-runs.sh" "${@:2}" ;;
	esac
	parse_args "$@"
	if [ -n "$profile" ] && [ -n "$dry_run" ]; then
		run_profile
		return 0
	fi
	stage "packages" "$VRB_ROOT/scripts/install-deps.sh"
	export VRB_RESULTS	# the workloads' own scripts write there too
	for w in "${workloads[@]}"; do
		case " $GUEST_WORKLOADS " in
		*" $w "*)
			stage "build kernels ($variants)" build_kernels
			break
			;;
		esac
	done
	if [ -n "$profile" ]; then
		run_profile
		return 0
	fi
	for w in "${workloads[@]}"; do
		stage "workload $w" "workload_$w"
	done
}

trap 'vrb_exit_report $?' EXIT
main "$@"
