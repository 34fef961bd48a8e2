# shellcheck shell=bash
# A probe around a piece of a workload, in the guest: a systemtap module
# (stap/build.sh; loaded with staprun) or a bpftrace script (stap/bpftrace/,
# run with bpftrace). Source it; then probe_start FILE [ARG...] ... probe_stop.
# The probe's output goes to a guest-local file and probe_stop prints it
# (the guest's root is read-only: the host reads it from the guest's log).

PROBE_PID='' PROBE_OUT='' PROBE_TOOL=''

# probe_start FILE [ARG...]: starts the probe in the background: a .ko with
# staprun (ARGs NAME=VALUE: the probe's -G globals), a .bt with bpftrace
# (ARGs: its positional parameters); returns once its probes are armed: its
# begin probe printed "NAME: start" (a loaded module is not enough:
# systemtap arms the probes when stapio starts the session).
probe_start() {
	local f=$1 name tool
	shift
	[ -r "$f" ] || { echo "probe: no probe $f" >&2; return 1; }
	case $f in
	*.ko) tool=staprun name=$(basename "$f" .ko) ;;
	*.bt) tool=bpftrace name=$(basename "$f" .bt) ;;
	*) echo "probe: $f is neither a systemtap module (.ko) nor a bpftrace script (.bt)" >&2; return 1 ;;
	esac
	command -v $tool >/dev/null || { echo "probe: $tool not found" >&2; return 1; }
	PROBE_OUT=$(mktemp)
	PROBE_TOOL=$tool
	if [ $tool = staprun ]; then
		# -b 64: 64 MB of relay buffer (default 16): rx_costs under a
		# long flood lost output ("transport failures") with 16
		staprun -b 64 -o "$PROBE_OUT" "$f" "$@" 2>"$PROBE_OUT.err" &
	else
		# stdout, unbuffered (-B none): the start line must reach the file
		# now; with -o FILE bpftrace 0.17 writes nothing until it exits
		bpftrace -q -B none "$f" "$@" >"$PROBE_OUT" 2>"$PROBE_OUT.err" &
	fi
	PROBE_PID=$!
	for _ in $(seq 600); do
		! grep -q ': start$' "$PROBE_OUT" 2>/dev/null || return 0
		kill -0 "$PROBE_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$PROBE_OUT.err" >&2
	echo "probe: $name did not load" >&2
	return 1
}

# probe_stop: stops the probe (its end probe prints its summary), prints
# its output, then what the tool said on stderr, each line prefixed "stap: "
# or "bpftrace: " (their own warnings: systemtap's "WARNING: Number of
# errors: 0, skipped probes: N" means counts that missed events).
probe_stop() {
	[ -n "$PROBE_PID" ] || return 0
	kill -INT "$PROBE_PID"
	local t0=$SECONDS
	while kill -0 "$PROBE_PID" 2>/dev/null && [ $((SECONDS - t0)) -lt 30 ]; do
		sleep 0.1
	done
	if kill -0 "$PROBE_PID" 2>/dev/null; then
		cat "$PROBE_OUT" "$PROBE_OUT.err" >&2
		kill -KILL "$PROBE_PID"
		PROBE_PID=''
		echo "probe: $PROBE_TOOL did not stop within 30 s of SIGINT (killed; its output above)" >&2
		return 1
	fi
	wait "$PROBE_PID" || { cat "$PROBE_OUT.err" >&2; echo "probe: $PROBE_TOOL failed" >&2; return 1; }
	cat "$PROBE_OUT"
	local pfx=bpftrace
	[ "$PROBE_TOOL" != staprun ] || pfx=stap
	sed "s/^/$pfx: /" "$PROBE_OUT.err"
	rm -f "$PROBE_OUT" "$PROBE_OUT.err"
	PROBE_PID=''
}
