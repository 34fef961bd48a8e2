#!/usr/bin/env bash
# Checks the patch series the way a maintainer would before taking it: each
# patch of the posted sets and then of the benchmark-only set on top of them
# (series_stack), applied in order on the pinned base, is checkpatch --strict
# clean, adds no W=1 warning to the objects it touches, and leaves a tree
# whose vmlinux builds (bisectable); and each posted set applies alone on the
# base, where the objects it changes compile.
set -euo pipefail
VRB_PROG="check-series.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"

build=each

usage() {
	cat <<EOF
Usage: scripts/check-series.sh [--build each|tips|none] [--no-build] [--patches DIR]

For each patch of DIR/series (default: patches/BASE; its lines name the
posted sets, directories with a series of their own), then of
DIR/bench/series (the benchmark-only set, when present), applied with git
am in order on baseline in a scratch worktree (<workspace>/series-check);
so the posted sets are checked without the benchmark-only set, and with it
on top:
  checkpatch   scripts/checkpatch.pl --strict: no error, warning or check
  W=1          every object built from a .c file it changes, or from a .c
               file that includes a header it changes, compiles with W=1
               (one make for all of them) with no warning it lacks at the
               patch's parent
  vmlinux      the tree builds: at every patch (--build each, the default:
               bisectable), at the last posted patch and the last
               benchmark-only one (--build tips: what make check runs,
               for its time), or never (none)
Then each posted set alone on baseline:
  alone        it applies with git am, and the objects built from the
               files it changes compile
Prints one line per patch and per check; exits 1 if any check fails.
The worktree and its build dir are kept, so a second run is incremental.

  --build WHEN    each (default), tips or none (see vmlinux above)
  --no-build      the same as --build none
  --patches DIR   the series to check (default: \$VRB_PATCHES = $VRB_PATCHES)
  -h, --help      this text
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--no-build) build=none; shift ;;
		--build)
			[ $# -ge 2 ] || die "$1 needs a value"
			case $2 in
			each | tips | none) build=$2 ;;
			*) die "--build: '$2' is not each, tips or none" ;;
			esac
			shift 2
			;;
		--patches) [ $# -ge 2 ] || die "$1 needs a value"; VRB_PATCHES=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	[ -f "$VRB_PATCHES/series" ] || die "no series file in $VRB_PATCHES"
}

# tree_make ARGS...: make in the scratch tree's build dir.
tree_make() {
	make -C "$tree" O=out "${vars[@]}" "$@"
}

# includers HEADER: the .c files that include HEADER (a path under include/,
# or a driver's local header) directly, or through a header that does.
includers() {
	local f=$1 h hh
	case $f in
	include/*)
		h=${f#include/}
		kgit -C "$tree" grep -l -F "#include <$h>" -- '*.c' || true
		for hh in $(kgit -C "$tree" grep -l -F "#include <$h>" -- 'include/*.h' || true); do
			kgit -C "$tree" grep -l -F "#include <${hh#include/}>" -- '*.c' || true
		done
		;;
	*) kgit -C "$tree" grep -l -F "#include \"$(basename "$f")\"" -- "$(dirname "$f")/*.c" || true ;;
	esac
}

# objects_of PATCH_SHA: the .o files (relative to the tree) built from the
# .c files the patch changes or that include a header it changes (see
# includers); only those this config builds.
objects_of() {
	objects_of_range "$1~1" "$1"
}

# objects_of_range FROM TO: objects_of for the changes between two commits.
objects_of_range() {
	local f
	while IFS= read -r f; do
		case $f in
		*.c) echo "$f" ;;
		*.h) includers "$f" ;;
		esac
	done < <(kgit -C "$tree" diff --name-only "$1" "$2") | sed 's/\.c$/.o/' | sort -u |
		while IFS= read -r f; do
			[ ! -f "$tree/out/$f" ] || echo "$f"
		done
}

# w1_warnings OBJ...: compiles the objects with W=1 (one make) and prints
# their warnings, one per line, sorted, without line and column (so that
# moved code compares equal). Fails if one does not compile.
w1_warnings() {
	local log=$tree/out/w1.log o
	for o in "$@"; do rm -f "$tree/out/$o"; done
	# -k: one object that fails leaves the others built (later patches skip
	# objects this config does not build: those missing from out/)
	tree_make -k W=1 "$@" >"$log" 2>&1 || { tail -n 20 "$log" >&2; return 1; }
	{ grep ': warning: ' "$log" || true; } | sed -E 's/:[0-9]+:[0-9]+: /: /' | sort
}

# count LINES: how many non-empty lines.
count() {
	sed '/^$/d' <<<"$1" | wc -l
}

main() {
	local w list p sha name n=0 fails=0 objs base now added tree vars=() tips set
	parse_args "$@"
	kernel_check_source
	stage "kernel source" kernel_unpack
	stage "kernel config" kernel_config
	w=$(kernel_workspace)
	tree=$w/series-check
	list=$(series_stack "$VRB_PATCHES")
	[ -n "$list" ] || die "the series in $VRB_PATCHES is empty"
	# the last posted patch and the last benchmark-only one (each patch's
	# objects compile with W=1 anyway; make check-series builds them all)
	tips=$(
		series_patches "$VRB_PATCHES" | tail -n 1
		[ ! -f "$VRB_PATCHES/bench/series" ] || series_patches "$VRB_PATCHES/bench" | tail -n 1
	)
	if [ ! -d "$tree" ]; then
		kgit -C "$w/stock" worktree add -q -f -B series-check "$tree" baseline
	fi
	kgit -C "$tree" am --abort >/dev/null 2>&1 || true
	kgit -C "$tree" checkout -q -f -B series-check baseline
	mkdir -p "$tree/out"
	cmp -s "$w/state/config" "$tree/out/.config" || cp "$w/state/config" "$tree/out/.config"
	mapfile -t vars < <(kernel_make_vars series)
	export CCACHE_NOHASHDIR=1
	if [ "$build" != none ] || [ ! -f "$tree/out/vmlinux" ]; then
		log "baseline vmlinux in $tree (the objects to compare against) ..."
		kernel_make_progress baseline "$tree/out/check.log" -C "$tree" O=out "${vars[@]}" vmlinux ||
			{ tail -n 20 "$tree/out/check.log" >&2; die "baseline does not build: see $tree/out/check.log"; }
	fi
	while IFS= read -r p; do
		n=$((n + 1))
		name=${p#"$VRB_PATCHES"/}
		# warnings at the parent, for the objects this patch touches
		if ! kgit -C "$tree" am -q --keep-cr "$p" >"$tree/out/am.log" 2>&1; then
			cat "$tree/out/am.log" >&2
			echo "FAIL $name: does not apply"
			fails=$((fails + 1))
			break
		fi
		sha=$(kgit -C "$tree" rev-parse HEAD)
		if (cd "$tree" && ./scripts/checkpatch.pl --strict --quiet "$p") >"$tree/out/checkpatch.log" 2>&1; then
			echo "ok   $name: checkpatch --strict clean"
		else
			cat "$tree/out/checkpatch.log"
			echo "FAIL $name: checkpatch --strict"
			fails=$((fails + 1))
		fi
		objs=$(objects_of "$sha" | tr '\n' ' ')
		objs=${objs% }
		# the patch's objects with W=1 at its parent, then with it: one
		# make each (a make per object spent most of this check's time)
		if [ -n "$objs" ]; then
			kgit -C "$tree" checkout -q "$sha~1"
			# shellcheck disable=SC2086 # a list of object paths
			if ! base=$(w1_warnings $objs); then
				echo "FAIL $name: W=1 on $objs: does not compile before it"
				fails=$((fails + 1))
			else
				kgit -C "$tree" checkout -q "$sha"
				# shellcheck disable=SC2086 # a list of object paths
				if ! now=$(w1_warnings $objs); then
					echo "FAIL $name: W=1 on $objs: does not compile"
					fails=$((fails + 1))
				elif added=$(comm -13 <(echo "$base") <(echo "$now") | sed '/^$/d') && [ -z "$added" ]; then
					echo "ok   $name: W=1 on $objs, no new warning ($(count "$base") before, $(count "$now") after)"
				else
					echo "$added"
					echo "FAIL $name: W=1 on $objs, new warnings above"
					fails=$((fails + 1))
				fi
			fi
		fi
		kgit -C "$tree" checkout -q -B series-check "$sha"
		[ -n "$objs" ] || echo "ok   $name: changes no object this config builds"
		if [ "$build" = each ] || { [ "$build" = tips ] && grep -qxF "$p" <<<"$tips"; }; then
			if kernel_make_progress "$name" "$tree/out/build.log" -C "$tree" O=out "${vars[@]}" vmlinux; then
				echo "ok   $name: vmlinux builds"
			else
				tail -n 20 "$tree/out/build.log"
				echo "FAIL $name: vmlinux does not build"
				fails=$((fails + 1))
			fi
		fi
	done <<<"$list"
	for set in $(series_sets "$VRB_PATCHES"); do
		[ "$set" != "$VRB_PATCHES" ] || continue
		check_alone "$set" || fails=$((fails + 1))
	done
	log "$n patches checked, $fails failures"
	[ "$fails" -eq 0 ]
}

# check_alone SET: the set's patches applied alone on baseline (git am);
# the objects built from the files they change compile. Prints one line.
check_alone() {
	local set=$1 name p objs
	name=${set#"$VRB_PATCHES"/}
	kgit -C "$tree" am --abort >/dev/null 2>&1 || true
	kgit -C "$tree" checkout -q -f -B series-alone baseline
	while IFS= read -r p; do
		if ! kgit -C "$tree" am -q --keep-cr "$p" >"$tree/out/am.log" 2>&1; then
			cat "$tree/out/am.log" >&2
			kgit -C "$tree" am --abort >/dev/null 2>&1 || true
			echo "FAIL $name: ${p#"$set"/} does not apply with the set alone on baseline"
			return 1
		fi
	done < <(series_patches "$set")
	objs=$(objects_of_range baseline HEAD)
	# shellcheck disable=SC2086 # a list of object paths
	if [ -n "$objs" ] && ! tree_make $objs >"$tree/out/alone.log" 2>&1; then
		tail -n 20 "$tree/out/alone.log"
		echo "FAIL $name: alone on baseline, its objects do not compile"
		return 1
	fi
	echo "ok   $name: applies alone on baseline; $(count "$objs") objects compile"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
