#!/usr/bin/env bash
# Builds the systemtap probes in stap/ into kernel modules for the guest
# kernels, on the host (stap -p4 against the kernel build tree); the guest
# loads them with staprun. Incremental: a module is rebuilt only when its
# script, the kernel build, stap or the runtime fix changed.
set -euo pipefail
VRB_PROG="stap/build.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/workload.sh
. "$VRB_ROOT/lib/workload.sh"


usage() {
	cat <<EOF
Usage: stap/build.sh [--kernel VARIANT | --kernel-dir DIR] [PROBE...]

Builds each PROBE (default: $VRB_PROBES) for the kernel VARIANT
(stock, patched or all; default patched) into
  \$VRB_CACHE/linux-VERSION/stap/VARIANT[-FLAVOUR]/vrb_PROBE.ko
and prints the module paths. The kernels must be built
(scripts/build-kernels.sh); their build trees get Module.symvers (make
modules) the first time.

systemtap 4.8's runtime calls task_work_cancel(), which 6.1.y stable
renamed task_work_cancel_func() (backport of the 6.11 change): against
such a kernel the probes build with a private copy of the runtime with
that one name fixed (\$VRB_CACHE/stap/runtime); the system's files are
never changed.

  --kernel VARIANT   stock, patched or all (default patched)
  --kernel-dir DIR   instead, the kernel built in DIR (your own tree: an O=
                     build dir or the source dir of an in-tree build, with
                     vmlinux, System.map and Module.symvers, i.e. after
                     "make modules"); modules go to
                     \$VRB_CACHE/stap/dir-HASH/. The drivers may be built
                     in or modules there.
  -h, --help         this text
EOF
}

# runtime_for SRC: the runtime dir stap must use for the kernel source SRC.
runtime_for() {
	local sys=/usr/share/systemtap/runtime rt=$VRB_CACHE/stap/runtime stamp
	if ! grep -q 'task_work_cancel_func(struct task_struct' "$1/include/linux/task_work.h" ||
		! grep -q 'typeof(&task_work_cancel)' "$sys/stp_task_work.c"; then
		echo "$sys"
		return 0
	fi
	stamp=$( (stap --version 2>&1 | head -n 1; sha256sum "$sys/stp_task_work.c") | sha256sum | cut -c1-16)
	if [ "$(cat "$rt/.vrb-stamp" 2>/dev/null)" != "$stamp" ]; then
		rm -rf "$rt.tmp"
		mkdir -p "$(dirname "$rt")"
		cp -r "$sys" "$rt.tmp"
		sed -i 's/typeof(&task_work_cancel)/typeof(\&task_work_cancel_func)/; s/kallsyms_lookup_name("task_work_cancel")/kallsyms_lookup_name("task_work_cancel_func")/' \
			"$rt.tmp/stp_task_work.c"
		grep -q 'kallsyms_lookup_name("task_work_cancel_func")' "$rt.tmp/stp_task_work.c" ||
			die "could not apply the task_work_cancel_func fix to a copy of $sys"
		echo "$stamp" >"$rt.tmp/.vrb-stamp"
		rm -rf "$rt"
		mv "$rt.tmp" "$rt"
		log "systemtap runtime copy with the task_work_cancel_func fix: $rt"
	fi
	echo "$rt"
}

# symvers VARIANT: the build tree's Module.symvers (stap builds an
# out-of-tree module against it); made with "make modules" when missing.
symvers() {
	local src out vars=()
	src=$(kernel_workspace)/$1
	out=$(kernel_outdir "$1")
	[ ! -f "$out/Module.symvers" ] || return 0
	mapfile -t vars < <(kernel_make_vars "$1")
	log "$1: make modules (Module.symvers for out-of-tree modules)"
	CCACHE_NOHASHDIR=1 make -C "$src" O="$(kernel_outname)" "${vars[@]}" modules >"$out/vrb-modules.log" 2>&1 ||
		{ tail -n 20 "$out/vrb-modules.log" >&2; die "$1: make modules failed"; }
}

# Every probe: a probe handler that cannot take a global's lock within
# MAXTRYLOCK tries (10 us apart) is skipped, and its event lost from the
# counts. systemtap's default, 100 tries (1 ms), is short for a guest under
# TCG, where the vCPU holding the lock can be descheduled for longer;
# 100000 tries waits up to a second instead. Skipped probes are still
# reported (probe_stop prints staprun's warnings; the tests fail on them).
STAP_FLAGS=(-DMAXTRYLOCK=100000)

# probe_args PROBE SRC: the arguments (@1 ...) PROBE takes, for the kernel
# source tree SRC: none today (vhost_batch took a source line until it
# moved to function boundaries).
probe_args() {
	:
}

# stap_build PROBE OUT SRC DIR STAMP: builds PROBE against the kernel build
# tree OUT (source SRC) into DIR/vrb_PROBE.ko, unless the one there was
# built from the same script, flags, stap, runtime and kernel (STAMP);
# prints the module path.
stap_build() {
	local p=$1 out=$2 src=$3 dir=$4 stamp=$5 rt key guru=() args=() t0
	rt=$(runtime_for "$src")
	mkdir -p "$dir"
	# a probe whose #! line asks for guru mode (embedded C) gets -g
	head -n 1 "$VRB_ROOT/stap/$p.stp" | grep -q -- ' -g' && guru=(-g)
	mapfile -t args < <(probe_args "$p" "$src")
	key=$( {
		cat "$VRB_ROOT/stap/$p.stp"
		echo "${args[*]} ${STAP_FLAGS[*]}"
		echo "$stamp"
		stap --version 2>&1 | head -n 1
		cat "$rt/.vrb-stamp" 2>/dev/null || echo system
		echo "${guru[*]}"
	} | sha256sum | cut -c1-16)
	if [ -f "$dir/vrb_$p.ko" ] && [ "$(cat "$dir/vrb_$p.key" 2>/dev/null)" = "$key" ]; then
		echo "$dir/vrb_$p.ko"
		return 0
	fi
	probe_symbols_check "$p" "$out/System.map" "$out"
	t0=$(date +%s)
	log "$out: building probe $p (stap -p4)"
	rm -f "$dir/vrb_$p.ko" "$dir/vrb_$p.key"
	(cd "$dir" && stap "${guru[@]}" "${STAP_FLAGS[@]}" -R "$rt" -r "$out" -p4 -m "vrb_$p" "$VRB_ROOT/stap/$p.stp" "${args[@]}") \
		>"$dir/vrb_$p.log" 2>&1 ||
		{ tail -n 30 "$dir/vrb_$p.log" >&2; die "probe $p does not build against $out (log: $dir/vrb_$p.log)"; }
	echo "$key" >"$dir/vrb_$p.key"
	log "probe $p built in $(($(date +%s) - t0))s"
	echo "$dir/vrb_$p.ko"
}

# build_probe VARIANT PROBE: PROBE for one of our kernels; prints the module path.
build_probe() {
	local v=$1 p=$2 out
	out=$(kernel_outdir "$v")
	[ -f "$out/vmlinux" ] || die "$v kernel not built (scripts/build-kernels.sh --variant $v --flavour $(kernel_flavour))"
	symvers "$v"
	stap_build "$p" "$out" "$(kernel_workspace)/$v" "$(stap_dir "$v")" "$(kv_get "$out/vrb-build-info" key)"
}

# dir_stamp DIR PROBE: what PROBE's module depends on in the kernel build dir
# DIR: vmlinux, Module.symvers, .config and the modules it probes (a tree
# rebuilt in place changes them; "make modules" alone relinks no vmlinux).
dir_stamp() {
	local m
	stat -c '%n %s %.9Y' "$1/vmlinux" "$1/Module.symvers" "$1/.config" 2>/dev/null || true
	for m in $(probe_modules "$2"); do
		find "$1" \( -name "$m.ko" -o -name "$m.ko.xz" \) -exec stat -c '%n %s %.9Y' {} + 2>/dev/null || true
	done
}

# build_probe_dir DIR PROBE: PROBE for the kernel built in DIR (yours: an
# O= build dir or an in-tree build); prints the module path.
build_probe_dir() {
	local d=$1 p=$2 src
	[ -f "$d/vmlinux" ] || die "$d is not a kernel build dir (no vmlinux and System.map there)"
	[ -f "$d/System.map" ] || die "$d is not a kernel build dir (no vmlinux and System.map there)"
	[ -f "$d/Module.symvers" ] ||
		die "$d has no Module.symvers, which stap needs to build a module against it: run 'make modules' there first"
	src=$d
	[ ! -e "$d/source" ] || src=$(readlink -f "$d/source")
	[ -f "$src/include/linux/task_work.h" ] || die "$d: no kernel source found (neither $d nor $d/source holds include/linux/task_work.h)"
	stap_build "$p" "$d" "$src" "$VRB_CACHE/stap/dir-$(printf '%s' "$d" | sha256sum | cut -c1-12)" "$(dir_stamp "$d" "$p")"
}

main() {
	local kernels=patched kset='' kdir='' probes=() v p
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) [ $# -ge 2 ] || die "$1 needs a value"; kernels=$2; kset=1; shift 2 ;;
		--kernel-dir) [ $# -ge 2 ] || die "$1 needs a value"; kdir=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		-*) usage >&2; die "unknown option '$1'" ;;
		*) probes+=("$1"); shift ;;
		esac
	done
	case $kernels in
	stock | patched) ;;
	all) kernels=$VRB_VARIANTS ;;
	*) die "unknown kernel variant '$kernels' (stock, patched or all)" ;;
	esac
	[ "${#probes[@]}" -gt 0 ] || read -ra probes <<<"$VRB_PROBES"
	for p in "${probes[@]}"; do
		check_probe "$p"
	done
	need_cmd stap systemtap
	if [ -n "$kdir" ]; then
		[ -z "$kset" ] || die "--kernel and --kernel-dir exclude each other"
		[ -d "$kdir" ] || die "--kernel-dir: no directory $kdir"
		kdir=$(readlink -f "$kdir")
		for p in "${probes[@]}"; do build_probe_dir "$kdir" "$p"; done
		return 0
	fi
	for v in $kernels; do
		for p in "${probes[@]}"; do build_probe "$v" "$p"; done
	done
}

main "$@"
