# shellcheck shell=bash
# The kernel workspace: Debian's linux-source-BASE unpacked once into a git
# repo (branch "baseline"), checked out on branch "stock" = baseline + the
# measurement aids of patches/BASE/aids/ (none of them touches the code under
# test), a second worktree on branch "patched" with patches/BASE/ (the aids,
# the posted series, then the benchmark-only set in bench/) applied by git
# am, one config, and incremental builds of both.
#
# Layout under $(kernel_workspace):
#   stock/          source, git repo, branch stock      (out/ = O= build dir)
#   patched/        git worktree, branch patched        (out/ = O= build dir)
#   state/          stamps: config, series applied, build keys
# The debug flavour (VRB_KERNEL_FLAVOUR=debug: KASAN, lockdep, ...) builds
# the same two trees into out-debug/ from state/config-debug.
# The O= dir is a direct child of the source, so kbuild uses srctree=".." and
# both trees compile with identical command lines: ccache shares the objects.

# kernel_debver: the installed linux-source-BASE package version ("" if none).
kernel_debver() {
	dpkg-query -W -f '${Version}' "$VRB_KERNEL_PKG" 2>/dev/null || true
}

# kernel_workspace: the cache dir for the kernel source in use.
kernel_workspace() {
	local ver
	ver=$(kernel_debver)
	if [ -z "$ver" ] || [ "$VRB_KERNEL_TARBALL" != "/usr/src/$VRB_KERNEL_PKG.tar.xz" ]; then
		ver=custom-$(stat -c '%n %s %Y' "$VRB_KERNEL_TARBALL" | sha256sum | cut -c1-12)
	fi
	echo "$VRB_CACHE/linux-$ver"
}

kernel_check_source() {
	[ -f "$VRB_KERNEL_TARBALL" ] ||
		die "kernel source $VRB_KERNEL_TARBALL not found: install it with 'apt-get install $VRB_KERNEL_PKG' (or set VRB_KERNEL_TARBALL)"
	local ver
	ver=$(kernel_debver)
	if [ "$VRB_KERNEL_TARBALL" = "/usr/src/$VRB_KERNEL_PKG.tar.xz" ] &&
		[ -n "$ver" ] && [ "$ver" != "$VRB_KERNEL_TESTED_DEBVER" ]; then
		warn "$VRB_KERNEL_PKG $ver is installed; this project is tested on $VRB_KERNEL_TESTED_DEBVER: going on"
	fi
}

# kernel_check_space VARIANT...: dies unless VRB_CACHE's filesystem has
# room for what building VARIANTs would add (a full disk would stop a build
# halfway with a compiler's error far from the cause).
kernel_check_space() {
	local need=0 free v
	[ -f "$(kernel_workspace)/state/unpacked" ] || need=$VRB_KERNEL_WS_MB
	for v in "$@"; do
		[ -f "$(kernel_image "$v")" ] || need=$((need + VRB_KERNEL_OUT_MB))
	done
	[ "$need" -gt 0 ] || return 0
	mkdir -p "$VRB_CACHE"
	free=$(free_mb "$VRB_CACHE")
	[ "${free:-0}" -ge "$need" ] ||
		die "only ${free:-0} MB free in $VRB_CACHE: ${*:+building }${*:-unpacking the workspace} needs about $need MB (VRB_KERNEL_WS_MB, VRB_KERNEL_OUT_MB)"
}

kgit() {
	git -c user.name=vrb -c user.email=vrb@localhost -c advice.detachedHead=false "$@"
}

# kernel_unpack: unpack the tarball once and commit it as branch baseline.
kernel_unpack() {
	local w tmp
	w=$(kernel_workspace)
	[ -f "$w/state/unpacked" ] && return 0
	tmp=$w.partial
	rm -rf "$tmp" "$w"
	mkdir -p "$tmp/stock" "$tmp/state"
	tar -xJf "$VRB_KERNEL_TARBALL" -C "$tmp/stock" --strip-components=1
	(
		cd "$tmp/stock" || exit
		kgit init -q -b baseline
		printf '/out/\n/out-*/\n' >>.git/info/exclude
		kgit add -A -f .
		GIT_AUTHOR_DATE=2000-01-01T00:00:00Z GIT_COMMITTER_DATE=2000-01-01T00:00:00Z \
			kgit commit -q -m "baseline: $(basename "$VRB_KERNEL_TARBALL") $(kernel_debver)"
	)
	mv "$tmp" "$w"
	make -s -C "$w/stock" kernelversion >"$w/state/kernelversion"
	echo "$VRB_KERNEL_TARBALL" >"$w/state/unpacked"
}

kernel_version() {
	cat "$(kernel_workspace)/state/kernelversion"
}

# kernel_am_onto_baseline TREE BRANCH LIST: BRANCH of TREE reset to
# baseline, then the patches of LIST (one path a line) applied with git am;
# on a patch that does not apply, BRANCH is left at baseline and the script
# dies naming it.
kernel_am_onto_baseline() {
	local tree=$1 branch=$2 list=$3 p name out
	kgit -C "$tree" am --abort >/dev/null 2>&1 || true
	kgit -C "$tree" checkout -q -f -B "$branch" baseline
	while IFS= read -r p; do
		[ -n "$p" ] || continue
		name=${p#"$VRB_PATCHES"/}
		if ! out=$(kgit -C "$tree" am -q --keep-cr "$p" 2>&1); then
			kgit -C "$tree" am --abort >/dev/null 2>&1 || true
			kgit -C "$tree" checkout -q -f -B "$branch" baseline
			printf '%s\n' "$out" >&2
			die "patch $name does not apply to Linux $(kernel_version) ($(kernel_debver))"
		fi
		log "$branch tree: applied $name"
	done <<<"$list"
}

# kernel_apply_aids: make the stock tree = baseline + patches/BASE/aids/
# (branch stock). Refuses to throw away uncommitted edits in the stock tree.
kernel_apply_aids() {
	local w want have list
	w=$(kernel_workspace)
	list=$(series_aids "$VRB_PATCHES")
	want=$(patches_hash <<<"$list")
	have=$(cat "$w/state/stock-aids" 2>/dev/null || true)
	# what is built as stock is baseline + the aids, nothing made by hand
	[ -z "$(kgit -C "$w/stock" status --porcelain -uno)" ] ||
		die "the stock tree $w/stock has uncommitted changes: remove them (git -C $w/stock checkout -f)"
	if [ -f "$w/state/stock-head" ] && [ "$(kgit -C "$w/stock" rev-parse HEAD)" != "$(cat "$w/state/stock-head")" ]; then
		die "the stock tree $w/stock has commits not from ${VRB_PATCHES#"$VRB_ROOT"/}/aids/: move them to a branch of your own, then git -C $w/stock checkout -f -B stock $(cat "$w/state/stock-head")"
	fi
	if [ "$want" = "$have" ] && [ "$(kgit -C "$w/stock" symbolic-ref -q --short HEAD)" = stock ]; then
		[ -f "$w/state/stock-head" ] || kgit -C "$w/stock" rev-parse HEAD >"$w/state/stock-head"
		log "${VRB_PATCHES#"$VRB_ROOT"/}/aids/ unchanged ($want): stock tree reused"
		return 0
	fi
	rm -f "$w/state/stock-aids" "$w/state/stock-head"
	kernel_am_onto_baseline "$w/stock" stock "$list"
	kgit -C "$w/stock" rev-parse HEAD >"$w/state/stock-head"
	echo "$want" >"$w/state/stock-aids"
}

# kernel_apply_series [--force]: make the patched worktree = baseline +
# patches/BASE/series + patches/BASE/bench/series (series_stack).
# Refuses to throw away edits or commits made by hand in the patched tree
# unless --force.
kernel_apply_series() {
	local force=${1:-} w want have head list
	w=$(kernel_workspace)
	list=$(series_stack "$VRB_PATCHES")
	want=$(series_hash "$VRB_PATCHES")
	if [ ! -d "$w/patched" ]; then
		kgit -C "$w/stock" worktree add -q -b patched "$w/patched" baseline
		rm -f "$w/state/series" "$w/state/patched-head"
	fi
	have=$(cat "$w/state/series" 2>/dev/null || true)
	head=$(kgit -C "$w/patched" rev-parse HEAD)
	if [ "$force" != --force ] && [ -f "$w/state/patched-head" ]; then
		if [ "$head" != "$(cat "$w/state/patched-head")" ] ||
			[ -n "$(kgit -C "$w/patched" status --porcelain -uno)" ]; then
			die "the patched tree $w/patched has changes not from ${VRB_PATCHES#"$VRB_ROOT"/}/: export them with 'git format-patch' into it, or rerun with --force to discard them"
		fi
	fi
	if [ "$force" != --force ] && [ "$want" = "$have" ] && [ -f "$w/state/patched-head" ]; then
		log "${VRB_PATCHES#"$VRB_ROOT"/}/ unchanged (series $want): patched tree reused"
		return 0
	fi
	rm -f "$w/state/series" "$w/state/patched-head"
	kernel_am_onto_baseline "$w/patched" patched "$list"
	kgit -C "$w/patched" rev-parse HEAD >"$w/state/patched-head"
	echo "$want" >"$w/state/series"
}

# config_check MERGED FRAGMENT...: every option set in a fragment must have
# the same value in MERGED; prints the ones that do not.
config_check() {
	local merged=$1 frag line opt bad=0
	shift
	for frag in "$@"; do
		while IFS= read -r line; do
			case $line in
			CONFIG_*=*)
				grep -qxF "$line" "$merged" || {
					opt=${line%%=*}
					echo "$line (got: $(grep -E "^(# )?${opt}[= ]" "$merged" || echo unset))"
					bad=1
				}
				;;
			"# CONFIG_"*" is not set")
				opt=${line#\# }
				opt=${opt%% *}
				! grep -q "^$opt=" "$merged" || {
					echo "$line (got: $(grep "^$opt=" "$merged"))"
					bad=1
				}
				;;
			esac
		done <"$frag"
	done
	return "$bad"
}

# kernel_flavour: the flavour in use (VRB_KERNEL_FLAVOUR): base or debug.
kernel_flavour() {
	case ${VRB_KERNEL_FLAVOUR:-base} in
	base | debug) echo "${VRB_KERNEL_FLAVOUR:-base}" ;;
	*) die "unknown kernel flavour '$VRB_KERNEL_FLAVOUR' (base or debug)" ;;
	esac
}

# kernel_outname: the O= dir's name (in each tree) of the flavour in use.
kernel_outname() {
	case $(kernel_flavour) in
	base) echo out ;;
	*) echo "out-$(kernel_flavour)" ;;
	esac
}

# kernel_config_file: the generated config of the flavour in use.
kernel_config_file() {
	case $(kernel_flavour) in
	base) echo "$(kernel_workspace)/state/config" ;;
	*) echo "$(kernel_workspace)/state/config-$(kernel_flavour)" ;;
	esac
}

# kernel_fragments: the config fragments of the flavour in use (relative
# to VRB_ROOT), in merge order.
kernel_fragments() {
	case $(kernel_flavour) in
	base) echo "$VRB_CONFIG_FRAGMENTS" ;;
	debug) echo "$VRB_CONFIG_FRAGMENTS $VRB_CONFIG_DEBUG_FRAGMENTS" ;;
	esac
}

# kernel_config_key FRAGMENT...: the key a generated config is kept under.
kernel_config_key() {
	{ echo "$VRB_CONFIG_BASE"; cat "$@"; } | sha256sum | cut -c1-16
}

# kernel_config: tinyconfig + kvm_guest.config + our fragments -> state/config
# (state/config-FLAVOUR for another flavour).
kernel_config() {
	local w key frags=() f gen bad cfg
	w=$(kernel_workspace)
	cfg=$(kernel_config_file)
	for f in $(kernel_fragments); do frags+=("$VRB_ROOT/$f"); done
	key=$(kernel_config_key "${frags[@]}")
	if [ -f "$cfg" ] && [ "$(cat "$cfg.key" 2>/dev/null)" = "$key" ]; then
		return 0
	fi
	gen=$w/stock/out-config
	rm -rf "$gen"
	mkdir -p "$gen"
	{
		make -C "$w/stock" O="$gen" ARCH="$VRB_ARCH" tinyconfig &&
			"$w/stock/scripts/kconfig/merge_config.sh" -m -O "$gen" "$gen/.config" \
				"$w/stock/kernel/configs/kvm_guest.config" "${frags[@]}" &&
			make -C "$w/stock" O="$gen" ARCH="$VRB_ARCH" olddefconfig
	} >"$cfg.log" 2>&1 || die "config generation failed: see $cfg.log"
	if ! bad=$(config_check "$gen/.config" "${frags[@]}"); then
		die "options from $(kernel_fragments) did not take effect (missing dependency?):
$bad"
	fi
	cp "$gen/.config" "$cfg"
	echo "$key" >"$cfg.key"
	rm -rf "$gen"
}

# kernel_stale VARIANT: what changed since VARIANT's last finished build
# ("an unfinished build", "series", "measurement aids", "config fragments",
# comma-separated), from its vrb-build-info (written only after a build
# that succeeded); empty when nothing did (a build then only checks that
# it is up to date).
kernel_stale() {
	local info frags=() f what=() want
	info=$(kernel_build_info "$1")
	[ -f "$info" ] || what+=("an unfinished build")
	if [ "$1" = stock ]; then
		want="aids $(series_aids "$VRB_PATCHES" | patches_hash)"
		[ "$want" = "$(kv_get "$info" series)" ] || what+=("measurement aids")
	else
		[ "$(series_hash "$VRB_PATCHES")" = "$(kv_get "$info" series)" ] || what+=(series)
	fi
	for f in $(kernel_fragments); do frags+=("$VRB_ROOT/$f"); done
	if [ "$(kernel_config_key "${frags[@]}")" != "$(cat "$(kernel_config_file).key" 2>/dev/null)" ] ||
		[ ! -f "$(kernel_config_file)" ] || [ "$(kernel_config_hash)" != "$(kv_get "$info" config_hash)" ]; then
		what+=("config fragments")
	fi
	local IFS=,
	echo "${what[*]}"
}

kernel_config_hash() {
	sha256_of "$(kernel_config_file)" | cut -c1-12
}

# kernel_make_vars VARIANT: the make command line of a build (one place).
kernel_make_vars() {
	local cc=gcc
	command -v ccache >/dev/null 2>&1 && cc="ccache gcc"
	printf '%s\n' "ARCH=$VRB_ARCH" "LOCALVERSION=-$1" "CC=$cc" "-j$(nproc)"
}

# kernel_outdir VARIANT: the build dir of VARIANT in the flavour in use.
kernel_outdir() {
	echo "$(kernel_workspace)/$1/$(kernel_outname)"
}

# kernel_image VARIANT: path of the built bzImage.
kernel_image() {
	echo "$(kernel_outdir "$1")/arch/x86/boot/bzImage"
}

# kernel_has_btf VARIANT: was VARIANT built with BTF (what bpftrace reads)?
kernel_has_btf() {
	grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$(kernel_outdir "$1")/.config" 2>/dev/null
}

kernel_build_info() {
	echo "$(kernel_outdir "$1")/vrb-build-info"
}

# kernel_image_matches SRC OUT: does OUT's bzImage carry the UTS version
# this build generated? (uname -v in the guest must name this build.)
kernel_image_matches() {
	local uts
	uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$2/include/generated/utsversion.h")
	[ -n "$uts" ] && "$1/scripts/extract-vmlinux" "$2/arch/x86/boot/bzImage" | grep -aqF "$uts"
}

# kernel_make_progress LABEL LOG MAKE_ARGS...: make, its output into LOG,
# with a line every minute saying how far it got; make's exit status.
kernel_make_progress() {
	local label=$1 logf=$2 pid n=0 rc=0
	shift 2
	make "$@" >"$logf" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		n=$((n + 1))
		[ $((n % 12)) -eq 0 ] || continue
		log "$label: building, $(grep -c '^  CC ' "$logf" || true) objects compiled so far"
	done
	wait "$pid" || rc=$?
	return "$rc"
}

# kernel_build VARIANT: build bzImage incrementally; nothing when up to date.
kernel_build() {
	local variant=$1 w src out on cfg key vars=() t0 rc=0 secs
	w=$(kernel_workspace)
	src=$w/$variant
	on=$(kernel_outname)
	out=$src/$on
	cfg=$(kernel_config_file)
	[ -d "$src" ] || die "no source tree for '$variant' (run the workspace step first)"
	mkdir -p "$out"
	cmp -s "$cfg" "$out/.config" || cp "$cfg" "$out/.config"
	mapfile -t vars < <(kernel_make_vars "$variant")
	key=$( {
		kgit -C "$src" rev-parse HEAD
		kgit -C "$src" diff HEAD
		cat "$cfg"
		printf '%s\n' "${vars[@]}"
	} | sha256sum | cut -c1-16)
	if [ -f "$out/arch/x86/boot/bzImage" ] && [ "$(kv_get "$out/vrb-build-info" key)" = "$key" ]; then
		log "$variant kernel up to date ($(kv_get "$out/vrb-build-info" release)): not rebuilt"
		return 0
	fi
	rm -f "$out/vrb-build-info"
	t0=$(date +%s)
	# Objects do not depend on the build dir (srctree is ".."), so let ccache
	# share them between the stock and patched trees and between clones.
	export CCACHE_NOHASHDIR=1
	kernel_make_progress "$variant" "$out/vrb-build.log" -C "$src" O="$on" "${vars[@]}" bzImage || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 30 "$out/vrb-build.log" >&2
		die "$variant kernel build failed (full log: $out/vrb-build.log)"
	fi
	# arch/x86/boot/compressed/piggy.S takes the compressed vmlinux in with
	# .incbin, which ccache does not hash: with identical piggy.S text it
	# returns a piggy.o holding another build's kernel. Assemble it without
	# ccache, then check the bzImage really carries this build's version.
	rm -f "$out/arch/x86/boot/compressed/piggy.o"
	CCACHE_DISABLE=1 make -C "$src" O="$on" "${vars[@]}" bzImage >>"$out/vrb-build.log" 2>&1 ||
		die "$variant kernel build failed (full log: $out/vrb-build.log)"
	kernel_image_matches "$src" "$out" ||
		die "$variant: bzImage does not carry the version of this build (include/generated/utsversion.h)"
	secs=$(($(date +%s) - t0))
	{
		echo "variant=$variant"
		echo "flavour=$(kernel_flavour)"
		echo "key=$key"
		echo "release=$(cat "$out/include/config/kernel.release")"
		echo "uts_version=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$out/include/generated/utsversion.h" 2>/dev/null || true)"
		echo "head=$(kgit -C "$src" rev-parse HEAD)"
		echo "series=$(if [ "$variant" = stock ]; then echo "aids $(cat "$w/state/stock-aids")"; else cat "$w/state/series"; fi)"
		echo "config_hash=$(kernel_config_hash)"
		echo "build_seconds=$secs"
		echo "make=${vars[*]}"
	} >"$out/vrb-build-info"
	log "$variant kernel built in ${secs}s: $(kv_get "$out/vrb-build-info" release)"
}

# The in-tree selftests the posted sets add or extend, as paths under
# tools/testing/selftests of the patched tree: each one .c file, built
# with the kselftest harness against the tree's own uAPI headers.
VRB_KSELFTESTS="net/tun.c"

# kselftest_build OUTDIR: builds VRB_KSELFTESTS from the patched tree
# (its headers from `make headers` in the patched build dir) into OUTDIR,
# one binary per test named after its path (net-tun); prints their paths.
# Rebuilt only when the source or the headers changed.
kselftest_build() {
	local outdir=$1 w src hdr t bin
	w=$(kernel_workspace)
	src=$w/patched
	hdr=$(kernel_outdir patched)/usr/include
	make -s -C "$src" O="$(kernel_outdir patched)" ARCH="$VRB_ARCH" headers >/dev/null ||
		die "make headers failed in the patched tree"
	mkdir -p "$outdir"
	for t in $VRB_KSELFTESTS; do
		bin=$outdir/$(echo "${t%.c}" | tr / -)
		[ -f "$src/tools/testing/selftests/$t" ] || die "no tools/testing/selftests/$t in the patched tree"
		if [ ! -x "$bin" ] || [ "$src/tools/testing/selftests/$t" -nt "$bin" ] ||
			[ "$hdr/linux/if_tun.h" -nt "$bin" ]; then
			gcc -std=gnu11 -Wall -O2 -g -D_GNU_SOURCE -isystem "$hdr" \
				-I "$src/tools/testing/selftests" -o "$bin" \
				"$src/tools/testing/selftests/$t" -lpthread ||
				die "kselftest $t does not build"
		fi
		echo "$bin"
	done
}

# stap_dir KERNEL: where stap/build.sh puts the probe modules for KERNEL
# (stock or patched) in the kernel flavour in use.
stap_dir() {
	case $(kernel_flavour) in
	base) echo "$(kernel_workspace)/stap/$1" ;;
	*) echo "$(kernel_workspace)/stap/$1-$(kernel_flavour)" ;;
	esac
}

# A flavour that does not exist stops every script at once (not inside a
# command substitution, where die would only end the subshell).
kernel_flavour >/dev/null
