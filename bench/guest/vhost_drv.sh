# shellcheck shell=bash
# Starting workload A's userspace vhost-net driver (bench/vhost_drv) in the
# guest, for guest-a.sh and the guest checks. Source it.

DRV_PID=''

# drv_start LOG TOOL ARG...: starts TOOL ARG... (vhost_drv or tap_read) in
# the background, its output into LOG, its pid in DRV_PID; returns once it
# printed "TOOL: ready" (at most 30 s); fails with its output otherwise.
drv_start() {
	local log=$1
	shift
	"$@" >"$log" 2>&1 &
	DRV_PID=$!
	for _ in $(seq 300); do
		grep -q '^[a-z_]*: ready' "$log" && return 0
		kill -0 "$DRV_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$log" >&2
	echo "guest: $(basename "$1") did not start" >&2
	return 1
}
