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

@test "a kernel the harness did not build (--kernel-dir): the kernel lines name it, not the harness's builds" {
	local k=$BATS_TEST_TMPDIR/kd r=$BATS_TEST_TMPDIR/r.csv
	mkdir -p "$k"
	echo CONFIG_Y=y >"$k/.config"
	VRB_META_KERNEL_DIR=$k VRB_META_KERNEL_RELEASE=6.1.0-55-cloud-amd64 VRB_META_KERNEL_CONFIG=$k/.config \
		results_csv_open "$r" "a,b"
	cat "$r"
	grep -qx "# kernel_source: $k (not built by the harness)" "$r"
	grep -qx "# kernel_version: 6.1.0-55-cloud-amd64" "$r"
	grep -qx "# series_hash: unknown (a kernel the harness did not build)" "$r"
	grep -qx "# config_hash: $(sha256sum "$k/.config" | cut -c1-12)" "$r"
	[ "$(grep -c '^# kernel_version: ' "$r")" -eq 1 ]
	# no .config there: said, not hashed from nothing
	VRB_META_KERNEL_DIR=$k VRB_META_KERNEL_CONFIG=$k/none results_csv_open "$r" "a,b"
	grep -qx "# config_hash: none" "$r"
	grep -qx "# kernel_version: unknown" "$r"
}

@test "result dirs are new for every run, named by date and workload, written as DIR.partial and renamed whole when done" {
	d1=$(results_new_dir boot)
	d2=$(results_new_dir boot)
	[[ "$d1" == "$VRB_RESULTS"/20*Z-boot-"$VRB_BASE".partial ]]
	[ -d "$d1" ] && [ -d "$d2" ]
	[ "$d1" != "$d2" ]
	echo x >"$d1/a.csv"
	f1=$(results_finish "$d1")
	[ "$f1" = "${d1%.partial}" ]
	[ -f "$f1/a.csv" ] && [ ! -e "$d1" ]
	# a new dir never takes a finished run's name, nor a partial one's
	d3=$(results_new_dir boot)
	[ "$d3" != "$d1" ] && [ "$d3" != "$d2" ]
	run results_finish "$f1"
	[ "$status" -ne 0 ]
	[[ "$output" == *"is not a partial result dir"* ]]
	# a profile's step is in the name
	d4=$(VRB_RESULT_STEP=quick-step3 results_new_dir C)
	[[ "$d4" == "$VRB_RESULTS"/20*Z-C-"$VRB_BASE"-quick-step3.partial ]]
}

@test "--out dirs: a new or empty one is claimed as DIR.partial; one with files, or a left-over DIR.partial, is refused" {
	d=$(results_claim "$BATS_TEST_TMPDIR/out/a")
	[ "$d" = "$BATS_TEST_TMPDIR/out/a.partial" ] && [ -d "$d" ]
	mkdir "$BATS_TEST_TMPDIR/empty"
	d=$(results_claim "$BATS_TEST_TMPDIR/empty/")
	[ "$d" = "$BATS_TEST_TMPDIR/empty.partial" ] && [ ! -e "$BATS_TEST_TMPDIR/empty" ]
	mkdir "$BATS_TEST_TMPDIR/full" && touch "$BATS_TEST_TMPDIR/full/trials.csv"
	run results_claim "$BATS_TEST_TMPDIR/full"
	[ "$status" -ne 0 ]
	[[ "$output" == *"exists and is not empty"* ]]
	[ -f "$BATS_TEST_TMPDIR/full/trials.csv" ]
	run results_claim "$BATS_TEST_TMPDIR/out/a"
	[ "$status" -ne 0 ]
	[[ "$output" == *"a.partial exists (an incomplete run)"* ]]
}

@test "too little free space for results: a clear refusal before anything is written" {
	VRB_RESULTS_MIN_FREE_MB=999999999 run results_new_dir boot
	[ "$status" -ne 0 ]
	[[ "$output" == *"MB free on "*"a run needs 999999999 MB (VRB_RESULTS_MIN_FREE_MB)"* ]]
	[ -z "$(ls -A "$VRB_RESULTS")" ]
	VRB_RESULTS_MIN_FREE_MB=999999999 run results_claim "$BATS_TEST_TMPDIR/o"
	[ "$status" -ne 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/o.partial" ]
}
