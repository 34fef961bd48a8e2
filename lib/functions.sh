# shellcheck shell=bash
# Shared helpers: logging with elapsed time, errors, timing of stages, hashing.
# Sourced by every script; sets VRB_ROOT and loads lib/parameters.sh.

# A failure inside $(...) ends the script too (set -e is not inherited by
# command substitutions otherwise).
shopt -s inherit_errexit

# The repository this file is in (not inherited: a clone uses its own).
VRB_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export VRB_ROOT
# shellcheck source=lib/parameters.sh
. "$VRB_ROOT/lib/parameters.sh"

VRB_T0=${VRB_T0:-$(date +%s.%N)}  # inherited by child scripts: one clock
export VRB_T0

# now: seconds since the epoch, with decimals.
now() { date +%s.%N; }

# since T: seconds since T (a now value), one decimal.
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# older T LIMIT: true when more than LIMIT seconds have passed since T.
older() { awk -v a="$1" -v b="$(now)" -v l="$2" 'BEGIN { exit !(b - a > l) }'; }

# elapsed: seconds since the top-level script started, e.g. "12.3"
elapsed() { since "$VRB_T0"; }

log() {
	printf '[%7ss] %s\n' "$(elapsed)" "$*" >&2
}

warn() {
	printf '[%7ss] warning: %s\n' "$(elapsed)" "$*" >&2
}

die() {
	printf '%s: error: %s\n' "${VRB_PROG:-${0##*/}}" "$*" >&2
	exit 1
}

# need_cmd CMD PACKAGE: fail with the package to install when CMD is missing.
need_cmd() {
	command -v "$1" >/dev/null 2>&1 ||
		die "'$1' not found: install it with 'apt-get install $2'"
}

# stage NAME CMD...: run CMD, printing the stage's start, end and duration.
# A failing CMD ends the script (set -e); vrb_exit_report names the stage.
# The duration (s) of the last stage is left in VRB_STAGE_SECONDS.
stage() {
	local name=$1 t0
	shift
	t0=$(now)
	log "$name ..."
	VRB_STAGE=$name
	"$@"
	VRB_STAGE=
	VRB_STAGE_SECONDS=$(since "$t0")
	log "$name done in ${VRB_STAGE_SECONDS}s"
}

# vrb_exit_report RC: for a script's EXIT trap; names the stage that failed.
vrb_exit_report() {
	if [ "$1" -ne 0 ] && [ -n "${VRB_STAGE:-}" ]; then
		log "stage '$VRB_STAGE' failed (exit $1)"
	fi
}
VRB_STAGE=

# sha256_of FILE...: one hash over the contents of the files, in order.
sha256_of() {
	cat "$@" | sha256sum | cut -c1-64
}

# series_lines DIR: the entries of DIR/series, one per line, without
# comments, blanks or spaces. Fails when there is no series file.
series_lines() {
	local line
	[ -f "$1/series" ] || die "no series file in $1"
	while IFS= read -r line || [ -n "$line" ]; do
		line=${line%%#*}
		line=${line//[[:space:]]/}
		[ -z "$line" ] || printf '%s\n' "$line"
	done <"$1/series"
}

# series_patches DIR: the patch files named by DIR/series, in order. A line
# may name a set instead: a subdirectory with a series of its own (a posted
# set of patches with its cover letter), whose patches come in its place.
# Fails naming a missing patch or set.
series_patches() {
	local dir=$1 line lines
	lines=$(series_lines "$dir") || return 1
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		if [ -d "$dir/$line" ]; then
			[ -f "$dir/$line/series" ] || die "$dir/series names '$line', a directory with no series file"
			series_patches "$dir/$line" || return 1
			continue
		fi
		[ -f "$dir/$line" ] || die "$dir/series names '$line', which is not in $dir"
		printf '%s\n' "$dir/$line"
	done <<<"$lines"
}

# series_sets DIR: the sets DIR/series names (their directories), in order;
# DIR itself if it names patches directly.
series_sets() {
	local dir=$1 line lines direct=''
	lines=$(series_lines "$dir") || return 1
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		if [ -d "$dir/$line" ]; then
			printf '%s\n' "$dir/$line"
		else
			direct=1
		fi
	done <<<"$lines"
	[ -z "$direct" ] || printf '%s\n' "$dir"
}

# series_aids DIR: the measurement aids of DIR/aids (when DIR/aids/series
# exists): patches every kernel of the suite carries, the stock one too.
# They add what a benchmark drives (workload C's in-guest rx generator) and
# touch none of the code under test.
series_aids() {
	[ ! -f "$1/aids/series" ] || series_patches "$1/aids"
}

# series_stack DIR: what the patched kernel gets: the aids, the posted
# series of DIR, then the benchmark-only set DIR/bench (when
# DIR/bench/series exists).
series_stack() {
	series_aids "$1"
	series_patches "$1"
	[ ! -f "$1/bench/series" ] || series_patches "$1/bench"
}

# patches_hash: hash of the patches named on stdin, one path a line (names
# and contents), or "none" when there are none.
patches_hash() {
	local list p
	list=$(cat)
	if [ -z "$list" ]; then
		echo none
		return
	fi
	while IFS= read -r p; do
		basename "$p"
		cat "$p"
	done <<<"$list" | sha256sum | cut -c1-12
}

# series_hash DIR: hash of series_stack DIR, or "none" when empty.
series_hash() {
	series_stack "$1" | patches_hash
}

# aids_hash DIR: hash of series_aids DIR (what the stock kernel carries),
# or "none".
aids_hash() {
	series_aids "$1" | patches_hash
}

# kv_get FILE KEY: value of KEY=value in FILE (empty when absent).
kv_get() {
	[ -f "$1" ] || return 0
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# is_uint VALUE: true when VALUE is a non-negative decimal integer: no sign,
# no leading zero, at most 18 digits (so that test(1) and $(( )) take it).
is_uint() {
	case $1 in '' | *[!0-9]* | 0?*) return 1 ;; esac
	[ "${#1}" -le 18 ]
}

# free_mb DIR: MB free on DIR's filesystem (0 when df cannot tell).
free_mb() {
	df -Pm "$1" 2>/dev/null | awk 'NR == 2 { print $4 + 0; f = 1 } END { if (!f) print 0 }'
}

# check_range NAME VALUE MIN MAX: die unless VALUE is an integer in [MIN, MAX].
check_range() {
	if ! is_uint "$2" || [ "$2" -lt "$3" ] || [ "$2" -gt "$4" ]; then
		die "$1 must be an integer from $3 to $4, not '$2'"
	fi
}

# A base the harness does not know (VRB_BASE, --base) stops every script.
[ -n "$VRB_KERNEL_TESTED_DEBVER" ] ||
	die "unknown kernel base '$VRB_BASE' (VRB_BASE or --base: one of $VRB_BASES)"
