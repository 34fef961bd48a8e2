# shellcheck shell=bash
# The result schema, in one place. Every run writes a directory
#   results/<UTC date>-<workload>/
# holding meta.txt and CSV files; each CSV starts with the same metadata as
# "# key: value" comment lines, then one header row, then data rows.

# results_new_dir WORKLOAD: create and print a new result dir (never one
# that exists: a run does not write into another run's results).
results_new_dir() {
	local base dir n=1
	base=$VRB_RESULTS/$(date -u +%Y%m%dT%H%M%SZ)-$1
	dir=$base
	mkdir -p "$VRB_RESULTS"
	until mkdir "$dir" 2>/dev/null; do
		n=$((n + 1))
		[ "$n" -le 100 ] || die "cannot make a result dir under $VRB_RESULTS"
		dir=$base.$n
	done
	echo "$dir"
}

# host_cpu: the host CPU model.
host_cpu() {
	sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1
}

# results_meta KEY=VALUE...: the metadata lines every result file carries,
# plus the run-specific KEY=VALUE pairs given.
results_meta() {
	local kv
	printf 'date: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
	printf 'command: %s\n' "${VRB_COMMAND_LINE:-unknown}"
	printf 'kernel_source: %s %s\n' "$VRB_KERNEL_PKG" "$(kernel_debver)"
	printf 'kernel_version: %s\n' "$(kernel_version)"
	printf 'series_hash: %s\n' "$(series_hash "$VRB_PATCHES")"
	printf 'kernel_flavour: %s\n' "$(kernel_flavour)"
	printf 'config_hash: %s\n' "$(kernel_config_hash)"
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
