#!/usr/bin/env bats
# Command-line behaviour of the scripts: --help, and clear errors for bad
# input before anything is built or booted.

load helpers

setup() {
	export VRB_CACHE=$BATS_TEST_TMPDIR/cache VRB_RESULTS=$BATS_TEST_TMPDIR/results
}

@test "every script has a --help that exits 0" {
	for s in run-bench.sh scripts/build-kernels.sh scripts/guest-run.sh scripts/install-deps.sh scripts/check-series.sh scripts/export-series.sh bench/ptr_ring/sweep.sh bench/vhost_src/run-b.sh bench/vhost_drv/run-a.sh bench/vdpa_gen/run-c.sh bench/ringsim/run-model.sh bench/ringsim/model-c.sh bench/report/summary.sh bench/report/compare-runs.sh scripts/check-digest.sh; do
		run "$VRB_ROOT/$s" --help
		[ "$status" -eq 0 ]
		[[ "$output" == Usage:* ]]
	done
}

@test "an unknown option is refused by every script" {
	for s in run-bench.sh scripts/build-kernels.sh scripts/guest-run.sh scripts/install-deps.sh scripts/check-series.sh scripts/export-series.sh bench/ptr_ring/sweep.sh bench/vhost_src/run-b.sh bench/vhost_drv/run-a.sh bench/vdpa_gen/run-c.sh bench/ringsim/run-model.sh bench/ringsim/model-c.sh bench/report/summary.sh bench/report/compare-runs.sh scripts/check-digest.sh; do
		run "$VRB_ROOT/$s" --no-such-option
		[ "$status" -ne 0 ]
		[[ "$output" == *"unknown option '--no-such-option'"* ]]
	done
}

@test "run-bench.sh refuses an unknown workload, variant, accelerator and bad numbers" {
	run "$VRB_ROOT/run-bench.sh" nosuchworkload
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown workload 'nosuchworkload'"* ]]
	run "$VRB_ROOT/run-bench.sh" --variants "stock bogus"
	[[ "$output" == *"unknown kernel variant 'bogus'"* ]]
	run "$VRB_ROOT/run-bench.sh" --accel xen
	[[ "$output" == *"unknown accelerator 'xen'"* ]]
	run "$VRB_ROOT/run-bench.sh" boot --repeats 0
	[[ "$output" == *"--repeats must be an integer from 1 to 1000"* ]]
	run "$VRB_ROOT/run-bench.sh" --vcpus
	[[ "$output" == *"--vcpus needs a value"* ]]
	run "$VRB_ROOT/run-bench.sh" boot B -- --rings 256
	[ "$status" -ne 0 ]
	[[ "$output" == *"options after -- need exactly one workload"* ]]
	# options after -- reach the workload's script, which checks them
	run "$VRB_ROOT/run-bench.sh" B -- --rings 384
	[ "$status" -ne 0 ]
	[[ "$output" == *"--ring must be 256, 512 or 1024, not '384'"* ]]
	[ ! -e "$VRB_CACHE" ]
}

@test "run-bench.sh profiles: quick by default, full on request, each step's options checked; bad use refused" {
	run "$VRB_ROOT/run-bench.sh" --dry-run
	echo "$output"
	[ "$status" -eq 0 ]
	# every workload of the default set, in order, numbered, each with its minutes
	[ "$(grep -E '^[0-9]+:' <<<"$output" | awk '{ print $1 $4 }' | tr '\n' ' ')" = "1:boot 2:ptr_ring 3:A 4:B 5:B 6:C " ]
	grep -q -- '^5: [0-9]* min  B --design boots .* --ndr-steps 3$' <<<"$output"
	grep -q '^3: [0-9]* min  A --settings stock\\ b1\\ b16\\ b64\\ z1b64\\ zqb64 --txqlens 500 --repeats 6 ' <<<"$output"
	# the total is the sum of the steps' minutes; the kernels' state is said
	total=$(grep -E '^[0-9]+:' <<<"$output" | awk '{ t += $2 } END { print t }')
	grep -qx "total: $total min once the kernels are built (a 2-core TCG host)" <<<"$output"
	grep -qx "kernel stock (6.1): not built yet: .*" <<<"$output"
	grep -qx "kernel patched (6.1): not built yet: .*" <<<"$output"
	# (the libraries in a subshell: their exports would change what follows)
	img=$(load_libs && kernel_image patched)
	mkdir -p "$(dirname "$img")"
	touch "$img"
	run "$VRB_ROOT/run-bench.sh" --dry-run
	grep -qx "kernel patched (6.1): built, out of date (an unfinished build, series, config fragments): rebuilt .*" <<<"$output"
	grep -qx "kernel stock (6.1): not built yet: .*" <<<"$output"
	# a build that finished from what the repository holds now: up to date
	(load_libs && export VRB_PATCHES=$VRB_ROOT/patches/6.1 && w=$(kernel_workspace) && mkdir -p "$w/state" &&
		frags=() && for f in $(kernel_fragments); do frags+=("$VRB_ROOT/$f"); done &&
		kernel_config_key "${frags[@]}" >"$(kernel_config_file).key" && echo "# a config" >"$(kernel_config_file)" &&
		printf 'series=%s\nconfig_hash=%s\n' "$(series_hash "$VRB_PATCHES")" "$(kernel_config_hash)" >"$(kernel_build_info patched)")
	run "$VRB_ROOT/run-bench.sh" --dry-run
	grep -qx "kernel patched (6.1): built, up to date" <<<"$output"
	# the config regenerated since (another fragment set): not up to date
	(load_libs && echo "# another config" >"$(kernel_config_file)")
	run "$VRB_ROOT/run-bench.sh" --dry-run
	grep -qx "kernel patched (6.1): built, out of date (config fragments): rebuilt .*" <<<"$output"
	# full: one B step per ring, then the zero-loss search, then the
	# adaptive rules; numbers kept when filtered
	run "$VRB_ROOT/run-bench.sh" --profile full --dry-run B
	[ "$status" -eq 0 ]
	[ "$(grep -E '^[0-9]+:' <<<"$output" | cut -d: -f1 | tr '\n' ' ')" = "5 6 7 8 15 " ]
	grep -q -- '^6: .* --rings 512 ' <<<"$output"
	grep -q -- '^8: .*--design boots .* --rings 256\\ 512\\ 1024 .* --ndr-steps 5' <<<"$output"
	grep -q -- '^15: .* B --settings auto\\ adaptive\\ adaptive-dry\\ legacy .*--block 4$' <<<"$output"
	run "$VRB_ROOT/run-bench.sh" --profile full --dry-run --steps "7 3"
	[ "$status" -eq 0 ]
	[ "$(grep -E '^[0-9]+:' <<<"$output" | cut -d: -f1 | tr '\n' ' ')" = "7 3 " ]
	run "$VRB_ROOT/run-bench.sh" --profile full --dry-run --steps 16
	[ "$status" -eq 1 ]
	[[ "$output" == *"--steps must be an integer from 1 to 15, not '16'"* ]]
	# the 2019 table in virtual time: one C step for ring 256, two for 1024,
	# one for the cells at and above capacity counted in a window, one for
	# each adaptive rule (and B's step for both)
	run "$VRB_ROOT/run-bench.sh" --profile full --dry-run C
	[ "$status" -eq 0 ]
	[ "$(grep -E '^[0-9]+:' <<<"$output" | cut -d: -f1 | tr '\n' ' ')" = "9 10 11 12 13 14 " ]
	grep -q -- '^9: .* C .*--rings 256 --rates 0.7\\ 0.9\\ 1.0\\ 1.1 .*--seeds 20 ' <<<"$output"
	grep -q -- '^10: .* C .*--rings 1024 --rates 0.7\\ 0.9 .*--seeds 20 ' <<<"$output"
	grep -q -- '^11: .* C .*--rings 1024 --rates 1.0\\ 1.1 .*--seeds 20 ' <<<"$output"
	grep -q -- '^12: .* C .*--rings 256\\ 1024 --rates 1.0\\ 1.1 .*--warmup 15000 --phase 1024$' <<<"$output"
	grep -q -- '^13: .* C --settings auto\\ legacy\\ adaptive\\ mn64 .*--no-costs$' <<<"$output"
	grep -q -- '^14: .* C --settings auto\\ adaptive\\ adaptive-dry\\ legacy .*--phase 1024$' <<<"$output"
	run "$VRB_ROOT/run-bench.sh" --profile full --dry-run --steps 2 B
	[ "$status" -eq 1 ]
	[[ "$output" == *"none of them is a step of B"* ]]
	run "$VRB_ROOT/run-bench.sh" A --steps 1
	[ "$status" -eq 1 ]
	[[ "$output" == *"--steps picks a profile's steps"* ]]
	run "$VRB_ROOT/run-bench.sh" --profile nope
	[ "$status" -eq 1 ]
	[[ "$output" == *"unknown profile 'nope' (known: quick full)"* ]]
	run "$VRB_ROOT/run-bench.sh" --profile quick A -- --repeats 2
	[ "$status" -eq 1 ]
	[[ "$output" == *"no -- WORKLOAD-OPTIONS with it"* ]]
	run "$VRB_ROOT/run-bench.sh" --repeats 3
	[ "$status" -eq 1 ]
	[[ "$output" == *"the quick profile sets the repeats"* ]]
	run "$VRB_ROOT/run-bench.sh" A --dry-run
	[ "$status" -eq 1 ]
	[[ "$output" == *"--dry-run prints a profile's steps"* ]]
	run "$VRB_ROOT/run-bench.sh" --profile quick --dry-run model
	[ "$status" -eq 1 ]
	[[ "$output" == *"profile quick has no step for model"* ]]
	# the report commands are reached through run-bench.sh
	run "$VRB_ROOT/run-bench.sh" summary
	[ "$status" -eq 1 ]
	[[ "$output" == *"no result directory given"* ]]
	run "$VRB_ROOT/run-bench.sh" compare --help
	[ "$status" -eq 0 ]
	[[ "$output" == Usage:* ]]
}

@test "guest-run.sh checks its numbers, the kernel image and the command before booting" {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --vcpus 0 -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"--vcpus must be an integer from 1 to 8, not '0'"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --mem 12 -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"--mem must be an integer"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /nonexistent/bzImage -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"kernel image '/nonexistent/bzImage' not found"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true
	[ "$status" -eq 1 ]
	[[ "$output" == *"no command given"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --accel hvf -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"unknown accelerator 'hvf'"* ]]
	[[ "$output" != *booting* ]]
}

@test "guest-run.sh --shell refuses a command, --vcpu-cpus, icount and a missing terminal before booting" {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --shell -- uname -r
	[ "$status" -eq 1 ]
	[[ "$output" == *"--shell runs a shell: no command (got 'uname -r')"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --vcpu-cpus 1 --shell
	[ "$status" -eq 1 ]
	[[ "$output" == *"--vcpu-cpus is not for --shell"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --vcpus 1 --clock icount --shell
	[ "$status" -eq 1 ]
	[[ "$output" == *"--clock icount is not for --shell"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --shell </dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"--shell needs a terminal"* ]]
	[[ "$output" != *booting* ]]
}

@test "build-kernels.sh refuses an unknown variant and a missing kernel source" {
	run "$VRB_ROOT/scripts/build-kernels.sh" --variant sid
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown variant 'sid'"* ]]
	VRB_KERNEL_TARBALL=$BATS_TEST_TMPDIR/none.tar.xz run "$VRB_ROOT/scripts/build-kernels.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"none.tar.xz not found: install it with 'apt-get install linux-source-6.1'"* ]]
}

@test "stap/build.sh --kernel-dir refuses what is not a kernel build dir ready for modules" {
	local d=$BATS_TEST_TMPDIR/k
	command -v stap >/dev/null || skip "systemtap not installed"
	run "$VRB_ROOT/stap/build.sh" --kernel-dir "$BATS_TEST_TMPDIR/none" refill
	[ "$status" -ne 0 ]
	[[ "$output" == *"--kernel-dir: no directory"* ]]
	mkdir -p "$d"
	run "$VRB_ROOT/stap/build.sh" --kernel-dir "$d" refill
	[ "$status" -ne 0 ]
	[[ "$output" == *"is not a kernel build dir (no vmlinux and System.map there)"* ]]
	touch "$d/vmlinux" "$d/System.map"
	run "$VRB_ROOT/stap/build.sh" --kernel-dir "$d" refill
	[ "$status" -ne 0 ]
	[[ "$output" == *"has no Module.symvers"*"run 'make modules' there first"* ]]
	touch "$d/Module.symvers"
	run "$VRB_ROOT/stap/build.sh" --kernel-dir "$d" refill
	[ "$status" -ne 0 ]
	[[ "$output" == *"no kernel source found"* ]]
	run "$VRB_ROOT/stap/build.sh" --kernel stock --kernel-dir "$d" refill
	[ "$status" -ne 0 ]
	[[ "$output" == *"--kernel and --kernel-dir exclude each other"* ]]
	run "$VRB_ROOT/stap/build.sh" --kernel-dir "$d" nosuchprobe
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown probe 'nosuchprobe'"* ]]
	# nothing built, no cache dir made
	[ ! -e "$VRB_CACHE/stap" ]
}

@test "build-kernels.sh refuses to start without the space a build needs, and creates no workspace" {
	: >"$BATS_TEST_TMPDIR/k.tar.xz"
	VRB_KERNEL_TARBALL=$BATS_TEST_TMPDIR/k.tar.xz VRB_KERNEL_WS_MB=1 VRB_KERNEL_OUT_MB=999999999 \
		run "$VRB_ROOT/scripts/build-kernels.sh" --variant stock
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"MB free in $VRB_CACHE: building stock needs about 1000000000 MB"* ]]
	[ -z "$(ls -A "$VRB_CACHE")" ]
	VRB_KERNEL_TARBALL=$BATS_TEST_TMPDIR/k.tar.xz VRB_KERNEL_WS_MB=999999999 \
		run "$VRB_ROOT/scripts/build-kernels.sh" --prepare-only
	[ "$status" -ne 0 ]
	[[ "$output" == *"MB free in $VRB_CACHE: unpacking the workspace needs about 999999999 MB"* ]]
	[ -z "$(ls -A "$VRB_CACHE")" ]
}

@test "the ptr_ring sweep refuses bad lists and numbers before building anything" {
	run "$VRB_ROOT/bench/ptr_ring/sweep.sh" --sizes "8 x"
	[ "$status" -ne 0 ]
	[[ "$output" == *"--sizes must be an integer from 1 to 1048576, not 'x'"* ]]
	run "$VRB_ROOT/bench/ptr_ring/sweep.sh" --cbatches ""
	[[ "$output" == *"--cbatches is empty"* ]]
	run "$VRB_ROOT/bench/ptr_ring/sweep.sh" --items 5
	[[ "$output" == *"--items must be an integer from 1000"* ]]
	run "$VRB_ROOT/bench/ptr_ring/sweep.sh" --bogus
	[[ "$output" == *"unknown option '--bogus'"* ]]
	[ ! -e "$VRB_CACHE" ]
}

@test "workload B's --kernel-dir: a dir without a kernel image is refused; a build dir or debian-kernel.sh's output is taken" {
	local d=$BATS_TEST_TMPDIR/k
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --kernel-dir "$d"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--kernel-dir: no directory $d"* ]]
	mkdir -p "$d"
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --kernel-dir "$d"
	[ "$status" -eq 1 ]
	[[ "$output" == *"no vmlinuz"*"and no arch/x86/boot/bzImage"* ]]
	mkdir -p "$d/arch/x86/boot"
	touch "$d/arch/x86/boot/bzImage"
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --kernel-dir "$d"
	[ "$status" -eq 0 ]
	rm -r "$d/arch"
	touch "$d/vmlinuz" "$d/initrd.img"
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --kernel-dir "$d" --settings stock
	[ "$status" -eq 0 ]
}

@test "workload B's --hypotheses: a missing or empty file is refused; a readable one is taken" {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --hypotheses "$BATS_TEST_TMPDIR/none.txt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"--hypotheses: cannot read $BATS_TEST_TMPDIR/none.txt"* ]]
	printf ' \n\n' >"$BATS_TEST_TMPDIR/blank.txt"
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --hypotheses "$BATS_TEST_TMPDIR/blank.txt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"is empty"* ]]
	printf 'H1\0\1\2' >"$BATS_TEST_TMPDIR/bin.txt"
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --hypotheses "$BATS_TEST_TMPDIR/bin.txt"
	[ "$status" -eq 1 ]
	[[ "$output" == *"is not text"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --hypotheses "$VRB_ROOT/bench/vhost_src/confirm-b.txt" --verdicts-of /nonexistent
	[ "$status" -eq 1 ]
	[[ "$output" == *"not for --verdicts-of"* ]]
	# a unit is a boot: fewer than 3 repeats are said to give no interval
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --repeats 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"--repeats 2: a unit is a boot"* ]]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --hypotheses "$VRB_ROOT/bench/vhost_src/confirm-b.txt" \
		--settings "auto legacy mn16 cap64" --rings 256 --rates 299104 --repeats 30 --rounds 2 --block 4
	[ "$status" -eq 0 ]
	# the file is taken when the run begins; a run that ends early leaves
	# no copy behind
	mkdir "$BATS_TEST_TMPDIR/tmp"
	TMPDIR=$BATS_TEST_TMPDIR/tmp run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args \
		--hypotheses "$VRB_ROOT/bench/vhost_src/confirm-b.txt"
	[ "$status" -eq 0 ]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/tmp")" ]
}

@test "debian-kernel.sh refuses a missing or malformed release and unknown options" {
	run "$VRB_ROOT/scripts/debian-kernel.sh"
	[ "$status" -eq 1 ]
	[[ "$output" == *"name the kernel release"* ]]
	run "$VRB_ROOT/scripts/debian-kernel.sh" 6.1.0-cloud
	[ "$status" -eq 1 ]
	[[ "$output" == *"'6.1.0-cloud' is not a Debian kernel release like 6.1.0-55-cloud-amd64"* ]]
	run "$VRB_ROOT/scripts/debian-kernel.sh" --bogus 6.1.0-55-cloud-amd64
	[ "$status" -eq 1 ]
	[[ "$output" == *"unknown option '--bogus'"* ]]
	run "$VRB_ROOT/scripts/debian-kernel.sh" --help
	[ "$status" -eq 0 ]
	[[ "$output" == *"OUT/initrd.img"* ]]
	[ ! -e "$VRB_CACHE/debian" ]
}

@test "workloads A and B refuse bad designs, clocks, regimes and A/A arms before anything runs" {
	local a
	for a in "--design x" "--block 1" "--settle 3 --block 3" "--rounds 0" "--vcpus 9" "--ref mn9 --settings auto" \
		"--settings 'auto auto'" "--settings foo_aa" "--settings 'auto auto_aa auto_aa'"; do
		run bash -c "\"$VRB_ROOT/bench/vhost_src/run-b.sh\" --check-args $a"
		echo "B $a: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"run-b.sh: error: "* ]]
	done
	for a in "--clock x" "--clock icount --vcpus 2" "--regime x" "--work -1" "--work 1000001" "--ref b7 --settings b8" \
		"--settings 'b8 b8'" "--settings b300_aa" "--vcpus 0"; do
		run bash -c "\"$VRB_ROOT/bench/vhost_drv/run-a.sh\" --check-args $a"
		echo "A $a: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"run-a.sh: error: "* ]]
	done
	run "$VRB_ROOT/bench/vhost_drv/run-a.sh" --check-args --settings "b8 b8_aa" --clock icount
	[ "$status" -eq 0 ]
	[ ! -e "$VRB_CACHE" ]
}

@test "workload C refuses bad rates, rings, bursts, seeds and unknown stall regimes or tables before anything runs" {
	local a
	for a in "--rates 0" "--rates x" "--rates 11" "--rings 300" "--rings 1" "--burst 512" "--burst 0" "--seeds 1" \
		"--frames 99" "--len 59" "--jitter 101" "--capacity 0" "--stalls x" "--stalls none:1" "--stalls exp:0:10" \
		"--stalls exp:100:0" "--stalls table:nosuch:10" "--stalls 'table:../x:10'" "--settings b8" "--settings 'auto auto'" \
		"--ref mn9 --settings auto" "--cost-probe avail_exhaust" "--cost-probe ''" "--pacing x" "--pacing ''" \
		"--aa-seeds both" "--warmup x" "--warmup 01" "--phase 64" "--warmup 29969" "--warmup 20000 --phase 9969"; do
		run bash -c "\"$VRB_ROOT/bench/vdpa_gen/run-c.sh\" --check-args $a"
		echo "C $a: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"run-c.sh: error: "* ]]
	done
	run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --stalls table:nosuch:10
	[[ "$output" == *"unknown stall table 'nosuch'"* ]]
	run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --burst 512 --rings "256 1024"
	[[ "$output" == *"--burst 512 is larger than ring 256"* ]]
	run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --settings "stock auto mn16_aa" --rings 512 --stalls "none exp:50:1000"
	[ "$status" -eq 0 ]
	# a warm-up, its draws and a burst fit in the trial: 20000 + 9968 + 32
	run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --warmup 20000 --phase 9968
	[ "$status" -eq 0 ]
	run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --phase 64
	[[ "$output" == *"--phase 64 without --warmup"* ]]
	run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --cost-probe avail_exhaust
	[[ "$output" == *"'avail_exhaust' is not rx_costs or rx_costs.bt"* ]]
	# systemtap does not build for 6.12: its probe is the bpftrace twin
	VRB_BASE=6.12 run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --cost-probe rx_costs
	[ "$status" -eq 1 ]
	[[ "$output" == *"systemtap does not build for base 6.12: use rx_costs.bt"* ]]
	VRB_BASE=6.12 run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --cost-probe rx_costs.bt
	[ "$status" -eq 0 ]
	run "$VRB_ROOT/bench/vdpa_gen/run-c.sh" --check-args --no-costs
	[ "$status" -eq 0 ]
	run "$VRB_ROOT/run-bench.sh" C --repeats 2
	[ "$status" -ne 0 ]
	[[ "$output" == *"C: its units are seeds"* ]]
	[ ! -e "$VRB_CACHE" ]
}

@test "the model refuses bad numbers, lists and runs before anything runs" {
	local a
	for a in "--seeds 0" "--seeds 101" "--stall-factor 1" "--stall-factor x" "--stall-min-ns -1" "--hw-capacity 999" \
		"--project-rates ''" "--project-rates 0" "--project-rings 1" "--project-rules 65" "--project-rules lega" \
		"--hw-stalls 5" "--hw-stalls 1:x" "--hw-stalls ''" "--project-ms 0" "--from $BATS_TEST_TMPDIR" \
		"-- --design x" "-- --design boots" "-- --settings 'auto auto'"; do
		run bash -c "\"$VRB_ROOT/bench/ringsim/run-model.sh\" --check-args $a"
		echo "model $a: $output"
		[ "$status" -eq 1 ]
		[[ "$output" == *"error: "* ]]
	done
	mkdir -p "$BATS_TEST_TMPDIR/b"
	touch "$BATS_TEST_TMPDIR/b/blocks.csv"
	run "$VRB_ROOT/bench/ringsim/run-model.sh" --check-args --from "$BATS_TEST_TMPDIR/b"
	[ "$status" -eq 1 ]
	[[ "$output" == *"has no rx_costs probe output (run B with --probe rx_costs)"* ]]
	run "$VRB_ROOT/bench/ringsim/run-model.sh" --check-args --hw-stalls "0:0 50:200000" --project-rules "auto 16"
	[ "$status" -eq 0 ]
	[ ! -e "$VRB_CACHE" ]
}

@test "guest-run.sh refuses icount with SMP or KVM, bad host CPU lists, an unknown clock" {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --clock icount --vcpus 2 -- true
	[ "$status" -eq 1 ] && [[ "$output" == *"--clock icount needs --vcpus 1"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --clock icount --vcpus 1 --accel kvm -- true
	[ "$status" -eq 1 ] && [[ "$output" == *"--clock icount is a TCG mode"* ]]
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --clock wall -- true
	[ "$status" -eq 1 ] && [[ "$output" == *"unknown clock 'wall'"* ]]
	for c in a "1," -1 "0 1"; do
		run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --host-cpus "$c" -- true
		[ "$status" -eq 1 ] && [[ "$output" == *"--host-cpus: '$c' is not a CPU list"* ]]
	done
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel /bin/true --host-cpus 4095 -- true
	[ "$status" -eq 1 ] && [[ "$output" == *"cannot run on host CPUs '4095'"* ]]
}

@test "a missing tool stops a script with the package that has it" {
	touch "$BATS_TEST_TMPDIR/bzImage"
	VRB_QEMU=no-such-qemu run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$BATS_TEST_TMPDIR/bzImage" -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"'no-such-qemu' not found: install it with 'apt-get install qemu-system-x86'"* ]]
	[ ! -e "$VRB_RESULTS" ] || [ -z "$(ls -A "$VRB_RESULTS")" ]
}

@test "run-b.sh --verdicts-of: the run's own reference, or pooled or not after the fact, and the title says which" {
	local d=$BATS_TEST_TMPDIR/run
	export VRB_CACHE=$BATS_TEST_TMPDIR/cache
	mkdir -p "$d"
	cp "$VRB_ROOT/tests/fixtures/stats/b-paired-20261130T145227Z/blocks.csv" "$d/"
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --check-args --no-aa --pool-ref
	[ "$status" -ne 0 ]
	[[ "$output" == *"--pool-ref pools the reference with its A/A copy: not with --no-aa"* ]]
	# a run before pooling: auto alone, unless pooled after the fact
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --verdicts-of "$d"
	[ "$status" -eq 0 ]
	[[ "$output" == *", auto alone:"* ]]
	plain=$(grep '^drop_pct r256 100000 *legacy ' <<<"$output")
	# nothing in the environment decides it
	run env b_pool_override=1 "$VRB_ROOT/bench/vhost_src/run-b.sh" --verdicts-of "$d"
	[ "$status" -eq 0 ]
	[ "$(grep '^drop_pct r256 100000 *legacy ' <<<"$output")" = "$plain" ]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --verdicts-of "$d" --pool-ref
	[ "$status" -eq 0 ]
	[[ "$output" == *", auto pooled with auto_aa (after the fact: not the run's own analysis):"* ]]
	pooled=$(grep '^drop_pct r256 100000 *legacy ' <<<"$output")
	[ -n "$plain" ] && [ "$plain" != "$pooled" ]
	# a run that pooled: pooled, unless --no-pool-ref
	sed -i '1i # reference_pool: auto and auto_aa: the reference is their mean per unit' "$d/blocks.csv"
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --verdicts-of "$d"
	[ "$status" -eq 0 ]
	[[ "$output" == *", auto pooled with auto_aa:"* ]]
	[ "$(grep '^drop_pct r256 100000 *legacy ' <<<"$output")" = "$pooled" ]
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --verdicts-of "$d" --no-pool-ref
	[ "$status" -eq 0 ]
	[[ "$output" == *", auto alone (after the fact: not the run's own analysis):"* ]]
	[ "$(grep '^drop_pct r256 100000 *legacy ' <<<"$output")" = "$plain" ]
}
