# shellcheck shell=bash disable=SC2034
# One place for the facts the harness is built around. Sourced by every script;
# each value can be overridden from the environment (VRB_*).

# The kernel base: Debian's linux-source-BASE package, and the series for it
# in patches/BASE/. 6.1 is the default; 6.12 (Debian 13's LTS, from
# bookworm's linux-source-6.12) is the second (--base 6.12 or VRB_BASE).
VRB_BASES="6.1 6.12"
VRB_BASE=${VRB_BASE:-6.1}
case $VRB_BASE in
6.1) VRB_KERNEL_TESTED_DEBVER=6.1.192-3 ;;
6.12) VRB_KERNEL_TESTED_DEBVER=6.12.118-1~deb12u1 ;;
*) VRB_KERNEL_TESTED_DEBVER='' ;; # refused by lib/functions.sh
esac
VRB_KERNEL_PKG=linux-source-$VRB_BASE
VRB_KERNEL_TARBALL=${VRB_KERNEL_TARBALL:-/usr/src/linux-source-$VRB_BASE.tar.xz}
VRB_ARCH=x86_64

# The two kernels built from one config: stock (no patches) and patched (the series).
VRB_VARIANTS="stock patched"

# The patch series for the base (patches/BASE/series names the files, in
# order; patches/BASE/bench/series the benchmark-only set on top).
VRB_PATCHES=${VRB_PATCHES:-$VRB_ROOT/patches/$VRB_BASE}

# Where the kernel workspace, builds and probe caches live (ignored by git).
VRB_CACHE=${VRB_CACHE:-$VRB_ROOT/.cache}

# Free space (MB) a kernel build needs in VRB_CACHE, checked before it
# starts: the unpacked workspace (the stock tree with its git history and
# the patched worktree: 2.9 GB measured, 6.1.192) if it is not there yet,
# and each output dir not built yet (964 MB measured for stock, base
# flavour), with room to spare for the debug flavour and ccache.
VRB_KERNEL_WS_MB=${VRB_KERNEL_WS_MB:-3500}
VRB_KERNEL_OUT_MB=${VRB_KERNEL_OUT_MB:-1500}

# Kernel config: tinyconfig + these fragments, in this order (relative to VRB_ROOT).
VRB_CONFIG_BASE="tinyconfig kvm_guest.config"
VRB_CONFIG_FRAGMENTS="guest-config/kernel.config"
# The debug flavour (KASAN, lockdep, ...) adds these; base is the default.
VRB_CONFIG_DEBUG_FRAGMENTS="guest-config/kernel-debug.config"
VRB_KERNEL_FLAVOUR=${VRB_KERNEL_FLAVOUR:-base}

# Guest defaults (scripts/guest-run.sh).
VRB_GUEST_VCPUS=${VRB_GUEST_VCPUS:-2}
VRB_GUEST_MEM=${VRB_GUEST_MEM:-1024}          # MiB
VRB_GUEST_BOOT_TIMEOUT=${VRB_GUEST_BOOT_TIMEOUT:-180}  # s until init runs
VRB_GUEST_CMD_TIMEOUT=${VRB_GUEST_CMD_TIMEOUT:-900}    # s for the command
VRB_GUEST_BOOT_QUIET=${VRB_GUEST_BOOT_QUIET:-120}     # s of console silence before init: a hung boot ...
VRB_GUEST_BOOT_RETRIES=${VRB_GUEST_BOOT_RETRIES:-1}   # ... booted again this many times at most
VRB_ACCEL=${VRB_ACCEL:-auto}                   # auto | kvm | tcg
VRB_QEMU=${VRB_QEMU:-qemu-system-x86_64}
# Host dirs the guest covers with a tmpfs (its root is the host's, read-only):
# host files under these are not visible in the guest.
VRB_GUEST_TMPFS="/tmp /run /var/tmp /var/log /var/cache"

# Host hygiene (lib/workload.sh): the host CPU QEMU's vCPU thread is pinned
# to, and the one for everything else of the benchmark (QEMU's main loop,
# which delivers the guest's interrupts, its I/O threads, workload B's
# source); on a 1-CPU host both are CPU 0. How busy the host may be (CPUs'
# worth, sampled over a second) before a benchmark refuses to start
# (VRB_ALLOW_BUSY_HOST=1 or --allow-busy-host overrides; the metadata says so).
VRB_HOST_CPU_VCPU=${VRB_HOST_CPU_VCPU:-1}
VRB_HOST_CPU_OTHER=${VRB_HOST_CPU_OTHER:-0}
VRB_BUSY_MAX=${VRB_BUSY_MAX:-0.5}

# The systemtap probes (stap/NAME.stp; stap/build.sh builds them).
VRB_PROBES="avail_exhaust refill rx_costs tun_ring_full vhost_batch"

# The unmodified distro kernel the probes are checked on with their drivers
# as modules (make check-distro; scripts/debian-kernel.sh): Debian 12's
# cloud kernel of the same upstream version as our 6.1 base.
VRB_DEBIAN_KERNEL=${VRB_DEBIAN_KERNEL:-6.1.0-55-cloud-amd64}

# Results, and the free space a run needs there before it starts.
VRB_RESULTS=${VRB_RESULTS:-$VRB_ROOT/results}
VRB_RESULTS_MIN_FREE_MB=${VRB_RESULTS_MIN_FREE_MB:-100}
