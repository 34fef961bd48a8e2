#!/usr/bin/env bats
# lib/workload.sh: settings to kernels, rotation, and probes by name (a
# systemtap probe or, as NAME.bt, its bpftrace twin).

load helpers

setup() {
	load_libs
	# shellcheck source=lib/stats.sh
	. "$VRB_ROOT/lib/stats.sh"
	# shellcheck source=lib/workload.sh
	. "$VRB_ROOT/lib/workload.sh"
}

@test "stock boots the stock kernel, every other setting the patched one" {
	[ "$(setting_kernel stock)" = stock ]
	[ "$(setting_kernel b8)" = patched ]
	[ "$(setting_kernel auto)" = patched ]
	# an A/A arm boots what its setting boots
	[ "$(setting_kernel stock_aa)" = stock ]
	[ "$(setting_kernel auto_aa)" = patched ]
}

@test "refill settings name their knobs; out-of-range and unknown ones are refused" {
	[ "$(refill_knobs stock)" = - ]
	[ "$(refill_knobs auto_aa)" = "min_numfree=auto refill_max=0" ]
	[ "$(refill_knobs adaptive)" = "min_numfree=adaptive refill_max=0" ]
	[ "$(refill_knobs adaptive-dry_aa)" = "min_numfree=adaptive-dry refill_max=0" ]
	[ "$(refill_knobs mn64)" = "min_numfree=64 refill_max=0" ]
	[ "$(refill_knobs cap8)" = "min_numfree=auto refill_max=8" ]
	for s in mn65 cap0 adaptivex adaptive-drx bogus; do
		run refill_knobs "$s"
		[ "$status" -ne 0 ]
	done
	[[ "$output" == *"unknown setting 'bogus' (stock, auto, legacy, adaptive, adaptive-dry, mnN, capN"* ]]
}

@test "with_aa adds REF_aa half way round REF's kernel's settings, once, unless told not to" {
	[ "$(with_aa auto 0 stock auto legacy mn16)" = "stock auto legacy auto_aa mn16" ]
	[ "$(with_aa auto 0 stock auto legacy)" = "stock auto legacy auto_aa" ]
	[ "$(with_aa mn16 0 auto legacy mn16 cap64)" = "auto mn16_aa legacy mn16 cap64" ]
	[ "$(with_aa auto 0 auto)" = "auto auto_aa" ]
	[ "$(with_aa stock 0 stock b1 b64)" = "stock stock_aa b1 b64" ]
	[ "$(with_aa auto 1 stock auto legacy)" = "stock auto legacy" ]
	[ "$(with_aa auto 0 auto_aa auto)" = "auto_aa auto" ]
	# in 4 arms, REF and REF_aa are never adjacent in any rotation
	for r in 1 2 3 4; do
		rotate "$r" auto legacy auto_aa mn16 | tr '\n' ' ' | grep -vqE 'auto auto_aa|auto_aa auto '
	done
}

@test "paired rounds: odd rounds are rows of a Williams design, even rounds reverse the round before (ABBA)" {
	# shellcheck source=bench/vhost_src/paired.sh
	. "$VRB_ROOT/bench/vhost_src/paired.sh"
	# shellcheck disable=SC2030,SC2031 # round_order reads the run's rounds
	rounds=4
	[ "$(round_order 1 1 a b c | tr '\n' ' ')" = "a b c " ]
	[ "$(round_order 1 2 a b c | tr '\n' ' ')" = "c b a " ]
	[ "$(round_order 1 3 a b c | tr '\n' ' ')" = "b c a " ]
	[ "$(round_order 1 4 a b c | tr '\n' ' ')" = "a c b " ]
	# the next repeat goes on with the next row (pair 3 of the run)
	[ "$(round_order 2 1 a b c | tr '\n' ' ')" = "c a b " ]
	# 0, 1, n-1, 2, n-2, ...: not a rotation of the list
	[ "$(round_order 1 1 a b c d e f g | tr '\n' ' ')" = "a b g c f d e " ]
	[ "$(round_order 1 3 a b c d e f g | tr '\n' ' ')" = "b c a d g e f " ]
	# every round holds each setting once
	[ "$(round_order 3 6 a b c d e f g | sort | tr '\n' ' ')" = "a b c d e f g " ]
	# a kernel with fewer settings repeats them: every boot has as many blocks
	[ "$(pad_to 4 stock | tr '\n' ' ')" = "stock stock stock stock " ]
	[ "$(pad_to 5 a b | tr '\n' ' ')" = "a b a b a " ]
}

@test "paired rounds: over n pairs every setting comes right after every other one exactly twice (carry-over balanced)" {
	# shellcheck source=bench/vhost_src/paired.sh
	. "$VRB_ROOT/bench/vhost_src/paired.sh"
	local n sets k counts
	# shellcheck disable=SC2030,SC2031,SC2086 # round_order reads the run's rounds; $sets is a word list
	for n in 3 4 6 7; do
		sets=$(printf '%s\n' a b c d e f g | head -n "$n" | tr '\n' ' ')
		rounds=$((2 * n))
		counts=$(for k in $(seq "$rounds"); do round_order 1 "$k" $sets | awk 'NR > 1 { print p ">" $0 } { p = $0 }'; done |
			sort | uniq -c | awk '{ print $1 }' | sort -u | tr '\n' ' ')
		echo "n=$n: adjacent ordered pairs counted $counts"
		[ "$counts" = "2 " ]
		[ "$(for k in $(seq "$rounds"); do round_order 1 "$k" $sets | awk 'NR > 1 { print p ">" $0 } { p = $0 }'; done | sort -u | wc -l)" -eq $((n * (n - 1))) ]
	done
}

@test "paired rounds: the log says when the pairs per kernel are not a multiple of the settings per round" {
	# shellcheck source=bench/vhost_src/paired.sh
	. "$VRB_ROOT/bench/vhost_src/paired.sh"
	# shellcheck disable=SC2030,SC2031 # order_note reads the run's globals
	repeats=3 rounds=4 per_round=7
	run order_note
	[ "$status" -eq 0 ]
	[[ "$output" == *"6 pairs of rounds per kernel for 7 settings"*"multiple of 7 pairs"* ]]
	# 7 pairs for 7, 4 for 4 (or 2 settings: any order is balanced): nothing said
	repeats=7 rounds=2 per_round=7
	[ -z "$(order_note 2>&1)" ]
	repeats=2 rounds=4 per_round=4
	[ -z "$(order_note 2>&1)" ]
	repeats=3 rounds=4 per_round=2
	[ -z "$(order_note 2>&1)" ]
}

@test "host hygiene: the busy host is refused unless allowed, and the pinning has two CPUs" {
	busy=$(host_busy_cpus)
	[[ "$busy" =~ ^[0-9]+\.[0-9][0-9]$ ]]
	VRB_BUSY_MAX=-1 run host_check_quiet
	[ "$status" -eq 1 ]
	[[ "$output" == *"the host is busy"*"--allow-busy-host"* ]]
	VRB_BUSY_MAX=-1 VRB_ALLOW_BUSY_HOST=1 run host_check_quiet
	[ "$status" -eq 0 ]
	[[ "${lines[-1]}" == *" busy-allowed" ]]
	VRB_BUSY_MAX=1000 run host_check_quiet
	[[ "$output" == *" quiet" ]]
	read -r q s < <(host_cpus)
	if [ "$(nproc)" -ge 2 ]; then [ "$q" != "$s" ]; else [ "$q" = 0 ] && [ "$s" = 0 ]; fi
	[[ "$(host_load1)" =~ ^[0-9]+\.[0-9]+$ ]]
}

@test "rotate starts at the Nth word, cyclically" {
	[ "$(rotate 1 a b c | tr '\n' ' ')" = "a b c " ]
	[ "$(rotate 2 a b c | tr '\n' ' ')" = "b c a " ]
	[ "$(rotate 4 a b c | tr '\n' ' ')" = "a b c " ]
}

@test "every probe has a systemtap script and a bpftrace twin, and check_probe takes both" {
	local p
	for p in $VRB_PROBES; do
		[ -f "$VRB_ROOT/stap/$p.stp" ]
		[ -f "$VRB_ROOT/stap/bpftrace/$p.bt" ]
		check_probe "$p"
		check_probe "$p.bt"
	done
	for p in nope nope.bt refill.stp .bt; do
		run check_probe "$p"
		[ "$status" -ne 0 ]
		[[ "$output" == *"unknown probe '$p'"* ]]
	done
}

@test "a probe is built only where each function it probes is one symbol of its own (no compiler clone)" {
	local m=$BATS_TEST_TMPDIR/System.map
	[ "$(probe_functions refill | tr '\n' ' ')" = "try_fill_recv " ]
	[ "$(probe_functions avail_exhaust.bt | tr '\n' ' ')" = "virtnet_poll " ]
	# as in our 6.1 kernels: plain symbols; a .cold part is not a way in
	printf '%s\n' 'ffffffff81320490 t try_fill_recv' 'ffffffff81000000 t try_fill_recv.cold' \
		'ffffffff81320500 t try_fill_recv_helper' >"$m"
	probe_symbols_check refill "$m"
	# a constprop clone alone, a part clone beside the function, nothing
	for body in 'try_fill_recv.constprop.0' $'try_fill_recv\nffffffff81320600 t try_fill_recv.part.0' \
		'try_fill_recv_helper'; do
		printf 'ffffffff81320490 t %s\n' "$body" >"$m"
		run probe_symbols_check refill "$m"
		echo "$output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"refill: the probe does not fit this kernel"* ]]
	done
	printf 'ffffffff81320490 t try_fill_recv.constprop.0\n' >"$m"
	run probe_symbols_check refill "$m"
	[[ "$output" == *"try_fill_recv has compiler clones in this kernel (try_fill_recv.constprop.0)"* ]]
	printf 'ffffffff81320490 t try_fill_recv_helper\n' >"$m"
	run probe_symbols_check refill "$m"
	[[ "$output" == *"try_fill_recv is not a function of this kernel"* ]]
	run probe_symbols_check refill "$BATS_TEST_TMPDIR/none"
	[ "$status" -ne 0 ] && [[ "$output" == *"no symbol table"* ]]
}

@test "a probe finds a function a kernel builds as a module in that module, clone checks included" {
	local m=$BATS_TEST_TMPDIR/System.map mods=$BATS_TEST_TMPDIR/modules
	command -v gcc >/dev/null && command -v xz >/dev/null || skip "needs gcc and xz"
	[ "$(probe_function_module refill try_fill_recv)" = virtio_net ]
	[ "$(probe_function_module avail_exhaust.bt virtnet_poll)" = virtio_net ]
	[ "$(probe_function_module vhost_batch vhost_net_buf_peek)" = vhost_net ]
	[ -z "$(probe_function_module tun_ring_full kfree_skb_reason)" ]
	# a distro kernel: the driver is not in System.map, but in its module
	printf 'ffffffff81000000 T kfree_skb_reason\n' >"$m"
	mkdir -p "$mods/kernel/drivers/net"
	printf 'void try_fill_recv(void) {}\nvoid try_fill_recv_helper(void) {}\n' >"$BATS_TEST_TMPDIR/vn.c"
	gcc -c -o "$mods/kernel/drivers/net/virtio_net.ko" "$BATS_TEST_TMPDIR/vn.c"
	probe_symbols_check refill "$m" "$mods"
	# as the scripts run it (errexit, pipefail): a probe with a function
	# of the kernel proper (no module alternative) passes too
	run bash -c 'set -euo pipefail; shopt -s inherit_errexit; . "$VRB_ROOT/lib/functions.sh"; . "$VRB_ROOT/lib/workload.sh"
		probe_symbols_check tun_ring_full "$1" "$2"; probe_symbols_check refill "$1" "$2"; echo checked' _ "$m" "$mods"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = checked ]
	# no modules dir given, or no such module under it: refused, saying where it looked
	run probe_symbols_check refill "$m"
	[ "$status" -ne 0 ]
	[[ "$output" == *"try_fill_recv is not a function of this kernel nor of a module virtio_net.ko under (no modules dir given)"* ]]
	run probe_symbols_check vhost_batch "$m" "$mods"
	[ "$status" -ne 0 ]
	[[ "$output" == *"vhost_net_buf_peek is not a function of this kernel nor of a module vhost_net.ko under $mods"* ]]
	# the module holds a clone only, compressed as some distributions ship them
	printf 'void f(void) __asm__("try_fill_recv.constprop.0");\nvoid f(void) {}\n' >"$BATS_TEST_TMPDIR/vn.c"
	gcc -c -o "$BATS_TEST_TMPDIR/vn.o" "$BATS_TEST_TMPDIR/vn.c"
	rm "$mods/kernel/drivers/net/virtio_net.ko"
	xz -c "$BATS_TEST_TMPDIR/vn.o" >"$mods/kernel/drivers/net/virtio_net.ko.xz"
	run probe_symbols_check refill "$m" "$mods"
	[ "$status" -ne 0 ]
	[[ "$output" == *"try_fill_recv has compiler clones in module virtio_net (try_fill_recv.constprop.0)"* ]]
	[[ "$output" == *"modules under $mods"* ]]
}

@test "a workload's default probe is the systemtap one on 6.1 and its bpftrace twin on 6.12" {
	[ "$(VRB_BASE=6.1 default_probe vhost_batch)" = vhost_batch ]
	[ "$(VRB_BASE=6.12 default_probe vhost_batch)" = vhost_batch.bt ]
	[ "$(unset VRB_BASE; default_probe vhost_batch)" = vhost_batch ]
}

@test "a probe's name, and the file the guest loads for a kernel" {
	[ "$(probe_name refill)" = refill ]
	[ "$(probe_name refill.bt)" = refill ]
	[ "$(probe_file refill stock)" = "$(kernel_workspace)/stap/stock/vrb_refill.ko" ]
	[ "$(probe_file refill.bt patched)" = "$VRB_ROOT/stap/bpftrace/refill.bt" ]
}

@test "tun_ring_full's twin probes sk_skb_reason_drop on kernels that have it (6.11 on), kfree_skb_reason before" {
	local m=$BATS_TEST_TMPDIR/System.map d=$VRB_ROOT/stap/bpftrace
	# 6.1: kfree_skb_reason is a function
	printf 'ffffffff81000000 T kfree_skb_reason\n' >"$m"
	[ "$(bt_script tun_ring_full.bt "$m")" = "$d/tun_ring_full.bt" ]
	[ "$(probe_functions tun_ring_full.bt "$m")" = kfree_skb_reason ]
	probe_symbols_check tun_ring_full.bt "$m"
	# 6.12: only sk_skb_reason_drop (kfree_skb_reason is inline)
	printf 'ffffffff813f99a0 T sk_skb_reason_drop\n' >"$m"
	[ "$(bt_script tun_ring_full.bt "$m")" = "$d/tun_ring_full-6.11.bt" ]
	[ "$(probe_functions tun_ring_full.bt "$m")" = sk_skb_reason_drop ]
	probe_symbols_check tun_ring_full.bt "$m"
	# the two scripts print the same records
	diff <(grep -o '"tun_ring_full: [a-z]*' "$d/tun_ring_full.bt") \
		<(grep -o '"tun_ring_full: [a-z]*' "$d/tun_ring_full-6.11.bt")
	# twins without a 6.11 variant, and a missing table: the plain script
	[ "$(bt_script refill.bt "$m")" = "$d/refill.bt" ]
	[ "$(bt_script tun_ring_full.bt "$BATS_TEST_TMPDIR/none")" = "$d/tun_ring_full.bt" ]
	# the systemtap probe does not change with the kernel: refused there
	run probe_symbols_check tun_ring_full "$m"
	[ "$status" -ne 0 ]
	[[ "$output" == *"kfree_skb_reason is not a function of this kernel"* ]]
}

@test "a probe's summary is its output from the first summary line on" {
	printf '%s\n' 'refill: start' 'refill: call x=1' 'refill: summary' '@calls[0, 2592]: 3' 'stap: WARNING' >"$BATS_TEST_TMPDIR/o"
	run probe_summary refill.bt "$BATS_TEST_TMPDIR/o"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
	[ "${lines[0]}" = 'refill: summary' ]
	[ "${lines[2]}" = 'stap: WARNING' ]
	printf 'refill: start\n' >"$BATS_TEST_TMPDIR/o"
	[ -z "$(probe_summary refill "$BATS_TEST_TMPDIR/o")" ]
}

@test "a bpftrace twin needs kernels built with BTF, and the functions it probes, uncloned" {
	mkdir -p "$(kernel_workspace)/stock/out" "$(kernel_workspace)/patched/out"
	echo 'CONFIG_DEBUG_INFO_BTF=y' >"$(kernel_workspace)/patched/out/.config"
	echo '# CONFIG_DEBUG_INFO_BTF is not set' >"$(kernel_workspace)/stock/out/.config"
	echo 'ffffffff81365290 T kfree_skb_reason' >"$(kernel_workspace)/patched/out/System.map"
	kernel_has_btf patched
	run kernel_has_btf stock
	[ "$status" -eq 1 ]
	run build_probe_for tun_ring_full.bt b8
	[ "$status" -eq 0 ]
	echo 'ffffffff81365290 t kfree_skb_reason.isra.0' >"$(kernel_workspace)/patched/out/System.map"
	run build_probe_for tun_ring_full.bt b8
	[ "$status" -ne 0 ]
	[[ "$output" == *"kfree_skb_reason has compiler clones in this kernel (kfree_skb_reason.isra.0)"* ]]
	echo 'ffffffff81365290 T kfree_skb_reason' >"$(kernel_workspace)/patched/out/System.map"
	run build_probe_for tun_ring_full.bt stock b8
	[ "$status" -ne 0 ]
	[[ "$output" == *"the stock kernel has no BTF"* ]]
}

@test "every metric definition has its five fields and a known direction" {
	# shellcheck source=lib/cell-verdicts.sh
	. "$VRB_ROOT/lib/cell-verdicts.sh"
	local m n=0
	for m in "$A_METRICS" "$B_METRICS" "$C_METRICS"; do
		# name|better|value|filter|label: a "||" inside an expression would
		# shift the fields (the readers split on |), so none may hold one
		awk -F'|' 'NF != 5 || $1 !~ /^[a-z_0-9\/]+$/ || ($2 != "" && $2 != "lower" && $2 != "higher") || $3 == "" || $4 == "" || $5 == "" {
			print "bad metric line: " $0; bad = 1 } END { exit bad }' <<<"$m"
		n=$((n + $(wc -l <<<"$m")))
	done
	[ "$n" -eq 9 ]
}
