#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install what dcnfwd needs to build and test on Debian 12. Idempotent:
# does nothing when every package is already there. Needs root (or sudo).
set -euo pipefail

PKGS=(
	build-essential pkg-config meson ninja-build  # build
	libcmocka-dev                                 # unit tests
	libdpdk-dev dpdk                              # data path
	libsodium-dev                                 # fabric key (keyed BLAKE2b)
	dpdk-dev dpdk-doc                             # bench peers: testpmd, l3fwd
	libbpf-dev clang llvm libclang-rt-14-dev      # XDP program, fuzzers
	iproute2 procps python3 bpftool               # fabric scripts
	iperf3 iputils-ping                           # fabric tests: kernel traffic
	faketime                                      # fabric tests: a relay's clock moved
	gnuplot-nox                                   # benchmark plots
	valgrind                                      # instructions per frame (callgrind)
	linux-perf                                    # where the time goes (cycles.py)
	graphviz                                      # dcn-plan's fabric pictures
	man-db                                        # install test: man shows the pages
	prometheus tshark                             # tests: promtool, the dissector
	liblua5.3-0 libpcap0.8                        # what Pktgen needs to run (PKTGEN)
	libns3-dev libgsl-dev libsqlite3-dev libxml2-dev  # dcn-sim: ns-3 3.37 (its .pc files name the last three)
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all packages present"
	exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
echo "install-deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
	"${missing[@]}" >/dev/null
echo "install-deps: done"
