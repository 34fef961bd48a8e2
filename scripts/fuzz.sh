#!/usr/bin/env bash
# Fuzz the series' tun/tap interfaces in a guest (tests/fuzz/tunfuzz.c):
# seeds one after another until the time is up or one fails, then the
# failing seed's operations cut down to a minimal reproducer; or replay
# reproducers. docs/fuzz.md says what it does and does not cover.
set -euo pipefail
VRB_PROG="fuzz.sh"
export VRB_COMMAND_LINE="${VRB_COMMAND_LINE:-$(printf '%q' "$0"; printf ' %q' "$@")}"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/results.sh
. "$VRB_ROOT/lib/results.sh"
# shellcheck source=lib/guest.sh
. "$VRB_ROOT/lib/guest.sh"
# shellcheck source=lib/fuzz.sh
. "$VRB_ROOT/lib/fuzz.sh"

usage() {
	cat <<EOF
Usage: scripts/fuzz.sh [--kernel K] [--seconds S] [--seed N] [--ops N]
                       [--no-minimise] [--coverage] [--known] [--out DIR]
       scripts/fuzz.sh [--kernel K] [--known] --replay FILE...

Boots kernel K (stock, patched, or a bzImage path; default patched; the
flavour is VRB_KERNEL_FLAVOUR's, base or debug) with a virtio-net NIC and
panic_on_oops=1, and runs tunfuzz in it: seed N (default: random), N+1, ...
each --ops operations (default 300), until --seconds (default 600) passed
or a seed fails: a kernel splat (KASAN, lockdep, WARN, BUG, oops, hung task,
RCU stall), or a failed accounting or stopped-queue check. The failing
seed's operations are then cut down (ddmin, a guest boot per round) to a
sequence that fails the same way, none of whose operations can go alone:
repro.ops in the result dir, and repro.sh, which replays it.
Writes results/<date>-fuzz-<base>/: meta.txt, seeds.csv (per seed: its
outcome, operations, accounting phases checked and skipped, vaccount phases
checked, those of them with a stock unconsume loss, and operations skipped
as known limitations), summary.md; on a
failure the seed's log, the guest's console, repro.ops and repro.sh.

  --kernel K      stock, patched (default), or a bzImage
  --seconds S     how long to fuzz, 10 to 86400 (default 600)
  --seed N        the first seed (default: random)
  --ops N         operations per seed, 1 to 5000 (default 300)
  --no-minimise   stop at the failure
  --coverage      count each function's entries in tun.o, tap.o, vhost's
                  net.o and virtio_net.o with a kprobe (K stock or patched:
                  the functions come from its build): coverage.csv
  --known         run the operations that reach a limitation the series'
                  cover letters list as known (noqueue in place of a qdisc
                  on a backpressure tap whose queue may be stopped); by
                  default tunfuzz skips them
  --out DIR       the result dir (default: a new one under results/)
  --replay FILE   replay FILE and the files after it, in one guest, stopping
                  at the first that fails; no result dir. Exit 0: all passed
  -h, --help      this text

Exit: 0 nothing failed (or --replay: every file passed); 1 a seed or file
failed, or an error.
EOF
}

kernel=patched seconds=600 seed='' ops=300 minimise=1 out='' replay=() found_s='' again='' confirmed='' min_s=''
coverage='' cover='' fuzz_opts='' finished='' known=''

# guest RUNDIR TIMEOUT ARG...: tests/fuzz/fuzz-guest.sh ARG... in a guest;
# guest-run.sh's status (123: a splat, 124: timeout, 125: the guest died).
guest() {
	local run=$1 timeout=$2 rc=0
	shift 2
	rm -rf "$run"
	"$VRB_ROOT/scripts/guest-run.sh" --kernel "$kernel" --nic --append panic_on_oops=1 \
		--run-dir "$run" --timeout "$timeout" -- \
		env VRB_FUZZ_BIN="$VRB_CACHE/fuzz/tunfuzz" ${cover:+VRB_FUZZ_COVER="$cover"} \
		VRB_FUZZ_PATCHED="$([ "$kernel" != patched ] || echo 1)" VRB_FUZZ_KNOWN="$known" \
		"$VRB_ROOT/tests/fuzz/fuzz-guest.sh" "$@" \
		>"$run.out" 2>"$run.err" || rc=$?
	return "$rc"
}

# failed RUNDIR: the run that failed in a guest ("NAME<tab>WHY"), from its
# output: a "fail" line, or the last "start" and the first splat the
# console shows (the kernel died under it).
failed() {
	local name why
	name=$(sed -n 's/^start //p' "$1.out" | tail -n 1)
	[ -n "$name" ] || return 1
	why=$(sed -n "s/^fail $name: //p" "$1.out")
	why=${why%%$'\n'*}
	[ -n "$why" ] || why=$(head -n 1 "$1/splats" 2>/dev/null || true)
	[ -n "$why" ] || why="the guest stopped ($(tail -n 1 "$1.err"))"
	printf '%s\t%s\n' "$name" "$why"
}

# tester CANDIDATE...: the first candidate that fails as the seed did (-1:
# none; not a number: the guest stopped before one ran); candidates after
# one that hung or failed otherwise get a new guest.
tester() {
	local files=("$@") base=0 f i
	while [ "$base" -lt "${#files[@]}" ]; do
		# each candidate may run fuzz-guest.sh's RUN_TIMEOUT (900 s)
		guest "$work/try" $(((${#files[@]} - base) * 900 + 300)) replay eth0 "${files[@]:base}" &&
			{ echo -1; return; }
		# a guest that died before a candidate ran tells nothing: no answer
		f=$(failed "$work/try") || { echo "none: the guest stopped before a candidate ran"; return; }
		i=${f%%$'\t'*}
		i=$((${i#replay-} + base))
		if [ "$(fuzz_signature "${f#*$'\t'}")" = "$signature" ]; then
			echo "$i"
			return
		fi
		base=$((i + 1))
	done
	echo -1
}

# reproduces FILE N: in how many of N fresh guests FILE fails as the seed did.
reproduces() {
	local k=0 r
	for ((r = 0; r < $2; r++)); do
		[ "$(tester "$1")" != 0 ] || k=$((k + 1))
	done
	echo "$k"
}

main() {
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) [ $# -ge 2 ] || die "--kernel needs a value"; kernel=$2; shift 2 ;;
		--seconds) [ $# -ge 2 ] || die "--seconds needs a value"; check_range --seconds "$2" 10 86400; seconds=$2; fuzz_opts+=" $1"; shift 2 ;;
		--seed) [ $# -ge 2 ] || die "--seed needs a value"; check_range --seed "$2" 0 4000000000; seed=$2; fuzz_opts+=" $1"; shift 2 ;;
		--ops) [ $# -ge 2 ] || die "--ops needs a value"; check_range --ops "$2" 1 5000; ops=$2; fuzz_opts+=" $1"; shift 2 ;;
		--no-minimise) minimise=''; fuzz_opts+=" $1"; shift ;;
		--coverage) coverage=1; fuzz_opts+=" $1"; shift ;;
		--known) known=1; shift ;;
		--out) [ $# -ge 2 ] || die "--out needs a value"; results_claimable "$2"; out=$2; fuzz_opts+=" $1"; shift 2 ;;
		--replay)
			shift
			while [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; do
				if [ ! -f "$1" ] || [ ! -r "$1" ]; then die "cannot read $1"; fi
				replay+=("$1")
				shift
			done
			[ "${#replay[@]}" -ge 1 ] || die "--replay needs a file"
			;;
		-h | --help) usage; return 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	[ "${#replay[@]}" -eq 0 ] || [ -z "$fuzz_opts" ] || die "--replay takes --kernel and --known only, not$fuzz_opts"
	case $kernel in stock | patched) ;; *) [ -z "$coverage" ] || die "--coverage needs --kernel stock or patched (the functions come from its build)" ;; esac
	[ -f "$kernel" ] || case $kernel in stock | patched) ;; *) die "no kernel image $kernel" ;; esac
	! guest_hidden "$VRB_CACHE" ||
		die "the guest cannot see VRB_CACHE=$VRB_CACHE (it has a tmpfs on $VRB_GUEST_TMPFS)"
	make -s -C "$VRB_ROOT/tests/fuzz" BUILD="$VRB_CACHE/fuzz" >&2 || die "tunfuzz does not build"
	# a file that is not a log of operations fails here, not in a guest
	for f in "${replay[@]}"; do
		"$VRB_CACHE/fuzz/tunfuzz" --replay "$f" --print-only >/dev/null || die "$f is not a log of operations"
	done
	case $kernel in
	stock | patched) stage "kernels" "$VRB_ROOT/scripts/build-kernels.sh" --variant "$kernel" >&2 ;;
	esac
	work=$(mktemp -d "$VRB_CACHE/fuzz/run.XXXXXX")
	if [ "${#replay[@]}" -gt 0 ]; then
		replay_files
	else
		fuzz
	fi
}

# replay_files: the --replay files, copied where the guest sees them (it
# has its own /tmp), in one guest.
replay_files() {
	local f i copies=()
	log "replaying ${#replay[@]} file(s) on the $kernel kernel"
	mkdir -p "$work/files"
	for ((i = 0; i < ${#replay[@]}; i++)); do
		cp "${replay[i]}" "$work/files/$i.ops"
		copies+=("$work/files/$i.ops")
	done
	if guest "$work/replay" 1800 replay eth0 "${copies[@]}"; then
		log "all passed: $(tail -n 1 "$work/replay.out")"
		return 0
	fi
	if f=$(failed "$work/replay"); then
		i=${f%%$'\t'*}
		log "failed: ${replay[${i#replay-}]}: ${f#*$'\t'}"
	else
		log "failed: the guest stopped before a file ran ($(tail -n 1 "$work/replay.err"))"
	fi
	sed 's/^/  /' "$work/replay.out" >&2
	return 1
}

fuzz() {
	local rc=0 f name why outcome t0
	[ -n "$seed" ] || seed=$(shuf -i 0-4000000000 -n 1)
	if [ -n "$coverage" ]; then
		cover=$work/cover.list
		fuzz_functions "$(kernel_outdir "$kernel")" >"$cover" || die "no functions to count"
	fi
	if [ -n "$out" ]; then out=$(results_claim "$out"); else out=$(results_new_dir fuzz); fi
	local image=$kernel
	case $kernel in stock | patched) image=$(kernel_image "$kernel") ;; esac
	# the image itself: a kernel given by path has no build to describe it
	results_meta "fuzz_kernel=$kernel" "fuzz_kernel_sha256=$(sha256sum "$image" | cut -c1-16)" \
		"first_seed=$seed" "ops_per_seed=$ops" "seconds=$seconds" "known_run=${known:-0}" >"$out/meta.txt"
	log "fuzzing the $kernel kernel ($(kernel_flavour)) for $seconds s from seed $seed, $ops ops a seed: $out"
	t0=$(now)
	# the last seed may start just before the deadline and run RUN_TIMEOUT
	# (900 s, fuzz-guest.sh); the boot and the splat search get the rest
	guest "$work/fuzz" $((seconds + 1200)) seeds "$seed" $((seed + 100000000)) "$ops" "$seconds" eth0 || rc=$?
	results_csv_open "$out/seeds.csv" \
		"seed,outcome,ops,accounts_checked,accounts_skipped,vaccounts_checked,stock_unconsume_losses,known_skipped" \
		"fuzz_kernel=$kernel"
	for f in "$work"/fuzz/seed-*.log; do
		[ -e "$f" ] || continue
		name=$(basename "$f" .log)
		outcome=fail
		! grep -qx "pass $name" "$work/fuzz.out" || outcome=pass
		echo "${name#seed-},$outcome,$(grep -c '^op ' "$f" || true),$(grep -c '^  v\{0,1\}account .*: sent ' "$f" || true),$(grep -c '^  v\{0,1\}account[ :].*skipped' "$f" || true),$(grep -c '^  vaccount .*: sent ' "$f" || true),$(grep -c '^  vaccount .*: stock: ' "$f" || true),$(grep -c '^  known: skipped' "$f" || true)"
	done | sort -t, -k1,1n >>"$out/seeds.csv"
	cover=''
	if [ -n "$coverage" ]; then
		if [ -f "$work/fuzz/coverage.profile" ]; then
			fuzz_coverage "$work/cover.list" "$work/fuzz/coverage.profile" >"$out/coverage.csv"
		else
			log "no coverage: the guest did not finish"
		fi
	fi
	local total
	total=$(grep -v '^#' "$out/seeds.csv" | tail -n +2 | awk -F, '{ s += $3 } END { print s + 0 }')
	if [ "$rc" -eq 0 ]; then
		finish "no failure" "$total"
		return 0
	fi
	found_s=$(since "$t0")
	if ! f=$(failed "$work/fuzz"); then
		cp "$work/fuzz/console.log" "$out/console.log" 2>/dev/null || true
		die "the guest failed before a seed ran ($rc): $(tail -n 3 "$work/fuzz.err"); its console: $out/console.log"
	fi
	name=${f%%$'\t'*} why=${f#*$'\t'}
	signature=$(fuzz_signature "$why")
	cp "$work/fuzz/$name.log" "$out/"
	[ ! -f "$work/fuzz/$name.dmesg" ] || cp "$work/fuzz/$name.dmesg" "$out/"
	cp "$work/fuzz/console.log" "$out/console.log" 2>/dev/null || true
	log "$name failed: $why"
	mapfile -t all < <(sed -n 's/^op [0-9]*: //p' "$work/fuzz/$name.log")
	printf '%s\n' "${all[@]}" >"$work/all.ops"
	# the seed ran after others in one guest: does it fail alone?
	if [ -n "$minimise" ]; then
		again=$(reproduces "$work/all.ops" 3)
		log "$name's ${#all[@]} operations alone, in a fresh guest: failed the same way $again times of 3"
	fi
	if [ -n "$minimise" ] && [ "${#all[@]}" -eq 0 ]; then
		log "not minimised: $name failed before its first operation"
	elif [ -n "$minimise" ] && [ "$again" -eq 0 ]; then
		log "not minimised: the failure does not reproduce from the operations alone"
	elif [ -n "$minimise" ]; then
		log "minimising ${#all[@]} operations (a guest per round)"
		local min_t0
		min_t0=$(now)
		if ! fuzz_ddmin tester "$work/min" "${all[@]}"; then
			log "not minimised: the minimiser failed"
			finish "$name: $why" "$total"
			return 1
		fi
		printf '%s\n' "${FUZZ_MIN[@]}" >"$work/min.ops"
		min_s=$(since "$min_t0")
		confirmed=$(reproduces "$work/min.ops" 3)
		{
			echo "# tunfuzz reproducer: $signature"
			echo "# from $name of $(basename "${out%.partial}") on the $kernel kernel ($(kernel_flavour)), ${#all[@]} ops cut to ${#FUZZ_MIN[@]}"
			echo "# failed the same way in $confirmed of 3 fresh guests; no operation can go alone (one run per candidate)"
			printf '%s\n' "${FUZZ_MIN[@]}"
		} >"$out/repro.ops"
		# shellcheck disable=SC2016 # $0 is the reproducer's own
		printf '#!/bin/sh\n# Replays repro.ops in a guest (from the repository root).\nexec scripts/fuzz.sh --kernel %s%s --replay "$(dirname "$0")/repro.ops"\n' \
			"$kernel" "${known:+ --known}" >"$out/repro.sh"
		chmod +x "$out/repro.sh"
		log "reproducer: ${#FUZZ_MIN[@]} ops, failed the same way in $confirmed of 3 fresh guests: $out/repro.ops"
	fi
	finish "$name: $why" "$total"
	return 1
}

# finish OUTCOME OPS: summary.md, and the result dir under its final name.
finish() {
	local seeds
	seeds=$(grep -v '^#' "$out/seeds.csv" | tail -n +2 | wc -l)
	{
		echo "# Fuzz run: $1"
		echo
		echo "- Kernel: $kernel ($(kernel_flavour)), from seed $seed, $ops operations a seed, for $seconds s."
		echo "- Seeds run: $seeds; operations: $2 ($(tail -n 1 "$work/fuzz.out" | grep '^ran ' || echo 'the guest did not finish'))."
		echo "- Operations skipped as known limitations: $(grep -v '^#' "$out/seeds.csv" | tail -n +2 | awk -F, '{ k += $8 } END { print k + 0 }')$([ -z "$known" ] || echo ' (--known: none skipped)')."
		echo "- Accounting phases checked: $(grep -v '^#' "$out/seeds.csv" | tail -n +2 | awk -F, '{ c += $4; s += $5; v += $6; l += $7 } END { printf "%d (skipped: %d: the tap down, without a carrier, with no queue attached, or no vhost-net backend); %d of them removed vhost-net'"'"'s backend, and %d of those lost frames uncounted (stock only)", c, s, v, l }')."
		[ ! -f "$out/coverage.csv" ] || fuzz_reached "$out/coverage.csv" | sed 's/^/- Coverage, /'
		[ -z "$found_s" ] || echo "- Failed after $found_s s (host time from the guest's start to its end: the boot included)."
		[ -z "$again" ] || echo "- The failing seed's operations alone, in a fresh guest: failed the same way $again times of 3."
		[ -z "$min_s" ] || echo "- Minimised in $min_s s (host time, the confirming guests not included)."
		[ ! -f "$out/repro.ops" ] || echo "- Reproducer ($(grep -vc '^#' "$out/repro.ops") ops, failed the same way in $confirmed of 3 fresh guests): repro.ops; replay: repro.sh."
		echo
		echo "Made by the harness: $VRB_COMMAND_LINE"
	} >"$out/summary.md"
	VRB_SUMMARY=0 results_finish "$out" >/dev/null
	finished=1
	log "results: ${out%.partial}"
}

# $work goes when the run finished (or replayed); after an error it stays,
# with the guests' output and the minimiser's candidates
cleanup() {
	local rc=$1
	if [ -n "${work:-}" ] && [ -d "$work" ]; then
		if [ -n "$finished" ] || [ "${#replay[@]}" -gt 0 ]; then
			rm -rf "$work"
		else
			warn "kept $work (the guests' output, the minimiser's candidates)"
		fi
	fi
	vrb_exit_report "$rc"
}
trap 'cleanup $?' EXIT
main "$@"
