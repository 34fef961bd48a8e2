# shellcheck shell=bash
# What the guest workloads' drivers (bench/vhost_drv/run-a.sh,
# bench/vhost_src/run-b.sh) share: which kernel a setting boots, the order
# of settings per repeat, and the probe that watches them.

# setting_kernel SETTING: the kernel a setting boots ("stock" boots stock,
# every other setting sets a knob of the patched kernel).
setting_kernel() {
	if [ "$1" = stock ]; then echo stock; else echo patched; fi
}

# rotate N WORD...: the words, starting from the Nth (cyclically), so that
# no setting always runs first.
rotate() {
	local r=$1
	shift
	printf '%s\n' "$@" | awk -v r="$r" '{ a[NR] = $0 } END { for (i = 0; i < NR; i++) print a[(i + r - 1) % NR + 1] }'
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

# probe_name PROBE: the name its output lines start with.
probe_name() {
	echo "${1%.bt}"
}

# probe_file PROBE KERNEL: what the guest loads: the module built for
# KERNEL (stock or patched), or the bpftrace script.
probe_file() {
	if [ "$1" = "${1%.bt}" ]; then
		echo "$VRB_CACHE/stap/$2/vrb_$1.ko"
	else
		echo "$VRB_ROOT/stap/bpftrace/$1"
	fi
}

# build_probe_for PROBE SETTING...: builds PROBE for every kernel the
# settings boot; a bpftrace twin needs no build, but kernels with BTF.
build_probe_for() {
	local p=$1 k s
	shift
	for k in $(for s in "$@"; do setting_kernel "$s"; done | sort -u); do
		if [ "$p" = "${p%.bt}" ]; then
			"$VRB_ROOT/stap/build.sh" --kernel "$k" "$p" >/dev/null
		else
			kernel_has_btf "$k" || die "$p: the $k kernel has no BTF (CONFIG_DEBUG_INFO_BTF; see guest-config/kernel.config)"
		fi
	done
}

# probe_summary PROBE FILE: the summary part of a probe's output (from its
# first "NAME: summary" line on).
probe_summary() {
	awk -v s="$(probe_name "$1"): summary" 'index($0, s) == 1 { f = 1 } f' "$2"
}
