#!/usr/bin/env bats
# Every shell script in the tree passes shellcheck.

load helpers

shell_scripts() {
	cd "$VRB_ROOT" || return 1
	{
		git ls-files --cached --others --exclude-standard '*.sh' '*.bash' '*.bats'
		echo run-bench.sh
		echo .ci/run
		echo guest-config/init
		echo guest-config/initrd-init
		echo tests/fixtures/fake-qemu
	} | sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done
}

@test "shellcheck finds nothing in the tree's shell scripts" {
	command -v shellcheck || skip "shellcheck not installed"
	cd "$VRB_ROOT"
	mapfile -t files < <(shell_scripts)
	[ "${#files[@]}" -ge 8 ]
	run shellcheck -x "${files[@]}"
	echo "$output"
	[ "$status" -eq 0 ]
}
