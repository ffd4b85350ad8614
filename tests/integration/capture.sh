#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dpdk-dumpcap captures a running relay's cable, and tshark with dcnfwd's
# dissector (tools/wireshark/dcnfwd.lua) reads it as fabric frames.
# Two NovaCube relays from configuration files on a memif cable, flow
# control on, dcn-gen's traffic crossing them; dumpcap (a DPDK secondary
# process, so the relays run on hugepages this test reserves in a
# hugetlbfs mount of its own) captures relay (0,0)'s cable. Checks, field
# by field: a data frame (version, type, VC, TTL, fabric source and
# destination, payload length, and the IPv4 packet inside with the
# generator's addresses), a credit frame (its grant the one the peer's
# /dcn/fc reports, its VCs, per-VC counts), a hello (its sender's
# address and port), and, the relays sharing a fabric key, the trailer
# of every control frame. Both wire formats, one after the other: the
# fabric header after Ethernet (encap = ether), and in IPv4/UDP to the
# fabric's port (encap = udp), each frame decoded in the format it came in.
# Usage: capture.sh DCNFWD DCN_GEN DCN_TOPO  (exit 77: cannot run here)
set -u
DCNFWD=$1
GEN=$2
TOPO=$3
HERE=$(dirname "$0")
ROOT=$(cd "$HERE/../.." && pwd)
TELEMETRY=$ROOT/tools/dcn-telemetry
LUA=$ROOT/tools/wireshark/dcnfwd.lua
NR=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
PAGES=512
dir=$(mktemp -d /tmp/dcn-capture.XXXXXX)
prefixes=("dcn-cap-a-$$" "dcn-cap-b-$$" "dcn-cap-g-$$")
pids=()
old_nr=
mounted=

skip() { echo "SKIP: $*"; exit 77; }
gen=
cleanup() {
	stop_relays 2>/dev/null
	[ -n "$gen" ] && gen_stop "$gen" 2>/dev/null
	[ -n "$mounted" ] && umount "$dir/huge"
	[ -n "$old_nr" ] && echo "$old_nr" > $NR
	for f in "${prefixes[@]}"; do
		rm -rf "/var/run/dpdk/$f"
	done
	rm -rf "$dir"
}
trap cleanup EXIT
. "$HERE/memif_pair.sh"

[ "$(id -u)" = 0 ] || skip "needs root for hugepages"
command -v dpdk-dumpcap >/dev/null || skip "dpdk-dumpcap is not installed (package dpdk)"
command -v tshark >/dev/null || skip "tshark is not installed (tools/install-deps.sh)"
[ -w $NR ] || skip "no 2 MB hugepages here"
old_nr=$(cat $NR)
echo $((old_nr + PAGES)) > $NR 2>/dev/null
[ "$(cat $NR)" -ge $((old_nr + PAGES)) ] || skip "could not reserve $PAGES hugepages"
mkdir "$dir/huge"
mount -t hugetlbfs -o pagesize=2M nodev "$dir/huge" || skip "cannot mount hugetlbfs"
mounted=1

# input_queue = 0: on its cable a relay takes 1024 slots (819 granted),
# which its credit frames and /dcn/fc say (checked below).
relay_conf() { # file node cable-port cable-role encap
	pair_conf "$1" "$2" "$3" "$4" 0 512 "key_file = $dir/fabric.key
encap = $5"
}
wait_for() { # log
	pair_wait "$1"
	case $? in 0) ;; 77) exit 77 ;; *) exit 1 ;; esac
}
start_relay() { # index ini log
	pair_start "$@" -l 0-1 --no-pci --huge-dir "$dir/huge" -m 256 --log-level=5
}
links_up() { # index
	local i
	for i in $(seq 50); do
		python3 "$TELEMETRY" -p "${prefixes[$1]}" /dcn/links 2>/dev/null |
			grep -q '"state": "up"' && return 0
		sleep 0.1
	done
	echo "FAIL: relay $1's cable did not come up"; exit 1
}

# Signed control frames: the dissector shows their trailers too.
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$dir/fabric.key"
chmod 600 "$dir/fabric.key"
# capture ENCAP: the two relays in that wire format, a capture of (0,0)'s
# cable under traffic, and the dissector's reading of it.
capture() {
relay_conf "$dir/a.ini" "(0,0)" 0 server "$1"
relay_conf "$dir/b.ini" "(1,0)" 1 client "$1"
start_relay 0 a.ini a
wait_for a
start_relay 1 b.ini b
wait_for b
links_up 0
links_up 1

"$GEN" -l 0 --no-huge -m 256 --no-pci --log-level=5 \
	--file-prefix="${prefixes[2]}" -- \
	--tx "net_memif0,role=client,socket=$dir/host-0.sock" \
	--rx "net_memif1,role=client,socket=$dir/host-1.sock" \
	--src "$SRC_ADDR" --dst "$DST_ADDR" --rate 5000 --duration 5 --linger 1 \
	--json --hold > "$dir/gen.json" 2> "$dir/gen.log" &
gen=$!
sleep 1
# Relay (0,0)'s cable, both directions: its data frames and hellos out,
# (1,0)'s credit frames and hellos in.
rm -f "$dir/cable.pcapng"
timeout 20 dpdk-dumpcap -q --file-prefix="${prefixes[0]}" -i net_memif0 \
	-a duration:2 -w "$dir/cable.pcapng" > "$dir/dumpcap.log" 2>&1
rc=$?
python3 "$TELEMETRY" -p "${prefixes[1]}" /dcn/fc > "$dir/fc-b.json" 2>&1
gen_reported "$dir/gen.json" "$gen"
stop_relays
gen_stop "$gen"
gen=
cat "$dir/dumpcap.log"
if [ $rc -ne 0 ] || [ ! -s "$dir/cable.pcapng" ]; then
	echo "FAIL: dpdk-dumpcap exited $rc"; tail -20 "$dir/a.log"; exit 1
fi

tshark -X lua_script:"$LUA" -r "$dir/cable.pcapng" -T fields -E separator=';' \
	-e dcn.version -e dcn.type -e dcn.vc -e dcn.ttl -e dcn.src -e dcn.dst \
	-e dcn.len -e ip.src -e ip.dst -e ip.len \
	-e dcn.credit.grant -e dcn.credit.vcs -e dcn.credit.freed \
	-e dcn.hello.addr -e dcn.hello.port -e dcn.auth.seq -e dcn.auth.tag \
	-e dcn.encap -e udp.dstport \
	> "$dir/fields.txt" 2> "$dir/tshark.err"
rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: tshark exited $rc"; cat "$dir/tshark.err"; exit 1
fi
tshark -X lua_script:"$LUA" -r "$dir/cable.pcapng" -V -c 400 2>/dev/null |
	grep -m1 -B2 -A26 "dcnfwd fabric, credit"
python3 - "$dir" "$SRC_ADDR" "$DST_ADDR" "$1" <<'PY'
import json, sys
d, src, dst, encap = sys.argv[1:5]
rows = [l.rstrip("\n").split(";") for l in open(d + "/fields.txt")]
# In encap = udp an IPv4 field lists the outer header's value first, the
# inner packet's last.
rows = [[x.split(",")[-1] if i in (7, 8, 9) else x for i, x in enumerate(r)]
        for r in rows]
fc = json.load(open(d + "/fc-b.json"))
# (1,0)'s grant toward (0,0) on its cable, as its /dcn/fc says.
grants = {c["grant"] for node in fc.values() if isinstance(node, dict)
          for c in node.values()
          if isinstance(c, dict) and c.get("kind") == "credit" and "grant" in c}
data = [r for r in rows if r[1] == "1"]
credit = [r for r in rows if r[1] == "2"]
hello = [r for r in rows if r[1] == "3"]
print("%s: captured %d frames: %d data, %d credit, %d hello; (1,0)'s grants %s"
      % (encap, len(rows), len(data), len(credit), len(hello), sorted(grants)))
ok = True
def check(cond, msg):
    global ok
    if not cond:
        print("FAIL:", msg)
        ok = False
check(grants == {819}, "(1,0)'s grant on its cable %s, not 819 (input_queue "
      "= 0: 1024 slots on a cable, 80%% granted)" % sorted(grants))
check(len(data) > 100, "only %d data frames decoded" % len(data))
check(len(credit) > 0, "no credit frame decoded")
check(len(hello) > 0, "no hello decoded")
for r in data[:50]:
    ver, typ, vc, ttl, fsrc, fdst, flen, isrc, idst, ilen = r[:10]
    check(ver == "1" and vc == "0" and 0 < int(ttl) < 64,
          "data frame header %s" % r[:4])
    check(fsrc == src and fdst == dst, "data frame %s -> %s, wanted %s -> %s"
          % (fsrc, fdst, src, dst))
    check(isrc == src and idst == dst and flen == ilen,
          "inner IPv4 %s -> %s length %s (fabric length %s)" %
          (isrc, idst, ilen, flen))
for r in credit:
    grant, vcs, freed = r[10], r[11], r[12]
    check(int(vcs) >= 1 and len(freed.split(",")) == int(vcs),
          "credit frame VCs %s, freed %s" % (vcs, freed))
    check(int(grant) in grants, "credit frame grant %s, (1,0) reports %s" %
          (grant, sorted(grants)))
# Under the fabric key every control frame ends in its trailer (writer's
# sequence, 16-byte tag); data frames carry none.
check(all(r[15] and len(r[16].replace(":", "")) == 32 for r in credit + hello),
      "a control frame without a trailer: %s" %
      [r for r in credit + hello if not r[15]][:2])
check(not any(r[15] for r in data), "a data frame with a trailer")
check(any(r[13] == dst and r[14] == "1" for r in hello),
      "no hello from (1,0) %s port 1 (hellos: %s)" % (dst, hello[:2]))
check(any(r[13] == src and r[14] == "0" for r in hello),
      "no hello from (0,0) %s port 0" % src)
# Each fabric frame decoded in the format it came in: in encap = udp,
# from the UDP datagrams to the fabric's port.
fabric = data + credit + hello
check(all(r[17] == encap for r in fabric),
      "frames not decoded as %s: %s" % (encap, [r[17] for r in fabric][:3]))
check(encap == "ether" or all("34997" in r[18].split(",") for r in fabric),
      "udp: a fabric frame not to UDP port 34997: %s" %
      [r[18] for r in fabric][:3])
sys.exit(0 if ok else 1)
PY
}

capture ether || exit 1
for f in "${prefixes[@]}"; do rm -rf "/var/run/dpdk/$f"; done
capture udp || exit 1
