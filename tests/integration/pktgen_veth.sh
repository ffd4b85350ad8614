#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Pktgen-DPDK itself against a relay, as the README's one-machine setup
# runs it (tools/pktgen/veth-relay): host traffic from rate-steps.lua,
# then transit frames from dcn-pktgen's pcap. Debian has no pktgen: this
# runs when PKTGEN names a pktgen binary (or one is on PATH), else skips.
#
#   pktgen_veth.sh VETH_RELAY BUILD_DIR
set -u
veth=$1 build=$2
pktgen=${PKTGEN:-$(command -v pktgen)}
if [ -z "$pktgen" ]; then
	echo "SKIP: no pktgen (PKTGEN=.../build/app/pktgen; README, \"pktgen\")"
	exit 77
fi
export DCN_STEP_MS=${DCN_STEP_MS:-500}
"$veth" "$pktgen" --build "$build" --kind host || exit $?
"$veth" "$pktgen" --build "$build" --kind transit
