# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the tests that join NovaCube relays (0,0) and (1,0) of
# novacube:k=4,n=2 by a memif cable, each with a memif host port for
# dcn-gen (memif_relay.sh, capture.sh): the relays' configuration, and
# starting, waiting for and stopping them. The caller sets DCNFWD, TOPO, dir
# (its scratch directory), prefixes (relay a, relay b, the generator) and
# pids=().
PAIR_SPEC=novacube:k=4,n=2
# Each relay's fabric address, from the other's table.
SRC_ADDR=$("$TOPO" table $PAIR_SPEC "(1,0)" | awk '$1 == "(0,0)" { print $2 }')
DST_ADDR=$("$TOPO" table $PAIR_SPEC "(0,0)" | awk '$1 == "(1,0)" { print $2 }')

# file node cable-port cable-role input-queue output-queue [fabric-line]
pair_conf() {
	cat > "$1" <<CONF
[fabric]
topology = $PAIR_SPEC
node = $2
role = relay
algo = dor
partial = yes
hello_interval_ms = 10
; Forwarding is under test here, not failure detection: 30 ms without a
; hello (3 misses) once took the cable down during a stall of this shared
; machine and lost frames. 200 ms does not.
hello_miss = 20
${7:-}
[port.cable]
dev = net_memif0,role=$4,socket=$dir/cable.sock
fabric_port = $3
[port.host]
dev = net_memif1,role=server,socket=$dir/host-$3.sock
host = yes
[worker.0]
lcore = 1
rx = cable:0, host:0
[queues]
mbufs = 16383
[flow_control]
input_queue = $5
output_queue = $6
CONF
}

# index ini log EAL-arguments...: relay index in the background
pair_start() {
	local i=$1 ini=$2 log=$3
	shift 3
	"$DCNFWD" "$@" --file-prefix="${prefixes[$i]}" -- --config "$dir/$ini" \
		--stats 0 > "$dir/$log.log" 2>&1 &
	pids+=($!)
}

# Stops the relays started, by PID, 50 ms apart: each relay's workers are
# idle before the one before it closes the cable (100 ms after its own
# stop), and the two ends never close at once (app/dcnfwd/ethdev.c).
stop_relays() {
	local p
	for p in "${pids[@]}"; do
		kill -TERM "$p" 2>/dev/null
		sleep 0.05
	done
	for p in "${pids[@]}"; do
		wait "$p"
	done
	pids=()
}

# A dcn-gen started with --hold reports, then keeps its memif ports open
# and unpolled until a signal: the relays are stopped while it holds, so
# no side reads a ring the other has just unmapped (app/dcnfwd/ethdev.c).
# json-file pid: 0 once it reported, 1 when it exited or took too long.
gen_reported() {
	local i
	for i in $(seq 600); do
		grep -q '^{' "$1" 2>/dev/null && return 0
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# pid: stops a holding dcn-gen; its exit status.
gen_stop() {
	kill -TERM "$1" 2>/dev/null
	wait "$1"
}

# log: 0 once the relay logging there says it is up, 77 when EAL did not
# start (the machine cannot), 1 when it did not come up; says which.
pair_wait() {
	local i
	for i in $(seq 100); do
		grep -q " up: " "$dir/$1.log" && return 0
		if grep -q "EAL init failed" "$dir/$1.log"; then
			echo "SKIP: EAL did not start: $(tail -2 "$dir/$1.log")"
			return 77
		fi
		sleep 0.1
	done
	echo "FAIL: relay $1 did not come up"; cat "$dir/$1.log"; return 1
}
