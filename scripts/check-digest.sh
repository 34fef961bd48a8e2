#!/usr/bin/env bash
# Prints, after a failed `make check`, what each failed test file said: its
# header line and the diagnostics prove showed for it ("# ..." lines: the
# failed command, the test's output, a failed kernel build's log tail).
# A CI log keeps only the end of the output, after prove's summary, which
# names the failed tests but not why they failed; this puts the why there.
set -euo pipefail
VRB_PROG="check-digest.sh"
# shellcheck source=lib/functions.sh
. "$(dirname "$0")/../lib/functions.sh"

usage() {
	cat <<EOF
Usage: scripts/check-digest.sh [--lines N] LOG

LOG is prove's output (make check tees it to .cache/check.log). For every
test file that failed: its line and up to N (default 40) of its "# " lines.

  --lines N    diagnostic lines per failed file (1-1000, default 40)
  -h, --help   this text
EOF
}

main() {
	local lines=40 log=''
	while [ $# -gt 0 ]; do
		case $1 in
		--lines)
			[ $# -ge 2 ] || die "--lines needs a value"
			check_range --lines "$2" 1 1000
			lines=$2
			shift 2
			;;
		-h | --help) usage; return 0 ;;
		-*) usage >&2; die "unknown option '$1'" ;;
		*)
			[ -z "$log" ] || die "one LOG only"
			log=$1
			shift
			;;
		esac
	done
	[ -n "$log" ] || { usage >&2; die "no LOG given"; }
	[ -r "$log" ] || die "cannot read $log"
	# a file's block starts with "[hh:mm:ss] path .. " and ends with prove's
	# verdict on it: "ok" on the header line, or a "Failed"/"Dubious" line
	awk -v max="$lines" '
		function flush() {
			if (hdr != "" && failed) {
				print "== " hdr
				for (i = 1; i <= n && i <= max; i++)
					print c[i]
				if (n > max)
					printf "   (%d more lines)\n", n - max
				nfail++
			}
			hdr = ""; n = 0; failed = 0
		}
		/^\[[0-9:]+\] [^ ]+\.bats \.+/ {
			flush()
			hdr = $2
			if ($0 ~ / ok( |$)/)
				hdr = ""
			next
		}
		/^Test Summary Report/ { flush(); done = 1 }
		done { next }
		hdr != "" && /^# / { c[++n] = $0; next }
		hdr != "" && (/^Dubious/ || /^Failed [0-9]+\/[0-9]+ subtests/ || /^not ok/) { failed = 1 }
		END {
			flush()
			if (nfail)
				printf "== %d test file(s) failed; the whole log: %s\n", nfail, FILENAME
		}' "$log"
}

main "$@"
