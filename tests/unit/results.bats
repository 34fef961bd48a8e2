#!/usr/bin/env bats
# The result schema: every CSV carries the run's metadata as "# key: value"
# lines, then one header row.

load helpers

setup() {
	load_libs
	. "$VRB_ROOT/lib/results.sh"
	local src=$BATS_TEST_TMPDIR/toy/linux-toy
	mkdir -p "$src"
	printf 'kernelversion:\n\t@echo 6.1.999\n' >"$src/Makefile"
	tar -cJf "$BATS_TEST_TMPDIR/toy.tar.xz" -C "$BATS_TEST_TMPDIR/toy" linux-toy
	export VRB_KERNEL_TARBALL=$BATS_TEST_TMPDIR/toy.tar.xz
	printf '# empty\n' >"$VRB_PATCHES/series"
	kernel_unpack
	echo CONFIG_X=y >"$(kernel_workspace)/state/config"
	export VRB_QEMU=qemu-system-x86_64
	command -v "$VRB_QEMU" || skip "QEMU not installed"
}

@test "a result CSV starts with every metadata key, then the header row" {
	VRB_COMMAND_LINE="./run-bench.sh boot"
	results_csv_open "$BATS_TEST_TMPDIR/r.csv" "a,b" "accel=tcg (no /dev/kvm)" "vcpus=2"
	for key in date command kernel_source kernel_version series_hash config_hash \
		host_cpu host_cores qemu harness_commit accel vcpus; do
		grep -q "^# $key: ." "$BATS_TEST_TMPDIR/r.csv"
	done
	grep -qx "# kernel_version: 6.1.999" "$BATS_TEST_TMPDIR/r.csv"
	grep -qx "# series_hash: none" "$BATS_TEST_TMPDIR/r.csv"
	grep -qx "# command: ./run-bench.sh boot" "$BATS_TEST_TMPDIR/r.csv"
	grep -qx "# accel: tcg (no /dev/kvm)" "$BATS_TEST_TMPDIR/r.csv"
	[ "$(grep -v '^#' "$BATS_TEST_TMPDIR/r.csv")" = "a,b" ]
}

@test "result dirs are new for every run and named by date and workload" {
	d1=$(results_new_dir boot)
	d2=$(results_new_dir boot)
	[[ "$d1" == "$VRB_RESULTS"/20*Z-boot* ]]
	[ -d "$d1" ] && [ -d "$d2" ]
	[ "$d1" != "$d2" ]
}
