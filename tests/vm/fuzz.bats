#!/usr/bin/env bats
# The fuzzer in a guest (scripts/fuzz.sh, tests/fuzz/): a short seeded run
# on each kernel finds no splat and no failed check, and writes its result
# dir; the patched kernel replays every reproducer the fuzzer ever found
# (tests/fuzz/repro/) without a splat. On the debug kernels (make
# check-debug) this is the fuzzer's short form under KASAN and lockdep.

load vm_helpers

setup_file() {
	build_kernels
}

setup() {
	real_workspace
}

# short KERNEL: seed 1, 300 operations, on KERNEL.
short() {
	run "$VRB_ROOT/scripts/fuzz.sh" --kernel "$1" --seconds 10 --seed 1 --ops 300 \
		--out "$BATS_TEST_TMPDIR/run"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -qx '1,pass,300,[0-9]*,[0-9]*' "$BATS_TEST_TMPDIR/run/seeds.csv"
	grep -q '^# Fuzz run: no failure' "$BATS_TEST_TMPDIR/run/summary.md"
	grep -q "^kernel_flavour: $(kernel_flavour)" "$BATS_TEST_TMPDIR/run/meta.txt"
}

@test "fuzz: seed 1 on the stock kernel (the operations that exist there): no splat, no failed check" {
	short stock
}

@test "fuzz: seed 1 on the patched kernel: no splat, no failed check, accounting phases checked" {
	short patched
	# the accounting oracle ran on this seed, not only skipped
	grep -qx '1,pass,300,[1-9][0-9]*,[0-9]*' "$BATS_TEST_TMPDIR/run/seeds.csv"
}

@test "fuzz: the patched kernel replays every reproducer in tests/fuzz/repro without a failure" {
	local files=("$VRB_ROOT"/tests/fuzz/repro/*.ops)
	[ -e "${files[0]}" ]
	run "$VRB_ROOT/scripts/fuzz.sh" --kernel patched --replay "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"all passed"* ]]
}
