#!/usr/bin/env bats
# The kernel workspace on a toy source tarball: unpack once, apply the
# series with git am, name a patch that does not apply, keep hand edits.

load helpers

setup() {
	load_libs
	local src=$BATS_TEST_TMPDIR/toy/linux-toy
	mkdir -p "$src"
	printf 'kernelversion:\n\t@echo 6.1.999\n' >"$src/Makefile"
	printf 'int a = 1;\n' >"$src/a.c"
	tar -cJf "$BATS_TEST_TMPDIR/toy.tar.xz" -C "$BATS_TEST_TMPDIR/toy" linux-toy
	export VRB_KERNEL_TARBALL=$BATS_TEST_TMPDIR/toy.tar.xz
	# A patch made the way the project's patches are: git format-patch.
	local g=$BATS_TEST_TMPDIR/gen
	cp -r "$src" "$g"
	git -C "$g" init -q
	git -C "$g" add -A
	git -C "$g" -c user.name=t -c user.email=t@t commit -q -m base
	printf 'int a = 2;\n' >"$g/a.c"
	git -C "$g" -c user.name=t -c user.email=t@t commit -q -am "toy: a is 2"
	git -C "$g" format-patch -q -1 -o "$VRB_PATCHES"
	printf 'int a = 3;\nint b;\n' >"$g/a.c"
	git -C "$g" -c user.name=t -c user.email=t@t commit -q -am "toy: a is 3"
	git -C "$g" format-patch -q -1 -o "$BATS_TEST_TMPDIR/other" --start-number 2
}

@test "a missing kernel source tarball is a clear error" {
	VRB_KERNEL_TARBALL=$BATS_TEST_TMPDIR/nope.tar.xz
	run kernel_check_source
	[ "$status" -ne 0 ]
	[[ "$output" == *"nope.tar.xz not found"*"apt-get install linux-source-6.1"* ]]
}

@test "unpack makes a git repo with a baseline commit, once" {
	kernel_unpack
	w=$(kernel_workspace)
	[ "$(git -C "$w/stock" rev-parse --abbrev-ref HEAD)" = baseline ]
	[ "$(kernel_version)" = 6.1.999 ]
	touch "$w/stock/marker"
	kernel_unpack
	[ -f "$w/stock/marker" ]
}

@test "the series is applied with git am, and reused when unchanged" {
	printf '0001-toy-a-is-2.patch\n' >"$VRB_PATCHES/series"
	kernel_unpack
	kernel_apply_series
	w=$(kernel_workspace)
	[ "$(cat "$w/patched/a.c")" = "int a = 2;" ]
	[ "$(cat "$w/stock/a.c")" = "int a = 1;" ]
	[ "$(git -C "$w/patched" log -1 --format=%s)" = "toy: a is 2" ]
	run kernel_apply_series
	[ "$status" -eq 0 ]
	[[ "$output" == *"unchanged"* ]]
}

@test "a changed series is re-applied from the baseline" {
	printf '0001-toy-a-is-2.patch\n' >"$VRB_PATCHES/series"
	kernel_unpack
	kernel_apply_series
	cp "$BATS_TEST_TMPDIR"/other/0002-*.patch "$VRB_PATCHES/"
	printf '0001-toy-a-is-2.patch\n0002-toy-a-is-3.patch\n' >"$VRB_PATCHES/series"
	kernel_apply_series
	w=$(kernel_workspace)
	[ "$(head -n 1 "$w/patched/a.c")" = "int a = 3;" ]
	[ "$(git -C "$w/patched" rev-list --count baseline..patched)" -eq 2 ]
}

@test "a patch that does not apply stops the run naming it, tree left at baseline" {
	cp "$BATS_TEST_TMPDIR"/other/0002-*.patch "$VRB_PATCHES/"
	printf '0002-toy-a-is-3.patch\n' >"$VRB_PATCHES/series"
	kernel_unpack
	run kernel_apply_series
	[ "$status" -ne 0 ]
	[[ "$output" == *"patch 0002-toy-a-is-3.patch does not apply"* ]]
	w=$(kernel_workspace)
	[ "$(git -C "$w/patched" rev-parse HEAD)" = "$(git -C "$w/stock" rev-parse baseline)" ]
	[ ! -f "$w/state/series" ]
}

@test "hand edits in the patched tree are kept unless forced" {
	printf '0001-toy-a-is-2.patch\n' >"$VRB_PATCHES/series"
	kernel_unpack
	kernel_apply_series
	w=$(kernel_workspace)
	echo '/* wip */' >>"$w/patched/a.c"
	run kernel_apply_series
	[ "$status" -ne 0 ]
	[[ "$output" == *"changes not from $VRB_PATCHES/"* ]]
	grep -q wip "$w/patched/a.c"
	kernel_apply_series --force
	run grep -q wip "$w/patched/a.c"
	[ "$status" -eq 1 ]
}

@test "kernel flavours: base builds into out/ from state/config, debug into out-debug/ from state/config-debug with the debug fragment; an unknown one stops" {
	local w
	w=$(kernel_workspace)
	[ "$(kernel_flavour)" = base ]
	[ "$(kernel_outdir patched)" = "$w/patched/out" ]
	[ "$(kernel_image stock)" = "$w/stock/out/arch/x86/boot/bzImage" ]
	[ "$(kernel_config_file)" = "$w/state/config" ]
	[ "$(kernel_fragments)" = "guest-config/kernel.config" ]
	export VRB_KERNEL_FLAVOUR=debug
	[ "$(kernel_outdir patched)" = "$w/patched/out-debug" ]
	[ "$(kernel_config_file)" = "$w/state/config-debug" ]
	[ "$(kernel_fragments)" = "guest-config/kernel.config guest-config/kernel-debug.config" ]
	[ "$(stap_dir patched)" = "$(kernel_workspace)/stap/patched-debug" ]
	# every file the fragments name exists
	for f in $(kernel_fragments); do [ -f "$VRB_ROOT/$f" ]; done
	VRB_KERNEL_FLAVOUR=kasan run kernel_flavour
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown kernel flavour 'kasan' (base or debug)"* ]]
	run "$VRB_ROOT/scripts/build-kernels.sh" --flavour kasan
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown kernel flavour 'kasan'"* ]]
	VRB_KERNEL_FLAVOUR=nope run "$VRB_ROOT/scripts/guest-run.sh" -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown kernel flavour 'nope'"* ]]
	run "$VRB_ROOT/run-bench.sh" --kernel-flavour nope boot
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown kernel flavour 'nope'"* ]]
}
