#!/usr/bin/env bats
# Small helpers: range checks, key=value files, config fragment checks.

load helpers

setup() {
	load_libs
}

@test "check_range accepts the bounds and refuses outside, negative and junk" {
	run check_range --x 1 1 8
	[ "$status" -eq 0 ]
	run check_range --x 8 1 8
	[ "$status" -eq 0 ]
	for bad in 0 9 -1 abc 1.5 "" 08 +1 " 1" 0000000000000000001 1000000000000000000; do
		run check_range --x "$bad" 1 8
		[ "$status" -ne 0 ]
		[[ "$output" == *"--x must be an integer from 1 to 8"* ]]
	done
}

@test "kv_get returns the last value of a key and nothing for a missing file" {
	printf 'a=1\nb=two words\na=3\n' >"$BATS_TEST_TMPDIR/kv"
	[ "$(kv_get "$BATS_TEST_TMPDIR/kv" a)" = 3 ]
	[ "$(kv_get "$BATS_TEST_TMPDIR/kv" b)" = "two words" ]
	[ -z "$(kv_get "$BATS_TEST_TMPDIR/kv" c)" ]
	[ -z "$(kv_get "$BATS_TEST_TMPDIR/nope" a)" ]
}

@test "config_check passes when every fragment option took effect" {
	printf 'CONFIG_A=y\nCONFIG_N=8\n# CONFIG_B is not set\n' >"$BATS_TEST_TMPDIR/frag"
	printf 'CONFIG_A=y\nCONFIG_N=8\n# CONFIG_B is not set\nCONFIG_C=y\n' >"$BATS_TEST_TMPDIR/merged"
	run config_check "$BATS_TEST_TMPDIR/merged" "$BATS_TEST_TMPDIR/frag"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "config_check reports options that were dropped or changed" {
	printf 'CONFIG_A=y\nCONFIG_N=8\n# CONFIG_B is not set\nCONFIG_D=y\n' >"$BATS_TEST_TMPDIR/frag"
	printf '# CONFIG_A is not set\nCONFIG_N=64\nCONFIG_B=y\n' >"$BATS_TEST_TMPDIR/merged"
	run config_check "$BATS_TEST_TMPDIR/merged" "$BATS_TEST_TMPDIR/frag"
	[ "$status" -ne 0 ]
	[[ "$output" == *"CONFIG_A=y (got: # CONFIG_A is not set)"* ]]
	[[ "$output" == *"CONFIG_N=8 (got: CONFIG_N=64)"* ]]
	[[ "$output" == *"# CONFIG_B is not set (got: CONFIG_B=y)"* ]]
	[[ "$output" == *"CONFIG_D=y (got: unset)"* ]]
}

@test "the guest config fragment has only option lines and comments" {
	run grep -vE '^(CONFIG_[A-Z0-9_]+=.+|# CONFIG_[A-Z0-9_]+ is not set|#.*|)$' "$VRB_ROOT/guest-config/kernel.config"
	[ "$status" -eq 1 ]
}

@test "a failure inside a command substitution ends a script (inherit_errexit)" {
	cat >"$BATS_TEST_TMPDIR/s.sh" <<SCRIPT
set -euo pipefail
. "$VRB_ROOT/lib/functions.sh"
inner() { die "inner failed"; }
outer() { local x; x=\$(inner); echo "not reached \$x"; }
v=\$(outer)
echo "after: \$v"
SCRIPT
	run bash "$BATS_TEST_TMPDIR/s.sh"
	[ "$status" -ne 0 ]
	[[ "$output" == *"inner failed"* ]]
	[[ "$output" != *"not reached"* ]]
	[[ "$output" != *"after:"* ]]
}

@test "since and older measure from a given time" {
	t=$(( $(date +%s) - 100 ))
	s=$(since "$t")
	[[ "$s" =~ ^1[0-9][0-9]\.[0-9]$ ]]
	older "$t" 50
	run older "$t" 500
	[ "$status" -eq 1 ]
}

@test "check-digest: after prove's summary, why each failed file failed (setup_file output too); nothing for passing files" {
	d=$BATS_TEST_TMPDIR
	# bats rewrites lines that start with the test keyword, in heredocs too
	t=@test
	cat >"$d/setup_fails.bats" <<EOF
setup_file() { printf '# %s\\n' "build: patch 3 does not apply" "second line" >&3; return 1; }
$t "never runs" { true; }
EOF
	cat >"$d/one_fails.bats" <<EOF
$t "passes" { true; }
$t "fails" { echo "counter was 3, expected 4"; false; }
EOF
	cat >"$d/passes.bats" <<EOF
$t "passes" { echo "quiet"; true; }
EOF
	# prove in a clean environment: this bats run's own settings (a -f
	# filter, say) would reach the inner bats, and bats's own libexec dir on
	# PATH would run its inner "bats" instead of the command
	clean_prove() {
		env -i HOME="$HOME" PATH="$(tr : '\n' <<<"$PATH" | grep -v bats-core | paste -sd:)" \
			prove --exec 'bats --tap' --timer --comments "$@"
	}
	(cd "$d" && clean_prove passes.bats setup_fails.bats one_fails.bats >log 2>&1) || true
	cat "$d/log"
	run "$VRB_ROOT/scripts/check-digest.sh" "$d/log"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"== setup_fails.bats"*"# build: patch 3 does not apply"*"# second line"*"== one_fails.bats"*"counter was 3, expected 4"*"== 2 test file(s) failed"* ]]
	[[ "$output" != *"passes.bats"* ]]
	run "$VRB_ROOT/scripts/check-digest.sh" --lines 1 "$d/log"
	[[ "$output" == *"(2 more lines)"* ]]
	[[ "$output" != *"second line"* ]]
	(cd "$d" && clean_prove passes.bats >ok.log 2>&1)
	run "$VRB_ROOT/scripts/check-digest.sh" "$d/ok.log"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	run "$VRB_ROOT/scripts/check-digest.sh" --lines 0 "$d/log"
	[ "$status" -ne 0 ]
	run "$VRB_ROOT/scripts/check-digest.sh" "$d/no-such-log"
	[ "$status" -ne 0 ]
	[[ "$output" == *"cannot read"* ]]
}
