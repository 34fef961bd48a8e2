#!/usr/bin/env bash
# The ptr_ring benchmark sweep: ring size x zeroing batch x consumer batch,
# each header (stock, patched, and stock again: the A/A arm) in turn,
# interleaved, repeated; raw rows,
# medians with min-max, and the best zeroing batch per ring size, as CSV.
set -euo pipefail
VRB_PROG="sweep.sh"
# run-bench.sh passes its own command line; run alone, this one is recorded.
export VRB_COMMAND_LINE="${VRB_COMMAND_LINE:-$(printf '%q' "$0"; printf ' %q' "$@")}"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/results.sh
. "$VRB_ROOT/lib/results.sh"

sizes="8 16 24 32 48 64 256 1024"
zbatches="0 1 2 4 8 16 32 64"
cbatches="1 64"
modes="spin drop"
work="0 50"
repeats=5
items=2000000
aa=1
check_args=''
out=''

usage() {
	cat <<EOF
Usage: bench/ptr_ring/sweep.sh [options]

Runs bench_ptr_ring (one producer, one consumer, on CPUs 0 and 1) built from
the stock and the patched kernel's include/linux/ptr_ring.h, for every ring
size x zeroing batch x consumer batch, interleaved, and writes to DIR:
raw.csv, summary.csv (median, min, max items/s) and best_zbatch.csv. The
stock binary runs twice per point and repeat, the second time as the A/A
arm "stock_aa" (run-to-run noise: not a layout difference between the two
binaries); the three go in an order balanced over every six repeats.

  --sizes LIST      ring sizes (default: "$sizes")
  --zbatches LIST   zeroing batches; 0 = the header's own rule (default: "$zbatches")
  --cbatches LIST   consumer batches; 1 = ptr_ring_consume (default: "$cbatches")
  --modes LIST      spin (producer retries until the item is in) and/or drop
                    (producer drops on a full ring, as tun does) (default: "$modes")
  --work LIST       consumer loop iterations per item, a slower consumer (default: "$work")
  --repeats N       runs of each point per header (default: $repeats)
  --items N         items per run (default: $items)
  --no-aa           no A/A arm (a third fewer runs)
  --out DIR         result dir (default: a new results/<date>-ptr_ring-<base>)
  --check-args      check the options and exit (run-bench.sh does, before
                    building anything)
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
		--modes) [ $# -ge 2 ] || die "$1 needs a value"; modes=$2; shift 2 ;;
		--work) [ $# -ge 2 ] || die "$1 needs a value"; work=$2; shift 2 ;;
		--repeats) [ $# -ge 2 ] || die "$1 needs a value"; repeats=$2; shift 2 ;;
		--items) [ $# -ge 2 ] || die "$1 needs a value"; items=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		--no-aa) aa=''; shift ;;
		--check-args) check_args=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	check_list --sizes "$sizes" 1 1048576
	check_list --zbatches "$zbatches" 0 1048576
	check_list --cbatches "$cbatches" 1 4096
	check_list --work "$work" 0 1000000
	[ -n "$modes" ] || die "--modes is empty"
	for m in $modes; do
		case $m in spin | drop) ;; *) die "--modes: '$m' is not spin or drop" ;; esac
	done
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

# median_table RAW: per (impl,mode,work,size,zbatch_req,zbatch,cbatch): runs, median,
# min and max items/s, and the median share of produce calls that found the
# ring full (in drop mode: the drop rate).
median_table() {
	grep -v '^#' "$1" | tail -n +2 |
		awk -F, '{ f = $9 + $12; printf "%s,%s,%s,%s,%s,%s,%s,%s,%.6f\n", $2, $3, $4, $5, $6, $7, $8, $11, f ? $12 / f : 0 }' |
		sort -t, -k1,1 -k2,2 -k3,3n -k4,4n -k5,5n -k7,7n -k8,8n |
		awk -F, '
		function isort(a, n,  i, j, t) {
			for (i = 2; i <= n; i++) {
				t = a[i]
				for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]
				a[j + 1] = t
			}
		}
		function med(a, n) { return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		function flush() {
			if (!n) return
			isort(v, n); isort(d, n)
			printf "%s,%d,%.0f,%.0f,%.0f,%.4f\n", key, n, med(v, n), v[1], v[n], med(d, n)
		}
		{ k = $1","$2","$3","$4","$5","$6","$7
		  if (k != key) { flush(); key = k; n = 0 }
		  v[++n] = $8 + 0; d[n] = $9 + 0 }
		END { flush() }'
}

# best_table SUMMARY: per (impl,mode,work,size,cbatch): the zeroing batch with the
# best median, its rate, and the rate of the header's own rule (zbatch_req 0).
best_table() {
	grep -v '^#' "$1" | tail -n +2 |
		awk -F, '
		{ k = $1","$2","$3","$4","$7
		  if ($5 == 0) { dz[k] = $6; dv[k] = $9 }
		  if (!(k in best) || $9 > best[k]) { best[k] = $9; bz[k] = $6 }
		  keys[k] = 1 }
		END { for (k in keys)
			printf "%s,%d,%.0f,%d,%.0f,%.3f\n", k, bz[k], best[k], dz[k], dv[k],
				dv[k] ? best[k] / dv[k] : 0 }' |
		sort -t, -k1,1 -k2,2 -k3,3n -k4,4n -k5,5n
}

# ratio_table SUMMARY: per (mode,work,size,cbatch): the header's own rule, patched
# over stock (median items/s), with both zeroing batches.
ratio_table() {
	grep -v '^#' "$1" | tail -n +2 |
		awk -F, '$5 == 0 { k = $2","$3","$4","$7; z[$1, k] = $6; v[$1, k] = $9; d[$1, k] = $12; keys[k] = 1 }
		END { for (k in keys) if (v["stock", k] && v["patched", k])
			printf "%s,%d,%d,%.0f,%.0f,%.3f,%.4f,%.4f\n", k, z["stock", k], z["patched", k],
				v["stock", k], v["patched", k], v["patched", k] / v["stock", k],
				d["stock", k], d["patched", k] }' |
		sort -t, -k1,1 -k2,2n -k3,3n -k4,4n
}

# run_point IMPL MODE WORK SIZE ZBATCH CBATCH: one run, as a raw.csv row;
# IMPL stock_aa runs the stock binary.
run_point() {
	local impl=$1 mode=$2 work=$3 size=$4 z=$5 c=$6 flag=() row
	[ "$mode" = spin ] || flag=(-d)
	row=$("$BUILD/bench-${impl%_aa}" "${flag[@]}" -w "$work" "$size" "$z" "$c" "$items" 0 1)
	# row: impl,size,zbatch,cbatch,items,seconds,items_per_s,producer_full,mode
	echo "$row" | awk -F, -v i="$impl" -v z="$z" -v w="$work" \
		'{ print i","$9","w","$2","z","$3","$4","$5","$6","$7","$8 }'
}

# arms_order R: the arms in repeat R's order. Two arms alternate; three
# go through the six orders of a Williams design (ABC BCA CAB ACB BAC
# CBA), so that over six repeats each arm runs first, second and last
# twice and follows each other arm equally often.
arms_order() {
	local arms=(stock patched stock_aa) orders=("0 1 2" "1 2 0" "2 0 1" "0 2 1" "1 0 2" "2 1 0") i
	if [ -z "$aa" ]; then
		if [ $(($1 % 2)) -eq 1 ]; then echo "stock patched"; else echo "patched stock"; fi
		return 0
	fi
	for i in ${orders[$((($1 - 1) % 6))]}; do
		printf '%s ' "${arms[$i]}"
	done
}

main() {
	local r s z c m w impl order n=0 total narms=2
	parse_args "$@"
	[ -z "$check_args" ] || exit 0
	kernel_check_source
	stage "kernel headers" kernel_unpack
	stage "patch series" kernel_apply_series
	stage "build bench_ptr_ring (stock, patched)" build
	if [ -n "$out" ]; then out=$(results_claim "$out"); else out=$(results_new_dir ptr_ring); fi
	local meta=("workload=ptr_ring" "runs_on=host userspace (kernel header compiled in), producer CPU 0, consumer CPU 1"
		"modes=$modes (spin: producer retries; drop: producer drops on a full ring, as tun does)"
		"work=$work (consumer loop iterations per item)"
		"sizes=$sizes" "zbatches=$zbatches (0 = header's rule)" "cbatches=$cbatches"
		"repeats=$repeats" "items_per_run=$items"
		"aa_arm=$([ -n "$aa" ] && echo "stock_aa (the stock binary run again, in the same order design)" || echo none)")
	results_csv_open "$out/raw.csv" \
		"repeat,impl,mode,work,size,zbatch_req,zbatch,cbatch,items,seconds,items_per_s,producer_full" "${meta[@]}"
	[ -z "$aa" ] || narms=3
	total=0
	for m in $modes; do for w in $work; do for s in $sizes; do for z in $zbatches; do
		[ "$z" -le "$s" ] || continue
		for c in $cbatches; do total=$((total + narms * repeats)); done
	done; done; done; done
	for r in $(seq "$repeats"); do
		order=$(arms_order "$r")
		for m in $modes; do for w in $work; do for s in $sizes; do for z in $zbatches; do
			[ "$z" -le "$s" ] || continue
			for c in $cbatches; do for impl in $order; do
				echo "$r,$(run_point "$impl" "$m" "$w" "$s" "$z" "$c")" >>"$out/raw.csv"
				n=$((n + 1))
				[ $((n % 100)) -ne 0 ] || log "ptr_ring: $n/$total runs"
			done; done
		done; done; done; done
	done
	results_csv_open "$out/summary.csv" \
		"impl,mode,work,size,zbatch_req,zbatch,cbatch,runs,median_items_per_s,min_items_per_s,max_items_per_s,median_full_share" \
		"${meta[@]}"
	median_table "$out/raw.csv" >>"$out/summary.csv"
	results_csv_open "$out/best_zbatch.csv" \
		"impl,mode,work,size,cbatch,best_zbatch,best_median_items_per_s,default_zbatch,default_median_items_per_s,best_over_default" \
		"${meta[@]}"
	best_table "$out/summary.csv" >>"$out/best_zbatch.csv"
	results_csv_open "$out/patched_vs_stock.csv" \
		"mode,work,size,cbatch,stock_zbatch,patched_zbatch,stock_median_items_per_s,patched_median_items_per_s,patched_over_stock,stock_full_share,patched_full_share" \
		"${meta[@]}"
	ratio_table "$out/summary.csv" >>"$out/patched_vs_stock.csv"
	out=$(results_finish "$out")
	log "ptr_ring: $n runs; results in $out"
}

trap 'vrb_exit_report $?' EXIT
main "$@"
