# shellcheck shell=bash
# The result schema, in one place. Every run writes a directory
#   results/<UTC date>-<workload>-<base>[-<profile>-step<N>]/
# (e.g. 20261205T041200Z-C-6.1-full-step14: a profile's step says which;
# runs before 2026-12-05 are named <UTC date>-<workload> alone)
# holding meta.txt and CSV files; each CSV starts with the same metadata as
# "# key: value" comment lines, then one header row, then data rows.

# A run writes its dir under a temporary name, DIR.partial, and renames it
# to DIR once complete (results_finish): a dir without the suffix is a whole
# run; a failed or interrupted one is left as DIR.partial.

# results_check_space DIR: dies unless DIR's filesystem has
# VRB_RESULTS_MIN_FREE_MB free (a full disk would cut a run's files short).
results_check_space() {
	local free mnt
	free=$(free_mb "$1")
	mnt=$(df -P "$1" 2>/dev/null | awk 'NR == 2 { print $6 }')
	[ "${free:-0}" -ge "$VRB_RESULTS_MIN_FREE_MB" ] ||
		die "only ${free:-0} MB free on ${mnt:-?} for the results in $1: a run needs $VRB_RESULTS_MIN_FREE_MB MB (VRB_RESULTS_MIN_FREE_MB)"
}

# results_new_dir WORKLOAD: create a new result dir, under its temporary
# name, and print that (never one that exists, complete or partial: a run
# does not write into another run's results). Its name says the workload,
# the kernel base and, in a profile (VRB_RESULT_STEP, set by run-bench.sh),
# the step.
results_new_dir() {
	local base dir n=1
	base=$VRB_RESULTS/$(date -u +%Y%m%dT%H%M%SZ)-$1-$VRB_BASE${VRB_RESULT_STEP:+-$VRB_RESULT_STEP}
	dir=$base
	mkdir -p "$VRB_RESULTS" || die "cannot make the results dir $VRB_RESULTS"
	results_check_space "$VRB_RESULTS"
	until [ ! -e "$dir" ] && mkdir "$dir.partial" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -le 100 ] || die "cannot make a result dir under $VRB_RESULTS"
		dir=${base}_$n
	done
	echo "$dir.partial"
}

# results_claim DIR: a result dir named by the user (--out): it must not
# hold anything yet; creates and prints its temporary name.
results_claim() {
	results_claimable "$1"
	local dir=${1%/}
	mkdir -p "$(dirname "$dir")" || die "cannot make $(dirname "$dir")"
	results_check_space "$(dirname "$dir")"
	if [ -e "$dir" ]; then
		rmdir "$dir"
	fi
	mkdir "$dir.partial" || die "cannot make $dir.partial"
	echo "$dir.partial"
}

# results_claimable DIR: die unless results_claim DIR would take it (a
# name; no file, or an empty dir; no DIR.partial), making nothing.
results_claimable() {
	local dir=${1%/}
	case $dir in '' | . | ..) die "'$1' is no name for a result dir" ;; esac
	if [ -e "$dir" ]; then
		if [ ! -d "$dir" ] || [ -n "$(ls -A "$dir")" ]; then
			die "result dir $dir exists and is not empty: a run does not write into another run's results"
		fi
	fi
	[ ! -e "$dir.partial" ] ||
		die "$dir.partial exists (an incomplete run): remove it or name another --out"
}

# results_finish DIR.partial: the run is complete: write its summary.md
# and plots (bench/report/summary.sh; VRB_SUMMARY=0: not), rename the dir
# to its final name (one rename: it appears whole) and print that.
results_finish() {
	local final=${1%.partial}
	[ "$final" != "$1" ] || die "results_finish: $1 is not a partial result dir"
	[ ! -e "$final" ] || die "cannot complete $1: $final exists"
	if [ "${VRB_SUMMARY:-1}" = 1 ]; then
		"$VRB_ROOT/bench/report/summary.sh" "$1" >&2 ||
			warn "no summary.md for $final (bench/report/summary.sh failed): the run's files are complete"
	fi
	mv -T "$1" "$final" || die "cannot rename $1 to $final"
	echo "$final"
}

# host_cpu: the host CPU model.
host_cpu() {
	sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1
}

# results_meta KEY=VALUE...: the metadata lines every result file carries,
# plus the run-specific KEY=VALUE pairs given. The kernel lines describe the
# harness's builds, or, when a workload booted a kernel it did not build
# (run-b.sh --kernel-dir), that kernel: VRB_META_KERNEL_DIR (its build or
# debian-kernel.sh dir), VRB_META_KERNEL_RELEASE and VRB_META_KERNEL_CONFIG
# (its .config).
results_meta() {
	local kv
	printf 'date: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf 'command: %s\n' "${VRB_COMMAND_LINE:-unknown}"
	if [ -n "${VRB_META_KERNEL_DIR:-}" ]; then
		printf 'kernel_source: %s (not built by the harness)\n' "$VRB_META_KERNEL_DIR"
		printf 'kernel_version: %s\n' "${VRB_META_KERNEL_RELEASE:-unknown}"
		printf 'series_hash: unknown (a kernel the harness did not build)\n'
		printf 'aids_hash: unknown (a kernel the harness did not build)\n'
		printf 'kernel_flavour: unknown (a kernel the harness did not build)\n'
		if [ -f "${VRB_META_KERNEL_CONFIG:-}" ]; then
			printf 'config_hash: %s\n' "$(sha256_of "$VRB_META_KERNEL_CONFIG" | cut -c1-12)"
		else
			printf 'config_hash: none\n'
		fi
	else
		printf 'kernel_source: %s %s\n' "$VRB_KERNEL_PKG" "$(kernel_debver)"
		printf 'kernel_version: %s\n' "$(kernel_version 2>/dev/null || echo 'not built')"
		printf 'series_hash: %s\n' "$(series_hash "$VRB_PATCHES")"
		printf 'aids_hash: %s (the stock kernel carries these)\n' "$(aids_hash "$VRB_PATCHES")"
		printf 'kernel_flavour: %s\n' "$(kernel_flavour)"
		printf 'config_hash: %s\n' "$(kernel_config_hash 2>/dev/null || echo none)"
	fi
	printf 'host_cpu: %s\n' "$(host_cpu)"
	printf 'host_cores: %s\n' "$(nproc)"
	printf 'qemu: %s\n' "$("$VRB_QEMU" --version | head -n 1)"
	printf 'harness_commit: %s\n' "$(git -C "$VRB_ROOT" rev-parse --short HEAD 2>/dev/null || echo none)$(git -C "$VRB_ROOT" diff --quiet HEAD 2>/dev/null || echo -dirty)"
	for kv in "$@"; do
		printf '%s: %s\n' "${kv%%=*}" "${kv#*=}"
	done
}

# results_csv_open FILE HEADER KEY=VALUE...: start a CSV with the metadata.
results_csv_open() {
	local file=$1 header=$2
	shift 2
	results_meta "$@" | sed 's/^/# /' >"$file"
	echo "$header" >>"$file"
}
