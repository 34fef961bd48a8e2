#!/usr/bin/env bash
# Exports the commits of a kernel branch into patches/ as the series: one
# git format-patch file per commit, patches/series in order, and the cover
# letter (0000-cover-letter.patch) made from patches/cover-letter.txt.
set -euo pipefail
VRB_PROG="export-series.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"

tree=''

usage() {
	cat <<EOF
Usage: scripts/export-series.sh --tree DIR

Writes baseline..HEAD of the kernel git tree DIR (a worktree of the
workspace, e.g. .cache/linux-*/dev, where the series is developed) into
\$VRB_PATCHES (default: patches/): the numbered patches, the series file,
and 0000-cover-letter.patch, whose subject is the first line of
patches/cover-letter.txt and whose text is the rest of it (the shortlog
and diffstat are added by git). Old numbered patches are removed first.

  --tree DIR   the tree holding the series as commits on top of baseline
  -h, --help   this text
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--tree) [ $# -ge 2 ] || die "$1 needs a value"; tree=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	[ -n "$tree" ] || { usage >&2; die "--tree is required"; }
	kgit -C "$tree" rev-parse --verify -q baseline >/dev/null ||
		die "$tree is not a git tree with a baseline branch"
	[ -z "$(kgit -C "$tree" status --porcelain -uno)" ] ||
		die "$tree has uncommitted changes: commit them first"
	[ -f "$VRB_PATCHES/cover-letter.txt" ] || die "no $VRB_PATCHES/cover-letter.txt"
}

main() {
	local n tmp branch f
	parse_args "$@"
	n=$(kgit -C "$tree" rev-list --count baseline..HEAD)
	[ "$n" -ge 1 ] || die "no commits on top of baseline in $tree"
	branch=$(kgit -C "$tree" symbolic-ref --short HEAD) || die "$tree: HEAD is detached"
	tmp=$(mktemp -d)
	kgit -C "$tree" config "branch.$branch.description" "$(cat "$VRB_PATCHES/cover-letter.txt")"
	# the cover letter is "From" whoever wrote the top patch
	git -C "$tree" -c user.name="$(git -C "$tree" log -1 --format=%an)" \
		-c user.email="$(git -C "$tree" log -1 --format=%ae)" \
		format-patch -q --no-signature --cover-letter \
		--cover-from-description=subject -o "$tmp" baseline..HEAD
	rm -f "$VRB_PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
	mv "$tmp"/*.patch "$VRB_PATCHES/"
	rmdir "$tmp"
	{
		echo "# Patch series, applied in this order with git am (see scripts/build-kernels.sh)."
		echo "# 0000-cover-letter.patch is the cover letter, not a patch."
		for f in "$VRB_PATCHES"/[0-9][0-9][0-9][0-9]-*.patch; do
			f=$(basename "$f")
			[ "${f#0000-}" != "$f" ] || echo "$f"
		done
	} >"$VRB_PATCHES/series"
	log "$n patches and the cover letter written to $VRB_PATCHES"
}

main "$@"
