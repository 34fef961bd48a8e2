#!/usr/bin/env bash
# An unmodified Debian kernel (linux-image-RELEASE, drivers as modules) made
# ready for our guest and our probes: its image, an initramfs that loads the
# modules our guest needs before init mounts the host's root over 9p, and a
# kernel build dir the probes build against (stap/build.sh --kernel-dir).
set -euo pipefail
VRB_PROG="debian-kernel.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"
# shellcheck source=lib/kernel.sh
. "$VRB_ROOT/lib/kernel.sh"

# The modules the guest loads from the initramfs (with what they depend on):
# its virtio-net devices and the 9p root. The probes' drivers are among them.
INITRD_MODULES="virtio_pci virtio_net 9pnet_virtio 9p"
# The modules whose debug info the probes read (systemtap's module("M")).
PROBED_MODULES="virtio_net virtio_ring vhost_net tun"

usage() {
	cat <<EOF
Usage: scripts/debian-kernel.sh [options] RELEASE

Prepares Debian's linux-image-RELEASE (e.g. 6.1.0-55-cloud-amd64), unmodified,
for this suite, in OUT (default \$VRB_CACHE/debian/RELEASE):
  OUT/vmlinuz      the kernel
  OUT/initrd.img   busybox and the modules the guest needs first (virtio-pci,
                   virtio-net, 9p: $INITRD_MODULES
                   and their dependencies); its init loads them, mounts the
                   host's root over 9p as the kernel command line says and
                   starts our init there
  OUT/release      RELEASE (the guest's uname -r)
  OUT/build        a kernel build dir for the probes (Debian's headers with the
                   -dbg package's vmlinux, System.map and module debug info):
                   stap/build.sh --kernel-dir OUT/build PROBE
Boot it:  scripts/guest-run.sh --kernel OUT/vmlinuz --initrd OUT/initrd.img -- CMD

Debian builds 9p into none of its kernels' module sets (CONFIG_NET_9P is not
set); the 9p modules are built here from the harness's kernel source of the
same upstream version, against the Debian headers (same vermagic and symbol
versions), with the kernel's own Kbuild.

Options:
  --debs DIR     where the packages are: linux-image-RELEASE, its -dbg,
                 linux-headers-RELEASE, linux-headers-ABI-common and
                 linux-kbuild-X.Y; those missing are downloaded there
                 (apt-get download). Default: \$VRB_CACHE/debian/debs
  --out DIR      default: \$VRB_CACHE/debian/RELEASE
  -h, --help     this text
EOF
}

# deb_file DIR PACKAGE: the .deb of PACKAGE in DIR (downloaded if missing).
deb_file() {
	local f
	f=$(find "$1" -maxdepth 1 -name "${2}_*.deb" | sort | tail -n 1)
	if [ -z "$f" ]; then
		log "downloading $2"
		(cd "$1" && apt-get download "$2" >&2) || die "could not download $2 (apt-get download $2)"
		f=$(find "$1" -maxdepth 1 -name "${2}_*.deb" | sort | tail -n 1)
	fi
	[ -n "$f" ] || die "no ${2}_*.deb in $1"
	echo "$f"
}

# release_abi RELEASE: its ABI (6.1.0-55-cloud-amd64, 6.1.0-55-amd64 -> 6.1.0-55).
release_abi() {
	[[ "$1" =~ ^([0-9]+\.[0-9]+\.[0-9]+-[0-9]+)-[a-z0-9-]+$ ]] ||
		die "'$1' is not a Debian kernel release like 6.1.0-55-cloud-amd64"
	echo "${BASH_REMATCH[1]}"
}

# extract DEBS ROOT RELEASE: unpack the packages into ROOT.
extract() {
	local debs=$1 root=$2 rel=$3 abi kbuild p f
	abi=$(release_abi "$rel")
	kbuild=${rel%%.*}.$(echo "$rel" | cut -d. -f2)
	for p in "linux-image-$rel" "linux-image-$rel-dbg" "linux-headers-$rel" \
		"linux-headers-$abi-common" "linux-kbuild-$kbuild"; do
		f=$(deb_file "$debs" "$p")
		log "unpacking $(basename "$f")"
		dpkg-deb -x "$f" "$root"
	done
}

# prepare_build ROOT RELEASE BUILD: the headers dir made a build dir the
# probes can use, at BUILD (a link into ROOT).
prepare_build() {
	local root=$1 rel=$2 build=$3 hdr abi m f
	abi=$(release_abi "$rel")
	hdr=$root/usr/src/linux-headers-$rel
	[ -d "$hdr" ] || die "linux-headers-$rel has no $hdr"
	# Its Makefile includes the common headers by absolute path: point it
	# at ROOT's (again if OUT moved).
	sed -i "s|^include .*/usr/src/linux-headers-$abi-common/Makefile\$|include $root/usr/src/linux-headers-$abi-common/Makefile|" "$hdr/Makefile"
	grep -q "^include $root/usr/src/linux-headers-$abi-common/Makefile" "$hdr/Makefile" ||
		die "$hdr/Makefile does not include linux-headers-$abi-common as expected"
	# The source the probes' debug info refers to: the common headers.
	ln -sfn "../linux-headers-$abi-common" "$hdr/source"
	# The image's System.map is a placeholder; the -dbg package has the
	# real one and the vmlinux with DWARF.
	cp "$root/usr/lib/debug/boot/System.map-$rel" "$hdr/System.map"
	ln -sfn "$root/usr/lib/debug/boot/vmlinux-$rel" "$hdr/vmlinux"
	# The probed drivers' modules with DWARF, where a build dir has them.
	for m in $PROBED_MODULES; do
		f=$(find "$root/usr/lib/debug/lib/modules/$rel/kernel" -name "$m.ko" | head -n 1)
		[ -n "$f" ] || die "the -dbg package has no $m.ko"
		mkdir -p "$hdr/$(dirname "${f#"$root/usr/lib/debug/lib/modules/$rel/kernel/"}")"
		ln -sfn "$f" "$hdr/${f#"$root/usr/lib/debug/lib/modules/$rel/kernel/"}"
	done
	ln -sfn "$hdr" "$build"
}

# build_9p SRC BUILD ROOT RELEASE: 9pnet, 9pnet_virtio and 9p as external
# modules of SRC's net/9p and fs/9p, into ROOT's module tree (extra/).
build_9p() {
	local src=$1 build=$2 root=$3 rel=$4 w d
	w=$(dirname "$build")/9p
	rm -rf "$w"
	for d in net/9p fs/9p; do
		mkdir -p "$w/$d"
		cp "$src/$d"/*.[ch] "$src/$d/Makefile" "$w/$d/"
	done
	# fs/9p's objects find net/9p's exported symbols through its
	# Module.symvers. No BTF for them: linux-kbuild has no resolve_btfids.
	log "building the 9p modules against $rel"
	make -s -C "$build" M="$w/net/9p" CONFIG_NET_9P=m CONFIG_NET_9P_VIRTIO=m \
		CONFIG_DEBUG_INFO_BTF_MODULES= modules >&2
	make -s -C "$build" M="$w/fs/9p" CONFIG_9P_FS=m CONFIG_DEBUG_INFO_BTF_MODULES= \
		KBUILD_EXTRA_SYMBOLS="$w/net/9p/Module.symvers" modules >&2
	mkdir -p "$root/lib/modules/$rel/extra"
	cp "$w/net/9p/9pnet.ko" "$w/net/9p/9pnet_virtio.ko" "$w/fs/9p/9p.ko" "$root/lib/modules/$rel/extra/"
}

# make_initrd ROOT RELEASE OUT: OUT/initrd.img.
make_initrd() {
	local root=$1 rel=$2 out=$3 ir m order
	ir=$out/initrd.d
	rm -rf "$ir"
	mkdir -p "$ir"/{bin,dev,proc,sys,newroot,modules}
	cp "$(command -v busybox)" "$ir/bin/busybox"
	file -L "$ir/bin/busybox" | grep -q 'statically linked' || die "busybox is not static (apt-get install busybox-static)"
	# the modules in load order, dependencies first (kmod's resolution)
	order=$(for m in $INITRD_MODULES; do
		modprobe -d "$root" -S "$rel" --show-depends "$m" | sed -n 's/^insmod \([^ ]*\).*/\1/p'
	done | awk '!seen[$0]++')
	for m in $INITRD_MODULES; do
		grep -q "/$m\.ko" <<<"$order" || die "modprobe did not resolve $m (lib/modules/$rel/modules.dep)"
	done
	: >"$ir/modules/order"
	for m in $order; do
		cp "$m" "$ir/modules/"
		basename "$m" >>"$ir/modules/order"
	done
	cp "$VRB_ROOT/guest-config/initrd-init" "$ir/init"
	chmod 755 "$ir/init"
	(cd "$ir" && find . | LC_ALL=C sort | cpio --quiet -o -H newc --owner=0:0) | gzip -9 >"$out/initrd.img.tmp"
	mv "$out/initrd.img.tmp" "$out/initrd.img"
	log "initramfs: $out/initrd.img, modules: $(tr '\n' ' ' <"$ir/modules/order")"
	rm -rf "$ir"
}

main() {
	local rel='' debs='' out='' root src c want have image
	while [ $# -gt 0 ]; do
		case $1 in
		--debs) [ $# -ge 2 ] || die "$1 needs a value"; debs=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || die "$1 needs a value"; out=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		-*) usage >&2; die "unknown option '$1'" ;;
		*) [ -z "$rel" ] || die "one RELEASE only ('$rel', '$1')"; rel=$1; shift ;;
		esac
	done
	[ -n "$rel" ] || { usage >&2; die "name the kernel release (e.g. 6.1.0-55-cloud-amd64)"; }
	release_abi "$rel" >/dev/null
	for c in dpkg-deb:dpkg apt-get:apt depmod:kmod modprobe:kmod busybox:busybox-static cpio:cpio file:file make:make gcc:gcc; do
		need_cmd "${c%%:*}" "${c#*:}"
	done
	debs=${debs:-$VRB_CACHE/debian/debs}
	out=${out:-$VRB_CACHE/debian/$rel}
	mkdir -p "$debs" "$out"
	debs=$(cd "$debs" && pwd) out=$(cd "$out" && pwd)
	root=$out/root
	# the 9p source: the harness's kernel tree, if it is the same upstream version
	kernel_unpack
	src=$(kernel_workspace)/stock
	image=$(deb_file "$debs" "linux-image-$rel")
	want=$(dpkg-deb -f "$image" Version | sed 's/-.*//')
	have=$(kernel_version)
	[ "$want" = "$have" ] || die "linux-image-$rel is $want, the harness's kernel source is $have: the 9p modules need the same version (VRB_KERNEL_TARBALL)"
	if [ ! -f "$out/unpacked" ]; then
		rm -rf "$root"
		extract "$debs" "$root" "$rel"
		touch "$out/unpacked"
	fi
	prepare_build "$root" "$rel" "$out/build"
	ln -sfn "root/boot/vmlinuz-$rel" "$out/vmlinuz"
	echo "$rel" >"$out/release"
	if [ ! -f "$root/lib/modules/$rel/extra/9p.ko" ]; then
		build_9p "$src" "$out/build" "$root" "$rel"
	fi
	depmod -b "$root" "$rel"
	make_initrd "$root" "$rel" "$out"
	log "ready: scripts/guest-run.sh --kernel $out/vmlinuz --initrd $out/initrd.img -- CMD"
	log "probes: stap/build.sh --kernel-dir $out/build PROBE"
}

main "$@"
