#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install, build, and run dcnfwd on its embedded default: every node of a
# small fabric in one process (cables are rings, L2 switches and hosts are
# emulated), each host sending stamped traffic, with live figures each
# second. No NIC and no hugepages needed. Stops after DURATION seconds or
# on Ctrl-C, then prints delivery, loss and latency.
#
#   tools/run.sh                         RRect(4,2,1): 32 relays, 8 switches
#   SPEC=novacube:k=8,n=2 tools/run.sh   any spec (dcn-topo --help)
#   RATE=20000 DURATION=60 tools/run.sh  frames per second per host; seconds
set -euo pipefail
cd "$(dirname "$0")/.."

SPEC=${SPEC:-rrect:n=4,m=2,k=1}
RATE=${RATE:-5000}
DURATION=${DURATION:-20}
BUILD=${BUILD:-build}

tools/install-deps.sh
if [ -d "$BUILD" ]; then
	meson setup --reconfigure "$BUILD" >/dev/null
else
	meson setup "$BUILD" >/dev/null
fi
ninja -C "$BUILD"

prefix="dcnfwd-run-$$"
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT
echo "run.sh: dcnfwd runs with --file-prefix=$prefix; while it runs:" \
	"tools/dcn-telemetry -p $prefix /dcn/stats"
# Log level 6 (NOTICE): a link's down and up lines show.
"$BUILD/app/dcnfwd/dcnfwd" -l 0-1 --no-huge -m 1024 --no-pci \
	--file-prefix="$prefix" --log-level=6 -- \
	--emulate "$SPEC" --rate "$RATE" --duration "$DURATION"
