# shellcheck shell=bash
# pktgen from shell, in the guest (CONFIG_NET_PKTGEN=y): shared by the
# workloads and the guest checks, in the style of the kernel's
# samples/pktgen/functions.sh. Source it; every function fails with a
# message when pktgen refuses a command.
PG_DIR=/proc/net/pktgen

# pg_write FILE CMD: one pktgen command; fails unless pktgen says "Result: OK"
# (thread and control files have no Result line: the write status counts).
pg_write() {
	local file=$1 cmd=$2
	if ! echo "$cmd" >"$file" 2>/dev/null; then
		echo "pktgen: '$cmd' > $file failed" >&2
		return 1
	fi
	case $file in
	*/pgctrl | */kpktgend_*) return 0 ;;
	esac
	if ! grep -q '^Result: OK' "$file"; then
		echo "pktgen: '$cmd' > $file: $(grep '^Result:' "$file")" >&2
		return 1
	fi
}

# pg_reset: stop and forget every pktgen device.
pg_reset() {
	[ -w "$PG_DIR/pgctrl" ] || { echo "pktgen: $PG_DIR/pgctrl missing (CONFIG_NET_PKTGEN)" >&2; return 1; }
	pg_write "$PG_DIR/pgctrl" reset
}

# pg_setup DEV THREAD COUNT DELAY_NS SIZE DST_MAC: one flow on DEV from
# kpktgend_THREAD: COUNT packets (0 = until stopped) of SIZE bytes,
# DELAY_NS apart, to DST_MAC; clone_skb 0 and burst 1 (tun takes no more).
pg_setup() {
	local dev=$1 thread=$2 count=$3 delay=$4 size=$5 dst=$6
	pg_write "$PG_DIR/kpktgend_$thread" rem_device_all
	pg_write "$PG_DIR/kpktgend_$thread" "add_device $dev"
	pg_write "$PG_DIR/$dev" "count $count"
	pg_write "$PG_DIR/$dev" "delay $delay"
	pg_write "$PG_DIR/$dev" "pkt_size $size"
	pg_write "$PG_DIR/$dev" "dst_mac $dst"
	pg_write "$PG_DIR/$dev" "clone_skb 0"
	pg_write "$PG_DIR/$dev" "burst 1"
}

# pg_start: runs every configured device; returns when all are done.
pg_start() {
	pg_write "$PG_DIR/pgctrl" start
}

# pg_sent DEV: packets pktgen sent on DEV in its last run (the driver took
# them: NETDEV_TX_OK).
pg_sent() {
	sed -n 's/^ *pkts-sofar: \([0-9]*\).*/\1/p' "$PG_DIR/$1"
}

# pg_errors DEV: packets the driver refused or dropped in the last run
# (tun_net_xmit's drops, NET_XMIT_DROP); pktgen resends until COUNT went.
pg_errors() {
	sed -n 's/^ *pkts-sofar: [0-9]* *errors: \([0-9]*\).*/\1/p' "$PG_DIR/$1" | head -n 1
}
