#!/usr/bin/env bash
# Build the stock and patched guest kernels from Debian's linux-source-6.1,
# one config, separate output dirs, incrementally. Prints each stage with
# its elapsed time; a second run with nothing changed rebuilds nothing.
set -euo pipefail
VRB_PROG="build-kernels.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"

usage() {
	cat <<EOF
Usage: scripts/build-kernels.sh [--variant stock|patched|all] [--flavour base|debug]
                                [--force] [--prepare-only] [--print-image VARIANT]

Builds the guest kernels under $VRB_CACHE:
  stock    Debian $VRB_KERNEL_PKG as shipped
  patched  the same plus patches/BASE/ (in its series order, applied with git am)

  --variant V        build only V (default: all)
  --flavour F        base (default: the benchmark kernels) or debug (the same
                     trees with KASAN, lockdep, atomic-sleep and hung-task
                     checks, guest-config/kernel-debug.config, into out-debug/)
  --force            discard hand-made changes in the patched tree
  --prepare-only     unpack and apply the series, do not configure or build
  --print-image V    print the bzImage path of V and exit (no build)
  -h, --help         this text

Environment: VRB_CACHE (workspace), VRB_KERNEL_TARBALL (kernel source tarball),
VRB_KERNEL_FLAVOUR (as --flavour).
EOF
}

main() {
	local variants=$VRB_VARIANTS force='' prepare_only='' v
	while [ $# -gt 0 ]; do
		case $1 in
		--variant)
			[ $# -ge 2 ] || die "--variant needs a value"
			case $2 in
			stock | patched) variants=$2 ;;
			all) variants=$VRB_VARIANTS ;;
			*) die "unknown variant '$2' (stock, patched or all)" ;;
			esac
			shift 2
			;;
		--flavour)
			[ $# -ge 2 ] || die "--flavour needs a value"
			VRB_KERNEL_FLAVOUR=$2
			kernel_flavour >/dev/null
			shift 2
			;;
		--force) force=--force; shift ;;
		--prepare-only) prepare_only=1; shift ;;
		--print-image)
			[ $# -ge 2 ] || die "--print-image needs a variant"
			kernel_image "$2"
			return 0
			;;
		-h | --help) usage; return 0 ;;
		*) usage >&2; die "unknown option '$1'" ;;
		esac
	done
	need_cmd make make
	need_cmd gcc gcc
	need_cmd flex flex
	need_cmd bison bison
	need_cmd bc bc
	need_cmd git git
	[ -f /usr/include/libelf.h ] || die "libelf headers not found: install them with 'apt-get install libelf-dev'"
	[ -f /usr/include/openssl/ssl.h ] || die "openssl headers not found: install them with 'apt-get install libssl-dev'"
	kernel_check_source
	# shellcheck disable=SC2086 # variants: a list of words
	if [ -n "$prepare_only" ]; then kernel_check_space; else kernel_check_space $variants; fi
	stage "kernel workspace ($(basename "$(kernel_workspace)"))" kernel_unpack
	stage "measurement aids (stock tree)" kernel_apply_aids
	stage "patch series" kernel_apply_series "$force"
	[ -z "$prepare_only" ] || return 0
	stage "kernel config" kernel_config
	log "config $(kernel_config_hash) ($(kernel_flavour) flavour), Linux $(kernel_version)"
	for v in $variants; do
		stage "build $v kernel ($(kernel_flavour))" kernel_build "$v"
	done
}

trap 'vrb_exit_report $?' EXIT
main "$@"
