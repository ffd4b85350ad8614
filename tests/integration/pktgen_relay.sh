#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Pktgen-DPDK itself against a relay, as doc/tools.md's one-machine setups
# run it (tools/pktgen/pktgen-relay): through memif ports (pktgen with
# dcn-mtu-shim.so) and through veth pairs; host traffic from
# rate-steps.lua, transit frames from dcn-pktgen's pcap, and those again
# through a relay with flow control on, to which pktgen returns no
# credits. Every step sends a fixed count of frames, and each one is
# accounted for: received, missed by pktgen, counted by the relay, or
# held in its queues (tools/pktgen/pktgen-account). Debian has no
# pktgen: this runs when PKTGEN names a pktgen binary (or one is on
# PATH; .ci/run hands it the project's), else skips.
#
#   pktgen_relay.sh PKTGEN_RELAY BUILD_DIR
set -u
relay=$1 build=$2
pktgen=${PKTGEN:-$(command -v pktgen)}
if [ -z "$pktgen" ]; then
	echo "SKIP: no pktgen (PKTGEN=.../build/app/pktgen; doc/tools.md, \"pktgen\")"
	exit 77
fi
# Host traffic in the smallest and largest frames a tester sends, at 5%
# of line rate; 10,000 frames a step (tools/pktgen/pktgen-relay runs
# any sizes and rates: DCN_SIZES, DCN_RATES).
export DCN_SIZES=${DCN_SIZES:-64,1498} DCN_RATES=${DCN_RATES:-5}
# The first run names pktgen by a path relative to here, as a user who
# built it beside the project would (../shared/pktgen/pktgen).
pktgen=$(realpath --relative-to=. "$pktgen")
# A run whose only fault is pktgen's own sending (now and then, on veth,
# it sends nothing or a few frames of the pcap and stops: the relay takes
# and accounts for all it was sent) runs once more, and says so; any
# fault of the relay's fails at once.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for via in memif veth; do
	for kind in host transit "transit --fc"; do
		for try in 1 2; do
			# shellcheck disable=SC2086
			"$relay" "$pktgen" --build "$build" --via "$via" --kind $kind \
				--count 10000 2>&1 | tee "$out"
			rc=${PIPESTATUS[0]}
			[ "$rc" -eq 0 ] && break
			if [ "$try" -eq 1 ] && grep -q "^FAIL: " "$out" &&
			   ! grep "^FAIL: " "$out" | grep -qv "pktgen sent [0-9]* of the [0-9]* frames asked\|pktgen sent nothing"; then
				echo "pktgen did not send what was asked ($via, $kind): once more"
				continue
			fi
			exit "$rc"
		done
		pktgen=$(realpath "$pktgen")
	done
done
