#!/usr/bin/env bash
# Boot a kernel in QEMU, run one command inside, print its output, exit with
# its status, power off; or, with --shell, give the terminal a root shell in
# it. See lib/guest.sh for the machine and usage() below.
set -euo pipefail
VRB_PROG="guest-run.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"
# shellcheck source=lib/guest.sh
. "$VRB_ROOT/lib/guest.sh"

usage() {
	cat <<EOF
Usage: scripts/guest-run.sh [options] -- COMMAND [ARG...]
       scripts/guest-run.sh [options] --shell

Boots a guest kernel under QEMU with the host root shared read-only (9p),
tmpfs where the guest writes, and runs COMMAND (with bash, in the current
directory) as root. The command's output is printed as it comes; the exit
status is the command's, or 124 when it timed out, 125 when the guest did not
boot or stopped before the command finished, 123 when the command succeeded
but the kernel printed a splat (KASAN, lockdep, WARN, BUG, RCU stall, hung
task, oops: saved in the run dir's "splats").

  --kernel K         stock, patched, or the path of a bzImage (default: patched)
  --initrd FILE      an initramfs for it (a kernel whose virtio and 9p drivers
                     are modules: scripts/debian-kernel.sh makes one); its init
                     mounts the root the command line names and starts init=
  --vcpus N          virtual CPUs (default: $VRB_GUEST_VCPUS)
  --mem MIB          guest memory in MiB (default: $VRB_GUEST_MEM)
  --accel A          auto, kvm or tcg (default: $VRB_ACCEL). auto uses KVM when
                     it really boots a kernel, else multi-threaded TCG
  --boot-timeout S   seconds until init runs before the guest is killed ($VRB_GUEST_BOOT_TIMEOUT)
  --boot-quiet S     a boot whose console printed nothing for S seconds before
                     init ran is hung: killed and booted again, up to
                     --boot-retries times ($VRB_GUEST_BOOT_QUIET; the hung
                     consoles are kept in console-hung.log). The debug kernel
                     (PROVE_RCU) hangs under TCG in its boot-time RCU-tasks
                     self test, before SMP bring-up, vCPUs halted with no
                     timer armed: about 1 boot in 3 on 2026-11-30
  --boot-retries N   (default: $VRB_GUEST_BOOT_RETRIES); --boot-timeout applies to
                     each boot, boot_seconds in the run's timing counts them all
  --timeout S        seconds the command may run ($VRB_GUEST_CMD_TIMEOUT)
  --run-dir DIR      keep the run's files here (console.log, output, rc, timing);
                     default: a temporary dir, removed after a clean run
  --host-cpus LIST   pin QEMU (all its threads) to these host CPUs (taskset -c)
  --vcpu-cpus LIST   then pin its vCPU threads to these (once they exist): the
                     vCPUs get a host CPU of their own, QEMU's main loop (which
                     delivers interrupts) and I/O threads stay on --host-cpus
  --clock C          realtime (default), or icount: TCG counts instructions,
                     the guest runs in virtual time (1 ns per instruction;
                     1 vCPU only: SMP hangs at bring-up under icount in QEMU 7.2)
  --qemu-arg ARG     one more QEMU argument (repeatable)
  --nic              a virtio-net NIC on QEMU's user network (eth0 in the
                     guest): the series' counters (ethtool -S) and per-queue
                     knobs (/sys/class/net/eth0/queues/rx-0/virtio_net/) to
                     look at; nothing floods it
  --append ARGS      more kernel command line
  --init PATH        PID 1 (default: guest-config/init)
  --shell            instead of a command, a root shell on the guest's serial
                     console, which is this terminal (the kernel's messages
                     appear there too). The run dir (kept with --run-dir)
                     gets console.log, the session, and kernel.log, the
                     kernel's log (dmesg) when the shell ended. Ctrl-A X ends QEMU, Ctrl-A C
                     is its monitor, Ctrl-C goes to the guest; "exit" powers
                     the guest off. The exit status is the shell's; 123 when
                     the kernel logged a splat (kernel.log), 125 when the
                     guest stopped before the shell ended. No --boot-timeout,
                     --timeout, --boot-retries, --vcpu-cpus or --clock icount
                     (virtual time races at an idle prompt): the person at
                     the terminal is the watchdog
  -h, --help         this text

In the guest: VRB_ROOT is this repository, VRB_OUT the writable share (the run dir).
EOF
}

kernel=patched vcpus=$VRB_GUEST_VCPUS mem=$VRB_GUEST_MEM accel_mode=$VRB_ACCEL
boot_timeout=$VRB_GUEST_BOOT_TIMEOUT cmd_timeout=$VRB_GUEST_CMD_TIMEOUT boot_quiet=$VRB_GUEST_BOOT_QUIET
boot_retries=$VRB_GUEST_BOOT_RETRIES
run='' keep_run='' append='' initrd='' init=$VRB_ROOT/guest-config/init host_cpus='' vcpu_cpus='' clock=realtime
shell='' nic=''
qemu_extra=()
qpid='' tpid='' guest_failed='' quiet_size=-1 quiet_since='' tboot='' tty_saved='' console_log=''

# shellcheck disable=SC2317 # called from the EXIT trap
cleanup() {
	local rc=$?
	[ -z "$qpid" ] || kill "$qpid" 2>/dev/null || true
	[ -z "$tty_saved" ] || stty "$tty_saved" 2>/dev/null || true
	[ -z "$tpid" ] || kill "$tpid" 2>/dev/null || true
	if [ -n "$run" ] && [ -z "$keep_run" ]; then
		if [ -z "$guest_failed" ] && [ -f "$run/rc" ]; then
			rm -rf "$run"
		else
			log "run files kept in $run"
		fi
	fi
	vrb_exit_report "$rc"
}

need_value() {
	[ "$1" -ge 2 ] || die "$2 needs a value"
}

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--kernel) need_value $# "$1"; kernel=$2; shift 2 ;;
		--initrd) need_value $# "$1"; initrd=$2; shift 2 ;;
		--vcpus) need_value $# "$1"; vcpus=$2; shift 2 ;;
		--mem) need_value $# "$1"; mem=$2; shift 2 ;;
		--accel) need_value $# "$1"; accel_mode=$2; shift 2 ;;
		--boot-timeout) need_value $# "$1"; boot_timeout=$2; shift 2 ;;
		--boot-quiet) need_value $# "$1"; boot_quiet=$2; shift 2 ;;
		--boot-retries) need_value $# "$1"; boot_retries=$2; shift 2 ;;
		--timeout) need_value $# "$1"; cmd_timeout=$2; shift 2 ;;
		--run-dir) need_value $# "$1"; run=$2; keep_run=1; shift 2 ;;
		--qemu-arg) need_value $# "$1"; qemu_extra+=("$2"); shift 2 ;;
		--host-cpus) need_value $# "$1"; host_cpus=$2; shift 2 ;;
		--vcpu-cpus) need_value $# "$1"; vcpu_cpus=$2; shift 2 ;;
		--clock) need_value $# "$1"; clock=$2; shift 2 ;;
		--append) need_value $# "$1"; append=$2; shift 2 ;;
		--init) need_value $# "$1"; init=$2; shift 2 ;;
		--shell) shell=1; shift ;;
		--nic) nic=1; shift ;;
		-h | --help) usage; exit 0 ;;
		--) shift; break ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	if [ -n "$shell" ]; then
		[ $# -eq 0 ] || die "--shell runs a shell: no command (got '$*')"
		[ -z "$vcpu_cpus" ] || die "--vcpu-cpus is not for --shell (use --host-cpus)"
		[ "$clock" != icount ] || die "--clock icount is not for --shell: at an idle prompt virtual time jumps ahead"
		if [ ! -t 0 ] || [ ! -t 1 ]; then die "--shell needs a terminal on standard input and output"; fi
	else
		[ $# -gt 0 ] || die "no command given (usage: guest-run.sh [options] -- COMMAND, or --shell)"
	fi
	command_words=("$@")
	case $accel_mode in auto | kvm | tcg) ;; *) die "unknown accelerator '$accel_mode' (auto, kvm or tcg)" ;; esac
	check_range --vcpus "$vcpus" 1 8
	case $clock in
	realtime) ;;
	icount)
		[ "$vcpus" -eq 1 ] || die "--clock icount needs --vcpus 1 (QEMU 7.2 hangs at SMP bring-up under icount)"
		[ "$accel_mode" != kvm ] || die "--clock icount is a TCG mode: not with --accel kvm"
		accel_mode=tcg
		;;
	*) die "unknown clock '$clock' (realtime or icount)" ;;
	esac
	check_cpu_list --host-cpus "$host_cpus"
	check_cpu_list --vcpu-cpus "$vcpu_cpus"
	check_range --mem "$mem" 256 1048576
	check_range --boot-timeout "$boot_timeout" 1 86400
	check_range --boot-quiet "$boot_quiet" 1 86400
	check_range --boot-retries "$boot_retries" 0 100
	check_range --timeout "$cmd_timeout" 1 604800
	case $kernel in
	stock | patched) image=$(kernel_image "$kernel") ;;
	*) image=$kernel ;;
	esac
	case $VRB_ROOT in *[[:space:]]*) die "the repository path '$VRB_ROOT' has blanks: the guest's kernel command line cannot carry it" ;; esac
	[ -f "$image" ] || die "kernel image '$image' not found (build it with scripts/build-kernels.sh)"
	[ -z "$initrd" ] || [ -f "$initrd" ] || die "initramfs '$initrd' not found"
	! guest_hidden "$PWD" ||
		die "the guest cannot see the current directory $PWD (it has a tmpfs on $VRB_GUEST_TMPFS): run from another directory"
	if [ ! -f "$init" ] || [ ! -x "$init" ]; then die "init '$init' is not an executable file"; fi
	# The guest sees the host root at /: the init must be named by its absolute path.
	init=$(cd "$(dirname "$init")" && pwd)/$(basename "$init")
}

# check_cpu_list OPTION LIST: dies unless LIST ("" passes) is a CPU list
# this process may run on.
check_cpu_list() {
	[ -n "$2" ] || return 0
	[[ "$2" =~ ^[0-9]+([,-][0-9]+)*$ ]] || die "$1: '$2' is not a CPU list (e.g. 1 or 0-1)"
	taskset -c "$2" true 2>/dev/null || die "$1: cannot run on host CPUs '$2' (this host has $(nproc))"
}

# pin_vcpus: pins QEMU's vCPU threads ("CPU N/TCG", "CPU N/KVM", or
# single-threaded TCG's "ALL CPUs/TCG") to
# vcpu_cpus; true once all VCPUS threads are pinned.
pin_vcpus() {
	local t n=0
	for t in /proc/"$qpid"/task/*; do
		case $(cat "$t/comm" 2>/dev/null) in
		"CPU "*/TCG | "CPU "*/KVM)
			taskset -p -c "$vcpu_cpus" "${t##*/}" >/dev/null 2>&1 && n=$((n + 1))
			;;
		"ALL CPUs/TCG") # single-threaded TCG (icount): one thread runs every vCPU
			taskset -p -c "$vcpu_cpus" "${t##*/}" >/dev/null 2>&1 && n=$vcpus
			;;
		esac
	done
	[ "$n" -ge "$vcpus" ]
}

# write_cmd: the script the guest's init runs (its output goes to the run
# dir's "output"). For --shell: an interactive bash that owns the serial
# console as its controlling terminal, sized as this terminal is.
write_cmd() {
	local rows cols
	{
		# --shell: errors to the terminal, not to the run's output
		[ -z "$shell" ] || echo 'exec 2>/dev/ttyS0'
		printf 'cd %q || exit 125\n' "$PWD"
		printf 'export VRB_ROOT=%q VRB_OUT=/run/vrb/out\n' "$VRB_ROOT"
		if [ -n "$shell" ]; then
			read -r rows cols < <(stty size 2>/dev/null || echo "24 80")
			printf 'export TERM=%q PS1=%q\n' "${TERM:-vt100}" 'vrb-guest:\w# '
			# a terminal type the guest has no terminfo for: a plain one
			# shellcheck disable=SC2016 # expanded in the guest
			echo 'tput -T "$TERM" cols >/dev/null 2>&1 || export TERM=vt100'
			printf 'stty rows %d cols %d sane </dev/ttyS0\n' "$rows" "$cols"
			# then the kernel's own log, where splats are looked for: the
			# session (console.log) has what the user typed and printed too
			# shellcheck disable=SC2016 # expanded in the guest
			printf '%s\n' 'setsid --ctty --wait bash --norc -i </dev/ttyS0 >/dev/ttyS0 2>&1' \
				'rc=$?' 'dmesg >"$VRB_OUT/kernel.log" 2>&1' 'exit "$rc"'
		else
			printf '%q ' "${command_words[@]}"
			echo
		fi
	} >"$run/cmd"
}

# run_shell: --shell. QEMU in the foreground on this terminal until the
# shell exits (the guest powers off) or Ctrl-A X; then the shell's status,
# and the splat check over the console QEMU logged.
run_shell() {
	local t0 qrc=0
	local kept=', removed after a clean exit'
	[ -z "$keep_run" ] || kept=''
	log "booting $kernel for a shell: accel=$accel ($reason), clock=$clock, vcpus=$vcpus, mem=${mem}M; run dir $run$kept; Ctrl-A X ends QEMU"
	t0=$(now)
	tty_saved=$(stty -g 2>/dev/null || true)
	"${pin[@]}" "$VRB_QEMU" "${args[@]}" "${qemu_extra[@]}" 2>"$run/qemu.log" || qrc=$?
	[ -z "$tty_saved" ] || stty "$tty_saved" 2>/dev/null || true
	tty_saved=''
	if [ ! -f "$run/rc" ]; then
		guest_failed=1
		if [ ! -f "$run/started" ]; then
			show_failure "guest did not reach init: QEMU exited with status $qrc"
		else
			guest_splats "$console_log" >"$run/splats" || rm -f "$run/splats"
			log "guest stopped before the shell ended (QEMU exit $qrc: Ctrl-A X?); run files in $run"
		fi
		exit 125
	fi
	rc=$(cat "$run/rc")
	log "shell exited with status $rc; guest powered off after $(since "$t0")s"
	# the kernel's log, not the session (what was typed or printed there)
	[ ! -f "$run/kernel.log" ] || console_log=$run/kernel.log
	check_splats
	exit "$rc"
}

# show_failure WHAT: a clear message with the end of QEMU's and the console's output.
show_failure() {
	guest_failed=1
	log "$1"
	guest_splats "$console_log" >"$run/splats" || rm -f "$run/splats"
	if [ -s "$run/qemu.log" ]; then
		echo "--- qemu:" >&2
		tail -n 10 "$run/qemu.log" >&2
	fi
	if [ -s "$run/console.log" ]; then
		echo "--- last console lines ($run/console.log):" >&2
		tail -n 15 "$run/console.log" >&2
	fi
}

# check_splats: a kernel splat in the console (KASAN, lockdep, WARN, BUG,
# RCU stall, hung task, oops) fails the run (status 123 unless the command
# failed already; with --shell always, since an interactive shell's status
# says little): its lines go to the run's "splats" file, the run dir is kept.
check_splats() {
	local lines
	lines=$(guest_splats "$console_log") || return 0
	printf '%s\n' "$lines" >"$run/splats"
	guest_failed=1
	log "kernel splat in the guest's console ($console_log):"
	head -n 20 <<<"$lines" | sed 's/^/  /' >&2
	if [ "$rc" -eq 0 ] || [ -n "$shell" ]; then rc=123; fi
}

# start_qemu: starts the guest (QEMU in the background: qpid).
start_qemu() {
	"${pin[@]}" "$VRB_QEMU" "${args[@]}" "${qemu_extra[@]}" >"$run/qemu.log" 2>&1 </dev/null &
	qpid=$!
	tboot=$(now) quiet_size=-1 quiet_since=$tboot
}

# boot_hung: true when the console has not grown for boot_quiet seconds.
boot_hung() {
	local size
	size=$(stat -c %s "$run/console.log" 2>/dev/null || echo 0)
	if [ "$size" != "$quiet_size" ]; then
		quiet_size=$size quiet_since=$(now)
		return 1
	fi
	older "$quiet_since" "$boot_quiet"
}

# kill_guest STATUS WHAT: stop QEMU, report WHAT, exit with STATUS.
kill_guest() {
	kill "$qpid" 2>/dev/null || true
	wait "$qpid" 2>/dev/null || true
	qpid=''
	show_failure "$2"
	exit "$1"
}

main() {
	local t0 tstart='' boot_s='' accel reason verdict qrc=0 rc
	parse_args "$@"
	need_cmd "$VRB_QEMU" qemu-system-x86
	if [ -n "$run" ]; then
		mkdir -p "$run"
		run=$(cd "$run" && pwd)
		rm -f "$run"/{cmd,output,rc,rc.tmp,started,finished,console.log,kernel.log,console-hung.log,qemu.log,qemu.pid,timing,splats}
	else
		run=$(mktemp -d "${TMPDIR:-/tmp}/vrb-guest.XXXXXX")
	fi
	trap cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	verdict=$(guest_accel "$accel_mode" "$image" "$initrd")
	accel=${verdict%% *}
	reason=${verdict#* }
	write_cmd
	local -a args
	console_log=$run/console.log
	mapfile -t args < <(guest_qemu_args "$accel" "$image" "$run" "$vcpus" "$mem" \
		"$(guest_kernel_cmdline "$init" "$append")" "$clock" "${shell:+stdio}")
	[ -z "$initrd" ] || args+=(-initrd "$initrd")
	[ -z "$nic" ] || mapfile -t -O "${#args[@]}" args < <(guest_nic_args)
	local pin=()
	[ -z "$host_cpus" ] || pin=(taskset -c "$host_cpus")
	[ -z "$shell" ] || run_shell
	log "booting $kernel: accel=$accel ($reason), clock=$clock, vcpus=$vcpus, mem=${mem}M${host_cpus:+, host CPUs $host_cpus}${vcpu_cpus:+, vCPUs on $vcpu_cpus}"
	t0=$(now)
	start_qemu
	local vcpus_pinned='' hangs=0
	[ -n "$vcpu_cpus" ] || vcpus_pinned=none
	while kill -0 "$qpid" 2>/dev/null; do
		if [ -z "$vcpus_pinned" ] && pin_vcpus; then
			vcpus_pinned=$vcpu_cpus
			log "vCPU threads pinned to host CPUs $vcpu_cpus"
		fi
		if [ -z "$tstart" ]; then
			if [ -f "$run/started" ]; then
				[ -n "$vcpus_pinned" ] || kill_guest 125 "could not pin the vCPU threads to host CPUs $vcpu_cpus"
				tstart=$(now)
				boot_s=$(since "$t0")
				log "guest up: command running ${boot_s}s after QEMU start"
				tail -n +1 -F --pid="$qpid" "$run/output" 2>/dev/null &
				tpid=$!
			elif boot_hung; then
				[ "$hangs" -lt "$boot_retries" ] ||
					kill_guest 125 "guest hung in boot $((hangs + 1)) times (console quiet for ${boot_quiet}s each): killed"
				hangs=$((hangs + 1))
				kill "$qpid" 2>/dev/null || true
				wait "$qpid" 2>/dev/null || true
				{
					echo "--- hung boot $hangs: no console output for ${boot_quiet}s"
					cat "$run/console.log"
				} >>"$run/console-hung.log"
				warn "guest hung in boot: no console output for ${boot_quiet}s, last line '$(tail -n 1 "$run/console.log")'; booting again ($hangs of $boot_retries; console kept: $run/console-hung.log)"
				rm -f "$run/console.log"
				[ -n "$vcpu_cpus" ] || vcpus_pinned=none
				[ -z "$vcpu_cpus" ] || vcpus_pinned=''
				start_qemu
			elif older "$tboot" "$boot_timeout"; then
				kill_guest 125 "guest did not boot to the command within ${boot_timeout}s: killed"
			fi
		elif [ -f "$run/rc" ]; then
			break
		elif older "$tstart" "$cmd_timeout"; then
			kill_guest 124 "command did not finish within ${cmd_timeout}s: guest killed"
		fi
		sleep 0.2
	done
	# The command is done (or QEMU ended): give the guest time to power off.
	local i
	for i in $(seq 50); do
		kill -0 "$qpid" 2>/dev/null || break
		sleep 0.2
	done
	[ "$i" -lt 50 ] || { warn "guest did not power off: killing QEMU"; kill "$qpid" 2>/dev/null || true; }
	wait "$qpid" || qrc=$?
	qpid=
	if [ -n "$tpid" ]; then
		wait "$tpid" 2>/dev/null || true
		tpid=
	fi
	{
		echo "kernel=$kernel"
		echo "image=$image"
		echo "accel=$accel"
		echo "accel_reason=$reason"
		echo "clock=$clock"
		echo "host_cpus=${host_cpus:-any}"
		echo "vcpu_cpus=${vcpu_cpus:-as host_cpus}"
		echo "vcpus=$vcpus"
		echo "mem_mib=$mem"
		echo "boot_seconds=$boot_s"
		echo "boot_hangs=$hangs"
		echo "guest_uptime_at_start=$(cat "$run/started" 2>/dev/null || true)"
		echo "total_seconds=$(since "$t0")"
	} >"$run/timing"
	if [ -z "$tstart" ]; then
		show_failure "guest did not reach init: QEMU exited with status $qrc"
		exit 125
	fi
	if [ ! -f "$run/rc" ]; then
		show_failure "guest stopped before the command finished (QEMU exit $qrc)"
		exit 125
	fi
	rc=$(cat "$run/rc")
	log "command exited with status $rc; guest powered off after $(since "$t0")s"
	check_splats
	exit "$rc"
}

main "$@"
