# shellcheck shell=bash disable=SC2154,SC2034 # run-b.sh's globals; TRIAL_COLS used by boots.sh and ndr.sh
# Workload B's trial (sourced by run-b.sh, whose globals it uses): one
# guest boot, one flood at one rate, one setting; the source's totals and
# the guest's counters as a trials.csv row. The capacity measurement, the
# boots design (boots.sh) and the zero-loss search (ndr.sh) are made of
# trials.

# trial ID SETTING RING RATE [DOWN_FRAMES]: one guest boot with the flood;
# prints the trial's key=value lines (source totals and guest counters).
trial() {
	local id=$1 setting=$2 ring=$3 rate=$4 down=${5:-} dir sock src_pid rc=0 gargs=() load1
	load1=$(host_load1)
	dir=$tdir/$id
	mkdir -p "$dir"
	sock=$dir/vu.sock
	"$VRB_CACHE/vhost_src/vhost_src" --socket "$sock" --rate "$rate" --duration "$duration" \
		--interval "$interval" --out "$dir/intervals.csv" --wait 300 --lcore "$cpu_other" \
		>"$dir/source.log" 2>&1 &
	src_pid=$!
	for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
	[ -S "$sock" ] || { cat "$dir/source.log" >&2; die "vhost_src did not create $sock"; }
	gargs=(--load "$guest_load")
	[ -z "$down" ] || gargs+=(--down "$down" "$duration")
	[ -z "$probe" ] || gargs+=(--probe "$(b_probe_file "$(setting_kernel "$setting")")")
	b_guest "$(setting_kernel "$setting")" "$dir" "$sock" "$ring" $((duration + 300)) \
		-- "$VRB_ROOT/bench/vhost_src/guest-rx.sh" "${gargs[@]}" "$(setting_knobs "$setting")" $((duration + 120)) \
		>"$dir/guest.log" 2>&1 || rc=$?
	# a failed guest never ends the flood (vhost_src would wait for it)
	[ "$rc" -eq 0 ] || kill "$src_pid" 2>/dev/null || true
	wait "$src_pid" || true
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$dir/guest.log" >&2
		die "trial $id ($setting, ring $ring, $rate pps): the guest failed (status $rc); see $dir"
	fi
	if [ -n "$probe" ]; then
		sed -n 's/^probe\[rx\] //p' "$dir/guest.log" >"$dir/probe-$probe.txt"
		probe_summary "$probe" "$dir/probe-$probe.txt" | sed "s/^/trial=$id /" >>"$out/probe-$probe.txt"
	fi
	echo "host_load1=$load1"
	sed -n 's/^vhost_src: totals: offered=\([0-9]*\) delivered=\([0-9]*\) dropped=\([0-9]*\) seconds=\([0-9.]*\).*/offered=\1\ndelivered=\2\ndropped=\3\nseconds=\4/p' "$dir/source.log"
	grep -E '^(guest_|knob_)[a-z0-9_]*=' "$dir/guest.log" || true
}

# The columns of trials.csv and ndr_trials.csv (new ones go at the end).
TRIAL_COLS="repeat,setting,kernel,knobs,rate_pps,offered,delivered,dropped,drop_pct,delivered_pps,guest_rx_packets,refills,refill_bufs,starved_polls,rx_queue_size,guest_load,starvations,refill_oom,host_load1"

# trial_row REPEAT SETTING RING RATE KV: a trials.csv row from trial's output.
trial_row() {
	local kv=$5 o d x s
	o=$(kv_line "$kv" offered)
	d=$(kv_line "$kv" delivered)
	x=$(kv_line "$kv" dropped)
	s=$(kv_line "$kv" seconds)
	if [ -z "$o" ] || [ -z "$d" ]; then die "trial ($2, ring $3, $4 pps): no totals from vhost_src"; fi
	printf '%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n' "$1" "$2" "$(setting_kernel "$2")" \
		"$(setting_knobs "$2" | tr ' ' ';')" "$4" "$o" "$d" "$x" \
		"$(awk -v o="$o" -v x="$x" 'BEGIN { printf "%.4f", o ? 100 * x / o : 0 }')" \
		"$(awk -v d="$d" -v s="$s" 'BEGIN { printf "%.0f", s ? d / s : 0 }')" \
		"$(kv_line "$kv" guest_rx_packets)" "$(kv_line "$kv" guest_rxq0_refills)" \
		"$(kv_line "$kv" guest_rxq0_refill_bufs)" "$(kv_line "$kv" guest_rxq0_starved_polls)" \
		"$3" "$guest_load" "$(kv_line "$kv" guest_rxq0_starvations)" "$(kv_line "$kv" guest_rxq0_refill_oom)" \
		"$(kv_line "$kv" host_load1)"
}

kv_line() {
	sed -n "s/^$2=//p" <<<"$1" | head -n 1
}

# run_trial ID REPEAT SETTING RING RATE CSV [DOWN_FRAMES]: a trial, its row
# appended to CSV; prints the row.
run_trial() {
	local kv row
	kv=$(trial "$1" "$3" "$4" "$5" "${7:-}")
	row=$(trial_row "$2" "$3" "$4" "$5" "$kv")
	echo "$row" >>"$6"
	echo "$row"
}
