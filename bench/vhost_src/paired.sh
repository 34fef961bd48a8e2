# shellcheck shell=bash disable=SC2154,SC2016 # run-b.sh's globals; awk expressions
# Workload B's paired design (sourced by run-b.sh, whose globals it uses):
# one flood per boot, the refill setting switched between blocks by the
# guest (guest-rx-paired.sh), vhost_src's interval rows stamped with the
# block the guest said it was in; per block: the source's offered, delivered
# and dropped frames, and the guest's counters, the first SETTLE s after a
# switch left out of both. Both sides count the same window: the guest's
# rx_window writes "N:ARM", reads its counters (rx_packets, and rx queue
# 0's in one ethtool ioctl), waits, writes "switch" and reads them again;
# vhost_src polls the phase every millisecond and closes a row when it
# changes. A round has every setting of the kernel once; a unit is a boot
# (paired_verdicts; lib/cell-verdicts.sh's B_PAIRED_UNIT). block_s: the
# seconds of the block's rows on the source's clock; intervals: their
# count, the last one short (a phase change closed it). (Runs before
# 760ce22 read the counters with ethtool -S from the shell, seconds under
# TCG: there block_s, where blocks.csv has it, ran from "N:ARM" to the
# next switch, the settle included, intervals counted the rows after the
# settle, and the guest saw 65-91 % of the source's frames per run.)

BLOCK_COLS="repeat,kernel,round,block,setting,knobs,rate_pps,rx_queue_size,intervals,offered,delivered,dropped,drop_pct,guest_rx,refills,refill_bufs,starved_polls,starvations,refill_oom,guest_seconds,host_load1,block_s"

# round_order REPEAT ROUND SETTING...: the settings in the order of one
# round. Rounds come in pairs (ABBA: a linear drift cancels): an odd round
# is row U of a Williams design, U the pair's number in the run (from
# REPEAT, ROUND and $rounds), the even round after it the same row
# reversed. Row U is the sequence 0, 1, n-1, 2, n-2, ... plus U (mod n)
# over the n settings: with the reversed rows, n pairs put every setting
# right after every other one exactly twice within rounds, so a block's
# carry-over from the block before is balanced (not the turns between
# rounds, which repeat a setting or step to the next row; and only when
# the run's pairs per kernel, REPEATS x ROUNDS / 2, are a multiple of n:
# the full profile's 5 pairs for 7 settings come close; order_note says
# so in the run's log). Rotating the list instead (until
# 2026-12-01) left each setting after the same two neighbours: in the
# ring 256 and 512 runs (results/20261201T134141Z-B, 20261201T164725Z-B)
# blocks after cap64 dropped 1.12-1.20x their pair's mean, blocks after
# mn16 0.88-0.95x; with each setting after the same two, its own effect
# and its predecessors' could not be told apart (auto followed cap64 and
# legacy, auto_aa mn16 and mn64: the A/A arm read below 1 in 5 of 6 cells).
round_order() {
	local r=$1 k=$2 n u j i seq=()
	shift 2
	local a=("$@")
	n=${#a[@]}
	u=$(((r - 1) * (${rounds:-4} / 2) + (k - 1) / 2))
	for ((j = 0; j < n; j++)); do
		if ((j == 0)); then
			i=0
		elif ((j % 2 == 1)); then
			i=$(((j + 1) / 2))
		else
			i=$((n - j / 2))
		fi
		seq+=("${a[(i + u) % n]}")
	done
	if ((k % 2 == 1)); then
		printf '%s\n' "${seq[@]}"
	else
		printf '%s\n' "${seq[@]}" | tac
	fi
}

# pad_to N SETTING...: the settings, repeated in turn until there are N.
pad_to() {
	local n=$1 i
	shift
	local a=("$@")
	for ((i = 0; i < n; i++)); do
		echo "${a[i % ${#a[@]}]}"
	done
}

# paired_blocks REPEAT SETTING...: the guest's block list (ROUND:ARM:KNOBS).
paired_blocks() {
	local r=$1 k s
	shift
	for k in $(seq "$rounds"); do
		for s in $(round_order "$r" "$k" "$@"); do
			echo "$k:$s:$(setting_knobs "$s" | tr ' ' ';')"
		done
	done
}

# paired_boot REPEAT KERNEL RING RATE SETTING...: one boot, one flood, the
# settings' blocks; appends to blocks.csv and intervals.csv.
paired_boot() {
	local r=$1 kernel=$2 ring=$3 rate=$4 dir sock src_pid rc=0 gargs=() blocks load1
	shift 4
	dir=$tdir/r$r-$kernel-$ring-$rate
	mkdir -p "$dir/guest"
	rm -f "$dir/guest/phase"
	sock=$dir/vu.sock
	mapfile -t blocks < <(paired_blocks "$r" "$@")
	load1=$(host_load1)
	# the flood ends when the guest writes "end"; the duration is only a
	# bound, 4x the blocks: a block takes longer than BLOCK s (the knobs'
	# sysfs writes and rx_window's start under TCG and a flood)
	"$VRB_CACHE/vhost_src/vhost_src" --socket "$sock" --rate "$rate" \
		--duration $((${#blocks[@]} * block * 4 + 120)) --interval "$interval" \
		--out "$dir/intervals.csv" --wait 300 --lcore "$cpu_other" \
		--phase-file "$dir/guest/phase" >"$dir/source.log" 2>&1 &
	src_pid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ] || { cat "$dir/source.log" >&2; die "vhost_src did not create $sock"; }
	gargs=(--load "$guest_load" --rx-window "$VRB_CACHE/vhost_src/rx_window")
	[ -z "$probe" ] || gargs+=(--probe "$(b_probe_file "$kernel")")
	b_guest "$kernel" "$dir" "$sock" "$ring" $((${#blocks[@]} * block * 4 + 300)) \
		-- "$VRB_ROOT/bench/vhost_src/guest-rx-paired.sh" "${gargs[@]}" "$block" "$settle" \
		/run/vrb/out/phase "${blocks[@]}" >"$dir/guest.log" 2>&1 || rc=$?
	# a failed guest never ends the flood (vhost_src would wait for it)
	[ "$rc" -eq 0 ] || kill "$src_pid" 2>/dev/null || true
	wait "$src_pid" || true
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$dir/guest.log" >&2
		die "repeat $r, $kernel kernel, ring $ring, $rate pps: the guest failed (status $rc); see $dir"
	fi
	grep -q 'the guest said end' "$dir/source.log" ||
		die "repeat $r, $kernel kernel: vhost_src did not see the guest's end ($dir/source.log)"
	[ "$(grep -c '^block=' "$dir/guest.log")" -eq "${#blocks[@]}" ] ||
		die "repeat $r, $kernel kernel: $(grep -c '^block=' "$dir/guest.log") of ${#blocks[@]} blocks reported; see $dir"
	! grep '^block=' "$dir/guest.log" | grep -qv ' rx=[0-9]' ||
		die "repeat $r, $kernel kernel: a block without the guest's counters; see $dir/guest.log"
	if [ -n "$probe" ]; then
		sed -n 's/^probe\[rx\] //p' "$dir/guest.log" >"$dir/probe-$probe.txt"
		probe_summary "$probe" "$dir/probe-$probe.txt" | sed "s/^/repeat=$r kernel=$kernel /" >>"$out/probe-$probe.txt"
	fi
	tail -n +2 "$dir/intervals.csv" | sed "s/^/$r,$kernel,$rate,/; s/\$/,$ring/" >>"$out/intervals.csv"
	# a block's rows: those stamped N:ARM, which rx_window wrote after the
	# settle and replaced with "switch" at the block's end (a phase change
	# closes a row); block_s: their seconds, each row from the one before
	awk -v r="$r" -v k="$kernel" -v rate="$rate" -v ring="$ring" -v load1="$load1" '
		FNR == 1 { f++ }
		f == 1 && FNR > 1 {
			n = split($0, c, ",")
			ph = c[n]; dt = c[1] - t; t = c[1]
			if (ph !~ /^[0-9]+:/) next
			split(ph, p, ":"); b = p[1]
			iv[b]++; o[b] += c[2]; d[b] += c[3]; x[b] += c[4]; secs[b] += dt
			next
		}
		f == 2 && /^block=/ {
			delete v
			for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = substr($i, length(kv[1]) + 2) }
			b = v["block"]
			printf "%s,%s,%s,%s,%s,%s,%s,%s,%d,%d,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.3f\n", r, k, v["round"], b, v["arm"],
				v["knobs"], rate, ring, iv[b], o[b], d[b], x[b], o[b] ? sprintf("%.4f", 100 * x[b] / o[b]) : "",
				("packets" in v) ? v["packets"] : v["rx"], v["refills"], v["refill_bufs"], v["starved_polls"], v["starvations"],
				v["refill_oom"], v["seconds"], load1, secs[b]
		}' FS=, "$dir/intervals.csv" FS=' ' "$dir/guest.log" >>"$out/blocks.csv"
}

# paired_verdicts: verdicts.csv from blocks.csv, per ring and rate (the
# metric named with its cell): a unit a boot, the other kernel's boots
# paired by repeat (b_cell_verdicts, which the report uses too).
paired_verdicts() {
	b_run_verdicts "$out/blocks.csv" "$ref" "$aa" >>"$out/verdicts.csv"
}

# paired_tables: tables.txt: per setting, the blocks' sums; then the verdicts.
paired_tables() {
	{
		echo "Workload B, paired design: $(sed -n 's/^# command: //p' "$out/blocks.csv")"
		echo "accelerator: $(sed -n 's/^# accel: //p' "$out/blocks.csv"); $rounds rounds x ${block} s blocks per boot, first ${settle} s of a block not counted"
		echo
		echo "Per setting, all counted blocks (frames; refills and starved polls per 1000 frames the guest received):"
		grep -v '^#' "$out/blocks.csv" | awk -F, 'NR > 1 {
				k = $5 "," $8 "," $7; if (!(k in n)) K[++nk] = k
				n[k]++; o[k] += $10; x[k] += $12; g[k] += $14; rf[k] += $15; sp[k] += $17
				if (length($5) > w) w = length($5) }
			END {
				# the setting column as wide as the longest name
				if (w < 12) w = 12
				printf "%-" w "s %6s %9s %7s %11s %10s %7s %12s %12s\n", "setting", "ring", "rate", "blocks", "offered", "dropped", "drop%", "refills/1k", "starved/1k"
				for (i = 1; i <= nk; i++) { k = K[i]; split(k, f, ",")
					printf "%-" w "s %6s %9s %7d %11d %10d %7.2f %12.2f %12.3f\n", f[1], f[2], f[3], n[k], o[k], x[k],
						o[k] ? 100 * x[k] / o[k] : 0, g[k] ? 1000 * rf[k] / g[k] : 0, g[k] ? 1000 * sp[k] / g[k] : 0 }
			}'
		echo
		echo "Against $ref, paired by boot (95 % Fieller intervals; ${aa:-no A/A arm}: the A/A arm, the noise floor):"
		stats_table "$out/verdicts.csv"
	} >"$out/tables.txt"
}

# order_note: says, when it is so, that the run's pairs of rounds per
# kernel are not a multiple of its settings per round: then round_order's
# rows do not all come round and the carry-over between blocks is only
# nearly balanced (the full profile: 5 pairs, 7 settings).
order_note() {
	local pairs=$((repeats * rounds / 2))
	if [ "$per_round" -le 2 ] || [ $((pairs % per_round)) -eq 0 ]; then
		return 0
	fi
	log "B: order: $pairs pairs of rounds per kernel for $per_round settings: each setting follows every other one equally often only over a multiple of $per_round pairs; here nearly (bench/vhost_src/paired.sh, round_order)"
}

# paired_main: every repeat boots each kernel the settings need (the order
# alternates), per ring and rate.
paired_main() {
	local r k ring rate kernels sets n=0 total per_round t0
	results_csv_open "$out/blocks.csv" "$BLOCK_COLS" "${meta[@]}"
	results_csv_open "$out/intervals.csv" "repeat,kernel,rate_pps,t_s,offered,delivered,dropped,avail_min,avail_mean,phase,rx_queue_size" "${meta[@]}"
	# shellcheck disable=SC2086 # a word list
	kernels=$(for s in $settings; do setting_kernel "$s"; done | sort -u | tr '\n' ' ')
	total=$((repeats * $(wc -w <<<"$kernels") * $(wc -w <<<"$rings") * $(wc -w <<<"$rates")))
	t0=$(now)
	# shellcheck disable=SC2086 # a word list
	per_round=$(for s in $settings; do setting_kernel "$s"; done | sort | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
	order_note
	for r in $(seq "$repeats"); do
		# shellcheck disable=SC2086 # a word list
		for k in $(rotate "$r" $kernels); do
			# shellcheck disable=SC2086 # a word list
			sets=$(for s in $settings; do [ "$(setting_kernel "$s")" != "$k" ] || echo "$s"; done)
			# every boot runs as many blocks per round: a kernel with fewer
			# settings (stock) repeats them, so that both kernels' boots have
			# the same schedule
			# shellcheck disable=SC2086 # a word list
			sets=$(pad_to "$per_round" $sets)
			for ring in $rings; do for rate in $rates; do
				n=$((n + 1))
				log "B: boot $n/$total: repeat $r, $k kernel, ring $ring, $rate pps: $rounds rounds of ${sets//$'\n'/ }$(progress_eta $((n - 1)) "$total" "$t0")"
				# shellcheck disable=SC2086 # a word list
				paired_boot "$r" "$k" "$ring" "$rate" $sets
			done; done
		done
	done
	results_csv_open "$out/verdicts.csv" "$STATS_COLS" "${meta[@]}" "unit=a boot (its blocks of a setting averaged; per ring and rate)"
	paired_verdicts
	paired_tables
	log "B: $n boots"
}

# reanalyse DIR: the verdicts of a paired run, recomputed from its blocks.csv.
reanalyse() {
	[ -f "$1/blocks.csv" ] || die "--verdicts-of: no $1/blocks.csv (a paired run's result dir)"
	ref=$(sed -n 's/^# reference: //p' "$1/blocks.csv")
	aa=$(sed -n 's/^# aa_arm: //p' "$1/blocks.csv")
	[ -n "$ref" ] || die "--verdicts-of: $1/blocks.csv names no reference"
	[ "$aa" != none ] || aa=''
	local how='' own=0
	grep -q '^# reference_pool: ' "$1/blocks.csv" && own=1
	[ "${pool_ref:-}" != 1 ] || [ -n "$aa" ] || die "--verdicts-of --pool-ref: $1 has no A/A arm to pool with $ref"
	# --pool-ref, --no-pool-ref: otherwise the run's own analysis
	# shellcheck disable=SC2034 # read by b_pooled (lib/cell-verdicts.sh)
	b_pool_override=${pool_ref:-}
	if b_pooled "$1/blocks.csv" "$aa"; then how=", $ref pooled with $aa"; else how=", $ref alone"; fi
	[ -z "$pool_ref" ] || [ "$pool_ref" = "$own" ] || how+=" (after the fact: not the run's own analysis)"
	stats_build
	out=$(mktemp -d)
	cp "$1/blocks.csv" "$out/"
	echo "$STATS_COLS" >"$out/verdicts.csv"
	paired_verdicts
	echo "Verdicts of $1, recomputed with $(git -C "$VRB_ROOT" rev-parse --short HEAD 2>/dev/null || echo this tree)$how:"
	stats_table "$out/verdicts.csv"
	rm -rf "$out"
}
