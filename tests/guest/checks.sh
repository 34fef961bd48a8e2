# shellcheck shell=bash
# Shared by the guest-side checks: "ok:/FAIL:" lines, a failure count, and
# the knob helpers (a /sys/module parameter takes a value and reads it back,
# or refuses it with EINVAL and keeps its old value). Source it.
fails=0

# check WHAT CMD...: runs CMD; prints "ok: WHAT" or "FAIL: WHAT".
check() {
	local what=$1
	shift
	if "$@"; then
		echo "ok: $what"
	else
		echo "FAIL: $what"
		fails=$((fails + 1))
	fi
}

# checks_done: the summary line; fails if any check failed.
checks_done() {
	echo "$fails failed"
	[ "$fails" -eq 0 ]
}

is() { [ "$(cat "$1")" = "$2" ]; }

# takes PARAM VALUE: the write succeeds and reads back.
takes() {
	echo "$2" >"$1" && is "$1" "$2"
}

# refuses PARAM VALUE: the write fails with EINVAL and the value stays.
refuses() {
	local before err
	before=$(cat "$1")
	if err=$( (printf '%s\n' "$2" >"$1") 2>&1); then
		echo "  '$2' was accepted"
		return 1
	fi
	[[ "$err" == *"Invalid argument"* ]] || { echo "  error was: $err"; return 1; }
	is "$1" "$before"
}
