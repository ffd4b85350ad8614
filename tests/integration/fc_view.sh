#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dcn-fcview reads a running dcnfwd's flow-control queues from shared
# memory as a DPDK secondary process. The primary needs hugepages (a
# --no-huge process shares no memory), so this test reserves some in a
# hugetlbfs mount of its own and gives back what it took.
# Checks, on NovaCube (cables) and RRect (relays behind L2 switches):
# every node and channel is there (a channel per (neighbour, VC) behind a
# switch, the neighbour named), links hold credits granted by their
# peers, and the sent counters move between two reads. A node's VCs are
# the ones dcn-topo's model gives its routing (dcn-topo cdg). Two
# workers share the nodes, so each output queue has slots for a burst the
# other has staged beyond what its inputs' thresholds admit.
# Usage: fc_view.sh DCNFWD DCN_FCVIEW DCN_TOPO  (exit 77: cannot run here)
set -u
DCNFWD=$1
VIEW=$2
TOPO=$3
NR=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
prefix="dcn-fcv-$$"
dir=$(mktemp -d /tmp/dcn-fcview.XXXXXX)
pid=
old_nr=
mounted=

skip() { echo "SKIP: $*"; exit 77; }
cleanup() {
	if [ -n "$pid" ]; then
		kill -INT "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	[ -n "$mounted" ] && umount "$dir/huge"
	[ -n "$old_nr" ] && echo "$old_nr" > $NR
	rm -rf "/var/run/dpdk/$prefix" "$dir"
}
trap cleanup EXIT

# Where it cannot attach, it says why: no such process, or a primary
# whose memory has no files to map (here --no-huge), named with its PID.
out=$("$VIEW" --file-prefix "$prefix-none" 2>&1)
if ! grep -q "no DPDK process runs with --file-prefix $prefix-none" <<<"$out" ||
   [ -e "/var/run/dpdk/$prefix-none" ]; then
	echo "FAIL: no process: $out"; exit 1
fi
"$DCNFWD" -l 0-1 --no-huge -m 512 --no-pci --file-prefix "$prefix" --log-level=4 \
	-- --emulate rrect:n=2,m=2,k=1 --rate 100 --duration 30 --stats 0 \
	> "$dir/nohuge.log" 2>&1 &
pid=$!
for i in $(seq 100); do
	grep -q "knows its neighbours" "$dir/nohuge.log" && break
	sleep 0.1
done
out=$("$VIEW" --file-prefix "$prefix" 2>&1)
grep -q "(PID $pid) runs with --no-huge" <<<"$out" ||
	{ echo "FAIL: a --no-huge dcnfwd not named: $out"; exit 1; }
echo "ok   no process, and a --no-huge one (PID $pid), each named"
kill -INT "$pid"; wait "$pid" 2>/dev/null; pid=
rm -rf "/var/run/dpdk/$prefix"

[ "$(id -u)" = 0 ] || skip "needs root for hugepages"
[ -w $NR ] || skip "no 2 MB hugepages here"
old_nr=$(cat $NR)
echo $((old_nr + 384)) > $NR 2>/dev/null
[ "$(cat $NR)" -ge $((old_nr + 384)) ] || skip "could not reserve 384 hugepages"
mkdir "$dir/huge"
mount -t hugetlbfs -o pagesize=2M nodev "$dir/huge" || skip "cannot mount hugetlbfs"
mounted=1
EAL=(--lcores 0@0,1@0,2@1 --no-pci --huge-dir "$dir/huge" -m 640 --file-prefix "$prefix"
     --log-level=4)

# view SPEC: run dcnfwd on SPEC, read it twice with dcn-fcview (JSON) and
# once as text, stop it.
view() {
	"$DCNFWD" "${EAL[@]}" -- --emulate "$1" --rate 20000 \
		--link-rate 20000 --duration 60 --stats 0 > "$dir/dcnfwd.log" 2>&1 &
	pid=$!
	for i in $(seq 100); do
		grep -q "knows its neighbours" "$dir/dcnfwd.log" && break
		if ! kill -0 "$pid" 2>/dev/null; then
			grep -q "EAL init failed" "$dir/dcnfwd.log" &&
				skip "EAL did not start on hugepages: $(tail -2 "$dir/dcnfwd.log")"
			cat "$dir/dcnfwd.log"
			echo "FAIL: dcnfwd exited"
			exit 1
		fi
		sleep 0.1
	done
	sleep 1
	local read_rc
	"$VIEW" --file-prefix "$prefix" --huge-dir "$dir/huge" --no-pci -- \
		--json --count 2 --interval 1 > "$dir/view.json" 2> "$dir/view.err"
	read_rc=$?
	# Without --no-pci too: dcn-fcview probes no device (a secondary
	# that probed this machine's PCI devices panicked, its primary having
	# none), and EAL says nothing at the default level.
	"$VIEW" --file-prefix "$prefix" --huge-dir "$dir/huge" > "$dir/text.out" 2>&1
	if [ $? -ne 0 ] || grep -q "PANIC\|EAL:" "$dir/text.out"; then
		cat "$dir/text.out"; echo "FAIL: dcn-fcview without --no-pci"; read_rc=1
	fi
	head -9 "$dir/text.out"
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	pid=
	rm -rf "/var/run/dpdk/$prefix"
	if [ $read_rc -ne 0 ]; then
		cat "$dir/view.err"
		echo "FAIL: dcn-fcview exited $read_rc"
		exit 1
	fi
}

# check FABRIC SPEC: the two reads of view.json, as FABRIC (novacube or
# rrect) must show them.
check() {
python3 - "$dir/view.json" "$1" "$TOPO" "$2" <<'PY'
import json, subprocess, sys
views = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
fabric = sys.argv[2]
# The VCs the routing of SPEC takes, by dcn-topo's model.
vcs = json.loads(subprocess.run([sys.argv[3], "--json", "cdg", sys.argv[4]],
                                capture_output=True, text=True,
                                check=True).stdout)["vcs"]
bad = []
def check(cond, msg):
    print("  %s: %s" % ("ok  " if cond else "FAIL", msg))
    if not cond:
        bad.append(msg)
check(len(views) == 2, "two reads")
first, second = views
chans = [c for n in first["nodes"] for c in n["channels"]]
if fabric == "novacube":
    check(len(first["nodes"]) == 16, "16 nodes (%d)" % len(first["nodes"]))
    # NovaCube k=4, n=2: 5 cables and a host port per node, each with
    # every VC of PORA's (its classes' dateline pairs, and the VCs above
    # them its detours round failures take).
    check(all(n["vcs"] == vcs for n in first["nodes"]),
          "%d VCs a node, as dcn-topo cdg says: %s" %
          (vcs, sorted(set(n["vcs"] for n in first["nodes"]))))
    check(len(chans) == 16 * 6 * vcs, "%d (port, VC) channels, of %d" %
          (len(chans), 16 * 6 * vcs))
    linked = [c for c in chans if c["kind"] == "credit"]
    check(len(linked) == 16 * 5 * vcs, "%d credit channels, of %d" %
          (len(linked), 16 * 5 * vcs))
    check(all(c["peer_grant"] == 204 for c in linked),
          "every cable's peer granted 204 credits (256 slots, 20% reserve)")
    check(all(c["in_depth"] <= c["in_cap"] and c["out_depth"] <= c["out_cap"]
              for c in chans), "depths within capacities")
else:
    check(len(first["nodes"]) == 32, "32 nodes (%d)" % len(first["nodes"]))
    # RRect(4,2,1): two switch ports of 7 neighbours each and a host port
    check(all(n["vcs"] == vcs for n in first["nodes"]),
          "%d VCs a node, as dcn-topo cdg says: %s" %
          (vcs, sorted(set(n["vcs"] for n in first["nodes"]))))
    for n in first["nodes"]:
        sw = [c for c in n["channels"] if c["kind"] == "switch"]
        links = set((c["port"], c["neighbour"]) for c in sw)
        if len(links) != 14 or len(sw) != 14 * n["vcs"] or \
           not all(c["neighbour"] for c in sw):
            check(False, "node %s: %d switch channels, %d (port, neighbour) "
                  "links" % (n["node"], len(sw), len(links)))
            break
    else:
        check(True, "every node: 14 (port, neighbour) links, each named, a "
              "channel per VC")
    linked = [c for c in chans if c["kind"] == "switch"]
    # 256 slots a port shared by 7 neighbours: 36 each, 28 granted
    check(all(c["in_cap"] == 36 and c["peer_grant"] == 28 for c in linked),
          "every neighbour's share 36 slots, granted 28 by it")
# two workers: a burst (64) the other may have staged (lib/fc/README.md,
# "Internal credits"), or a flush finds the queue full and drops
check(all(c["out_cap"] == c["out_admit"] + 64 for c in chans),
      "output queues of %s slots, each what it admits and a burst" %
      sorted(set(c["out_cap"] for c in chans)))
check(all(0 <= c["credits"] <= c["peer_grant"] for c in linked),
      "credits within the grant")
sent = lambda v: sum(c["sent"] for n in v["nodes"] for c in n["channels"]
                     if fabric == "novacube" or c["kind"] == "switch")
check(sent(second) > sent(first), "frames sent between the reads: %d"
      % (sent(second) - sent(first)))
sys.exit(1 if bad else 0)
PY
}

view novacube:k=4,n=2
check novacube novacube:k=4,n=2
rc=$?
# Relays behind L2 switches: a link per neighbour, each with its share of
# its port's input queue and its neighbour's grant.
view rrect:n=4,m=2,k=1
check rrect rrect:n=4,m=2,k=1 || rc=1
[ $rc -eq 0 ] && echo "PASS: dcn-fcview" || echo "FAIL: dcn-fcview"
exit $rc
