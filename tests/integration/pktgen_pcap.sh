#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The frames pktgen would replay reach a dcnfwd relay and come out the way
# the topology routes them: dcn-pktgen writes a pcap of transit fabric
# frames (as (0,0) sends them to relay (1,0)) and one of host frames;
# dcnfwd reads each through DPDK's pcap PMD, a port facing a tester
# (hellos = no, credits = no), flow control on, and writes what it sends
# to another pcap. Checks: every frame comes out, on the expected port,
# as a fabric frame.
# Usage: pktgen_pcap.sh DCNFWD DCN_TOPO DCN_GEN  (exit 77: cannot run here)
set -u
DCNFWD=$1
TOPO=$2
GEN=$3
PKTGEN=$(dirname "$0")/../../tools/pktgen/dcn-pktgen
SPEC=novacube:k=8,n=2
dir=$(mktemp -d /tmp/dcn-pcap.XXXXXX)
prefix="dcn-pp-$$"
trap 'rm -rf "$dir" "/var/run/dpdk/$prefix"' EXIT

count() { # pcap [udp]: frames and how many are fabric data frames (in the
	# fabric EtherType, or with udp in IPv4/UDP to port 34997)
	python3 - "$1" "${2:-ether}" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
off, n, fab = 24, 0, 0
while off + 16 <= len(d):
    cl = struct.unpack("<I", d[off + 8:off + 12])[0]
    f = d[off + 16:off + 16 + cl]
    off += 16 + cl
    n += 1
    if sys.argv[2] == "udp":
        fab += (f[12:14] == b"\x08\x00" and f[14] == 0x45 and f[23] == 17 and
                struct.unpack(">H", f[36:38])[0] == 34997 and
                struct.unpack(">H", f[16:18])[0] == len(f) - 14 and
                (f[42] & 0x0f) == 1)
    else:
        fab += f[12:14] == b"\x88\xb5" and (f[14] & 0x0f) == 1
print(n, fab)
PY
}

relay() { # in.pcap out.pcap in-port-conf [fabric-lines]
	cat > "$dir/relay.ini" <<CONF
[fabric]
topology = $SPEC
node = (1,0)
role = relay
partial = yes
algo = dor
${4:-}
$3
[port.east]
dev = net_pcap1,tx_pcap=$2
fabric_port = 0
hellos = no
credits = no
[worker.0]
lcore = 1
rx = west:0, east:0
[queues]
mbufs = 8191
CONF
	if ! out=$("$DCNFWD" -l 0-1 --no-huge -m 256 --no-pci --file-prefix "$prefix" \
		--log-level=4 -- --config "$dir/relay.ini" --duration 2 --stats 0 2>&1); then
		if grep -q "EAL init failed" <<< "$out"; then
			echo "SKIP: EAL did not start"; exit 77
		fi
		echo "FAIL: dcnfwd: $out"; exit 1
	fi
	rm -rf "/var/run/dpdk/$prefix"
	echo "$out" | grep -E "frames in|west|east"
}

# Transit: fabric frames in on the -x cable, out on +x.
"$PKTGEN" --dcn-topo "$TOPO" --dcn-gen "$GEN" --algo dor pcap $SPEC "(1,0)" --kind transit \
	--from "(0,0)" --port 0 --count 1000 --out "$dir/transit.pcap" || exit 1
read -r n fab < <(count "$dir/transit.pcap")
echo "transit.pcap: $n frames, $fab fabric data frames"
# pktgen reads only the classic pcap format (microseconds, a1b2c3d4).
magic=$(od -An -tx4 -N4 "$dir/transit.pcap" | tr -d ' ')
[ "$magic" = a1b2c3d4 ] || { echo "FAIL: transit.pcap magic $magic, pktgen reads a1b2c3d4"; exit 1; }
[ "$n" -eq 1000 ] && [ "$fab" -eq 1000 ] || { echo "FAIL: transit.pcap"; exit 1; }
relay "$dir/transit.pcap" "$dir/out1.pcap" "[port.west]
dev = net_pcap0,rx_pcap=$dir/transit.pcap
fabric_port = 1
hellos = no
credits = no"
read -r n fab < <(count "$dir/out1.pcap")
# A port facing a tester (hellos = no) gets no hellos either: what the
# tester counts back is its own frames, all of them.
echo "relay sent on +x: $n frames, $fab fabric data frames"
[ "$fab" -eq 1000 ] || { echo "FAIL: $fab of 1000 transit frames came out"; exit 1; }
[ "$n" -eq 1000 ] || { echo "FAIL: $((n - fab)) frames besides the data on a hellos = no port"; exit 1; }

# Host traffic: IPv4 into the host port, encapsulated out of +x.
"$PKTGEN" --dcn-topo "$TOPO" --dcn-gen "$GEN" --algo dor pcap $SPEC "(1,0)" --kind host \
	--port 0 --count 1000 --out "$dir/host.pcap" || exit 1
relay "$dir/host.pcap" "$dir/out2.pcap" "[port.west]
dev = net_pcap0,rx_pcap=$dir/host.pcap
host = yes"
read -r n fab < <(count "$dir/out2.pcap")
echo "relay sent on +x: $n frames, $fab fabric data frames"
[ "$fab" -eq 1000 ] || { echo "FAIL: $fab of 1000 host frames encapsulated"; exit 1; }
[ "$n" -eq 1000 ] || { echo "FAIL: $((n - fab)) frames besides the data on a hellos = no port"; exit 1; }

# encap = udp: the same transit frames in IPv4/UDP, through a relay of
# that format, come out in it.
"$PKTGEN" --dcn-topo "$TOPO" --dcn-gen "$GEN" --algo dor pcap $SPEC "(1,0)" --kind transit \
	--from "(0,0)" --port 0 --count 1000 --encap udp --out "$dir/transit-udp.pcap" || exit 1
read -r n fab < <(count "$dir/transit-udp.pcap" udp)
echo "transit-udp.pcap: $n frames, $fab fabric data frames in IPv4/UDP"
[ "$n" -eq 1000 ] && [ "$fab" -eq 1000 ] || { echo "FAIL: transit-udp.pcap"; exit 1; }
relay "$dir/transit-udp.pcap" "$dir/out3.pcap" "[port.west]
dev = net_pcap0,rx_pcap=$dir/transit-udp.pcap
fabric_port = 1
hellos = no
credits = no" "encap = udp"
read -r n fab < <(count "$dir/out3.pcap" udp)
echo "relay (encap = udp) sent on +x: $n frames, $fab fabric data frames in IPv4/UDP"
[ "$fab" -eq 1000 ] || { echo "FAIL: $fab of 1000 transit frames came out in IPv4/UDP"; exit 1; }
[ "$n" -eq 1000 ] || { echo "FAIL: $((n - fab)) frames besides the data"; exit 1; }
# Wireshark's view of both formats (tools/wireshark/dcnfwd.lua): each
# frame decoded as a fabric data frame, and said to be in its format.
LUA=$(dirname "$0")/../../tools/wireshark/dcnfwd.lua
if command -v tshark >/dev/null; then
	for f in out2:ether transit-udp:udp out3:udp; do
		n=$(tshark -X lua_script:"$LUA" -r "$dir/${f%%:*}.pcap" -T fields \
			-e dcn.encap -e dcn.type 2>/dev/null | grep -c "^${f#*:}	1$")
		echo "tshark: ${f%%:*}.pcap: $n of 1000 frames decoded as data in encap = ${f#*:}"
		[ "$n" -eq 1000 ] || { echo "FAIL: the dissector on ${f%%:*}.pcap"; exit 1; }
	done
else
	echo "tshark is not installed: the dissector is not checked here (capture checks it)"
fi
echo "pktgen's frames, replayed through the pcap PMD, all forwarded"
