# shellcheck shell=bash
# Common set-up of the VM tests (the unit tests' helpers, plus): the kernels
# built or reused once per file, and the real workspace and series.
load ../unit/helpers

# build_kernels: a VM test file's setup_file.
build_kernels() {
	"$VRB_ROOT/scripts/build-kernels.sh" >"$BATS_FILE_TMPDIR/build.log" 2>&1 || {
		tail -n 40 "$BATS_FILE_TMPDIR/build.log" | sed "s/^/# /" >&3
		return 1
	}
}

# real_workspace: a VM test's setup: the harness's libraries on the real
# workspace and series, not the unit tests' scratch ones.
real_workspace() {
	load_libs
	export VRB_CACHE=$VRB_ROOT/.cache VRB_PATCHES=$VRB_ROOT/patches/${VRB_BASE:-6.1}
	# tests are not benchmarks: the workloads' busy-host refusal (tested in
	# tests/unit/workload-lib.bats) would only make them depend on the host
	export VRB_ALLOW_BUSY_HOST=1
}

# rows CSV: the data rows of a result CSV (no metadata, no header).
rows() {
	grep -v '^#' "$1" | tail -n +2
}
