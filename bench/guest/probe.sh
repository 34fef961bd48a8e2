# shellcheck shell=bash
# A systemtap probe module (stap/build.sh) around a piece of a workload, in
# the guest. Source it; then probe_start KO [NAME=VALUE...] ... probe_stop.
# The probe's output goes to a guest-local file and probe_stop prints it
# (the guest's root is read-only: the host reads it from the guest's log).

PROBE_PID='' PROBE_OUT=''

# probe_start KO [NAME=VALUE...]: loads KO with staprun in the background
# (module parameters: the probe's -G globals); returns once its probes are
# armed: its begin probe printed "NAME: start" (a loaded module is not
# enough: systemtap arms the probes when stapio starts the session).
probe_start() {
	local ko=$1 name
	shift
	[ -r "$ko" ] || { echo "probe: no module $ko" >&2; return 1; }
	command -v staprun >/dev/null || { echo "probe: staprun not found (systemtap-runtime)" >&2; return 1; }
	name=$(basename "$ko" .ko)
	PROBE_OUT=$(mktemp)
	staprun -o "$PROBE_OUT" "$ko" "$@" 2>"$PROBE_OUT.err" &
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
# its output, then what staprun said on stderr (systemtap's own warnings,
# e.g. "WARNING: Number of errors: 0, skipped probes: N": a count that
# missed events), each line prefixed "stap: ".
probe_stop() {
	[ -n "$PROBE_PID" ] || return 0
	kill -INT "$PROBE_PID"
	wait "$PROBE_PID" || { cat "$PROBE_OUT.err" >&2; echo "probe: staprun failed" >&2; return 1; }
	cat "$PROBE_OUT"
	sed 's/^/stap: /' "$PROBE_OUT.err"
	rm -f "$PROBE_OUT" "$PROBE_OUT.err"
	PROBE_PID=''
}
