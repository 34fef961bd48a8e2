# make check: the project's tests (shellcheck, unit tests of the harness, VM
# smoke test that builds or reuses both kernels and boots each).
# make check-quick: the same without building or booting kernels.
# Tests run with prove over bats files: prove prints the summary.

PROVE := prove --exec 'bats --tap' --timer --comments
UNIT  := $(wildcard tests/unit/*.bats)
VM    := $(wildcard tests/ptr_ring/*.bats) $(wildcard tests/vm/*.bats)

.PHONY: check check-quick deps clean-cache

check: deps
	$(PROVE) $(UNIT) $(VM)

check-quick: deps
	$(PROVE) $(UNIT)

deps:
	@scripts/install-deps.sh

# Removes the kernel workspace and builds (they take long to make again).
clean-cache:
	rm -rf .cache
