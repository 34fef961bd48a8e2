# shellcheck shell=bash
# The fuzzer's host side that needs no guest (scripts/fuzz.sh uses it; the
# unit tests check it): what a failure is called, and the minimisation of
# an operation log.

# fuzz_signature LINE: the failure LINE says, without what varies from run
# to run: a kernel line's timestamp, CPU and PID, a task's comm:pid, hex
# numbers and offsets, how long a task hung or a CPU was stuck; for a
# failed check, its kind ("FAIL: accounting": the words before the colon).
fuzz_signature() {
	local l=$1
	case $l in
	*"FAIL: "*)
		l=${l#*FAIL: }
		echo "FAIL: ${l%%:*}"
		;;
	*)
		printf '%s\n' "$l" | sed -E 's/^[[:space:]]*//; s/\[[[:space:]]*[0-9]+\.[0-9]+\][[:space:]]*//g;
			s/CPU: [0-9]+ PID: [0-9]+/CPU: N PID: N/; s/ PID: [0-9]+/ PID: N/g;
			s/CPU#[0-9]+/CPU#N/g; s/ [0-9]+ seconds/ N seconds/g; s/stuck for [0-9]+s/stuck for Ns/g;
			s/0x[0-9a-fA-F]+/X/g; s/[0-9a-fA-F]{8,}/X/g; s/\+X\/X//g;
			s/([A-Za-z_][A-Za-z0-9_.-]*)[:\/][0-9]+/\1:N/g; s/:N(:[0-9]+)+/:N/g'
		;;
	esac
}

# fuzz_ddmin TESTER DIR OP...: the operations (one log line each) cut down
# to a sequence that still fails, none of whose operations can be removed
# alone. First whole kinds go (every "send", every "read", ... at once),
# then ddmin (complements only) runs on what is left. TESTER DIR/c0.ops
# DIR/c1.ops ... prints the index of the first candidate file that fails as
# the original did, or -1 (it may test them one by one, or all in one
# guest). The result goes to FUZZ_MIN (an array); progress to stderr.
fuzz_ddmin() {
	local tester=$1 dir=$2 n=2 i j k hit kind kinds
	shift 2
	FUZZ_MIN=("$@")
	[ "${#FUZZ_MIN[@]}" -ge 1 ] || { echo "fuzz_ddmin: no operations to minimise" >&2; return 1; }
	mkdir -p "$dir"
	while :; do
		local files=()
		i=0
		mapfile -t kinds < <(printf '%s\n' "${FUZZ_MIN[@]}" | awk '{ print $1 }' | sort -u)
		# a kind's removal (the kind as a string: no escapes, no numbers);
		# only candidates smaller than the sequence and not empty
		for kind in "${kinds[@]}"; do
			printf '%s\n' "${FUZZ_MIN[@]}" | K=$kind awk '($1 "") != (ENVIRON["K"] "")' >"$dir/c$i.ops"
			k=$(wc -l <"$dir/c$i.ops")
			if [ "$k" -lt 1 ] || [ "$k" -ge "${#FUZZ_MIN[@]}" ]; then continue; fi
			files+=("$dir/c$i.ops")
			i=$((i + 1))
		done
		[ "${#files[@]}" -ge 1 ] || break
		hit=$(fuzz_tested "$tester" "${files[@]}") || return 1
		printf 'minimise: %d ops, %d kinds: %s\n' "${#FUZZ_MIN[@]}" "${#files[@]}" \
			"$([ "$hit" -ge 0 ] && echo "a kind removed" || echo "no kind removable")" >&2
		[ "$hit" -ge 0 ] || break
		mapfile -t FUZZ_MIN <"${files[hit]}"
	done
	while [ "${#FUZZ_MIN[@]}" -ge 2 ]; do
		[ "$n" -le "${#FUZZ_MIN[@]}" ] || n=${#FUZZ_MIN[@]}
		local files=() len=${#FUZZ_MIN[@]}
		# part i: [i * len / n, (i + 1) * len / n), none empty
		for ((i = 0; i < n; i++)); do
			: >"$dir/c$i.ops"
			for ((k = 0; k < len; k++)); do
				[ "$k" -ge $((i * len / n)) ] && [ "$k" -lt $(((i + 1) * len / n)) ] ||
					printf '%s\n' "${FUZZ_MIN[k]}" >>"$dir/c$i.ops"
			done
			files+=("$dir/c$i.ops")
		done
		hit=$(fuzz_tested "$tester" "${files[@]}") || return 1
		printf 'minimise: %d ops, %d parts: %s\n' "${#FUZZ_MIN[@]}" "$n" \
			"$([ "$hit" -ge 0 ] && echo "part $hit removed" || echo "none removable")" >&2
		if [ "$hit" -ge 0 ]; then
			mapfile -t FUZZ_MIN <"$dir/c$hit.ops"
			[ "$n" -le 2 ] || n=$((n - 1))
		elif [ "$n" -ge "${#FUZZ_MIN[@]}" ]; then
			break
		else
			j=$((n * 2))
			n=$((j < ${#FUZZ_MIN[@]} ? j : ${#FUZZ_MIN[@]}))
		fi
	done
}

# fuzz_tested TESTER FILE...: TESTER's answer when it is -1 or the index
# of one of the files; else false, and why on stderr.
fuzz_tested() {
	local tester=$1 hit
	shift
	hit=$("$tester" "$@")
	case $hit in
	-1) ;;
	'' | *[!0-9]* | 0?*) echo "fuzz_ddmin: $tester answered '$hit', not -1 or a candidate's index" >&2; return 1 ;;
	*) [ "$hit" -lt $# ] || { echo "fuzz_ddmin: $tester answered $hit of $# candidates" >&2; return 1; } ;;
	esac
	echo "$hit"
}

# The objects whose functions a coverage run counts: tun/tap, vhost-net,
# virtio_net (ptr_ring.h is inlined into them: its functions have no entry
# of their own unless the compiler left a copy, which is then listed).
FUZZ_COVER_OBJS="drivers/net/tun.o drivers/net/tap.o drivers/vhost/net.o drivers/net/virtio_net.o"

# fuzz_functions OUTDIR: "OBJECT FUNCTION" for each function of
# FUZZ_COVER_OBJS in the kernel build OUTDIR (its text symbols, without
# the .cold parts that are no function's entry); false when one is missing.
fuzz_functions() {
	local o
	for o in $FUZZ_COVER_OBJS; do
		[ -f "$1/$o" ] || { echo "fuzz_functions: no $1/$o" >&2; return 1; }
		nm --defined-only "$1/$o" | awk -v o="$o" '$2 ~ /^[tT]$/ && $3 !~ /\.cold$/ { print o, $3 }' |
			sort -u || { echo "fuzz_functions: nm $1/$o failed" >&2; return 1; }
	done
}

# fuzz_coverage LIST PROFILE: "object,function,hits" for each line of LIST
# (fuzz_functions'), the hits from PROFILE (kprobe_profile after a run: the
# probe of LIST's line i is c_i); hits empty where no probe could be set.
fuzz_coverage() {
	echo "object,function,hits"
	awk 'FILENAME == ARGV[1] { if ($1 ~ /^c_[0-9]+$/ && $2 ~ /^[0-9]+$/) hits[substr($1, 3)] = $2; next }
	     { i = FNR - 1; printf "%s,%s,%s\n", $1, $2, (i in hits) ? hits[i] : "" }' "$2" "$1"
}

# fuzz_reached CSV: a line per object of fuzz_coverage's CSV: functions
# reached (hit at least once) of those probed, and those not probed.
fuzz_reached() {
	awk -F, 'NR > 1 { n[$1]++; if ($3 != "") p[$1]++; if ($3 > 0) r[$1]++; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
	     END { for (i = 1; i <= k; i++) { o = order[i]
	         printf "%s: %d of %d functions reached (%d not probeable)\n", o, r[o], p[o], n[o] - p[o] } }' "$1"
}
