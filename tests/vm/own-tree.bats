#!/usr/bin/env bats
# shellcheck disable=SC2016 # grep/sed patterns match the document's literal $B and $P
# docs/own-tree.md, followed as written: its command block, taken from the
# document itself, run on a tree of Debian's linux-source-6.12
# (a tree the harness does not build: git am of patches/6.12, the config
# merge, make, a probe in a guest booting it, workload B on it), with only
# the line a 6.12.y user changes (P) changed. HOME points at
# .cache/own-tree, so ~/linux is .cache/own-tree/linux: unpacked and
# committed once; later runs reset it to that commit and apply the series
# again, so make rebuilds only what the patches touch. Not in make check
# (a kernel build of its own the first time): make check-own-tree.

load vm_helpers

# readme_block: docs/own-tree.md's commands, as a script
# (the first indented block after "With `B` this repository"), P set for
# 6.12.y as its comment says.
readme_block() {
	awk '/^With `B` this repository/ { f = 1; next }
		f && /^    / { b = 1; print substr($0, 5); next }
		f && b && NF { exit }' "$VRB_ROOT/docs/own-tree.md" |
		sed 's|^P=\$B/patches/6\.1 |P=$B/patches/6.12|'
}

# tree_reset DIR TARBALL: DIR is TARBALL unpacked and committed (tag
# vrb-base), checked out at that commit. Unpacked again when TARBALL
# changed (a new linux-source-6.12) or a first unpack did not finish;
# build outputs are ignored files and stay otherwise.
tree_reset() {
	local t=$1 src=$2 stamp
	stamp=$(stat -c '%n %s %Y' "$src")
	if [ "$(cat "$t/.git/vrb-source" 2>/dev/null)" != "$stamp" ] ||
		! git -C "$t" rev-parse -q --verify refs/tags/vrb-base >/dev/null; then
		rm -rf "$t"
		mkdir -p "$t"
		tar -xJf "$src" --strip-components=1 -C "$t"
		git -C "$t" init -q
		# -f: the package's .gitignore ignores everything at the top level
		git -C "$t" add -A -f .
		git -C "$t" -c user.name=vrb -c user.email=vrb@localhost commit -q -m "${src##*/} as unpacked"
		git -C "$t" tag vrb-base
		echo "$stamp" >"$t/.git/vrb-source"
	fi
	git -C "$t" am --abort >/dev/null 2>&1 || true
	git -C "$t" reset -q --hard vrb-base
	# no background repack of a kernel's worth of objects during the build
	git -C "$t" config gc.auto 0
	# git am needs an identity, which a user's own tree has
	git -C "$t" config user.name "vrb own-tree test"
	git -C "$t" config user.email vrb@localhost
}

setup_file() {
	real_workspace
	local src=/usr/src/linux-source-6.12.tar.xz
	[ -r "$src" ] || {
		echo "# no $src: VRB_BASE=6.12 scripts/install-deps.sh installs it" >&3
		return 1
	}
	export OWN_HOME=$VRB_CACHE/own-tree
	tree_reset "$OWN_HOME/linux" "$src"
	readme_block >"$BATS_FILE_TMPDIR/block.sh"
	sed 's/^/# | /' "$BATS_FILE_TMPDIR/block.sh" >&3
	mkdir -p "$BATS_FILE_TMPDIR/results"
	# the block as a user runs it, stopping at the first failure, with
	# nothing of the harness's environment but where results go and the
	# busy-host allowance (tests are not benchmarks)
	env -i PATH="$PATH" HOME="$OWN_HOME" B="$VRB_ROOT" VRB_RESULTS="$BATS_FILE_TMPDIR/results" \
		VRB_ALLOW_BUSY_HOST=1 bash -euo pipefail "$BATS_FILE_TMPDIR/block.sh" >"$BATS_FILE_TMPDIR/block.log" 2>&1 || {
		tail -n 60 "$BATS_FILE_TMPDIR/block.log" | sed 's/^/# /' >&3
		return 1
	}
}

# patch_subjects: the subjects of patches/6.12's posted sets then bench series.
patch_subjects() {
	local p
	series_stack "$VRB_ROOT/patches/6.12" | while read -r p; do
		git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Subject: //p'
	done
}

setup() {
	real_workspace
	log=$BATS_FILE_TMPDIR/block.log
	tree=$VRB_CACHE/own-tree/linux
}

@test "docs/own-tree.md's block is what ran: git am of both 6.12 series, the merge, make, the probe, workload B" {
	local b=$BATS_FILE_TMPDIR/block.sh
	grep -q '^P=\$B/patches/6\.12 ' "$b"
	grep -q '^for s in .*"\$P/series".*"\$P/\$s/series" .* xargs git am; done$' "$b"
	grep -q '^grep .*"\$P/bench/series" .* xargs git am$' "$b"
	grep -q '^scripts/kconfig/merge_config.sh ' "$b"
	grep -q '^make -j' "$b"
	grep -q 'probe-smoke.sh" "\${probes\[@\]}"$' "$b"
	grep -q '^"\$B/bench/vhost_src/run-b.sh" --kernel-dir ~/linux ' "$b"
}

@test "the tree holds the posted and the bench series on top of linux-source-6.12, in order" {
	local want got
	want=$(series_stack "$VRB_ROOT/patches/6.12" | wc -l)
	got=$(git -C "$tree" rev-list --count vrb-base..HEAD)
	[ "$got" -eq "$want" ]
	# each commit's subject is its patch's (git mailinfo: as git am reads it)
	paste -d '|' <(git -C "$tree" log --reverse --format=%s vrb-base..HEAD) <(patch_subjects) |
		awk -F'|' '{ print } $1 != $2 { bad = 1 } END { exit bad }'
	grep -q '^6\.12\.' "$tree/include/config/kernel.release"
	grep -qx 'CONFIG_DEBUG_INFO_BTF=y' "$tree/.config"
}

@test "in a guest on the tree's bzImage the refill twin counted refills (bpftrace: the 6.12 path)" {
	grep -qx 'packed=0' "$log"
	grep -q '^refill: summary' "$log"
	# NAPI's and open's refills, each with buffers posted
	grep -q '^@calls\[0, [0-9]*\]: [1-9]' "$log"
	grep -q '^@bufs\[0, [0-9]*\]: [1-9]' "$log"
	# no systemtap module on 6.12 (the block adds it on 6.1.y only)
	[ "$(grep -c 'vrb_refill\.ko' "$log")" -eq 0 ]
}

@test "workload B on the tree's kernel: its release in the results, the ring dry in the flood and not at 1000 pps" {
	local r out
	r=$(find "$BATS_FILE_TMPDIR/results" -mindepth 1 -maxdepth 1 -type d -name '*-B-*')
	[ -n "$r" ]
	[ "$(wc -l <<<"$r")" -eq 1 ]
	grep -qx "# kernel_version: $(cat "$tree/include/config/kernel.release")" "$r/trials.csv"
	grep -q "^# kernel_dir: $(readlink -f "$tree") (release 6\.12\." "$r/trials.csv"
	[ -f "$r/summary.md" ]
	out=$r/trials/r1-auto-256-400000/probe-avail_exhaust.bt.txt
	sed -n '/^avail_exhaust: summary/,$p' "$out"
	grep -q '^@ring\[0\]: 256$' "$out"
	[ "$(sed -n 's/^@events\[0\]: //p' "$out")" -gt 0 ]
	out=$r/trials/r1-auto-256-1000/probe-avail_exhaust.bt.txt
	[ "$(sed -n 's/^@polls\[0\]: //p' "$out")" -gt 0 ]
	[ "$(grep -c '^@events\[0\]: ' "$out")" -eq 0 ]
}
