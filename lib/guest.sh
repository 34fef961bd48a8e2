# shellcheck shell=bash
# Booting a guest: the accelerator choice and the QEMU command line, in one
# place. A guest boots a kernel with the host root shared read-only over 9p,
# guest-config/init as PID 1, and a writable share (the run dir) through
# which the command goes in and its output, exit status and timings come out.

# qemu_profile_args FILE: the arguments in a guest-config/*.args file, one
# per line (words separated by blanks; "#" starts a comment).
qemu_profile_args() {
	sed -e 's/#.*//' "$VRB_ROOT/guest-config/$1" | tr -s '[:blank:]' '\n' | sed '/^$/d'
}

# accel_kvm_obstacle: why KVM cannot be used here ("" when it looks usable).
accel_kvm_obstacle() {
	local dev=${VRB_KVM_DEV:-/dev/kvm} sysmod=${VRB_SYSMODULE:-/sys/module}
	if [ ! -e "$dev" ]; then
		echo "no $dev"
	elif [ ! -r "$dev" ] || [ ! -w "$dev" ]; then
		echo "no read/write access to $dev"
	elif [ -d "$sysmod/kvm_pvm" ]; then
		echo "$dev is a paravirtual KVM (kvm_pvm) that cannot boot a stock kernel"
	fi
}

# accel_choose MODE: prints "ACCEL REASON..." for MODE auto|kvm|tcg, without
# the probe boot (see guest_accel).
accel_choose() {
	local obstacle
	obstacle=$(accel_kvm_obstacle)
	case $1 in
	tcg) echo "tcg forced by --accel tcg" ;;
	kvm)
		[ -z "$obstacle" ] || die "--accel kvm: $obstacle"
		echo "kvm forced by --accel kvm"
		;;
	auto)
		if [ -n "$obstacle" ]; then
			echo "tcg $obstacle"
		else
			echo "kvm-probe /dev/kvm present"
		fi
		;;
	*) die "unknown accelerator '$1' (auto, kvm or tcg)" ;;
	esac
}

# guest_accel MODE IMAGE [INITRD]: like accel_choose, but in auto mode a
# KVM that looks usable is tried once per host boot with a short boot of
# IMAGE (with INITRD, when the kernel needs one to boot); the verdict is
# cached. A probe stopped by a signal (the user's Ctrl-C) decides nothing:
# nothing is cached and the caller stops.
guest_accel() {
	local choice cache boot_id rc=0 kvm_probe_args
	choice=$(accel_choose "$1")
	case $choice in
	kvm-probe*)
		boot_id=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null || echo unknown)
		cache=$VRB_CACHE/accel-probe.$boot_id
		if [ ! -f "$cache" ]; then
			mkdir -p "$VRB_CACHE"
			log "trying KVM with a short boot (falls back to TCG if it does not boot)"
			kvm_probe_args=(--kernel "$2" --accel kvm)
			[ -z "${3:-}" ] || kvm_probe_args+=(--initrd "$3")
			VRB_ACCEL=kvm VRB_GUEST_BOOT_TIMEOUT=60 VRB_GUEST_CMD_TIMEOUT=30 \
				"$VRB_ROOT/scripts/guest-run.sh" "${kvm_probe_args[@]}" -- true >/dev/null 2>&1 || rc=$?
			case $rc in
			0) echo "kvm /dev/kvm boots a kernel" >"$cache.tmp" ;;
			130 | 143) die "the KVM probe boot was interrupted: no accelerator chosen, nothing cached" ;;
			*) echo "tcg KVM probe boot failed (a paravirtual or broken KVM)" >"$cache.tmp" ;;
			esac
			mv "$cache.tmp" "$cache"
		fi
		cat "$cache"
		;;
	*) echo "$choice" ;;
	esac
}

# guest_qemu_args ACCEL IMAGE RUNDIR VCPUS MEM APPEND [CLOCK [CONSOLE]]: the
# QEMU command line, one argument per line. CLOCK icount (TCG only) takes the
# qemu-tcg-icount.args profile: one thread, instructions counted. CONSOLE
# file (default): the serial console goes to RUNDIR/console.log; stdio: it
# is the terminal (an interactive guest: Ctrl-A X quits, Ctrl-A C is QEMU's
# monitor, Ctrl-C goes to the guest), the session logged to
# RUNDIR/console.log.
guest_qemu_args() {
	local accel=$1 image=$2 run=$3 vcpus=$4 mem=$5 append=$6 clock=${7:-realtime} console=${8:-file}
	qemu_profile_args qemu-common.args
	if [ "$clock" = icount ]; then
		qemu_profile_args qemu-tcg-icount.args
	else
		qemu_profile_args "qemu-$accel.args"
	fi
	# Guest RAM in a shared memfd: a vhost-user backend (workload B) maps it.
	printf '%s\n' \
		-smp "$vcpus" -m "$mem" \
		-object "memory-backend-memfd,id=vrbmem,size=${mem}M,share=on" \
		-numa "node,memdev=vrbmem" \
		-kernel "$image" \
		-append "$append" \
		-fsdev "local,id=vrbroot,path=/,security_model=none,readonly=on,multidevs=remap" \
		-device "virtio-9p-pci,fsdev=vrbroot,mount_tag=vrbroot" \
		-fsdev "local,id=vrbrepo,path=$VRB_ROOT,security_model=none,readonly=on,multidevs=remap" \
		-device "virtio-9p-pci,fsdev=vrbrepo,mount_tag=vrbrepo" \
		-fsdev "local,id=vrbout,path=$run,security_model=none" \
		-device "virtio-9p-pci,fsdev=vrbout,mount_tag=vrbout" \
		-pidfile "$run/qemu.pid"
	case $console in
	file) printf '%s\n' -chardev "file,id=con,path=$run/console.log" -serial chardev:con ;;
	stdio)
		printf '%s\n' -chardev "stdio,id=con,mux=on,signal=off,logfile=$run/console.log" \
			-serial chardev:con -mon chardev=con,mode=readline
		;;
	*) die "guest_qemu_args: unknown console '$console' (file or stdio)" ;;
	esac
}

# guest_nic_args: a virtio-net NIC (eth0 in the guest) on QEMU's user
# network, one argument per line: the driver's counters, per-queue knobs and
# probes to look at in a shell. No host backend floods it (workload B does).
guest_nic_args() {
	printf '%s\n' -netdev user,id=vrbnic -device virtio-net-pci,netdev=vrbnic,romfile=
}

# guest_kernel_cmdline INIT EXTRA: the kernel command line.
guest_kernel_cmdline() {
	printf '%s' "console=ttyS0 root=vrbroot rootfstype=9p" \
		" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose ro" \
		" init=$1 panic=-1 vrb.tmpfs=$(echo "$VRB_GUEST_TMPFS" | tr ' ' ,)" \
		" vrb.repo=$VRB_ROOT ${2:-}"
}

# guest_hidden PATH: true when PATH is under a dir the guest covers with
# tmpfs (this repository stays visible: init mounts it again on top).
guest_hidden() {
	local d
	case $1/ in "$VRB_ROOT"/*) return 1 ;; esac
	for d in $VRB_GUEST_TMPFS; do
		case $1/ in "$d"/*) return 0 ;; esac
	done
	return 1
}

# What a kernel prints when something went wrong: KASAN and other BUG:
# reports, WARN()s and lockdep's "WARNING: possible ... locking", RCU
# stalls, hung tasks, oopses, panics, UBSAN; and the core's complaints of a
# virtual device without a queue that returned busy, and of a netdev whose
# references never drop. One extended regex.
GUEST_SPLAT_RE='(BUG: |WARNING: |INFO: rcu_|rcu: INFO: |INFO: task .* blocked for more than|Kernel panic|Oops: |general protection fault|UBSAN: |kernel BUG at|unregister_netdevice: waiting for |asks to queue packet!)'

# guest_splats CONSOLE: prints the splat lines of a guest's console log;
# true when there is one. Not one: the panic when our init exits, which it
# does only after the command's status is written, when the power-off it
# asked for did not come within 10 s (guest-config/init).
guest_splats() {
	[ -f "$1" ] || return 1
	grep -aE "$GUEST_SPLAT_RE" "$1" | grep -avF 'Kernel panic - not syncing: Attempted to kill init!'
}

