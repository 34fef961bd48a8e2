# shellcheck shell=bash
# What the guest workloads' drivers (bench/vhost_drv/run-a.sh,
# bench/vhost_src/run-b.sh) share: which kernel a setting boots, the order
# of settings per repeat, and the probe that watches them.

# setting_kernel SETTING: the kernel a setting boots ("stock" boots stock,
# every other setting sets a knob of the patched kernel). SETTING_aa is the
# A/A copy of SETTING: the same kernel and knobs, measured as its own arm.
setting_kernel() {
	if [ "${1%_aa}" = stock ]; then echo stock; else echo patched; fi
}

# refill_knobs NAME: the virtio_net knobs a refill setting of workloads B
# and C sets ("-": none): stock (the stock kernel), auto, legacy, adaptive,
# adaptive-dry, mnN (0-64), capN (the benchmark-only refill_max), each also
# as NAME_aa.
refill_knobs() {
	case $(aa_base "$1") in
	stock) echo - ;;
	auto) echo "min_numfree=auto refill_max=0" ;;
	legacy) echo "min_numfree=legacy refill_max=0" ;;
	adaptive) echo "min_numfree=adaptive refill_max=0" ;;
	adaptive-dry) echo "min_numfree=adaptive-dry refill_max=0" ;;
	mn[0-9]*)
		check_range "setting $1" "$(aa_base "${1#mn}")" 0 64 >/dev/null
		echo "min_numfree=$(aa_base "${1#mn}") refill_max=0"
		;;
	cap[0-9]*)
		check_range "setting $1" "$(aa_base "${1#cap}")" 1 32768 >/dev/null
		echo "min_numfree=auto refill_max=$(aa_base "${1#cap}")"
		;;
	*) die "unknown setting '$1' (stock, auto, legacy, adaptive, adaptive-dry, mnN, capN, each also as NAME_aa)" ;;
	esac
}

# with_aa REF NO_AA SETTINGS...: the settings plus REF_aa (the A/A arm),
# unless NO_AA is 1 or it is there already. It goes half way round the
# settings of REF's kernel from REF, so that rotated orders (workload A's,
# B's boots design) rarely put it next to REF (from REF, a switch to
# REF_aa changes no knob: adjacent, the A/A pair would be measured under
# easier conditions than other pairs). B's paired rounds balance every
# setting's neighbours instead (bench/vhost_src/paired.sh: round_order).
with_aa() {
	local ref=$1 no_aa=$2 s i=0 at='' same=()
	shift 2
	if [ "$no_aa" = 1 ] || [[ " $* " == *" ${ref}_aa "* ]]; then
		echo "$*"
		return 0
	fi
	for s in "$@"; do
		[ "$(setting_kernel "$s")" = "$(setting_kernel "$ref")" ] || continue
		[ "$s" != "$ref" ] || i=${#same[@]}
		same+=("$s")
	done
	at=${same[$(((i + ${#same[@]} / 2) % ${#same[@]}))]}
	local out=()
	for s in "$@"; do
		out+=("$s")
		[ "$s" != "$at" ] || out+=("${ref}_aa")
	done
	echo "${out[*]}"
}

# rotate N WORD...: the words, starting from the Nth (cyclically), so that
# no setting always runs first.
rotate() {
	local r=$1
	shift
	printf '%s\n' "$@" | awk -v r="$r" '{ a[NR] = $0 } END { for (i = 0; i < NR; i++) print a[(i + r - 1) % NR + 1] }'
}

# host_busy_cpus: host CPUs' worth of busy time over the last second
# (/proc/stat: everything but idle and iowait, over all the host's CPUs,
# whatever this process's affinity), e.g. 0.07.
host_busy_cpus() {
	local a b
	a=$(head -n 1 /proc/stat)
	sleep 1
	b=$(head -n 1 /proc/stat)
	awk -v a="$a" -v b="$b" -v n="$(grep -c '^cpu[0-9]' /proc/stat)" 'BEGIN {
		split(a, x, " "); split(b, y, " ")
		for (i = 2; i <= 9; i++) { d = y[i] - x[i]; t += d; if (i == 5 || i == 6) idle += d }
		printf "%.2f", t ? n * (t - idle) / t : 0 }'
}

# host_load1: the host's 1-minute load average.
host_load1() {
	cut -d' ' -f1 /proc/loadavg
}

# host_check_quiet: dies when more than VRB_BUSY_MAX CPUs' worth of the host
# is busy (naming the busiest processes), unless VRB_ALLOW_BUSY_HOST=1;
# prints "BUSY_CPUS allowed|quiet" for the metadata.
host_check_quiet() {
	local busy
	busy=$(host_busy_cpus)
	if awk -v b="$busy" -v m="$VRB_BUSY_MAX" 'BEGIN { exit !(b > m) }'; then
		if [ "${VRB_ALLOW_BUSY_HOST:-0}" = 1 ]; then
			warn "the host is busy ($busy CPUs): running anyway (--allow-busy-host)"
			echo "$busy busy-allowed"
			return 0
		fi
		ps -eo pcpu=,comm= --sort=-pcpu | head -n 3 | sed 's/^/  /' >&2
		die "the host is busy: $busy CPUs' worth over the last second (more than $VRB_BUSY_MAX); a benchmark would measure that. Wait, or pass --allow-busy-host (recorded in the results)"
	fi
	echo "$busy quiet"
}

# host_cpus: "VCPU_CPU OTHER_CPU": the host CPUs to pin the guest's vCPU
# thread and everything else to (both 0 on a 1-CPU host).
host_cpus() {
	if [ "$(nproc)" -ge 2 ]; then
		echo "$VRB_HOST_CPU_VCPU $VRB_HOST_CPU_OTHER"
	else
		echo "0 0"
	fi
}

# Probes: NAME is a systemtap probe (stap/NAME.stp, built per kernel by
# stap/build.sh into a module), NAME.bt its bpftrace twin
# (stap/bpftrace/NAME.bt, run as is; the kernel needs BTF). Both print
# lines prefixed "NAME: "; their summaries start at "NAME: summary".

# check_probe PROBE: dies unless PROBE is NAME or NAME.bt of a known probe.
check_probe() {
	case " $VRB_PROBES " in
	*" ${1%.bt} "*) ;;
	*) die "unknown probe '$1' (known: $VRB_PROBES, and each with .bt for its bpftrace twin)" ;;
	esac
	[ "$1" = "${1%.bt}" ] || [ -f "$VRB_ROOT/stap/bpftrace/$1" ] || die "no bpftrace twin stap/bpftrace/$1"
}

# stap_base: does systemtap (4.8, with the runtime fix stap/build.sh
# applies) build for the kernel base in use? 6.1 only (docs/probes.md, "Probes on
# 6.12").
stap_base() {
	[ "${VRB_BASE:-6.1}" = 6.1 ]
}

# default_probe NAME: the probe a workload runs by default: NAME, or its
# bpftrace twin NAME.bt where systemtap does not build (stap_base).
default_probe() {
	if stap_base; then echo "$1"; else echo "$1.bt"; fi
}

# probe_name PROBE: the name its output lines start with.
probe_name() {
	echo "${1%.bt}"
}

# probe_file PROBE KERNEL: what the guest loads: the module built for
# KERNEL (stock or patched), or the bpftrace script for it (bt_script).
probe_file() {
	if [ "$1" = "${1%.bt}" ]; then
		echo "$(stap_dir "$2")/vrb_$1.ko"
	else
		bt_script "$1" "$(kernel_outdir "$2")/System.map"
	fi
}

# bt_script TWIN [SYSTEM_MAP]: the bpftrace script of TWIN (NAME.bt) for
# the kernel whose symbols SYSTEM_MAP lists: stap/bpftrace/NAME.bt, or
# NAME-6.11.bt where there is one and the kernel has sk_skb_reason_drop()
# (6.11 made kfree_skb_reason() an inline wrapper of it: nothing to probe).
bt_script() {
	local d=$VRB_ROOT/stap/bpftrace
	if [ -f "$d/${1%.bt}-6.11.bt" ] && [ -r "${2:-}" ] &&
		[ "$(symbol_state sk_skb_reason_drop "$2")" != missing ]; then
		echo "$d/${1%.bt}-6.11.bt"
	else
		echo "$d/$1"
	fi
}

# probe_functions PROBE [SYSTEM_MAP]: the kernel functions PROBE probes,
# one per line: its systemtap script's kernel.function("NAME"), or its
# bpftrace script's kprobe:NAME / kretprobe:NAME (bt_script's choice for
# the kernel of SYSTEM_MAP), one probe per line at its start, as the twins
# write them (not kprobe:MODULE:NAME, lists, or kfunc:, which they do not use).
probe_functions() {
	if [ "$1" = "${1%.bt}" ]; then
		grep -o 'kernel\.function("[^"]*")' "$VRB_ROOT/stap/$1.stp" | sed 's/^kernel\.function("//; s/")$//' | sort -u
	else
		sed -n 's/^k\(ret\)\{0,1\}probe:\([A-Za-z0-9_]*\).*/\2/p' "$(bt_script "$1" "${2:-}")" | sort -u
	fi
}

# probe_function_module PROBE FUNCTION: the module PROBE looks for FUNCTION
# in when the kernel does not have it built in (its
# module("MODULE").function("FUNCTION") alternative); nothing if none.
probe_function_module() {
	sed -n "s/.*module(\"\([^\"]*\)\")\.function(\"$2\").*/\1/p" "$VRB_ROOT/stap/${1%.bt}.stp" | awk 'NR == 1'
}

# probe_modules PROBE: every module PROBE's systemtap script names, one per line.
probe_modules() {
	sed -n 's/.*module("\([^"]*\)").*/\1/p' "$VRB_ROOT/stap/${1%.bt}.stp" | sort -u
}

# symbol_state FUNCTION TABLE: how FUNCTION appears among the text symbols
# of TABLE (System.map or nm output): "plain", "clones NAME..." (a clone
# the compiler made: FUNCTION.constprop.N, .isra.N, .part.N) or "missing".
symbol_state() {
	local clones
	clones=$(awk -v f="$1" '$2 ~ /^[tT]$/ && index($3, f ".") == 1 &&
		substr($3, length(f) + 2) ~ /^(constprop|isra|part)\./ { print $3 }' "$2" | sort -u | tr '\n' ' ')
	if [ -n "$clones" ]; then
		echo "clones ${clones% }"
	elif awk -v f="$1" '$2 ~ /^[tT]$/ && $3 == f { found = 1 } END { exit !found }' "$2"; then
		echo plain
	else
		echo missing
	fi
}

# module_symbols DIR MODULE: nm's symbol table of MODULE.ko (or .ko.xz)
# found under DIR (a kernel build tree, or /lib/modules/VERSION); fails if
# there is none.
module_symbols() {
	local ko tmp rc=0
	ko=$(find "$1" \( -name "$2.ko" -o -name "$2.ko.xz" \) -print -quit 2>/dev/null)
	[ -n "$ko" ] || return 1
	case $ko in
	*.xz)
		tmp=$(mktemp)
		if xz -dc "$ko" >"$tmp"; then
			nm "$tmp" || rc=1
		else
			rc=1
		fi
		rm -f "$tmp"
		return "$rc"
		;;
	*) nm "$ko" ;;
	esac
}

# probe_symbols_check PROBE SYSTEM_MAP [MODULES_DIR]: dies unless every
# function PROBE probes is one text symbol of its own name, in SYSTEM_MAP
# (built in) or else in the module the probe names for it, found under
# MODULES_DIR. A function the compiler cloned (NAME.constprop.0,
# NAME.isra.0, NAME.part.0) is called, in part or in whole, through the
# clone, which a probe on NAME does not see: its counts would be short
# without a word said.
probe_symbols_check() {
	local p=$1 map=$2 mods=${3:-} f m state where tmp bad=0
	[ -r "$map" ] || die "$p: no symbol table $map to check the probed functions against"
	while read -r f; do
		state=$(symbol_state "$f" "$map")
		where="this kernel"
		m=$(probe_function_module "$p" "$f")
		if [ "$state" = missing ] && [ -n "$mods" ] && [ -n "$m" ]; then
			tmp=$(mktemp)
			if module_symbols "$mods" "$m" >"$tmp"; then
				state=$(symbol_state "$f" "$tmp")
				where="module $m"
			fi
			rm -f "$tmp"
		fi
		case $state in
		plain) ;;
		clones*)
			warn "$p: $f has compiler clones in $where (${state#clones }): a probe on $f misses the calls that go through them"
			bad=1
			;;
		*)
			if [ "$where" = "this kernel" ]; then
				warn "$p: $f is not a function of this kernel${m:+ nor of a module $m.ko under ${mods:-(no modules dir given)}} (inlined or renamed?): the probe cannot attach"
			else
				warn "$p: $f is not a function of $where (inlined or renamed?): the probe cannot attach"
			fi
			bad=1
			;;
		esac
	done < <(probe_functions "$p" "$map")
	[ "$bad" = 0 ] || die "$p: the probe does not fit this kernel (symbols: $map${mods:+, modules under $mods})"
}

# build_probe_for PROBE SETTING...: builds PROBE for every kernel the
# settings boot; a bpftrace twin needs no build, but kernels with BTF and
# the functions it probes (probe_symbols_check, as stap/build.sh does).
build_probe_for() {
	local p=$1 k s
	shift
	for k in $(for s in "$@"; do setting_kernel "$s"; done | sort -u); do
		if [ "$p" = "${p%.bt}" ]; then
			"$VRB_ROOT/stap/build.sh" --kernel "$k" "$p" >/dev/null
		else
			bt_probe_check "$p" "$(kernel_outdir "$k")" "the $k kernel"
		fi
	done
}

# bt_probe_check PROBE DIR WHAT: PROBE's bpftrace twin can run on the
# kernel built in DIR (WHAT names it): BTF, and the functions it probes.
bt_probe_check() {
	grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$2/.config" 2>/dev/null ||
		die "$1: $3 has no BTF (CONFIG_DEBUG_INFO_BTF; see guest-config/kernel.config)"
	probe_symbols_check "$1" "$2/System.map" "$2"
}

# probe_summary PROBE FILE: the summary part of a probe's output (from its
# first "NAME: summary" line on).
probe_summary() {
	awk -v s="$(probe_name "$1"): summary" 'index($0, s) == 1 { f = 1 } f' "$2"
}

# progress_eta DONE TOTAL T0: ", elapsed X min, about Y min left" when
# DONE of TOTAL units of work (trials, boots) are done since T0 (a now
# value), Y at the mean pace so far (nothing about it before one is done).
progress_eta() {
	awk -v k="$1" -v n="$2" -v e="$(since "$3")" 'BEGIN {
		printf ", elapsed %.1f min", e / 60
		if (k > 0) printf ", about %.1f min left", e / k * (n - k) / 60 }'
}
