#!/usr/bin/env bash
# Install the Debian 12 packages the suite and its tests need (as root),
# or, with --check, only say which are missing. The list is kept here only.
set -euo pipefail
VRB_PROG="install-deps.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"

PACKAGES=(
	# kernel source and build
	"$VRB_KERNEL_PKG" make gcc flex bison bc libelf-dev libssl-dev git ccache xz-utils
	# guests
	qemu-system-x86 iproute2 ethtool procps
	# workload B's vhost-user source
	libdpdk-dev pkg-config
	# probes (stap/): stap builds on the host, staprun loads in the guest
	systemtap systemtap-runtime
	# their bpftrace twins (stap/bpftrace/), and the kernel's BTF (pahole)
	bpftrace dwarves
	# a Debian distro kernel as the guest (scripts/debian-kernel.sh: its
	# initramfs and module order)
	busybox-static cpio kmod file
	# the statistics layer (bench/stats: compare.py's intervals, family.py's
	# correction for the number of comparisons, their tests)
	python3 python3-numpy python3-scipy python3-statsmodels
	# plots of the results
	gnuplot-nox
	# tests
	bats shellcheck perl
	# the interactive guest's test drives a terminal (tests/vm/smoke.bats)
	tmux
)

usage() {
	cat <<EOF
Usage: scripts/install-deps.sh [--check]

Installs with apt-get (as root) the Debian packages that are missing of:
  ${PACKAGES[*]}
  --check     only list the missing ones; exit 1 if any
  -h, --help  this text
EOF
}

missing_packages() {
	local p
	for p in "${PACKAGES[@]}"; do
		[ "$(dpkg-query -W -f '${db:Status-Status}' "$p" 2>/dev/null)" = installed ] || echo "$p"
	done
}

main() {
	local check='' missing
	while [ $# -gt 0 ]; do
		case $1 in
		--check) check=1; shift ;;
		-h | --help) usage; exit 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	need_cmd dpkg-query dpkg
	missing=$(missing_packages | tr '\n' ' ')
	missing=${missing% }
	if [ -z "$missing" ]; then
		log "all required packages are installed"
		return 0
	fi
	if [ -n "$check" ]; then
		echo "missing packages: $missing (install: apt-get install $missing)"
		return 1
	fi
	[ "$(id -u)" -eq 0 ] || die "missing packages: $missing; as root run: apt-get install $missing"
	log "installing: $missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086 # a list of package names
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	log "installed: $missing"
}

main "$@"
