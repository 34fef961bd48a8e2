#!/usr/bin/env bats
# The accelerator choice and the QEMU command line, without booting.

load helpers

setup() {
	load_libs
	export VRB_SYSMODULE=$BATS_TEST_TMPDIR/sysmodule
	mkdir -p "$VRB_SYSMODULE"
	export VRB_KVM_DEV=$BATS_TEST_TMPDIR/kvm
}

# fake_boot HANGS: guest-run.sh on a stand-in QEMU whose first HANGS boots
# hang (tests/fixtures/fake-qemu), console quiet after 1 s meaning hung.
fake_boot() {
	touch "$BATS_TEST_TMPDIR/bzImage"
	FAKE_QEMU_HANGS=$1 FAKE_QEMU_STATE=$BATS_TEST_TMPDIR/boots VRB_QEMU=$BATS_TEST_DIRNAME/../fixtures/fake-qemu \
		run "$BATS_TEST_DIRNAME/../../scripts/guest-run.sh" --kernel "$BATS_TEST_TMPDIR/bzImage" --accel tcg \
		--boot-quiet 1 --boot-timeout 30 --run-dir "$BATS_TEST_TMPDIR/run" -- true
	echo "$output"
}

@test "no /dev/kvm: auto picks TCG and says why" {
	run accel_choose auto
	[ "$status" -eq 0 ]
	[ "$output" = "tcg no $VRB_KVM_DEV" ]
}

@test "a paravirtual KVM (kvm_pvm) is not used: auto picks TCG and says why" {
	touch "$VRB_KVM_DEV"
	mkdir "$VRB_SYSMODULE/kvm_pvm"
	run accel_choose auto
	[[ "$output" == "tcg $VRB_KVM_DEV is a paravirtual KVM (kvm_pvm)"* ]]
	run accel_choose kvm
	[ "$status" -ne 0 ]
	[[ "$output" == *"--accel kvm: $VRB_KVM_DEV is a paravirtual KVM"* ]]
}

@test "a KVM that looks usable is probed with a real boot in auto mode" {
	touch "$VRB_KVM_DEV"
	run accel_choose auto
	[[ "$output" == kvm-probe* ]]
	run accel_choose kvm
	[[ "$output" == "kvm forced by --accel kvm" ]]
}

# probe_stub RC: VRB_ROOT's scripts/guest-run.sh is a stand-in that logs
# its arguments to $BATS_TEST_TMPDIR/probes and exits RC (the KVM probe).
probe_stub() {
	local root=$BATS_TEST_TMPDIR/root
	mkdir -p "$root/scripts"
	printf '#!/bin/sh\necho "$*" >>"%s/probes"\nexit %s\n' "$BATS_TEST_TMPDIR" "$1" >"$root/scripts/guest-run.sh"
	chmod +x "$root/scripts/guest-run.sh"
	VRB_ROOT=$root
	VRB_CACHE=$BATS_TEST_TMPDIR/cache
}

@test "the KVM probe: booted with the caller's initramfs, cached once; a Ctrl-C (130) or TERM (143) caches nothing" {
	local rc
	touch "$VRB_KVM_DEV"
	for rc in 130 143; do
		probe_stub "$rc"
		run guest_accel auto img
		echo "$output"
		[ "$status" -ne 0 ]
		[[ "$output" == *"KVM probe boot was interrupted"* ]]
		[ -z "$(ls "$VRB_CACHE")" ]
	done
	rm "$BATS_TEST_TMPDIR/probes"
	probe_stub 0
	run guest_accel auto img initrd.cpio
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "kvm /dev/kvm boots a kernel" ]
	grep -qx -- '--kernel img --accel kvm --initrd initrd.cpio -- true' "$BATS_TEST_TMPDIR/probes"
	probe_stub 1
	run guest_accel auto img
	[ "${lines[-1]}" = "kvm /dev/kvm boots a kernel" ]
	[ "$(wc -l <"$BATS_TEST_TMPDIR/probes")" -eq 1 ]
	rm -r "$VRB_CACHE"
	run guest_accel auto img
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "tcg KVM probe boot failed (a paravirtual or broken KVM)" ]
	grep -qx -- '--kernel img --accel kvm -- true' "$BATS_TEST_TMPDIR/probes"
	[ "$(ls "$VRB_CACHE")" = "accel-probe.$(cat /proc/sys/kernel/random/boot_id)" ]
}

@test "tcg can always be forced; an unknown accelerator is refused" {
	touch "$VRB_KVM_DEV"
	run accel_choose tcg
	[[ "$output" == "tcg forced by --accel tcg" ]]
	run accel_choose whpx
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown accelerator 'whpx'"* ]]
}

@test "the QEMU command line shares the host root read-only and the run dir writable" {
	mapfile -t args < <(guest_qemu_args tcg /k/bzImage /r/run 2 1024 "console=ttyS0")
	line=" ${args[*]} "
	[[ "$line" == *" -accel tcg,thread=multi"* ]]
	[[ "$line" == *" -cpu max "* ]]
	[[ "$line" == *" -smp 2 -m 1024 -object memory-backend-memfd,id=vrbmem,size=1024M,share=on -numa node,memdev=vrbmem -kernel /k/bzImage -append console=ttyS0 "* ]]
	[[ "$line" == *"path=/,security_model=none,readonly=on"* ]]
	[[ "$line" == *"id=vrbout,path=/r/run,security_model=none "* ]]
	[[ "$line" == *" -no-reboot "* ]]
	[[ "$line" == *"id=vrbrepo,path=$VRB_ROOT,security_model=none,readonly=on"* ]]
	[[ "$line" != *"id=vrbout"*"readonly=on"* ]]
	mapfile -t args < <(guest_qemu_args kvm /k/bzImage /r/run 1 512 x)
	[[ " ${args[*]} " == *" -accel kvm -cpu host "* ]]
}

@test "the console goes to console.log, or for a shell to the terminal, logged, with QEMU's escape, and Ctrl-C for the guest" {
	mapfile -t args < <(guest_qemu_args tcg /k/bzImage /r/run 1 512 x)
	line=" ${args[*]} "
	[[ "$line" == *" -chardev file,id=con,path=/r/run/console.log -serial chardev:con "* ]]
	[[ "$line" != *stdio* ]]
	mapfile -t args < <(guest_qemu_args tcg /k/bzImage /r/run 1 512 x realtime stdio)
	line=" ${args[*]} "
	[[ "$line" == *" -chardev stdio,id=con,mux=on,signal=off,logfile=/r/run/console.log -serial chardev:con -mon chardev=con,mode=readline "* ]]
	[[ "$line" != *"file,id=con"* ]]
	run guest_qemu_args tcg /k/bzImage /r/run 1 512 x realtime pty
	[ "$status" -ne 0 ]
	[[ "$output" == *"unknown console 'pty'"* ]]
}

@test "the kernel command line boots the 9p root read-only with our init" {
	run guest_kernel_cmdline /repo/guest-config/init "foo=1"
	[[ "$output" == *"root=vrbroot rootfstype=9p"* ]]
	[[ "$output" == *" ro "* ]]
	[[ "$output" == *"init=/repo/guest-config/init panic=-1 "* ]]
	[[ "$output" == *" vrb.tmpfs=/tmp,/run,/var/tmp,/var/log,/var/cache vrb.repo=$VRB_ROOT foo=1" ]]
}

@test "paths under the guest's tmpfs dirs are hidden from it, others are not" {
	# a repo outside them (this clone may itself be under /tmp)
	VRB_ROOT=/work/repo
	guest_hidden /tmp
	guest_hidden /tmp/x/y
	guest_hidden /var/log/z
	VRB_ROOT=/tmp/clone
	guest_hidden /tmp/other
	for p in /tmpx /work/repo /var/lib / /tmp/clone /tmp/clone/tests; do
		run guest_hidden "$p"
		[ "$status" -eq 1 ]
	done
}

@test "guest_splats: finds KASAN, lockdep, WARN, BUG, RCU stall, hung task, oops, panic, a queueing virtual device and a leaked netdev, and nothing in a clean boot" {
	local repo
	repo=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
	run guest_splats "$repo/tests/fixtures/console/splats.log"
	[ "$status" -eq 0 ]
	[ "$(wc -l <<<"$output")" -eq 11 ]
	[[ "$output" == *"BUG: KASAN: use-after-free in vhost_net_buf_unproduce"* ]]
	[[ "$output" == *"WARNING: possible circular locking dependency detected"* ]]
	[[ "$output" == *"INFO: task kworker/0:1:12 blocked for more than 60 seconds."* ]]
	# the core's complaints: a device without a queue that returned busy, a
	# netdev whose references never drop
	[[ "$output" == *"Virtual device fz0 asks to queue packet!"* ]]
	[[ "$output" == *"unregister_netdevice: waiting for fz1 to become free"* ]]
	[[ "$output" != *"KernelAddressSanitizer initialized"* ]]
	[[ "$output" != *"RCU lockdep checking is enabled"* ]]
	# our init's exit after the command (no power-off within 10 s): not a splat
	[[ "$output" != *"Attempted to kill init"* ]]
	# a real boot of the patched kernel, committed with a result: clean
	run guest_splats "$repo/results/20261129T200432Z-boot/runs/patched-1/console.log"
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	run guest_splats "$BATS_TEST_TMPDIR/none.log"
	[ "$status" -eq 1 ]
}

@test "--initrd hands the initramfs to QEMU; a missing one is refused before QEMU starts" {
	touch "$BATS_TEST_TMPDIR/bzImage" "$BATS_TEST_TMPDIR/initrd.img"
	FAKE_QEMU_ARGS=$BATS_TEST_TMPDIR/args FAKE_QEMU_STATE=$BATS_TEST_TMPDIR/boots VRB_QEMU=$BATS_TEST_DIRNAME/../fixtures/fake-qemu \
		run "$BATS_TEST_DIRNAME/../../scripts/guest-run.sh" --kernel "$BATS_TEST_TMPDIR/bzImage" \
		--initrd "$BATS_TEST_TMPDIR/initrd.img" --accel tcg --boot-quiet 1 --boot-timeout 30 \
		--run-dir "$BATS_TEST_TMPDIR/run" -- true
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -A1 -x -- -initrd "$BATS_TEST_TMPDIR/args" | tail -n 1)" = "$BATS_TEST_TMPDIR/initrd.img" ]
	[ "$(grep -A1 -x -- -kernel "$BATS_TEST_TMPDIR/args" | tail -n 1)" = "$BATS_TEST_TMPDIR/bzImage" ]
	rm "$BATS_TEST_TMPDIR/args"
	FAKE_QEMU_ARGS=$BATS_TEST_TMPDIR/args VRB_QEMU=$BATS_TEST_DIRNAME/../fixtures/fake-qemu \
		run "$BATS_TEST_DIRNAME/../../scripts/guest-run.sh" --kernel "$BATS_TEST_TMPDIR/bzImage" \
		--initrd "$BATS_TEST_TMPDIR/none.img" --accel tcg -- true
	[ "$status" -eq 1 ]
	[[ "$output" == *"initramfs '$BATS_TEST_TMPDIR/none.img' not found"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/args" ]
}

@test "a boot that hangs before init (console quiet) is booted again once; its console is kept" {
	fake_boot 1
	[ "$status" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/boots")" -eq 2 ]
	[[ "$output" == *"guest hung in boot: no console output for 1s, last line 'Running RCU-tasks wait API self tests'; booting again (1 of 1;"* ]]
	[[ "$output" == *"fake guest ran the command"* ]]
	grep -q 'RCU-tasks' "$BATS_TEST_TMPDIR/run/console-hung.log"
	grep -qx 'boot_hangs=1' "$BATS_TEST_TMPDIR/run/timing"
}

@test "a boot that hangs more often than --boot-retries fails with status 125; bad values are refused" {
	fake_boot 2
	[ "$status" -eq 125 ]
	[ "$(cat "$BATS_TEST_TMPDIR/boots")" -eq 2 ]
	[[ "$output" == *"guest hung in boot 2 times (console quiet for 1s each): killed"* ]]
	[ "$(grep -c '^--- hung boot' "$BATS_TEST_TMPDIR/run/console-hung.log")" -eq 1 ]
	rm "$BATS_TEST_TMPDIR/boots"
	VRB_GUEST_BOOT_RETRIES=3 fake_boot 3
	[ "$status" -eq 0 ]
	[ "$(cat "$BATS_TEST_TMPDIR/boots")" -eq 4 ]
	grep -qx 'boot_hangs=3' "$BATS_TEST_TMPDIR/run/timing"
	run "$BATS_TEST_DIRNAME/../../scripts/guest-run.sh" --boot-retries 101 -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"--boot-retries"* ]]
	# the hung stand-in was killed, not left behind
	run pgrep -f "fake-qemu.*$BATS_TEST_TMPDIR/run"
	[ "$status" -eq 1 ]
	run "$BATS_TEST_DIRNAME/../../scripts/guest-run.sh" --boot-quiet 0 -- true
	[ "$status" -ne 0 ]
	[[ "$output" == *"--boot-quiet"* ]]
}
