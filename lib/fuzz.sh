# shellcheck shell=bash
# The fuzzer's host side that needs no guest (scripts/fuzz.sh uses it; the
# unit tests check it): what a failure is called, and the minimisation of
# an operation log.

# fuzz_signature LINE: the failure LINE says, without what varies from run
# to run: a kernel line's timestamp, hex numbers and offsets; for a failed
# check, its kind ("FAIL: accounting").
fuzz_signature() {
	local l=$1
	case $l in
	*"FAIL: "*)
		l=${l#*FAIL: }
		echo "FAIL: ${l%%:*}"
		;;
	*)
		printf '%s\n' "$l" | sed -E 's/^[[:space:]]*\[[[:space:]]*[0-9.]+\][[:space:]]*//;
			s/0x[0-9a-fA-F]+/X/g; s/[0-9a-fA-F]{8,}/X/g; s/\+X\/X//g'
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
	local tester=$1 dir=$2 n=2 chunk i j k hit kind
	shift 2
	FUZZ_MIN=("$@")
	mkdir -p "$dir"
	while :; do
		local files=()
		i=0
		for kind in $(printf '%s\n' "${FUZZ_MIN[@]}" | cut -d' ' -f1 | sort -u); do
			printf '%s\n' "${FUZZ_MIN[@]}" | grep -v "^$kind\( \|\$\)" >"$dir/c$i.ops" || continue
			files+=("$dir/c$i.ops")
			i=$((i + 1))
		done
		[ "${#files[@]}" -ge 1 ] || break
		hit=$("$tester" "${files[@]}")
		printf 'minimise: %d ops, %d kinds: %s\n' "${#FUZZ_MIN[@]}" "${#files[@]}" \
			"$([ "$hit" -ge 0 ] && echo "a kind removed" || echo "no kind removable")" >&2
		[ "$hit" -ge 0 ] || break
		mapfile -t FUZZ_MIN <"${files[hit]}"
	done
	while [ "${#FUZZ_MIN[@]}" -ge 2 ]; do
		[ "$n" -le "${#FUZZ_MIN[@]}" ] || n=${#FUZZ_MIN[@]}
		chunk=$(((${#FUZZ_MIN[@]} + n - 1) / n))
		local files=()
		for ((i = 0; i < n; i++)); do
			: >"$dir/c$i.ops"
			for ((k = 0; k < ${#FUZZ_MIN[@]}; k++)); do
				[ $((k / chunk)) -eq "$i" ] || printf '%s\n' "${FUZZ_MIN[k]}" >>"$dir/c$i.ops"
			done
			files+=("$dir/c$i.ops")
		done
		hit=$("$tester" "${files[@]}")
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
