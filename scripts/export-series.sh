#!/usr/bin/env bash
# Exports commits of a kernel branch into a patch directory as a series: one
# git format-patch file per commit, DIR/series in order, and the cover
# letter (0000-cover-letter.patch) made from DIR/cover-letter.txt. Run once
# per set: each set meant for posting (patches/BASE/SET/, with its cover
# letter) and the benchmark-only set (patches/BASE/bench/, without).
set -euo pipefail
VRB_PROG="export-series.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"

tree='' base=baseline head=HEAD prefix=PATCH cover=1

usage() {
	cat <<EOF
Usage: scripts/export-series.sh --tree DIR [--base REV] [--head REV]
                                [--out DIR] [--subject-prefix P] [--no-cover]

Writes REV..REV of the kernel git tree DIR (a worktree of the workspace,
e.g. .cache/linux-*/dev, where the series is developed) into the output
dir (default \$VRB_PATCHES = patches/BASE/): the numbered patches, the series
file, and 0000-cover-letter.patch, whose subject is the first line of
OUT/cover-letter.txt and whose text is the rest of it (the shortlog and
diffstat are added by git). Old numbered patches are removed first.

  --tree DIR           the tree holding the series as commits
  --base REV           first commit not exported (default: baseline)
  --head REV           last commit exported (default: HEAD)
  --out DIR            where to write (default: \$VRB_PATCHES)
  --subject-prefix P   "[P n/m]" in the subjects (default: PATCH)
  --no-cover           no cover letter (the benchmark-only set)
  -h, --help           this text

One set meant for posting (commits A..B of the tree), and the
benchmark-only set on top of everything (after commit C), e.g.:
  scripts/export-series.sh --tree T --base A --head B --out patches/6.1/virtio-net \\
      --subject-prefix "RFC PATCH net-next"
  scripts/export-series.sh --tree T --base C --out patches/6.1/bench \\
      --subject-prefix "PATCH bench" --no-cover
EOF
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--tree) [ $# -ge 2 ] || die "$1 needs a value"; tree=$2; shift 2 ;;
		--base) [ $# -ge 2 ] || die "$1 needs a value"; base=$2; shift 2 ;;
		--head) [ $# -ge 2 ] || die "$1 needs a value"; head=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; VRB_PATCHES=$2; shift 2 ;;
		--subject-prefix) [ $# -ge 2 ] || die "$1 needs a value"; prefix=$2; shift 2 ;;
		--no-cover) cover=''; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	[ -n "$tree" ] || { usage >&2; die "--tree is required"; }
	kgit -C "$tree" rev-parse --verify -q baseline >/dev/null ||
		die "$tree is not a git tree with a baseline branch"
	kgit -C "$tree" rev-parse --verify -q "$base^{commit}" >/dev/null || die "--base: no commit '$base' in $tree"
	kgit -C "$tree" rev-parse --verify -q "$head^{commit}" >/dev/null || die "--head: no commit '$head' in $tree"
	[ -z "$(kgit -C "$tree" status --porcelain -uno)" ] ||
		die "$tree has uncommitted changes: commit them first"
	[ -d "$VRB_PATCHES" ] || die "no directory $VRB_PATCHES"
	[ -z "$cover" ] || [ -f "$VRB_PATCHES/cover-letter.txt" ] || die "no $VRB_PATCHES/cover-letter.txt"
}

# fill_cover PATCH TEXT: git's cover letter template gets TEXT's first line
# as its subject and the rest as its body.
fill_cover() {
	awk -v text="$2" '
		BEGIN { while ((getline l < text) > 0) { if (n++ == 0) subj = l; else if (n > 2 || l != "") body = body l "\n" } }
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, subj) }
		/^\*\*\* BLURB HERE \*\*\*$/ { printf "%s", body; next }
		{ print }' "$1" >"$1.new"
	mv "$1.new" "$1"
}

main() {
	local n tmp f range opts=()
	parse_args "$@"
	range=$base..$head
	n=$(kgit -C "$tree" rev-list --count "$range")
	[ "$n" -ge 1 ] || die "no commits in $range of $tree"
	tmp=$(mktemp -d)
	opts=(-q --no-signature --subject-prefix="$prefix" -o "$tmp")
	[ -z "$cover" ] || opts+=(--cover-letter)
	# the cover letter is "From" whoever wrote the top patch
	git -C "$tree" -c user.name="$(git -C "$tree" log -1 --format=%an "$head")" \
		-c user.email="$(git -C "$tree" log -1 --format=%ae "$head")" \
		format-patch "${opts[@]}" "$range"
	[ -z "$cover" ] || fill_cover "$tmp"/0000-cover-letter.patch "$VRB_PATCHES/cover-letter.txt"
	rm -f "$VRB_PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
	mv "$tmp"/*.patch "$VRB_PATCHES/"
	rmdir "$tmp"
	{
		echo "# Patch series, applied in this order with git am (see scripts/build-kernels.sh)."
		[ -z "$cover" ] || echo "# 0000-cover-letter.patch is the cover letter, not a patch."
		for f in "$VRB_PATCHES"/[0-9][0-9][0-9][0-9]-*.patch; do
			f=$(basename "$f")
			[ "${f#0000-}" != "$f" ] || echo "$f"
		done
	} >"$VRB_PATCHES/series"
	log "$n patches${cover:+ and the cover letter} written to $VRB_PATCHES"
}

main "$@"
