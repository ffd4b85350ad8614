#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Forwarding rate per worker core with flow control on and off, in the
# same run, on a fabric of cables (NovaCube) and one whose relays meet
# behind L2 switches (RRect: credits per neighbour, frames told apart by
# MAC): every node of an emulated fabric in one dcnfwd on one worker
# (ring cables, built-in hosts offering more than the core can forward,
# idle backoff off). A forwarding step is one node handling one frame
# (encapsulate, transit or decapsulate).
#
# This machine runs in fast and slow phases tens of seconds long, so one
# run against another says little: the runs go in short pairs, on then
# off, PAIRS of them per fabric, and the figure is the median of the
# pairs' on/off ratios, with the lowest and highest beside it.
# Usage: fc_bench.sh DCNFWD [SPECS] [SECONDS] [PAIRS]
#   SPECS: space-separated fabrics (default "novacube:k=4,n=2
#   rrect:n=4,m=2,k=1")
# Prints figures; exits 1 only when a run fails, 77 when EAL cannot start.
set -u
DCNFWD=$1
SPECS=${2:-novacube:k=4,n=2 rrect:n=4,m=2,k=1}
SECONDS_EACH=${3:-2}
PAIRS=${4:-5}
prefix="dcn-fcb-$$"
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT

run() { # spec on|off
	local out
	out=$("$DCNFWD" -l 0-1 --no-huge -m 1024 --no-pci --file-prefix "$prefix" \
		--log-level=4 -- --emulate "$1" --no-backoff --rate 1000000 \
		--duration "$SECONDS_EACH" --stats 0 --json --flow-control "$2" 2>&1)
	rm -rf "/var/run/dpdk/$prefix"
	if echo "$out" | grep -q "EAL init failed"; then
		echo "SKIP: EAL did not start" >&2
		exit 77
	fi
	echo "$out" | grep '^{"topology"' | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print("%.3f %d %d" % (r["forwarded"] / r["seconds"] / r["workers"] / 1e6,
                      r["fabric_drops"], r["lost"]))'
}

summary=""
for spec in $SPECS; do
	echo "flow-control bench: $spec, ${SECONDS_EACH}s per run, $PAIRS pairs"
	printf "%-5s %-4s %14s %13s %10s\n" pair fc "Mpps/worker" fabric_drops lost
	ratios=""
	for p in $(seq "$PAIRS"); do
		on=""
		for fc in on off; do
			res=$(run "$spec" $fc)
			rc=$?
			[ $rc -eq 77 ] && exit 77
			[ -n "$res" ] || { echo "FAIL: $spec, flow control $fc"; exit 1; }
			set -- $res
			printf "%-5s %-4s %14s %13s %10s\n" "$p" "$fc" "$1" "$2" "$3"
			if [ $fc = on ]; then on=$1; else ratios="$ratios $on/$1"; fi
		done
	done
	line=$(python3 -c "
import statistics, sys
r = sorted(eval(x) for x in '$ratios'.split())
on = [float(x.split('/')[0]) for x in '$ratios'.split()]
off = [float(x.split('/')[1]) for x in '$ratios'.split()]
print('%-22s on %.3f off %.3f Mpps per worker (medians); on/off %.3f '
      '(median of %d pairs, %.3f to %.3f): cost %.1f%%'
      % ('$spec', statistics.median(on), statistics.median(off),
         statistics.median(r), len(r), r[0], r[-1],
         100 * (1 - statistics.median(r))))")
	echo "$line"
	summary="$summary$line
"
done
echo
echo "flow control on against off, per fabric:"
printf "%s" "$summary"
