#!/usr/bin/env bash
# Writes a stall table for workload C (bench/vdpa_gen/stall-tables/NAME.txt,
# the regime table:NAME:N) from the stalls a real guest had: calib
# (bench/ringsim) finds them in the rx_costs probe's output of a guest under
# a flood (a poll, refill or gap far above its class's median: the vCPU ran
# something else, or nothing), as a histogram of lengths. The table holds
# each bucket's stalls at the bucket's middle, one length a line, and says
# in its header where they came from and how many came a second.
set -euo pipefail
VRB_PROG="stall-table.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"

STALL_TABLES=${VRB_STALL_TABLES:-$VRB_ROOT/bench/vdpa_gen/stall-tables}
# What stall_sched and the generator take (SCHED_MAX_LEN_NS, MAX_TABLE).
MAX_LEN_NS=100000000
MAX_LINES=65536
BUILD=$VRB_CACHE/ringsim
calib_args=() force=0

usage() {
	cat <<EOF
Usage: bench/vdpa_gen/stall-table.sh [--stall-factor X] [--stall-min-ns N]
                                     [--force] RX_COSTS_FILE NAME

Writes ${STALL_TABLES#"$VRB_ROOT"/}/NAME.txt: the stall lengths that
bench/ringsim's calib finds in RX_COSTS_FILE (what stap/rx_costs.stp printed
in a guest under a flood, e.g. a workload B trial's probe-rx_costs.txt), one
length in ns a line; workload C draws its stalls from it with the regime
table:NAME:N (N a second: the header's stalls_per_s is the rate measured).

  --stall-factor X   calib's: a stall is a value above X times its class's
                     median (default 4)
  --stall-min-ns N   ... and more than N ns above it (default 20000)
  --force            replace an existing table of that name
  -h, --help         this text

A stall over 100 ms (the generator's limit) is cut to it (the header says
how many); a source with more than $MAX_LINES stalls is refused. NAME:
letters, digits, - and _.
EOF
}

while [ $# -gt 0 ]; do
	case $1 in
	--stall-factor|--stall-min-ns)
		[ $# -ge 2 ] || die "$1 needs a value"
		calib_args+=("$1" "$2")
		shift 2
		;;
	--force) force=1; shift ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option '$1' (see --help)" ;;
	*) break ;;
	esac
done
[ $# -eq 2 ] || { usage >&2; exit 2; }
src=$1 name=$2
[ -f "$src" ] || die "no file $src"
[[ "$name" =~ ^[A-Za-z0-9_-]+$ ]] || die "table name '$name': letters, digits, - and _ only"
dst=$STALL_TABLES/$name.txt
[ "$force" = 1 ] || [ ! -e "$dst" ] || die "$dst exists (--force replaces it)"
# the source as the header names it: relative to the repository if inside it
src=$(realpath "$src")

make -s -C "$VRB_ROOT/bench/ringsim" BUILD="$BUILD" "$BUILD/calib"
rc=0
cal=$("$BUILD/calib" "${calib_args[@]}" "$src") || rc=$?
case $rc in
0) ;;
1) die "calib found nothing to fit in $src (is it rx_costs output?)" ;;
*) die "calib refused its options or $src (exit $rc)" ;;
esac
summary=$(grep -m1 '^calib: rxq=' <<<"$cal") || die "calib printed no summary for $src"
kv() { tr ' ' '\n' <<<"$summary" | sed -n "s/^$1=//p"; }

hist=$(grep '^calib: stall_len ' <<<"$cal") || die "calib found no stalls in $src"
# bucket middles, a line per stall; those over the generator's limit at it
# shellcheck disable=SC2016
body='{
	for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	mid = int((v["lo"] + v["hi"]) / 2)
	if (mid > max) { capped += v["count"]; mid = max }
	n += v["count"]
	if (mode == "lines") for (j = 0; j < v["count"]; j++) print mid
}
END { if (mode == "count") print n + 0, capped + 0 }'
counts=$(awk -v max="$MAX_LEN_NS" -v mode=count "$body" <<<"$hist") || die "counting calib's stalls failed"
read -r total capped <<<"$counts"
[ "$total" -le "$MAX_LINES" ] ||
	die "$total stalls: the generator's schedules draw from at most $MAX_LINES lengths"
busy=$(kv busy_s) seconds=$(kv seconds)
per_wall=$(awk -v n="$(kv stalls)" -v s="$seconds" 'BEGIN { printf "%.2f", (s > 0 ? n / s : 0) }')
made_by=$(printf ' %q' "${calib_args[@]}" "${src#"$VRB_ROOT"/}" "$name")
header="# Stall lengths (ns) for workload C's regime table:$name:N, one a line.
# Made by (from the repository's root): bench/vdpa_gen/stall-table.sh$made_by
# From calib (bench/ringsim) on that rx_costs output: a stall is a poll,
# refill or gap over stall_factor times its class's median and stall_min_ns
# above it (time the vCPU lost, or TCG's tail latency: 41-65 us ones are
# mostly the latter), its length the excess over the median; calib keeps
# them in buckets about 1.19x wide, here each at its bucket's middle
# (within about 11 % of the stall's own). Measured there: stalls=$(kv stalls)
# in seconds=$seconds, of which busy_s=$busy polling, refilling or waiting
# for a poll (where stalls can be seen): stalls_per_s=$(kv stalls_per_s) of
# busy time, $per_wall of all time; workload C's N is per second of the
# guest's time, which at capacity is all busy. Mean stall_ns=$(kv stall_ns),
# stall_max_ns=$(kv stall_max_ns), ring=$(kv ring), stall_factor=$(kv stall_factor),
# stall_min_ns=$(kv stall_min_ns). Cut to the generator's 100 ms: $capped."
lines=$(awk -v max="$MAX_LEN_NS" -v mode=lines "$body" <<<"$hist") || die "writing the lengths failed"
[ -n "$lines" ] || die "calib found no stalls in $src"

mkdir -p "$STALL_TABLES"
tmp=$(mktemp "$STALL_TABLES/.$name.XXXXXX")
trap 'rm -f "$tmp"' EXIT
printf '%s\n%s\n' "$header" "$lines" >"$tmp"
chmod 644 "$tmp"
if [ "$force" = 1 ]; then
	mv -f "$tmp" "$dst"
else
	# no replacing a table that appeared meanwhile
	ln "$tmp" "$dst" 2>/dev/null || die "$dst exists (--force replaces it)"
	rm -f "$tmp"
fi
trap - EXIT
log "$dst: $(grep -vc "^#" "$dst") stalls, $(kv stalls_per_s) a second of busy time in the source ($per_wall of all time)"
