#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Three DPDK processes joined by memif: dcn-gen sends host traffic into
# relay (0,0) of a NovaCube, which carries it in the fabric header over a
# memif cable to relay (1,0), which delivers it out of its host port back
# to dcn-gen. Both relays run from configuration files (the appliance's
# own path: devargs, port setup, workers, hellos). Checks: every frame
# arrives, in order, and the per-port counters show the path.
# Usage: memif_relay.sh DCNFWD DCN_GEN DCN_TOPO  (exit 77: cannot run here)
set -u
DCNFWD=$1
GEN=$2
TOPO=$3
HERE=$(dirname "$0")
TELEMETRY=$HERE/../../tools/dcn-telemetry
dir=$(mktemp -d /tmp/dcn-memif.XXXXXX)
pids=()
prefixes=("dcn-mr-a-$$" "dcn-mr-b-$$" "dcn-mr-g-$$")
. "$HERE/memif_pair.sh"
SPEC=$PAIR_SPEC

gen=
cleanup() {
	stop_relays 2>/dev/null
	[ -n "$gen" ] && gen_stop "$gen" 2>/dev/null
	for f in "${prefixes[@]}"; do
		rm -rf "/var/run/dpdk/$f"
	done
	rm -rf "$dir"
}
trap cleanup EXIT

# Both relays' workers share CPU 1, on a shared machine. When one stops
# for some milliseconds, its peer runs out of credits and its host
# port's input queue fills: at 256 slots (12 ms of this test's 20 kpps)
# a stall once dropped 81 frames there, counted as in_drop at the edge.
# 4096 slots hold 200 ms.
relay_conf() { # file node cable-port cable-role
	pair_conf "$@" 4096 8192
}
EAL=(-l 0-1 --no-huge -m 256 --no-pci --log-level=5)
start_relay() { # prefix-index ini log
	pair_start "$@" "${EAL[@]}"
}
poll_telemetry() { # prefix-index command pattern; leaves the reply in $tel
	local i
	for i in $(seq 50); do
		tel=$(python3 "$TELEMETRY" -p "${prefixes[$1]}" "$2" 2>&1)
		grep -q "$3" <<< "$tel" && return 0
		sleep 0.1
	done
	return 1
}
relay_conf "$dir/a.ini" "(0,0)" 0 server
relay_conf "$dir/b.ini" "(1,0)" 1 client

# A memif client needs its server's socket: start in order, each relay
# once it says it is up.
start_relay 0 a.ini a
pair_wait a || exit $?
start_relay 1 b.ini b
pair_wait b || exit $?

# Telemetry: each relay learnt the other from its hellos.
if ! poll_telemetry 0 /dcn/neighbours '"last_hello_from": "(1,0)"'; then
	echo "FAIL: (0,0) did not learn (1,0): $tel"; exit 1
fi
# Traffic starts once both ends route over the cable: a hello can arrive
# before the memif carrier is seen up, and the link waits for both.
for r in 0 1; do
	if ! poll_telemetry $r /dcn/links '"state": "up"'; then
		echo "FAIL: relay $r: the cable's link did not come up: $tel"; exit 1
	fi
done

# Each relay follows the flow's next 3 frames (/dcn/trace): the first
# relay's hops leave by the cable, the second's by its host port.
for r in 0 1; do
	python3 "$TELEMETRY" -p "${prefixes[$r]}" "/dcn/trace,$SRC_ADDR $DST_ADDR 3" \
		> /dev/null || { echo "FAIL: /dcn/trace on relay $r"; exit 1; }
done
"$GEN" -l 0 --no-huge -m 256 --no-pci --log-level=5 \
	--file-prefix="${prefixes[2]}" -- \
	--tx "net_memif0,role=client,socket=$dir/host-0.sock" \
	--rx "net_memif1,role=client,socket=$dir/host-1.sock" \
	--src "$SRC_ADDR" --dst "$DST_ADDR" --rate 20000 --duration 3 --linger 1 \
	--json --hold > "$dir/gen.json" 2> "$dir/gen.log" &
gen=$!
gen_reported "$dir/gen.json" $gen
for r in 0 1; do
	python3 "$TELEMETRY" -p "${prefixes[$r]}" /dcn/trace > "$dir/trace$r.json" || true
done
python3 - "$dir" <<'PY' || exit 1
import json, re, sys
d = sys.argv[1]
ok = True
for r, node, cls, out in ((0, "(0,0)", "host", "cable"), (1, "(1,0)", "fabric", "host")):
    reply = json.load(open("%s/trace%d.json" % (d, r)))["/dcn/trace"]
    hops = [reply[str(k)] for k in range(reply["hops"])]
    frames = {h["frame"] for h in hops}
    good = [h for h in hops if h["node"] == node and h["class"] == cls and
            h["out"].endswith(out) and h["why"] == "-" and h["queued"] >= 0]
    print("relay %s traced: %s" % (node, hops[:1]))
    if len(hops) != 3 or len(frames) != 3 or len(good) != 3:
        print("FAIL: relay %s: 3 frames, one hop each, %s in, out by %s: %s"
              % (node, cls, out, hops))
        ok = False
sys.exit(0 if ok else 1)
PY
stop_relays
gen_stop $gen
rc=$?
gen=
if [ $rc -ne 0 ]; then
	echo "FAIL: dcn-gen exited $rc"; cat "$dir/gen.log"; exit 1
fi
cat "$dir/gen.json"
python3 - "$dir" <<'PY'
import json, re, sys
d = sys.argv[1]
g = json.load(open(d + "/gen.json"))
def ports(log):
    t = {}
    for l in open(d + "/" + log):
        # port, rx, tx, tx_drop, in_drop
        m = re.match(r"\s+(cable|host)\s+(\d+)\s+(\d+)\s+(\d+)\s+\d+$", l)
        if m:
            t[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4))
    return t
a, b = ports("a.log"), ports("b.log")
print("relay (0,0) ports (rx, tx, tx_drop):", a)
print("relay (1,0) ports (rx, tx, tx_drop):", b)
sent = g["sent"]
ok = True
def check(cond, msg):
    global ok
    if not cond:
        print("FAIL:", msg); ok = False
check(sent > 20000, "only %d frames sent" % sent)
check(g["received"] == sent and g["lost"] == 0, "sent %d received %d" % (sent, g["received"]))
check(g["reordered"] == 0, "%d reordered" % g["reordered"])
check(a.get("host", (0,))[0] == sent, "(0,0) host port received %s" % (a.get("host"),))
# The cable carries the data plus hellos; the data is all of it.
check(a.get("cable", (0, 0))[1] >= sent, "(0,0) cable sent %s" % (a.get("cable"),))
check(b.get("cable", (0,))[0] >= sent, "(1,0) cable received %s" % (b.get("cable"),))
# The host port also sends the relay's ARP probes for its host's MAC,
# a few, which dcn-gen does not answer.
check(0 <= b.get("host", (0, 0))[1] - sent <= 8, "(1,0) host port sent %s" % (b.get("host"),))
for log in ("a.log", "b.log"):
    text = open(d + "/" + log).read()
    check("encapsulated" in text, "%s has no final counters" % log)
    check(re.search(r"hello .*refused", text) is None, "%s refused a hello" % log)
    # What its worker's loops cost: some loops had work, each took at
    # least a frame, and those frames took time.
    m = re.search(r"worker loops (\d+), (\d+) with work: ([\d.]+) frames in "
                  r"and (\d+) TSC cycles per frame", text)
    check(m is not None, "%s has no worker loop figures" % log)
    if m:
        loops, busy, per, cycles = int(m[1]), int(m[2]), float(m[3]), int(m[4])
        check(0 < busy <= loops and per >= 1 and cycles > 0,
              "%s worker loop figures: %s" % (log, m[0]))
if not ok:
    # Where frames went: each relay's final counters and drop reasons.
    for log in ("a.log", "b.log"):
        print("--- %s, last lines ---" % log)
        print("".join(open(d + "/" + log).readlines()[-45:]))
sys.exit(0 if ok else 1)
PY
[ $? -eq 0 ] || exit 1

# Transit traffic: dcn-gen plays relay (0,0) and sends fabric data frames
# straight into (1,0)'s cable; (1,0) decapsulates them to its host port.
sed 's/^dev = net_memif1,role=server/dev = net_memif1,role=client/' \
	"$dir/b.ini" > "$dir/b2.ini"
"$GEN" -l 0 --no-huge -m 256 --no-pci --log-level=5 \
	--file-prefix="${prefixes[2]}" -- \
	--tx "net_memif0,role=server,socket=$dir/cable.sock" \
	--rx "net_memif1,role=server,socket=$dir/host-1.sock" \
	--fabric $SPEC --src "$SRC_ADDR" --dst "$DST_ADDR" --rate 20000 \
	--duration 2 --linger 1 --json > "$dir/gen2.json" 2> "$dir/gen2.log" &
gen=$!
sleep 0.5
start_relay 1 b2.ini b
wait "$gen"
rc=$?
stop_relays
if [ $rc -ne 0 ]; then
	echo "FAIL: dcn-gen --fabric exited $rc"; cat "$dir/gen2.log"; exit 1
fi
cat "$dir/gen2.json"
python3 - "$dir" <<'PY' || exit 1
import json, re, sys
d = sys.argv[1]
g = json.load(open(d + "/gen2.json"))
text = open(d + "/b.log").read()
m = re.search(r"decapsulated (\d+)", text)
decap = int(m.group(1)) if m else -1
ok = g["sent"] > 10000 and g["received"] == g["sent"] and decap == g["sent"]
print("fabric frames: sent %d, delivered %d, decapsulated at (1,0) %d" %
      (g["sent"], g["received"], decap))
sys.exit(0 if ok else 1)
PY

# Miscabled: (1,0) believes the cable is its +y port (2), where the
# topology puts (1,1). Both ends refuse the other's hellos and say so.
sed -i 's/^fabric_port = 1$/fabric_port = 2/' "$dir/b.ini"
start_relay 0 a.ini a
pair_wait a || exit $?
start_relay 1 b.ini b
pair_wait b || exit $?
poll_telemetry 1 /dcn/stats '"hello_refused": [1-9]'
refused=$?
stop_relays
if [ $refused -ne 0 ]; then
	echo "FAIL: miscabled (1,0) refused nothing: $tel"; exit 1
fi
if ! grep -q "hello from (0,0) refused: the topology puts another node" "$dir/b.log" ||
   ! grep -q "hello from (1,0) refused" "$dir/a.log"; then
	echo "FAIL: refusal not logged"; cat "$dir/a.log" "$dir/b.log"; exit 1
fi
grep -h "refused" "$dir/a.log" "$dir/b.log" | head -2
echo "miscabled port refused at both ends"
