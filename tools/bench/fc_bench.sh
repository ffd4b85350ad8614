#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Forwarding rate per worker core with flow control on and off, in the
# same run: every node of an emulated fabric in one dcnfwd on one worker
# (ring cables, built-in hosts offering more than the core can forward,
# idle backoff off). A forwarding step is one node handling one frame
# (encapsulate, transit or decapsulate). The runs alternate, ROUNDS of
# each, and the best of each is compared, as a shared machine only ever
# slows a run down.
# Usage: fc_bench.sh DCNFWD [SPEC] [SECONDS] [ROUNDS]
# Prints figures; exits 1 only when a run fails, 77 when EAL cannot start.
set -u
DCNFWD=$1
SPEC=${2:-novacube:k=4,n=2}
SECONDS_EACH=${3:-5}
ROUNDS=${4:-3}
prefix="dcn-fcb-$$"
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT

run() { # on|off
	local out
	out=$("$DCNFWD" -l 0-1 --no-huge -m 1024 --no-pci --file-prefix "$prefix" \
		--log-level=4 -- --emulate "$SPEC" --no-backoff --rate 1000000 \
		--duration "$SECONDS_EACH" --stats 0 --json --flow-control "$1" 2>&1)
	rm -rf "/var/run/dpdk/$prefix"
	if echo "$out" | grep -q "EAL init failed"; then
		echo "SKIP: EAL did not start"
		exit 77
	fi
	echo "$out" | grep '^{"topology"' | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print("%.3f %d %d" % (r["forwarded"] / r["seconds"] / r["workers"] / 1e6,
                      r["fabric_drops"], r["lost"]))'
}

echo "flow-control bench: $SPEC, ${SECONDS_EACH}s per run, $ROUNDS rounds"
printf "%-6s %-4s %14s %13s %10s\n" round fc "Mpps/worker" fabric_drops lost
best_on=0
best_off=0
for r in $(seq "$ROUNDS"); do
	for fc in on off; do
		res=$(run $fc) || exit 1
		[ -n "$res" ] || { echo "FAIL: run with flow control $fc"; exit 1; }
		set -- $res
		printf "%-6s %-4s %14s %13s %10s\n" "$r" "$fc" "$1" "$2" "$3"
		if [ $fc = on ]; then
			best_on=$(python3 -c "print(max($best_on, $1))")
		else
			best_off=$(python3 -c "print(max($best_off, $1))")
		fi
	done
done
python3 -c "
on, off = $best_on, $best_off
print('best: on %.3f Mpps per worker, off %.3f: on/off %.3f (cost %.1f%%)'
      % (on, off, on / off, 100 * (1 - on / off)))"
