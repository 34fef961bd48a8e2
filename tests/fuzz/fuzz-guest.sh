#!/usr/bin/env bash
# Runs inside the guest, as root (scripts/fuzz.sh boots it): tunfuzz over
# seeds until a deadline, or a list of operation files, one after another;
# after each, the kernel's new messages are searched for a splat (the
# harness's one pattern, lib/guest.sh). Each run's log goes to
# $VRB_OUT/<name>.log, written as it runs: when the kernel dies (the guest
# boots with panic_on_oops=1), the last "start" line on stdout names the
# run, and its log ends at the operation that killed it.
#
# Usage: fuzz-guest.sh seeds FIRST LAST OPS SECONDS [NIC]
#          seeds FIRST to LAST, OPS operations each, until SECONDS passed
#        fuzz-guest.sh replay NIC FILE...
#          each FILE (tunfuzz --replay); NIC "-" for none
# Prints per run "start NAME", then "pass NAME" or "fail NAME: WHY" (WHY:
# the first splat line, tunfuzz's "FAIL: " line, a sanitizer's first line,
# or a timeout); at the end
# "ran N ops in S s". Exit: 0 all passed; 1 a run failed (the rest not
# run); 2 bad usage.
# With VRB_FUZZ_PATCHED=1, tunfuzz runs with --patched (the series' ioctls
# must be there); with VRB_FUZZ_KNOWN=1, with --known (the operations
# that reach the series' known limitations run, not skipped). With
# VRB_FUZZ_COVER=LIST ("OBJECT FUNCTION" lines, lib/fuzz.sh's
# fuzz_functions), a kprobe counts each function's entries (c_I for LIST's
# line I) and $VRB_OUT/coverage.profile gets kprobe_profile at the end.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=lib/guest.sh
. "$root/lib/guest.sh"
fuzz=${VRB_FUZZ_BIN:?VRB_FUZZ_BIN: the tunfuzz binary}
out=${VRB_OUT:-/tmp}
ops=0
t0=$(date +%s)

# usage [STATUS]: the usage text, on stderr unless STATUS is 0.
usage() {
	local fd=2
	[ "${1:-2}" -ne 0 ] || fd=1
	sed -n '/^# Usage:/,/^# run); 2/s/^# \{0,1\}//p' "$0" >&"$fd"
	exit "${1:-2}"
}

# A run that takes longer than this is stopped and fails ("timeout").
RUN_TIMEOUT=900

# one NAME ARG...: runs tunfuzz ARG... with its log in $out/NAME.log;
# false (and "fail NAME: WHY" said) on a failed check, a splat, a
# sanitizer's report (exit 3) or a timeout.
one() {
	local name=$1 log=$out/$1.log rc=0 lines why
	shift
	echo "start $name"
	dmesg -c >/dev/null
	ASAN_OPTIONS=detect_leaks=0:exitcode=3 UBSAN_OPTIONS=exitcode=3 \
		timeout "$RUN_TIMEOUT" "$fuzz" "$@" ${VRB_FUZZ_PATCHED:+--patched} \
		${VRB_FUZZ_KNOWN:+--known} >"$log" 2>&1 || rc=$?
	ops=$((ops + $(grep -c '^op ' "$log" || true)))
	dmesg -c >"$out/$name.dmesg" || echo "dmesg -c failed: splats not looked for" >>"$out/$name.dmesg"
	if lines=$(guest_splats "$out/$name.dmesg"); then
		echo "fail $name: ${lines%%$'\n'*}"
		return 1
	fi
	rm -f "$out/$name.dmesg"
	case $rc in
	0) echo "pass $name"; return 0 ;;
	124) why="timeout: still running after $RUN_TIMEOUT s" ;;
	3) why=$(grep -m 1 'ERROR: AddressSanitizer\|runtime error:' "$log" || echo "sanitizer, exit 3") ;;
	*) why=$(grep -m 1 '^FAIL: \|^tunfuzz: ' "$log" || echo "exit $rc") ;;
	esac
	echo "fail $name: $why"
	return 1
}

TRACING=/sys/kernel/tracing

# cover_start LIST: a kprobe on each function of LIST, counting (tracing
# off: kprobe_profile counts the hits without the trace buffer).
cover_start() {
	local i=0 set=0 fn
	echo 0 >"$TRACING/tracing_on"
	while read -r _ fn; do
		! echo "p:fzcov/c_$i $fn" >>"$TRACING/kprobe_events" 2>/dev/null || set=$((set + 1))
		i=$((i + 1))
	done <"$1"
	[ "$set" -eq 0 ] || echo 1 >"$TRACING/events/fzcov/enable"
	echo "coverage: $set of $i functions probed"
}

summary() {
	[ -z "${VRB_FUZZ_COVER:-}" ] || cp "$TRACING/kprobe_profile" "$out/coverage.profile"
	echo "ran $ops ops in $(($(date +%s) - t0)) s"
}


[ $# -ge 1 ] || usage
case $1 in -h | --help) usage 0 ;; seeds | replay) ;; *) usage ;; esac
[ -z "${VRB_FUZZ_COVER:-}" ] || cover_start "$VRB_FUZZ_COVER"
case $1 in
seeds)
	if [ $# -lt 5 ] || [ $# -gt 6 ]; then usage; fi
	first=$2 last=$3 n=$4 secs=$5 nic=${6:-}
	for ((s = first; s <= last; s++)); do
		[ $(($(date +%s) - t0)) -lt "$secs" ] || break
		one "seed-$s" --seed "$s" --ops "$n" ${nic:+--nic "$nic"} || { summary; exit 1; }
	done
	;;
replay)
	[ $# -ge 3 ] || usage
	nic=()
	[ "$2" = - ] || nic=(--nic "$2")
	shift 2
	i=0
	for f in "$@"; do
		one "replay-$i" --replay "$f" "${nic[@]}" || { summary; exit 1; }
		i=$((i + 1))
	done
	;;
*) usage ;;
esac
summary
