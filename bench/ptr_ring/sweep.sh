#!/usr/bin/env bash
# The ptr_ring benchmark sweep: ring size x zeroing batch x consumer batch,
# each header (stock, patched) in turn, interleaved, repeated; raw rows,
# medians with min-max, and the best zeroing batch per ring size, as CSV.
set -euo pipefail
VRB_PROG="sweep.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/results.sh
. "$VRB_ROOT/lib/results.sh"

sizes="8 16 32 64 256 1024"
zbatches="0 1 2 4 8 16 32 64"
cbatches="1 16 64 256"
repeats=5
items=2000000
out=''

usage() {
	cat <<EOF
Usage: bench/ptr_ring/sweep.sh [options]

Runs bench_ptr_ring (one producer, one consumer, on CPUs 0 and 1) built from
the stock and the patched kernel's include/linux/ptr_ring.h, for every ring
size x zeroing batch x consumer batch, interleaved, and writes to DIR:
raw.csv, summary.csv (median, min, max items/s) and best_zbatch.csv.

  --sizes LIST      ring sizes (default: "$sizes")
  --zbatches LIST   zeroing batches; 0 = the header's own rule (default: "$zbatches")
  --cbatches LIST   consumer batches; 1 = ptr_ring_consume (default: "$cbatches")
  --repeats N       runs of each point per header (default: $repeats)
  --items N         items per run (default: $items)
  --out DIR         result dir (default: a new results/<date>-ptr_ring)
  -h, --help        this text
EOF
}

check_list() {
	local name=$1 list=$2 min=$3 max=$4 v
	[ -n "$list" ] || die "$name is empty"
	for v in $list; do check_range "$name" "$v" "$min" "$max"; done
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--sizes) [ $# -ge 2 ] || die "$1 needs a value"; sizes=$2; shift 2 ;;
		--zbatches) [ $# -ge 2 ] || die "$1 needs a value"; zbatches=$2; shift 2 ;;
		--cbatches) [ $# -ge 2 ] || die "$1 needs a value"; cbatches=$2; shift 2 ;;
		--repeats) [ $# -ge 2 ] || die "$1 needs a value"; repeats=$2; shift 2 ;;
		--items) [ $# -ge 2 ] || die "$1 needs a value"; items=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	check_list --sizes "$sizes" 1 1048576
	check_list --zbatches "$zbatches" 0 1048576
	check_list --cbatches "$cbatches" 1 4096
	check_range --repeats "$repeats" 1 1000
	check_range --items "$items" 1000 1000000000000
}

# build: the benchmark binaries from both trees' headers.
build() {
	local w
	w=$(kernel_workspace)
	BUILD=$VRB_CACHE/ptr_ring
	make -s -C "$VRB_ROOT/bench/ptr_ring" BUILD="$BUILD" \
		HDR_stock="$w/stock/include/linux/ptr_ring.h" \
		HDR_patched="$w/patched/include/linux/ptr_ring.h" \
		"$BUILD/bench-stock" "$BUILD/bench-patched"
}

# median_table RAW: per (impl,size,zbatch_req,zbatch,cbatch): n, median, min, max items/s.
median_table() {
	grep -v '^#' "$1" | tail -n +2 |
		awk -F, '{ print $2","$3","$4","$5","$6","$9 }' |
		sort -t, -k1,1 -k2,2n -k3,3n -k5,5n -k6,6n |
		awk -F, '
		function flush() {
			if (n) printf "%s,%d,%.0f,%.0f,%.0f\n", key, n,
				(n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[1], v[n]
		}
		{ k = $1","$2","$3","$4","$5
		  if (k != key) { flush(); key = k; n = 0 }
		  v[++n] = $6 }
		END { flush() }'
}

# best_table SUMMARY: per (impl,size,cbatch): the zeroing batch with the best
# median, its rate, and the rate of the header's own rule (zbatch_req 0).
best_table() {
	grep -v '^#' "$1" | tail -n +2 |
		awk -F, '
		{ k = $1","$2","$5
		  if ($3 == 0) dflt[k] = $7 ", " $4
		  if (!(k in best) || $7 > best[k]) { best[k] = $7; bz[k] = $4 }
		  keys[k] = 1 }
		END { for (k in keys) {
			split(dflt[k], d, ", ")
			printf "%s,%d,%.0f,%d,%.0f,%.3f\n", k, bz[k], best[k], d[2], d[1],
				d[1] ? best[k] / d[1] : 0 } }' |
		sort -t, -k1,1 -k2,2n -k3,3n
}

main() {
	local r s z c impl order row n=0 total
	parse_args "$@"
	kernel_check_source
	stage "kernel headers" kernel_unpack
	stage "patch series" kernel_apply_series
	stage "build bench_ptr_ring (stock, patched)" build
	[ -n "$out" ] || out=$(results_new_dir ptr_ring)
	mkdir -p "$out"
	local meta=("workload=ptr_ring" "runs_on=host userspace (kernel header compiled in), producer CPU 0, consumer CPU 1"
		"sizes=$sizes" "zbatches=$zbatches (0 = header's rule)" "cbatches=$cbatches"
		"repeats=$repeats" "items_per_run=$items")
	results_csv_open "$out/raw.csv" \
		"repeat,impl,size,zbatch_req,zbatch,cbatch,items,seconds,items_per_s,producer_full" "${meta[@]}"
	total=0
	for s in $sizes; do for z in $zbatches; do
		[ "$z" -le "$s" ] || continue
		for c in $cbatches; do total=$((total + 2 * repeats)); done
	done; done
	for r in $(seq "$repeats"); do
		# Alternate which header goes first, so neither always runs warm.
		if [ $((r % 2)) -eq 1 ]; then order="stock patched"; else order="patched stock"; fi
		for s in $sizes; do for z in $zbatches; do
			[ "$z" -le "$s" ] || continue
			for c in $cbatches; do for impl in $order; do
				row=$("$BUILD/bench-$impl" "$s" "$z" "$c" "$items" 0 1)
				echo "$r,$(echo "$row" | cut -d, -f1-2),$z,$(echo "$row" | cut -d, -f3-)" >>"$out/raw.csv"
				n=$((n + 1))
				[ $((n % 50)) -ne 0 ] || log "ptr_ring: $n/$total runs"
			done; done
		done; done
	done
	results_csv_open "$out/summary.csv" \
		"impl,size,zbatch_req,zbatch,cbatch,runs,median_items_per_s,min_items_per_s,max_items_per_s" "${meta[@]}"
	median_table "$out/raw.csv" >>"$out/summary.csv"
	results_csv_open "$out/best_zbatch.csv" \
		"impl,size,cbatch,best_zbatch,best_median_items_per_s,default_zbatch,default_median_items_per_s,best_over_default" \
		"${meta[@]}"
	best_table "$out/summary.csv" >>"$out/best_zbatch.csv"
	log "ptr_ring: $n runs; results in $out"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
