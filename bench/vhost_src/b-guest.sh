# shellcheck shell=bash disable=SC2154 # run-b.sh's globals
# Workload B's guest (sourced by run-b.sh, whose globals it uses): the
# kernel a setting boots (the harness's stock or patched build, or
# --kernel-dir's), the probe it loads, and the QEMU command line with the
# virtio-net device served over vhost-user by vhost_src.

# kernel_dir_resolve: the image, initramfs and build dir of --kernel-dir.
kernel_dir_resolve() {
	[ -d "$kdir" ] || die "--kernel-dir: no directory $kdir"
	kdir=$(readlink -f "$kdir")
	if [ -f "$kdir/vmlinuz" ]; then
		kdir_image=$kdir/vmlinuz
	elif [ -f "$kdir/arch/x86/boot/bzImage" ]; then
		kdir_image=$kdir/arch/x86/boot/bzImage
	else
		die "--kernel-dir $kdir: no vmlinuz (scripts/debian-kernel.sh's output) and no arch/x86/boot/bzImage (a build dir)"
	fi
	[ ! -f "$kdir/initrd.img" ] || kdir_initrd=$kdir/initrd.img
	kdir_build=$kdir
	[ ! -d "$kdir/build" ] || kdir_build=$(readlink -f "$kdir/build")
}

# kernel_dir_release: --kernel-dir's kernel release (uname -r).
kernel_dir_release() {
	local f
	for f in "$kdir/release" "$kdir_build/include/config/kernel.release"; do
		[ ! -s "$f" ] || { head -n 1 "$f"; return 0; }
	done
	echo unknown
}

# guest_kernel_opts KERNEL: guest-run.sh's options booting KERNEL (stock or
# patched), or --kernel-dir's kernel, one per line.
guest_kernel_opts() {
	if [ -n "$kdir" ]; then
		printf '%s\n' --kernel "$kdir_image"
		[ -z "$kdir_initrd" ] || printf '%s\n' --initrd "$kdir_initrd"
	else
		printf '%s\n' --kernel "$1"
	fi
}

# b_probe_file KERNEL: what the guest loads for --probe.
b_probe_file() {
	if [ -n "$kdir_probe" ]; then echo "$kdir_probe"; else probe_file "$probe" "$1"; fi
}

# build_probe_kdir: --probe for --kernel-dir's kernel.
build_probe_kdir() {
	if [ "$probe" = "${probe%.bt}" ]; then
		kdir_probe=$("$VRB_ROOT/stap/build.sh" --kernel-dir "$kdir_build" "$probe")
	else
		bt_probe_check "$probe" "$kdir_build" "the kernel in $kdir"
		kdir_probe=$(bt_script "$probe" "$kdir_build/System.map")
	fi
}

# b_guest KERNEL DIR SOCKET RING TIMEOUT -- COMMAND...: a guest on KERNEL
# whose virtio-net device (rx_queue_size RING) is served over vhost-user
# at SOCKET, running COMMAND; its files in DIR/guest. QEMU, all of it, on
# one host CPU, vhost_src on the other: with QEMU's main loop (which
# delivers the device's interrupts) beside vhost_src instead, auto dropped
# 16.8 % of 100 kpps instead of about 8 % (/tmp runs of this session, 8 and
# 6 rounds).
b_guest() {
	local kernel=$1 dir=$2 sock=$3 ring=$4 timeout=$5 kopts
	shift 6
	mapfile -t kopts < <(guest_kernel_opts "$kernel")
	# vectors=0: QEMU 7.2 under TCG crashes starting vhost-user with MSI-X
	# (msix_set_vector_notifiers); INTx works.
	"$VRB_ROOT/scripts/guest-run.sh" "${kopts[@]}" --run-dir "$dir/guest" \
		--vcpus "$vcpus" --host-cpus "$cpu_vcpu" --timeout "$timeout" \
		--qemu-arg -chardev --qemu-arg "socket,id=vu0,path=$sock" \
		--qemu-arg -netdev --qemu-arg "vhost-user,id=n0,chardev=vu0" \
		--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n0,rx_queue_size=$ring,vectors=0,romfile=" \
		-- "$@"
}
