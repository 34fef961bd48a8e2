#!/usr/bin/env bash
# summary.sh DIR: summary.md (and plots/*.png) for a result directory of
# any workload: the tables in the seeds' shapes, per cell, every row
# against the run's reference with its 95 % interval and verdict, the A/A
# noise floor, the verdicts in words and the command that made the run.
set -euo pipefail
VRB_PROG="summary.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../../lib/functions.sh"
# shellcheck source=lib/stats.sh
. "$VRB_ROOT/lib/stats.sh"
# shellcheck source=lib/cell-verdicts.sh
. "$VRB_ROOT/lib/cell-verdicts.sh"
# shellcheck source=bench/report/lib.sh
. "$VRB_ROOT/bench/report/lib.sh"
# shellcheck source=bench/report/part-a.sh
. "$VRB_ROOT/bench/report/part-a.sh"
# shellcheck source=bench/report/part-b.sh
. "$VRB_ROOT/bench/report/part-b.sh"
# shellcheck source=bench/report/part-c.sh
. "$VRB_ROOT/bench/report/part-c.sh"
# shellcheck source=bench/report/part-other.sh
. "$VRB_ROOT/bench/report/part-other.sh"

usage() {
	cat <<EOF
Usage: bench/report/summary.sh [--no-plots] DIR

Writes DIR/summary.md for the result directory DIR (workload A, B, C,
ptr_ring, model or boot, told by its files' metadata) and the PNG plots
it links, in DIR/plots/ (gnuplot). Per cell (tx_queue_len; ring and rate):
the tables in the seeds' shapes, each setting against the run's reference
(paired by the run's unit) as a ratio with its 95 % Fieller interval
and verdict, the A/A arm's interval (the noise floor), the verdicts in
words, and the run's metadata and command. Nothing in DIR but summary.md
and plots/ is written; both are replaced whole.

  --no-plots   no plots (summary.md says so)
  -h, --help   this text
EOF
}

# An error inside a process substitution (< <(...)) would not end the
# script: die also leaves its message in a file that main checks at the end.
errors_file=$(mktemp)
# every cell's compare rows ("CELL<TAB>row"): the headline and forest plots
cell_rows_file=$(mktemp)
# nothing half-written left behind, whatever ends the script
# workload C's verdicts, recomputed from trials.csv (bench/report/part-c.sh)
c_rows_file=$(mktemp)
trap 'rm -f "$errors_file" "$cell_rows_file" "$c_rows_file"; [ -z "${dir:-}" ] || rm -rf "$dir/summary.md.tmp" "$dir/plots.tmp"' EXIT
die() {
	printf '%s: error: %s\n' "$VRB_PROG" "$*" >&2
	echo "$*" >>"$errors_file"
	exit 1
}

plots=1
dir=''
while [ $# -gt 0 ]; do
	case $1 in
	--no-plots) plots=0; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$dir" ] || die "one result directory, not '$dir' and '$1'"; dir=$1; shift ;;
	esac
done
[ -n "$dir" ] || { usage >&2; die "no result directory given"; }
[ -d "$dir" ] || die "$dir: not a directory"
dir=$(cd "$dir" && pwd)

# workload_of DIR: A, B, C, ptr_ring, model or boot, from the metadata.
workload_of() {
	local f w
	for f in "$1"/trials.csv "$1"/blocks.csv "$1"/raw.csv "$1"/summary.csv "$1"/calib.csv "$1"/boot.csv; do
		[ -f "$f" ] || continue
		w=$(meta "$f" workload)
		case $w in
		A\ *|A) echo A; return ;;
		B\ *|B) echo B; return ;;
		C\ *|C) echo C; return ;;
		ptr_ring*) echo ptr_ring; return ;;
		boot*) echo boot; return ;;
		model*) echo model; return ;;
		esac
	done
	[ ! -f "$1/calib.csv" ] || { echo model; return; }
	die "$1: no result file with a known workload in its metadata"
}

main() {
	local w tmp
	w=$(workload_of "$dir")
	# every plot says which run it shows
	run_id=$(basename "$dir")
	run_id=${run_id%.partial}
	[ "$plots" = 0 ] || need_cmd gnuplot gnuplot-nox
	stats_build	# make: rebuilt when bench/stats changed, not only when missing
	verdicts_md=$(mktemp)
	tmp="$dir/summary.md.tmp"
	plots_md=() plots_notes=()
	# plots are drawn into plots.tmp and renamed whole at the end
	plot_dir=$dir/plots.tmp
	if [ "$plots" = 1 ]; then
		rm -rf "$plot_dir"
		mkdir "$plot_dir"
	fi
	{
		case $w in
		A) summary_a ;;
		B) summary_b ;;
		C) summary_c ;;
		ptr_ring) summary_ptr_ring ;;
		model) summary_model ;;
		boot) summary_boot ;;
		esac
		if [ -s "$verdicts_md" ]; then
			echo "## Verdicts in words"
			echo
			echo "Each at 95 %: of n comparisons, at most about n/20 say better/worse by chance when nothing differs (fewer beside a noise floor);"
			echo "\"below the noise floor\": the interval excludes 1 but the ratio lies within the cell's A/A interval mirrored about 1"
			echo "(no effect within the reach of the A/A interval, two copies of one setting, is claimed; one beyond it holds even where the A/A arm differed);"
			echo "a verdict marked \"not trusted\" comes from a cell whose A/A arm differed and has no interval to set a floor;"
			echo "\"deterministic\": every unit of both arms identical (virtual time), the ratio exact, no verdict;"
			echo "an interval that excludes 1 but lies within 0.01 % of it says \"no difference beyond 0.01 %\""
			echo "(bench/stats/compare --margin, a tolerance for virtual time, where settings can differ by a few frames alone)."
			echo
			cat "$verdicts_md"
			echo
		fi
		echo "## Plots"
		echo
		if [ "$plots" = 0 ]; then
			echo "Not drawn (--no-plots)."
		fi
		for p in "${plots_md[@]}"; do echo "$p"; echo; done
		for p in "${plots_notes[@]}"; do echo "$p"; echo; done
		# the run's metadata last (A, B, C)
		! declare -F "run_md_$w" >/dev/null || "run_md_$w"
		echo "---"
		echo "Made by \`bench/report/summary.sh\` from the run's CSV files (harness $(git -C "$VRB_ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown))."
	} >"$tmp"
	rm -f "$verdicts_md"
	if [ -s "$errors_file" ]; then
		printf '%s: error: no summary.md for %s: %s\n' "$VRB_PROG" "$dir" "$(head -n 1 "$errors_file")" >&2
		exit 1
	fi
	# replaced whole: no plots left from an earlier summary (--no-plots too)
	rm -rf "$dir/plots"
	if [ "$plots" = 1 ]; then
		mv "$plot_dir" "$dir/plots"
		rmdir "$dir/plots" 2>/dev/null || true
	fi
	mv "$tmp" "$dir/summary.md"
	# a run being completed (DIR.partial) gets its final name next
	log "summary: ${dir%.partial}/summary.md"
}

main
