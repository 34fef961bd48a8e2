#!/usr/bin/env bats
# The probes on an unmodified Debian kernel whose drivers are modules
# (VRB_DEBIAN_KERNEL, Debian 12's cloud kernel): scripts/debian-kernel.sh
# prepares it (its packages, downloaded once; 9p modules built for it; an
# initramfs), it boots in our guest, and under workload B (run-b.sh
# --kernel-dir) avail_exhaust and its bpftrace twin see the rx ring run dry
# in a flood and stay silent at 1000 pps. Not in make check (the -dbg
# package is 270 MB): make check-distro.

load vm_helpers

setup_file() {
	load_libs
	export VRB_CACHE=$VRB_ROOT/.cache VRB_PATCHES=$VRB_ROOT/patches/${VRB_BASE:-6.1}
	"$VRB_ROOT/scripts/debian-kernel.sh" "$VRB_DEBIAN_KERNEL" >"$BATS_FILE_TMPDIR/debian.log" 2>&1 || {
		tail -n 40 "$BATS_FILE_TMPDIR/debian.log" | sed "s/^/# /" >&3
		return 1
	}
}

setup() {
	real_workspace
	kdir=$VRB_CACHE/debian/$VRB_DEBIAN_KERNEL
}

# field LINE KEY: the value of KEY=value in a probe's output line.
field() {
	tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"
}

# flood_and_trickle PROBE: workload B on the Debian kernel with PROBE, ring
# 256, one 2 s trial at 1000 pps and one at 400000; results in
# $BATS_TEST_TMPDIR/b-PROBE.
flood_and_trickle() {
	run "$VRB_ROOT/bench/vhost_src/run-b.sh" --kernel-dir "$kdir" --design boots --settings stock --no-aa \
		--rates "1000 400000" --repeats 1 --duration 2 --rings 256 --ndr-steps 0 --probe "$1" \
		--out "$BATS_TEST_TMPDIR/b-$1"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q "^# kernel_dir: $kdir (release $VRB_DEBIAN_KERNEL, every setting)" "$BATS_TEST_TMPDIR/b-$1/trials.csv"
	# the kernel lines are the Debian kernel's, not the harness's builds'
	grep -qx "# kernel_version: $VRB_DEBIAN_KERNEL" "$BATS_TEST_TMPDIR/b-$1/trials.csv"
	grep -qx "# series_hash: unknown (a kernel the harness did not build)" "$BATS_TEST_TMPDIR/b-$1/trials.csv"
}

@test "the Debian kernel boots in our guest from its initramfs; virtio_net, virtio_ring and 9p are modules" {
	# shellcheck disable=SC2016 # expanded in the guest
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$kdir/vmlinuz" --initrd "$kdir/initrd.img" --vcpus 1 \
		-- sh -c 'uname -r; for m in virtio_net virtio_ring 9p; do echo "$m $(cat /sys/module/$m/initstate)"; done'
	echo "$output"
	[ "$status" -eq 0 ]
	# (run mixes in guest-run.sh's own lines)
	grep -qx "$VRB_DEBIAN_KERNEL" <<<"$output"
	[ "$(grep -c '^\(virtio_net\|virtio_ring\|9p\) live$' <<<"$output")" -eq 3 ]
}

@test "avail_exhaust (systemtap, module probes) on the Debian kernel: events in a flood, none at 1000 pps" {
	local out line
	flood_and_trickle avail_exhaust
	out=$BATS_TEST_TMPDIR/b-avail_exhaust/trials/r1-stock-256-400000/probe-avail_exhaust.txt
	head -n 5 "$out"
	line=$(grep '^avail_exhaust: summary rxq=0 ' "$out")
	echo "flood: $line"
	[ "$(field "$line" ring)" -eq 256 ]
	[ "$(field "$line" events)" -gt 0 ]
	line=$(grep -m 1 '^avail_exhaust: event ' "$out")
	[ "$(field "$line" avail_idx)" -eq "$(field "$line" used_idx)" ]
	out=$BATS_TEST_TMPDIR/b-avail_exhaust/trials/r1-stock-256-1000/probe-avail_exhaust.txt
	line=$(grep '^avail_exhaust: summary rxq=0 ' "$out")
	echo "1000 pps: $line"
	[ "$(field "$line" polls)" -gt 0 ]
	[ "$(field "$line" events)" -eq 0 ]
	[ "$(grep -c '^avail_exhaust: event ' "$out")" -eq 0 ]
}

@test "avail_exhaust.bt (BTF of the vmlinux and the modules) on the Debian kernel: events in a flood, none at 1000 pps" {
	local out
	flood_and_trickle avail_exhaust.bt
	out=$BATS_TEST_TMPDIR/b-avail_exhaust.bt/trials/r1-stock-256-400000/probe-avail_exhaust.bt.txt
	sed -n '/^avail_exhaust: summary/,$p' "$out"
	grep -q '^@ring\[0\]: 256$' "$out"
	[ "$(sed -n 's/^@events\[0\]: //p' "$out")" -gt 0 ]
	out=$BATS_TEST_TMPDIR/b-avail_exhaust.bt/trials/r1-stock-256-1000/probe-avail_exhaust.bt.txt
	sed -n '/^avail_exhaust: summary/,$p' "$out"
	[ "$(sed -n 's/^@polls\[0\]: //p' "$out")" -gt 0 ]
	[ "$(grep -c '^@events\[0\]: ' "$out")" -eq 0 ]
	[ "$(grep -c '^avail_exhaust: event ' "$out")" -eq 0 ]
}
