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

# check_probe NAME: dies unless NAME is one of the probes (stap/NAME.stp).
check_probe() {
	case " $VRB_PROBES " in
	*" $1 "*) ;;
	*) die "unknown probe '$1' (known: $VRB_PROBES)" ;;
	esac
}

# build_probe_for NAME SETTING...: builds probe NAME for every kernel the
# settings boot.
build_probe_for() {
	local p=$1 k s
	shift
	for k in $(for s in "$@"; do setting_kernel "$s"; done | sort -u); do
		"$VRB_ROOT/stap/build.sh" --kernel "$k" "$p" >/dev/null
	done
}
