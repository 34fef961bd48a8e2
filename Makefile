# make check: the project's tests (shellcheck, unit tests of the harness, VM
# smoke test that builds or reuses both kernels and boots each).
# make check-quick: the same without building or booting kernels.
# make check-debug: the VM tests on the debug kernels (see below).
# make soak-backpressure: the backpressure stall test for SOAK_S seconds per
# consumer (default 300) on the patched kernel, not in make check (its time).
# make check-6.12: the second kernel base (VRB_BASE=6.12, Debian's
# linux-source-6.12 and patches/6.12/): its series check and the VM tests
# that build and boot its two kernels and run the workloads on them. Not in
# make check (two more kernel builds). Its probe tests are the bpftrace
# twins' (tests/vm/probes.bats skips the systemtap ones there: systemtap 4.8
# does not build for 6.8 and later; docs/probes.md, "Probes on 6.12").
# make check-distro: the probes on an unmodified Debian kernel whose drivers
# are modules (VRB_DEBIAN_KERNEL in lib/parameters.sh; its packages are
# downloaded once, the -dbg one is 270 MB): it boots in our guest from an
# initramfs (scripts/debian-kernel.sh) and avail_exhaust and its bpftrace
# twin run under workload B on it. Not in make check (the download).
# make check-own-tree: docs/own-tree.md's recipe run as written on a
# linux-source-6.12 tree of its own in .cache/own-tree (git am, config
# merge, make, a probe in the guest, workload B with --kernel-dir). Not in
# make check (a third kernel build the first time; later runs rebuild only
# the patched files).
# make check-series: the series check with a vmlinux build at every patch
# (bisectable). make check builds each set's last patch only: with a build
# at every patch the series check took 20.5 of a cold make check's 59 min.
# Tests run with prove over bats files: prove prints the summary; make check
# keeps prove's output in .cache/check.log and, when a test fails, prints
# after the summary why each failed file failed (scripts/check-digest.sh).

# make help prints the targets from the '#>' lines below (target | what |
# time here | builds kernels); the README's table of make targets is the
# same rows (tests/unit/docs.bats checks they agree).
#> check | shellcheck, unit tests, the ptr_ring harness, the VM tests on 6.1 | 27-40 min | 6.1 stock and patched
#> check-quick | the tests that need no kernel | 4 min | no
#> check-6.12 | the series check and most VM tests on 6.12 | 27 min (47 tests), kernels built | 6.12 stock and patched
#> check-series | the series check with a build at every patch (bisectable) | 20 min | at every patch
#> check-debug | the VM tests on KASAN + lockdep kernels | 34 min, kernels built | debug flavour
#> check-own-tree | docs/own-tree.md's recipe, as written, on a 6.12 tree | 15 min first, 3 min after | a third tree
#> check-distro | the probes on Debian's own kernel (modules) | downloads 270 MB | no
#> fuzz | the tun/tap fuzzer, `FUZZ_S` s on each base's stock and patched kernel | 4 x `FUZZ_S` s, kernels built | both bases, `FUZZ_FLAVOUR` (debug)
#> soak-backpressure | the backpressure stall test, `SOAK_S` s per consumer | 11 min | 6.1 patched
#> deps | install the missing Debian packages |  | no
#> clean-cache | delete `.cache/` (kernel trees and builds) |  | no
#> help | this list |  | no

PROVE := prove --exec 'bats --tap' --timer --comments
UNIT  := $(wildcard tests/unit/*.bats)
# tests/vm/distro-kernel.bats and own-tree.bats: make check-distro and
# make check-own-tree (below), not make check.
DISTRO_VM := tests/vm/distro-kernel.bats
OWN_TREE_VM := tests/vm/own-tree.bats
VM    := $(wildcard tests/ptr_ring/*.bats) $(filter-out $(DISTRO_VM) $(OWN_TREE_VM),$(wildcard tests/vm/*.bats))

# The VM tests again on the debug flavour of both kernels (KASAN, lockdep,
# atomic-sleep, hung-task; built on first use into out-debug/): any kernel
# splat in a guest's console fails its test. Not in make check (its time).
# A KASAN guest under a flood boots slowly: 600 s to reach its command.
# About 1 debug boot in 3 hangs under TCG in the kernel's boot-time
# RCU-tasks self test (PROVE_RCU; console quiet, vCPUs halted): such a boot
# is booted again, up to 8 times (scripts/guest-run.sh --boot-retries).
# Not vdpa-gen.bats: its checks are of pacing in virtual time, where a
# KASAN kernel's instructions make virtio_net too slow for the generator's
# rates (bursts late, the ring dropping 28720 of 30000 frames).
DEBUG_VM := $(filter-out tests/vm/series.bats tests/vm/vdpa-gen.bats,$(VM))

SOAK_S ?= 300

# make fuzz: scripts/fuzz.sh for FUZZ_S seconds (default 600) on the stock
# and the patched kernel of each base, FUZZ_FLAVOUR (default debug: KASAN,
# lockdep), from seed FUZZ_SEED (default: random); a result dir each, with
# a minimal reproducer for a failure. Its short form is tests/vm/fuzz.bats
# (in make check, and in make check-debug on the debug kernels).
FUZZ_S ?= 600
FUZZ_SEED ?=
FUZZ_FLAVOUR ?= debug
# a debug guest boots slowly and sometimes hangs in its RCU self test
DEBUG_GUEST := VRB_GUEST_BOOT_TIMEOUT=600 VRB_GUEST_BOOT_QUIET=90 VRB_GUEST_BOOT_RETRIES=8

BASE612_VM := tests/vm/series.bats tests/vm/smoke.bats tests/vm/kselftest.bats \
	tests/vm/backpressure.bats tests/vm/vhost-resets.bats tests/vm/ring-knobs.bats \
	tests/vm/virtio-refill.bats tests/vm/workload-a.bats tests/vm/workload-b.bats \
	tests/vm/probes.bats tests/vm/vdpa-gen.bats tests/vm/fuzz.bats

SHELL := /bin/bash

.PHONY: help check check-quick check-debug check-series check-6.12 check-distro check-own-tree fuzz soak-backpressure deps clean-cache

# $(call prove,LOG,FILES): prove over FILES, its output also in .cache/LOG;
# on failure the digest of why, after prove's summary.
prove = mkdir -p .cache; \
	$(PROVE) $(2) 2>&1 | tee .cache/$(1); \
	status=$${PIPESTATUS[0]}; \
	[ "$$status" -eq 0 ] || scripts/check-digest.sh .cache/$(1); \
	exit "$$status"

check: deps
	@$(call prove,check.log,$(UNIT) $(VM))

check-quick: deps
	@$(call prove,check-quick.log,$(UNIT))

check-debug: deps
	@export VRB_KERNEL_FLAVOUR=debug $(DEBUG_GUEST); $(call prove,check-debug.log,$(DEBUG_VM))

check-6.12:
	@export VRB_BASE=6.12; scripts/install-deps.sh && $(call prove,check-6.12.log,$(BASE612_VM))

check-own-tree:
	@export VRB_BASE=6.12; scripts/install-deps.sh && $(call prove,check-own-tree.log,$(OWN_TREE_VM))

check-distro: deps
	@$(call prove,check-distro.log,$(DISTRO_VM))

check-series: deps
	@export VRB_SERIES_BUILD=each; $(call prove,check-series.log,tests/vm/series.bats)

fuzz: deps
	@rc=0; for base in 6.1 6.12; do for k in stock patched; do \
		VRB_BASE=$$base VRB_KERNEL_FLAVOUR=$(FUZZ_FLAVOUR) \
		$(if $(filter debug,$(FUZZ_FLAVOUR)),$(DEBUG_GUEST)) \
		scripts/fuzz.sh --kernel $$k --seconds $(FUZZ_S) --coverage $(if $(FUZZ_SEED),--seed $(FUZZ_SEED)) || rc=1; \
	done; done; exit $$rc

soak-backpressure: deps
	VRB_BP_SOAK_S=$(SOAK_S) bats --timing -f patched tests/vm/backpressure.bats

deps:
	@scripts/install-deps.sh

# Removes the kernel workspace and builds (they take long to make again).
clean-cache:
	rm -rf .cache

help:
	@sed -n 's/^#> //p' $(firstword $(MAKEFILE_LIST)) | \
		awk -F ' [|] ' '{ gsub(/`/, ""); t = $$3 == "" ? "" : $$3 "; "; \
			printf "make %-18s %s\n%24s%sbuilds kernels: %s\n", $$1, $$2, "", t, $$4 }'
