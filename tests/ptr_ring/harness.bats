#!/usr/bin/env bats
# shellcheck disable=SC2030,SC2031 # bats: run sets status/output in the test itself
# The native ptr_ring harness (bench/ptr_ring): its correctness tests (ASan,
# UBSan) and two-thread stress (TSan) pass on the stock and the patched
# kernel's include/linux/ptr_ring.h, and fail on broken headers.

load ../unit/helpers

setup_file() {
	export VRB_CACHE=$VRB_ROOT/.cache
	"$VRB_ROOT/scripts/build-kernels.sh" --prepare-only >"$BATS_FILE_TMPDIR/prep.log" 2>&1 || {
		tail -n 20 "$BATS_FILE_TMPDIR/prep.log" | sed "s/^/# /" >&3
		return 1
	}
}

setup() {
	load_libs
	export VRB_CACHE=$VRB_ROOT/.cache VRB_PATCHES=$VRB_ROOT/patches/${VRB_BASE:-6.1}
	W=$(kernel_workspace)
	BUILD=$BATS_TEST_TMPDIR/build
}

harness() {
	make -s -C "$VRB_ROOT/bench/ptr_ring" BUILD="$BUILD" "$@"
}

@test "the correctness tests and the stress pass on the stock and patched headers" {
	run harness HDR_stock="$W/stock/include/linux/ptr_ring.h" \
		HDR_patched="$W/patched/include/linux/ptr_ring.h" check
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ptr_ring stock: 10 passed, 0 failed"* ]]
	# the patched header has __ptr_ring_check_produce(): one more test, and
	# the stop/wake stress (7 ring sizes x the zeroing batches up to half)
	[[ "$output" == *"ptr_ring patched: 11 passed, 0 failed"* ]]
	[[ "$output" == *"ptr_ring stress stock: 27 passed, 0 failed"* ]]
	[[ "$output" == *"ptr_ring stress patched: 27 passed, 0 failed"* ]]
	[[ "$output" == *"ptr_ring wake patched: 20 passed, 0 failed"* ]]
	[[ "$output" != *"ptr_ring wake stock"* ]]
}

# mutant NAME SED [TREE]: a copy of TREE's header (default stock) changed
# by SED; its tests must fail.
mutant() {
	local hdr=$BATS_TEST_TMPDIR/$1.h orig=$W/${3:-stock}/include/linux/ptr_ring.h
	sed "$2" "$orig" >"$hdr"
	if cmp -s "$hdr" "$orig"; then
		echo "the mutation '$2' changed nothing"
		return 1
	fi
	run harness IMPLS="$1" HDR_"$1"="$hdr" "$BUILD/test-$1"
	[ "$status" -eq 0 ]
	run "$BUILD/test-$1"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"ptr_ring $1: "*" passed, "[1-9]*" failed"* ]]
}

@test "a zeroing batch off by one fails the tests" {
	mutant offbyone 's/consumer_head - r->consumer_tail >= r->batch/consumer_head - r->consumer_tail > r->batch/'
}

@test "an unconsume that drops what it is given fails the tests" {
	mutant dropunconsume 's/r->queue\[head\] = batch\[--n\];/destroy(batch[--n]); continue;/'
}

@test "an unconsume that miscounts what did not fit fails the tests (the patched header returns the count)" {
	mutant miscount 's/^\tleft = n;$/\tleft = 0;/' patched
}

@test "a batch rule that can exceed half the ring fails the tests" {
	mutant bigbatch 's/if (r->batch > r->size \/ 2 || !r->batch)/if (!r->batch)/'
}

@test "a check_produce that misses the size test faults on a ring of 0 entries, as the kernel did" {
	local hdr=$BATS_TEST_TMPDIR/nosize.h
	sed 's/^\tif (unlikely(!r->size))$/\tif (0)/' "$W/patched/include/linux/ptr_ring.h" >"$hdr"
	if cmp -s "$hdr" "$W/patched/include/linux/ptr_ring.h"; then
		echo "the mutation changed nothing"
		return 1
	fi
	run harness IMPLS=nosize HDR_nosize="$hdr" "$BUILD/test-nosize"
	[ "$status" -eq 0 ]
	run "$BUILD/test-nosize"
	echo "$output"
	# ZERO_SIZE_PTR (kshim.h) faults: ASan reports the SEGV and exits 1
	[ "$status" -ne 0 ]
	[[ "$output" == *"SEGV"* ]]
	[[ "$output" != *"ptr_ring nosize: 11 passed"* ]]
}

@test "a check_produce that never reports a full ring fails the tests" {
	mutant neverfull 's/^\t\treturn -ENOSPC;$/\t\treturn 0;/' patched
}

@test "a producer that does not re-check after stopping loses a wake-up in the stop/wake stress" {
	run make -s -C "$VRB_ROOT/bench/ptr_ring" BUILD="$BUILD" IMPLS=patched \
		HDR_patched="$W/patched/include/linux/ptr_ring.h" "$BUILD/wake-patched"
	echo "$output"
	[ "$status" -eq 0 ]
	export TSAN_OPTIONS="suppressions=$VRB_ROOT/bench/ptr_ring/tsan.supp"
	run "$BUILD/wake-patched"
	echo "$output"
	[ "$status" -eq 0 ]
	# the same protocol without the producer's re-check (MUTANT_NO_RECHECK)
	run gcc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -pthread -O1 -fsanitize=thread \
		-DPTR_RING_HEADER="\"$W/patched/include/linux/ptr_ring.h\"" -DRING_IMPL_NAME='"norecheck"' \
		-DHAVE_CHECK_PRODUCE=1 -DUNCONSUME_RETURNS_COUNT=1 -DMUTANT_NO_RECHECK=1 \
		-I "$VRB_ROOT/bench/ptr_ring" -o "$BUILD/wake-norecheck" \
		"$VRB_ROOT/bench/ptr_ring/wake_ptr_ring.c" "$VRB_ROOT/bench/ptr_ring/ring_ptr.c"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$BUILD/wake-norecheck"
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"lost wake-up: queue stopped, ring empty for 1 s"* ]]
}

@test "the benchmark moves every item and reports one CSV row" {
	run harness HDR_stock="$W/stock/include/linux/ptr_ring.h" IMPLS=stock "$BUILD/bench-stock"
	[ "$status" -eq 0 ]
	run "$BUILD/bench-stock" 64 0 16 100000 -1 -1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^stock,64,16,16,100000,[0-9.]+,[0-9]+,[0-9]+,spin$ ]]
	# drop mode: every attempt is either consumed or counted as a drop
	run "$BUILD/bench-stock" -d -w 200 8 1 16 200000 -1 -1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^stock,8,1,16,([0-9]+),[0-9.]+,[0-9]+,([0-9]+),drop$ ]]
	[ $((BASH_REMATCH[1] + BASH_REMATCH[2])) -eq 200000 ]
	run "$BUILD/bench-stock" -w x 64 0 16 1000
	[ "$status" -eq 2 ]
	[[ "$output" == *"WORK must be an integer from 0"* ]]
	run "$BUILD/bench-stock" 64 65 16 1000
	[ "$status" -eq 2 ]
	[[ "$output" == *"ZBATCH 65 is larger than the ring (64)"* ]]
	run "$BUILD/bench-stock" 0 0 1 10
	[ "$status" -eq 2 ]
	[[ "$output" == *"SIZE must be an integer from 1"* ]]
}

# sweep_rows CSV: a result CSV's data rows.
sweep_rows() {
	grep -v '^#' "$1" | tail -n +2
}

@test "the sweep runs stock, patched and the A/A arm (stock again) at every point, in a balanced order; the summary shows the A/A" {
	local out=$BATS_TEST_TMPDIR/sweep a
	run "$VRB_ROOT/bench/ptr_ring/sweep.sh" --sizes "16 64" --zbatches 0 --cbatches 1 --modes drop --work 0 \
		--repeats 3 --items 20000 --out "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	# 2 sizes x 3 arms x 3 repeats
	[ "$(sweep_rows "$out/raw.csv" | wc -l)" -eq 18 ]
	for a in stock patched stock_aa; do
		[ "$(sweep_rows "$out/raw.csv" | grep -c "^[1-3],$a,drop,0,")" -eq 6 ]
	done
	# the first three orders of the Williams design: ABC BCA CAB
	[ "$(sweep_rows "$out/raw.csv" | awk -F, '$5 == 16 { o[$1] = o[$1] " " $2 } END { print o[1] "," o[2] "," o[3] }')" = \
		" stock patched stock_aa, patched stock_aa stock, stock_aa stock patched" ]
	grep -q '^# aa_arm: stock_aa ' "$out/raw.csv"
	run "$VRB_ROOT/bench/report/summary.sh" --no-plots "$out"
	echo "$output"
	[ "$status" -eq 0 ]
	cat "$out/summary.md"
	grep -q '^A/A: stock_aa (the stock binary run again) against stock' "$out/summary.md"
	# each point: the ratio, with its interval unless 3 repeats of stock
	# vary too much to bound one (real time: it happens under load; the
	# row then says so), and the A/A arm's interval or "-"
	[ "$(grep -cE '^\| drop \| 0 \| [0-9]+ \| 1 \| 3 \| [0-9.]+( \[[0-9.]+, [0-9.]+\])?[^|]* \| (\[[0-9.]+, [0-9.]+\]|-) \| ' "$out/summary.md")" -eq 2 ]
	[ "$(grep -cE '^\| drop \| 0 \| [0-9]+ \| 1 \| 3 \| [0-9.]+ \| [^|]* \| no difference detected \(no interval|^\| drop \| 0 \| [0-9]+ \| 1 \| 3 \| [0-9.]+ \[' "$out/summary.md")" -eq 2 ]
	# --no-aa: the two headers only
	run "$VRB_ROOT/bench/ptr_ring/sweep.sh" --sizes 16 --zbatches 0 --cbatches 1 --modes drop --work 0 \
		--repeats 2 --items 20000 --no-aa --out "$out-noaa"
	[ "$status" -eq 0 ]
	[ "$(sweep_rows "$out-noaa/raw.csv" | cut -d, -f2 | sort | tr '\n' ' ')" = "patched patched stock stock " ]
	grep -q '^# aa_arm: none$' "$out-noaa/raw.csv"
}
