#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Pktgen-DPDK itself against a relay, as doc/tools.md's one-machine setups
# run it (tools/pktgen/pktgen-relay): through memif ports (pktgen with
# dcn-mtu-shim.so) and through veth pairs, host traffic from
# rate-steps.lua, then transit frames from dcn-pktgen's pcap. Debian has
# no pktgen: this runs when PKTGEN names a pktgen binary (or one is on
# PATH), else skips.
#
#   pktgen_relay.sh PKTGEN_RELAY BUILD_DIR
set -u
relay=$1 build=$2
pktgen=${PKTGEN:-$(command -v pktgen)}
if [ -z "$pktgen" ]; then
	echo "SKIP: no pktgen (PKTGEN=.../build/app/pktgen; doc/tools.md, \"pktgen\")"
	exit 77
fi
export DCN_STEP_MS=${DCN_STEP_MS:-500}
for via in memif veth; do
	for kind in host transit; do
		"$relay" "$pktgen" --build "$build" --via "$via" --kind "$kind" || exit $?
	done
done
