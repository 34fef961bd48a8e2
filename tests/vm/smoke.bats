#!/usr/bin/env bats
# VM smoke test: build (or reuse) both kernels, boot each, and check from
# inside the guest that it is the kernel built and has what the benchmarks
# need. Also the boot script's failure paths, with real QEMU.

load vm_helpers

# A virtio-net device on a QEMU hub with no other port: present, no traffic.
NIC=(--qemu-arg -netdev --qemu-arg "hubport,id=n0,hubid=0"
	--qemu-arg -device --qemu-arg "virtio-net-pci,netdev=n0,romfile=")

setup_file() {
	build_kernels
}

setup() {
	real_workspace
}

boot_check() {
	local v=$1 info
	info=$(kernel_build_info "$v")
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$v" --run-dir "$BATS_TEST_TMPDIR/run" "${NIC[@]}" \
		-- "$VRB_ROOT/tests/guest/check-kernel.sh" "$(kv_get "$info" release)" "$(kv_get "$info" uts_version)"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"0 failed"* ]]
	[[ "$output" == *"accel="* ]]
	[ -n "$(kv_get "$BATS_TEST_TMPDIR/run/timing" boot_seconds)" ]
	if [ "$(kernel_flavour)" = debug ]; then
		# the debug flavour's checkers are on (make check-debug)
		grep -q 'KernelAddressSanitizer initialized' "$BATS_TEST_TMPDIR/run/console.log"
		grep -q 'Lock dependency validator' "$BATS_TEST_TMPDIR/run/console.log"
	fi
}

@test "the stock kernel boots, is the one built, and has virtio-net, tun, vhost-net, pktgen" {
	boot_check stock
	[[ "$(uname -r)" != *-stock* ]]
	[[ "$output" == *"-stock"* ]]
}

@test "the patched kernel boots, is the one built, and has virtio-net, tun, vhost-net, pktgen" {
	boot_check patched
	[[ "$output" == *"-patched"* ]]
}

@test "run-bench.sh boot: both kernels booted, a CSV with metadata and one row per boot" {
	run "$VRB_ROOT/run-bench.sh" --results "$BATS_TEST_TMPDIR/results" --repeats 2 --vcpus 1 boot
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"accelerator: "* ]]
	csv=$(echo "$BATS_TEST_TMPDIR"/results/*-boot-*/boot.csv)
	[ -f "$csv" ]
	grep -q "^# accel: " "$csv"
	grep -q "^# command: .*run-bench.sh --results" "$csv"
	[ "$(grep -c '^[12],stock,.*-stock-g' "$csv")" -eq 2 ]
	[ "$(grep -c '^[12],patched,.*-patched-g' "$csv")" -eq 2 ]
	# interleaved: stock, patched, stock, patched
	[ "$(grep -v '^#' "$csv" | tail -n +2 | cut -d, -f2 | tr '\n' ' ')" = "stock patched stock patched " ]
}

@test "a second build reuses both kernels" {
	run "$VRB_ROOT/scripts/build-kernels.sh"
	[ "$status" -eq 0 ]
	[[ "$output" == *"stock kernel up to date"* ]]
	[[ "$output" == *"patched kernel up to date"* ]]
}

@test "the command's output, working directory and exit status come back from the guest" {
	cd "$VRB_ROOT/tests"
	# shellcheck disable=SC2016 # expanded in the guest
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel stock --vcpus 1 --run-dir "$BATS_TEST_TMPDIR/run" -- \
		bash -c 'echo "in $PWD as $(id -u)"; echo data >"$VRB_OUT/file"; touch /tmp/w /var/log/w; exit 7'
	echo "$output"
	[ "$status" -eq 7 ]
	[[ "$output" == *"in $VRB_ROOT/tests as 0"* ]]
	[ "$(cat "$BATS_TEST_TMPDIR/run/file")" = data ]
	[ ! -e /tmp/w ] && [ ! -e /var/log/w ]
}

@test "a current directory the guest cannot see is refused before booting" {
	cd "$BATS_TEST_TMPDIR"
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel stock -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"the guest cannot see the current directory $BATS_TEST_TMPDIR"* ]]
}

@test "a copy of the repository under /tmp (the guest's tmpfs) is still seen by the guest" {
	# A copy of the working tree as it is (without the kernel workspace).
	mkdir "$BATS_TEST_TMPDIR/clone"
	touch "$BATS_TEST_TMPDIR/host-only"
	tar -C "$VRB_ROOT" --exclude=./.cache --exclude=./.git --exclude=./results -cf - . |
		tar -C "$BATS_TEST_TMPDIR/clone" -xf -
	cd "$BATS_TEST_TMPDIR/clone"
	run scripts/guest-run.sh --kernel "$(kernel_image stock)" --vcpus 1 -- \
		bash -c "cat README.md >/dev/null && test ! -e $BATS_TEST_TMPDIR/host-only && echo repo-seen-tmp-private"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"repo-seen-tmp-private"* ]]
}

@test "a guest that never runs the command is killed at the boot timeout" {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel stock --vcpus 1 \
		--init "$VRB_ROOT/tests/fixtures/hang-init" --boot-timeout 20 -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"guest did not boot to the command within 20s: killed"* ]]
	[[ "$output" == *"last console lines"* ]]
}

@test "a command that runs too long is killed at the command timeout" {
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel stock --vcpus 1 --timeout 3 -- sleep 600
	[ "$status" -eq 124 ]
	[[ "$output" == *"command did not finish within 3s"* ]]
}

@test "a file that is not a kernel: QEMU's error and a clear message" {
	printf 'not a kernel' >"$BATS_TEST_TMPDIR/junk"
	run "$VRB_ROOT/scripts/guest-run.sh" --kernel "$BATS_TEST_TMPDIR/junk" -- true
	[ "$status" -eq 125 ]
	[[ "$output" == *"guest did not reach init: QEMU exited"* ]]
}

# The interactive guest, driven as a person would: a terminal (a tmux pane
# on a server of its own), keys typed, the screen read.
# shell_start SESSION ARGS...: guest-run.sh --shell ARGS in a new pane,
# which prints the script's status when it ends.
shell_start() {
	local s=$1
	shift
	TMUX_SOCK=vrb-shell-$$
	tmux -L "$TMUX_SOCK" -f /dev/null new-session -d -s "$s" -x 132 -y 40 \
		"cd $VRB_ROOT && scripts/guest-run.sh --shell $* --run-dir $BATS_TEST_TMPDIR/run; echo shell-status=\$?; sleep 600"
}

# shell_screen SESSION: the pane's text, its scrollback too.
shell_screen() {
	tmux -L "$TMUX_SOCK" capture-pane -p -J -t "$1" -S -1000
}

# shell_wait SESSION TEXT: true once the pane shows TEXT (a guard of 300 s
# against a hung guest, not a timing check).
shell_wait() {
	for _ in $(seq 1500); do
		shell_screen "$1" | grep -qF -- "$2" && return 0
		sleep 0.2
	done
	echo "# no '$2' on the screen; it shows:" >&3
	shell_screen "$1" | tail -n 20 | sed 's/^/# /' >&3
	return 1
}

shell_keys() {
	tmux -L "$TMUX_SOCK" send-keys -t "$1" "${@:2}"
}

teardown() {
	[ -z "${TMUX_SOCK:-}" ] || tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
}

# shell_skip_debug: the debug kernel hangs in about 1 boot in 4 before init
# (docs/testing.md), and --shell has no reboot on a hung boot: a person
# watches. Not tested there.
shell_skip_debug() {
	[ "$(kernel_flavour)" != debug ] || skip "--shell does not reboot a hung boot; the debug kernel hangs in 1 boot in 4"
}

# shellcheck disable=SC2016 # the guest's shell expands what is typed
@test "guest-run.sh --shell --nic: a root shell on the terminal in the patched kernel, its NIC's knob at hand; Ctrl-C stops a command, not the guest; exit powers off with the shell's status" {
	shell_skip_debug
	shell_start g --kernel patched --vcpus 1 --nic
	shell_wait g 'vrb-guest:'
	shell_keys g 'echo "rel=$(uname -r)"; echo "tty=$(tty)"; test -r "$VRB_ROOT/README.md" && echo repo-$((1 + 1))' Enter
	shell_wait g 'repo-2'
	shell_screen g | grep -q '^rel=.*-patched'
	shell_screen g | grep -qx 'tty=/dev/ttyS0'
	shell_keys g 'echo "knob-$((2 + 2))=$(cat /sys/class/net/eth0/queues/rx-0/virtio_net/min_numfree)"' Enter
	shell_wait g 'knob-4='
	shell_screen g | grep -qx 'knob-4=auto'
	# a foreground job that owns the terminal, then Ctrl-C: SIGINT to it (130)
	shell_keys g "sh -c 'echo fg-\$((3 + 4)); exec sleep 600'" Enter
	shell_wait g 'fg-7'
	shell_keys g C-c
	shell_keys g 'echo after-$?' Enter
	shell_wait g 'after-130'
	run shell_screen g
	[[ "$output" != *"no job control"* ]]
	shell_keys g 'echo typed-$((8 * 8)) >&2; exit 3' Enter
	shell_wait g 'shell-status=3'
	shell_screen g | grep -q 'shell exited with status 3; guest powered off'
	# the session is logged; the kernel's own log has its messages, not the session
	grep -q 'typed-64' "$BATS_TEST_TMPDIR/run/console.log"
	grep -q 'Linux version' "$BATS_TEST_TMPDIR/run/kernel.log"
	run grep -c 'typed-64' "$BATS_TEST_TMPDIR/run/kernel.log"
	[ "$output" = 0 ]
}

@test "guest-run.sh --shell: Ctrl-A X ends QEMU; the script says the guest stopped before the shell ended (125)" {
	shell_skip_debug
	shell_start g --kernel stock --vcpus 1
	shell_wait g 'vrb-guest:'
	shell_keys g C-a x
	shell_wait g 'shell-status=125'
	shell_screen g | grep -q 'guest stopped before the shell ended'
}

# shellcheck disable=SC2016 # the guest's shell expands what is typed
@test "guest-run.sh --shell: what a user prints is not a kernel splat; a kernel warning is, whatever the shell's status (123)" {
	shell_skip_debug
	shell_start g --kernel stock --vcpus 1
	shell_wait g 'vrb-guest:'
	shell_keys g 'echo "WARNING: not from the kernel"; echo BUG: neither' Enter
	shell_keys g 'echo done-$((5 + 5))' Enter
	shell_wait g 'done-10'
	shell_keys g 'echo "<4>WARNING: CPU: 0 PID: 1 at fake/test.c:1 from the kernel" >/dev/kmsg; exit 2' Enter
	shell_wait g 'shell-status=123'
	grep -q 'fake/test.c' "$BATS_TEST_TMPDIR/run/splats"
	run grep -c 'not from the kernel' "$BATS_TEST_TMPDIR/run/splats"
	[ "$output" = 0 ]
}
