#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A fabric of dcnfwd processes in network namespaces (tools/dcn-fabric):
veth cables on net_af_xdp with dcnfwd's XDP program, Linux bridges for L2
switches.

  netns_fabric.py DCNFWD DCN_TOPO DCN_GEN kernel SPEC
      Each node's kernel has a TAP host port with its fabric address.
      From the first node to the node farthest from it: ping, an iperf3
      TCP transfer, and an exact transfer (bytes and SHA-256) cross the
      fabric; the relays on the way count the frames (encapsulated,
      transit, decapsulated). Beside it, ping between the kernel addresses
      of a cable's two ends works, and the cable's XDP counters show both
      kinds (to dcnfwd, to the kernel). Then one dcnfwd is killed with
      SIGKILL and the fabric is taken down: no namespace, interface, DPDK
      run directory, XDP program or hugepage of it is left.

  netns_fabric.py DCNFWD DCN_TOPO DCN_GEN kernel-udp SPEC
      The same, on a fabric of encap = udp (dcn-fabric up --encap udp):
      the fabric's frames cross the cables in IPv4/UDP, every one of
      them (the XDP programs of the relays' cables count them as UDP
      and none in the fabric EtherType); Diamond's, plain IPv4, as before.

  netns_fabric.py DCNFWD DCN_TOPO DCN_GEN unplug SPEC
      dcn-gen (net_af_packet, in the hosts' namespace) sends a flow at a
      fixed rate through the fabric. "ip link set DEV down" on the cable
      the flow leaves its first relay by: delivery resumes on another path
      while the cable is down; "up": the cable carries the flow again.
      Then a relay in the middle of the path is killed (SIGKILL): its
      neighbours' hellos stop and delivery resumes around it. The outage
      of each (lost frames over the rate) is printed, not asserted.

  netns_fabric.py DCNFWD DCN_TOPO DCN_GEN restart SPEC
      dcn-gen sends a flow at a fixed rate; the relay that carries it in
      transit is killed (SIGKILL): delivery resumes around it. "dcn-fabric
      start" brings it back: its links come up, its transit counter moves
      again, the flow runs at full rate, every credited link holds its
      full grant, and from its return on nothing is lost inside the
      fabric. Then the same relay is stopped for 3 s (SIGSTOP, a hung
      relay) and continued: handled as a death and a return.

  netns_fabric.py DCNFWD DCN_TOPO DCN_GEN soak SPEC CYCLES
      CYCLES kill/start cycles of the transit relay under traffic; then
      every pair of hosts delivers, only the processes started are left,
      and "dcn-fabric down" leaves no namespace, XDP program or hugepage.

  netns_fabric.py DCNFWD DCN_TOPO DCN_GEN interrupted SPEC
      "dcn-fabric up" stopped half-way: by SIGTERM it takes itself down;
      by SIGKILL, a "down" after it does. Nothing of it is left.

  netns_fabric.py DCNFWD DCN_TOPO DCN_GEN patch SPEC
      The L2 switches as VLANs of two physical switches (dcn-fabric up
      --switches, by the Linux bridge script dcn-plan writes): one VLAN
      a topology switch, untagged; no hello heard across VLANs; every
      relay pings every other.

Every "down" keeps the nodes' logs; each node it stopped ended clean
(its final counters, no mbuf left out at exit).

Exit 77 when this machine cannot (not root, no net_af_xdp, no iperf3).
"""
import contextlib
import concurrent.futures
import csv
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "tools")
FABRIC = os.path.join(TOOLS, "dcn-fabric")
# dcn-fabric's own telemetry query, in this process: the steps below are
# timed, and a new interpreter per query is slow on a loaded machine.
_loader = importlib.machinery.SourceFileLoader("dcn_fabric", FABRIC)
dcn_fabric = importlib.util.module_from_spec(
    importlib.util.spec_from_loader("dcn_fabric", _loader))
_loader.exec_module(dcn_fabric)

DCNFWD, TOPO, GEN, MODE, SPEC = sys.argv[1:6]
# The wire format of the fabric under test (kernel-udp: encap = udp; but
# Diamond's frames are plain IPv4 whatever it says).
ENCAP = "udp" if MODE == "kernel-udp" else "ether"
UDP_WRAPS = ENCAP == "udp" and not SPEC.startswith("diamond")
NAME = "t%d" % (os.getpid() % 100000)
# Sixteen or twenty dcnfwd processes share two cores here: a rate they
# carry with room to spare, so that the figures are the failover's own.
RATE = 2000
# kill -9/start cycles of a transit relay in the veth mode (the CI's
# length; doc/testing.md gives the long form): DCN_KILL_CYCLES overrides.
KILL_CYCLES = int(os.environ.get("DCN_KILL_CYCLES", "6"))
failures = []


def check(cond, msg):
    print(("ok   " if cond else "FAIL ") + msg, flush=True)
    if not cond:
        failures.append(msg)


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def sh(*cmd, timeout=120, check_rc=True):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if check_rc and r.returncode != 0:
        raise RuntimeError("%s: rc %d: %s%s" % (" ".join(cmd), r.returncode,
                                               r.stdout[-2000:], r.stderr[-2000:]))
    return r


def fabric(*args, **kw):
    return sh(sys.executable, FABRIC, *args, **kw)


def state():
    with open("/run/dcn-fabric/%s/state.json" % NAME) as f:
        return json.load(f)


def netns_exec(node, *cmd, **kw):
    return fabric("exec", NAME, node, *cmd, **kw)


def tel(st, node, cmd):
    """The reply to one telemetry command of node's dcnfwd, {} if none."""
    reply = dcn_fabric.telemetry(st, vertex_of(st, node), cmd) or {}
    return reply.get(cmd.split(",")[0]) or {}


def tel_each(st, cmd, names=None):
    """{node name: reply body} to one telemetry command of every node (or
    those named), asked at once: on a machine of twenty relays, one after
    another waits for each relay's telemetry thread in turn."""
    vs = [v for v, n in st["nodes"].items() if names is None or n["name"] in names]
    replies = dcn_fabric.telemetry_all(st, vs, cmd)
    base = cmd.split(",")[0]
    return {st["nodes"][v]["name"]: (replies.get(v) or {}).get(base) or {}
            for v in vs}


def route(src, dst):
    """Relays of the route from src to dst, in order, by dcn-topo."""
    r = sh(TOPO, "--json", "route", SPEC, src, dst)
    hops = json.loads(r.stdout)["hops"]
    return [(h["from"], h["port"]) for h in hops] + [(hops[-1]["to"], None)]


def hosted_nodes(st):
    """The nodes with a host, by vertex number."""
    return [n for _, n in sorted(st["nodes"].items(), key=lambda x: int(x[0]))
            if n["host_addr"]]


def route_nodes(st, a, b):
    """The hops (node, port) of the route from node a's host to node b's,
    by dcn-topo, nodes only: Diamond's routes begin and end at servers,
    which are no nodes."""
    names = {n["name"] for n in st["nodes"].values()}
    return [h for h in route(a["host_addr"], b["host_addr"]) if h[0] in names]


def pick_pair(st):
    """The first node with a host, and the one whose route from it crosses
    the most relays."""
    hosted = hosted_nodes(st)
    src = hosted[0]
    best, best_path = None, None
    for n in hosted[1:]:
        path = route_nodes(st, src, n)
        if best is None or len(path) > len(best_path):
            best, best_path = n, path
    return src, best, best_path


def counters(st):
    return {name: (s.get("encap", 0), s.get("transit", 0), s.get("decap", 0))
            for name, s in tel_each(st, "/dcn/stats").items()}


def xdp_progs():
    """Ids of the dcn_xdp_steer programs loaded on the machine."""
    progs = sh("bpftool", "-j", "prog", "show", check_rc=False).stdout or "[]"
    return {p["id"] for p in json.loads(progs) if p.get("name") == "dcn_xdp_steer"}


# What a test before this one loaded, which its kernel may still be
# freeing, is none of this test's: main() takes note of it.
FOREIGN_PROGS = set()
# The inode of each namespace this test's fabric made (up() notes them):
# a process still in one after down is a leak of ours.
NS_INODES = {}


def leftovers(names):
    """What of the fabric is still on the machine."""
    left = []
    ns = sh("ip", "netns", "list").stdout
    left += [l.split()[0] for l in ns.splitlines() if l.startswith("dcnf-%s-" % NAME)]
    left += ["/var/run/dpdk/" + p for p in names if os.path.exists("/var/run/dpdk/" + p)]
    left += ["xdp prog %d" % i for i in sorted(xdp_progs() - FOREIGN_PROGS)]
    return left


def ns_holders():
    """Processes still in a namespace of the fabric, by the inode noted
    at up: the namespace lives on without its name while one does."""
    held = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            ino = os.stat("/proc/%s/ns/net" % pid).st_ino
            if ino not in NS_INODES:
                continue
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        held.append("pid %s in %s: %s" % (pid, NS_INODES[ino], cmd[:120]))
    return held


def leftovers_settled(names, seconds=60):
    """leftovers, once the kernel has freed what it frees lazily. A
    namespace, its devices and their XDP programs go when its last
    reference does, and besides processes the kernel holds some for a
    while (deferred frees, sockets still closing): seconds on a loaded
    machine, so the wait is long and the time it took is printed. What
    stays is named with the processes still in the fabric's namespaces."""
    t0 = time.time()
    left = leftovers(names)
    while left and time.time() < t0 + seconds:
        time.sleep(0.2)
        left = leftovers(names)
    took = time.time() - t0
    if took > 1:
        print("the kernel freed the fabric's namespaces in %.1f s" % took
              if not left else "still there after %.0f s" % seconds)
    return left + ns_holders()


def tcp_closed(st, timeout=10.0):
    """Wait until no TCP connection in the nodes' namespaces is still
    open or closing: a socket still closing holds its namespace, and so
    the XDP programs of its devices, after the namespace is deleted.
    TIME-WAIT holds nothing. Prints what stays."""
    deadline = time.time() + timeout
    while True:
        open_ = []
        for n in st["nodes"].values():
            r = sh("ip", "netns", "exec", n["ns"], "ss", "-Htan", check_rc=False)
            for f in (l.split() for l in r.stdout.splitlines()):
                if f and f[0] not in ("LISTEN", "TIME-WAIT"):
                    open_.append("%s: %s" % (n["name"], " ".join(f[:1] + f[3:5])))
        if not open_ or time.time() > deadline:
            break
        time.sleep(0.2)
    if open_:
        print("TCP connections still open before down: %s" % "; ".join(open_))


def up(*extra):
    r = fabric("up", SPEC, "--name", NAME, "--dcnfwd", DCNFWD, "--dcn-topo",
               TOPO, *extra, timeout=300, check_rc=False)
    print(r.stdout.strip())
    if r.returncode != 0:
        print(r.stderr)
        if "net_af_xdp" in r.stderr and "not found" in r.stderr:
            skip("no net_af_xdp PMD")
        raise RuntimeError("dcn-fabric up failed")
    st = state()
    for ns in st["netns"]:
        try:
            NS_INODES[os.stat("/run/netns/" + ns).st_ino] = ns
        except OSError:
            pass
    # One source of configurations: dcn-fabric's come from dcn-plan, from
    # an inventory of its namespaces, as a rack's do.
    d = "/run/dcn-fabric/%s" % NAME
    for n in st["nodes"].values():
        with open(os.path.join(d, n["ns"] + ".ini")) as f:
            head = f.readline()
        check("written by dcn-plan" in head and ("node %s of" % n["name"]) in head,
              "%s.ini comes from dcn-plan: %r" % (n["ns"], head.strip()))
    return st


def status_picture(st, node, port, loaded_ends):
    """dcn-fabric status --png while node's port is pulled: that cable
    drawn down, the others up, the cable a flow takes drawn loaded. A
    picture is a moment: twenty relays on two cores may miss a neighbour's
    hellos for a moment (and see the link back 100 ms later), so one
    with another cable down is taken again, up to three times."""
    png = "/run/dcn-fabric/%s/status.png" % NAME
    pulled = "%s:%d" % (node["name"], port)
    for attempt in range(3):
        t0 = time.time()
        fabric("status", NAME, "--png", png, timeout=120)
        took = time.time() - t0
        with open("/run/dcn-fabric/%s/status.json" % NAME) as f:
            seen = json.load(f)
        others_down = sorted(k for k, v in seen.items()
                             if v.get("state") != "up" and k != pulled)
        # The pulled cable's far end is down too.
        if len(others_down) <= 1:
            break
        print("status --png: %s not up besides %s; again" %
              (", ".join(others_down), pulled))
    with open(png, "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "status --png draws a PNG")
    check(seen.get(pulled, {}).get("state") == "down",
          "status --png: %s drawn %s" % (pulled, seen.get(pulled)))
    up_ends = [k for k, v in seen.items() if v.get("state") == "up"]
    check(len(up_ends) >= len(seen) - 2, "status --png: %d of %d cable ends "
          "up with one cable pulled (not up: %s)" %
          (len(up_ends), len(seen), ", ".join(sorted(set(seen) - set(up_ends)))))
    busy = max((seen.get(k, {}).get("load", 0), k) for k in loaded_ends)
    check(busy[0] > 0.5 * RATE, "status --png: the flow's cable %s carries "
          "%.0f frames/s" % (busy[1], busy[0]))
    print("status --png: %d cable ends, %s down, %s at %.0f frames/s "
          "(drawn in %.1f s)" % (len(seen), pulled, busy[1], busy[0], took))


def auth_refusals(st):
    """Each node's refusals of signed frames so far: hellos and
    announcements (/dcn/stats), credit frames (/dcn/fc); -1 counted for
    a node whose stats do not say."""
    out = {}
    for n in st["nodes"].values():
        refused = tel(st, n["name"], "/dcn/stats").get("auth_refused", -1)
        for c in tel(st, n["name"], "/dcn/fc," + n["name"]).values():
            if isinstance(c, dict):
                refused += sum(c.get(k, 0) for k in
                               ("credit_unsigned", "credit_bad_tag", "credit_replayed"))
        out[n["name"]] = refused
    return out


def auth_clean(st, what):
    """With a fabric key, every node runs with it, and none refused an
    honest control frame: every hello, announcement and credit frame of
    the fabric's own checked, and every hello and credit frame was new.
    (An announcement can come again honestly after its news was
    forgotten: a relay still starting floods on what waited in its ring.
    Those are refused as heard before, and only shown.)"""
    bad, echoes = [], 0
    refusals = auth_refusals(st)
    for n in st["nodes"].values():
        s = tel(st, n["name"], "/dcn/stats")
        refused = refusals[n["name"]]
        echoes += tel(st, n["name"], "/dcn/links").get("announcements_replayed", 0)
        if s.get("fabric_key") != 1 or refused != 0:
            bad.append("%s: key %s, refused %d" % (n["name"], s.get("fabric_key"),
                                                     refused))
    check(not bad, "%s: every node signs with the fabric key and refused no "
          "frame of the fabric's own%s (announcements heard again after they "
          "were forgotten: %d)" % (what, "; " + ", ".join(bad) if bad else "",
                                   echoes))


def kernel_mode():
    # Signed: a fabric key on every node (authenticated hellos,
    # announcements and credit frames carry the whole test).
    st = up("--cable-ips", "--key", "--encap", ENCAP)
    names = [n["prefix"] for n in st["nodes"].values()]
    xdp_before = xdp_fabric_counts(st)
    src, dst, relays = pick_pair(st)
    print("flow %s (%s) -> %s (%s), route %s" % (
        src["name"], src["host_addr"], dst["name"], dst["host_addr"],
        " ".join(h[0] for h in relays)))
    before = counters(st)
    r = netns_exec(src["name"], "ping", "-c", "5", "-i", "0.2", "-W", "2",
                   dst["host_addr"], check_rc=False, timeout=60)
    m = re.search(r"(\d+) received", r.stdout)
    check(m is not None and int(m.group(1)) == 5,
          "ping %s -> %s across the fabric: %s" %
          (src["host_addr"], dst["host_addr"], m.group(0) if m else r.stdout))
    captured(st, src)
    # iperf3: the server answers once and exits.
    srv = subprocess.Popen([sys.executable, FABRIC, "exec", NAME, dst["name"],
                            "iperf3", "-s", "-1", "-J", "-B", dst["host_addr"]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    size = 8 << 20
    r = netns_exec(src["name"], "iperf3", "-c", dst["host_addr"], "-B",
                   src["host_addr"], "-n", str(size), "-J", check_rc=False,
                   timeout=120)
    out, _ = srv.communicate(timeout=60)
    try:
        cj, sj = json.loads(r.stdout), json.loads(out)
        sent = cj["end"]["sum_sent"]["bytes"]
        got = sj["end"]["sum_received"]["bytes"]
        mbps = cj["end"]["sum_sent"]["bits_per_second"] / 1e6
    except (ValueError, KeyError):
        sent, got, mbps = 0, 0, 0
    # -n counts whole writes of its block size: it may send a little more.
    check(r.returncode == 0 and sent >= size and got > 0,
          "iperf3 TCP %s -> %s: sent %d bytes (of %d), server received %d, "
          "%.1f Mbit/s" % (src["name"], dst["name"], sent, size, got, mbps))
    # Exact transfer: every byte, in order (iperf3's receiver stops
    # counting at the end of its test, not at the end of the data).
    exact(st, src, dst)
    after = counters(st)
    delta = {k: tuple(a - b for a, b in zip(after[k], before[k])) for k in after}
    path = [h[0] for h in relays]
    print("frames per node (encap, transit, decap): " + ", ".join(
        "%s %s" % (k, delta[k]) for k in path))
    least = 1000   # 8 MB in 1460-byte segments is 5700 frames, one way
    if SPEC.startswith("diamond"):
        # Diamond's switches route plain IPv4: every hop is transit.
        for k in (path[0], path[-1]):
            check(delta[k][1] >= least, "%s routed %d frames" % (k, delta[k][1]))
    else:
        check(delta[path[0]][0] >= least,
              "%s encapsulated %d frames" % (path[0], delta[path[0]][0]))
        check(delta[path[-1]][2] >= least,
              "%s decapsulated %d frames" % (path[-1], delta[path[-1]][2]))
    if len(path) > 2:
        transit = sum(delta[k][1] for k in delta if k not in (path[0], path[-1]))
        check(transit >= least * (len(path) - 2),
              "relays between carried %d frames in transit (route has %d)" %
              (transit, len(path) - 2))
    full_credit(st)
    auth_clean(st, "after the transfers")
    wire_format(st, xdp_before)
    kernel_beside(st)
    tcp_closed(st)
    # A dcnfwd killed outright must not keep the fabric from coming down
    # (first started again in the other wire format).
    victim = [n for n in st["nodes"].values() if n is not src and n is not dst][-1]
    st, victim = mixed_format(st, victim, src)
    os.kill(victim["pid"], signal.SIGKILL)
    time.sleep(0.5)
    down("dcn-fabric down after %s was killed" % victim["name"],
         killed=(victim["name"],))
    left = leftovers_settled(names)
    check(not left, "nothing of the fabric left: %s" % (left or "none"))


def mixed_format(st, x, src):
    """Node x started again in the other wire format (encap = ether in a
    udp fabric, udp in an ether one): neither side takes the other's
    frames, so x has every link down and each neighbour on a cable has
    its link to x down too (none one-way); the refusals are counted as
    encap_mismatch (a udp port's count, or an ether node's drop reason)
    and said once in the log; a ping to x's host is lost, and counted
    (no route to it, or the mismatch), not silently. Diamond's frames are
    plain IPv4 in both formats: nothing to mix. Returns the state and x
    as they are after."""
    if SPEC.startswith("diamond"):
        return st, x
    other = "ether" if UDP_WRAPS else "udp"
    # x's neighbours on cables of their own (not behind a switch, where
    # a port stays up for the others): (node, port), from dcn-topo.
    facing = cable_peers(st, vertex_of(st, x["name"]))
    path = "/run/dcn-fabric/%s/%s.ini" % (NAME, x["ns"])
    with open(path) as f:
        text = f.read()
    if re.search(r"(?m)^encap\s*=", text):
        new = re.sub(r"(?m)^encap\s*=.*$", "encap = " + other, text)
    else:
        new = text.replace("[fabric]\n", "[fabric]\nencap = %s\n" % other, 1)
    with open(path, "w") as f:
        f.write(new)
    before = lost_counts(st)
    fabric("restart", NAME, x["name"], "--wait-links", "0", timeout=120)
    st = state()
    x = next(n for n in st["nodes"].values() if n["name"] == x["name"])
    time.sleep(2.5)   # past the silence and a hold-down; a log poll
    links = {k: v.get("state") for k, v in
             tel(st, x["name"], "/dcn/links").items()
             if isinstance(v, dict)}
    check(links and all(s == "down" for s in links.values()),
          "%s in encap = %s: every link of its own down: %s" % (x["name"], other, links))
    far = {(n, p): tel(st, n, "/dcn/links").get(p, {}).get("state")
           for n, p in facing}
    check(all(s == "down" for s in far.values()),
          "its neighbours' links to it down too (none one-way): %s" %
          (far or "none on a cable: behind switches"))
    r = netns_exec(src["name"], "ping", "-c", "3", "-i", "0.2", "-W", "1",
                   x["host_addr"], check_rc=False, timeout=60)
    m = re.search(r"(\d+) received", r.stdout)
    time.sleep(1.5)   # the drop counters, and the once-a-second log poll
    after = lost_counts(st)
    grew = {k: after[k] - before.get(k, 0) for k in after
            if after[k] > before.get(k, 0)}
    check(m is not None and int(m.group(1)) == 0 and
          sum(v for k, v in grew.items() if k != "encap_mismatch_ports") >= 3,
          "a ping to its host (%s) is lost, and counted: %s received; "
          "counted %s" % (x["host_addr"], m.group(1) if m else "?", grew))
    check(grew.get("encap_mismatch", 0) + grew.get("encap_mismatch_ports", 0) > 0,
          "the other format refused and counted as encap_mismatch: %s" % grew)
    said = 0
    for n in st["nodes"].values():
        with open("/run/dcn-fabric/%s/%s.log" % (NAME, n["ns"]), errors="replace") as f:
            said += f.read().count("(encap_mismatch)")
    check(said > 0, "the mismatch said in the log (%d lines)" % said)
    return st, x


_topology = []


def topology():
    """SPEC's vertices and cables, read once (dcn-plan's reader of
    `dcn-topo cables`, as dcn-fabric uses it)."""
    if not _topology:
        _topology.append(dcn_fabric.Topology(TOPO, SPEC))
    return _topology[0]


def cable_peers(st, v):
    """(name, "pP") of each routing node on a cable of its own to vertex v."""
    t = topology()
    return [(st["nodes"][str(peer)]["name"], "p%d" % port)
            for peer, port in t.ports_of(int(v)).values()
            if t.vertex[peer]["router"] and str(peer) in st["nodes"]]


def far_end(st, v, port):
    """(namespace, interface) of the other end of vertex v's cable on
    port: a node's pP, or an L2 switch's bridge port sSpP."""
    peer, pp = topology().ports_of(int(v))[port]
    if str(peer) in st["nodes"]:
        return st["nodes"][str(peer)]["ns"], "p%d" % pp
    return "dcnf-%s-sw" % NAME, "s%dp%d" % (peer, pp)


def lost_counts(st):
    """Drops by reason over the nodes (no_route, link_down,
    encap_mismatch, ...), and encap_mismatch_ports: udp ports' refusals
    of frames in the ether format."""
    out = {}
    stats, ports = tel_each(st, "/dcn/stats"), tel_each(st, "/dcn/ports")
    for name, s in stats.items():
        for k, v in s.get("drop", {}).items():
            if k != "unknown_ethertype":
                out[k] = out.get(k, 0) + v
        for p in ports[name].values():
            if isinstance(p, dict):
                out["encap_mismatch_ports"] = (out.get("encap_mismatch_ports", 0) +
                                               p.get("encap_mismatch", 0))
    return out


def down(what="dcn-fabric down", killed=()):
    """dcn-fabric down, which keeps each node's log: every node it
    stopped (all but those in killed) wrote its final counters in its
    last run and no mbuf left out at exit (the fill rings net_af_xdp
    keeps by design are no leak). The test then removes the logs."""
    st = state()
    r = fabric("down", NAME, check_rc=False, timeout=120)
    check(r.returncode == 0, "%s: %s" % (what, (r.stdout + r.stderr).strip()))
    logdir = "/var/log/dcn-fabric/" + NAME
    bad = []
    for n in st["nodes"].values():
        path = os.path.join(logdir, n["ns"] + ".log")
        if not os.path.exists(path):
            bad.append("%s: no log" % n["name"])
            continue
        with open(path, errors="replace") as f:
            last = f.read().split("---- dcn-fabric: ")[-1]   # the last run
        if n["name"] in killed:
            continue
        if "final counters" not in last:
            bad.append("%s: no final counters" % n["name"])
        m = re.search(r"at exit .*", last)
        if m:
            bad.append("%s: %s" % (n["name"], m.group(0)))
    check(not bad, "down keeps every node's log, and each node it stopped "
          "ended clean (final counters, nothing leaked): %s" %
          ("; ".join(bad) if bad else "%d logs in %s" % (len(st["nodes"]), logdir)))
    shutil.rmtree(logdir, ignore_errors=True)


def full_credit(st, timeout=5.0):
    """After the transfers, every credited (link, VC) of every node holds
    its peer's whole grant again: frames lost on the way (an AF_XDP
    ring or a bridge that overflowed on this shared machine) gave their
    credits back (lib/fc/README.md, "Lost frames"), none is held for
    ever."""
    deadline = time.time() + timeout
    while True:
        short, chans, lost = [], 0, 0
        # A relay runs one node: /dcn/fc without a node answers for it.
        for name, fc in tel_each(st, "/dcn/fc").items():
            for key, c in fc.items():
                if not isinstance(c, dict) or c.get("kind") not in ("credit", "switch"):
                    continue
                chans += 1
                lost += c.get("lost", 0) + c.get("lost_in", 0)
                if c.get("credits") != c.get("window"):
                    short.append("%s %s %d/%d" % (name, key, c.get("credits", -1),
                                                 c.get("window", -1)))
        if not short or time.time() > deadline:
            break
        time.sleep(0.5)
    check(chans > 0 and not short,
          "every credited (link, VC) at its full grant after the transfers: "
          "%d of %d (%d frames lost on the way, their credits given back)%s"
          % (chans - len(short), chans, lost,
             "; short: " + ", ".join(short[:6]) if short else ""))


EXACT_SERVER = r'''
import hashlib, socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5201)); s.listen(1); s.settimeout(60)
c, _ = s.accept(); c.settimeout(60); h = hashlib.sha256(); n = 0
while True:
    b = c.recv(1 << 16)
    if not b: break
    h.update(b); n += len(b)
print(n, h.hexdigest())
'''
EXACT_CLIENT = r'''
import hashlib, os, socket, sys, time
data = os.urandom(int(sys.argv[3]))
for attempt in range(40):   # the server may still be starting
    try:
        c = socket.create_connection((sys.argv[1], 5201), 30, (sys.argv[2], 0))
        break
    except ConnectionRefusedError:
        if attempt == 39: raise
        time.sleep(0.25)
c.sendall(data); c.shutdown(socket.SHUT_WR); c.recv(1)
print(len(data), hashlib.sha256(data).hexdigest())
'''


def exact(st, src, dst):
    srv = subprocess.Popen([sys.executable, FABRIC, "exec", NAME, dst["name"],
                            sys.executable, "-c", EXACT_SERVER, dst["host_addr"]],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(0.5)
    r = netns_exec(src["name"], sys.executable, "-c", EXACT_CLIENT,
                   dst["host_addr"], src["host_addr"], str(4 << 20),
                   check_rc=False, timeout=120)
    out, err = srv.communicate(timeout=120)
    check(r.returncode == 0 and out.strip() == r.stdout.strip() and out.strip(),
          "TCP transfer of 4 MiB arrived whole: sent %s, received %s" %
          ((r.stdout.strip() or r.stderr.strip()[-300:]).replace("\n", " / "),
           (out.strip() or err.strip()[-300:]).replace("\n", " / ")))


def xdp_fabric_counts(st):
    """{node: (frames in the fabric EtherType, in IPv4/UDP)} that the XDP
    programs of its fabric ports gave it."""
    out = {}
    for name, xdp in tel_each(st, "/dcn/xdp").items():
        eth = udp = 0
        for port, c in xdp.items():
            if isinstance(c, dict):
                eth += c.get("to_dcnfwd_fabric", 0)
                udp += c.get("to_dcnfwd_udp", 0)
        out[name] = (eth, udp)
    return out


def wire_format(st, before):
    """Over the transfers, every node's fabric frames came in the fabric's
    format: encap = udp, all in IPv4/UDP (none bare); ether, none in UDP."""
    after = xdp_fabric_counts(st)
    eth = sum(after[k][0] - before[k][0] for k in after)
    udp = sum(after[k][1] - before[k][1] for k in after)
    print("fabric frames into the relays over the transfers: %d in the "
          "EtherType, %d in IPv4/UDP" % (eth, udp))
    if UDP_WRAPS:
        check(udp > 0 and eth == 0, "encap = udp: every fabric frame came "
              "in IPv4/UDP (%d), none bare (%d)" % (udp, eth))
    else:
        check(eth > 0 and udp == 0, "the fabric EtherType on the cables "
              "(%d frames), none in UDP (%d)" % (eth, udp))


def captured(st, node):
    """A relay of dcn-fabric open to DPDK's secondary processes: "dcn-fabric
    capture" (dpdk-dumpcap) writes a pcapng of its busiest fabric port's
    hellos, and dcn-fcview reads its flow-control queues."""
    if shutil.which("dpdk-dumpcap") is None:
        print("SKIP (part): no dpdk-dumpcap (package dpdk)")
        return
    out = "/run/dcn-fabric/%s/capture.pcapng" % NAME
    port = str(sorted(node["ports"])[0])
    r = fabric("capture", NAME, node["name"], port, "--out", out, "--seconds",
               "2", "--count", "5", check_rc=False, timeout=60)
    m = re.search(r": (\d+) frames captured", r.stdout)
    with open(out, "rb") if os.path.exists(out) else open(os.devnull, "rb") as f:
        magic = f.read(4)
    check(r.returncode == 0 and m and int(m.group(1)) >= 1 and
          magic == b"\x0a\x0d\x0d\x0a",
          "dcn-fabric capture %s port %s: %s%s" % (
              node["name"], port, r.stdout.strip(), r.stderr.strip()[-300:]))
    view = os.path.join(os.path.dirname(TOPO), "..", "dcn-fcview", "dcn-fcview")
    r = netns_exec(node["name"], view, "--file-prefix", node["prefix"], "--",
                   "--json", check_rc=False, timeout=60)
    try:
        chans = json.loads(r.stdout.splitlines()[0]) if r.stdout else {}
    except ValueError:
        chans = {}
    check(r.returncode == 0 and chans, "dcn-fcview reads %s's queues: %s" % (
        node["name"], (r.stdout or r.stderr).strip()[:200]))


def kernel_beside(st):
    """Ping between a cable's own kernel addresses, beside the fabric."""
    a, pa, ia, b, pb, ib = st["cable_ips"][0]
    na, nb = st["nodes"][a], st["nodes"][b]
    xdp0 = tel(st, na["name"], "/dcn/xdp").get("p%d" % pa, {})
    r = netns_exec(na["name"], "ping", "-c", "5", "-i", "0.2", "-W", "2", ib,
                   check_rc=False, timeout=60)
    m = re.search(r"(\d+) received", r.stdout)
    check(m is not None and int(m.group(1)) == 5,
          "kernel ping %s -> %s on the cable %s p%d (AF_XDP port): %s" %
          (ia, ib, na["name"], pa, m.group(0) if m else r.stdout.strip()))
    xdp1 = tel(st, na["name"], "/dcn/xdp").get("p%d" % pa, {})
    d = {k: xdp1.get(k, 0) - xdp0.get(k, 0) for k in xdp1 if k != "prog_id"}
    print("XDP counters of %s p%d over the ping: %s" % (na["name"], pa, d))
    kind = "to_dcnfwd_udp" if UDP_WRAPS else "to_dcnfwd_fabric"
    check(xdp1.get(kind, 0) > 0 and d.get(kind, 0) > 0,
          "fabric frames (hellos) went to dcnfwd: %s %d" % (kind, xdp1.get(kind, 0)))
    check(d.get("pass_kernel", 0) >= 5,
          "the kernel's frames (ARP, ICMP) went to the kernel: %d" %
          d.get("pass_kernel", 0))
    # dcn-exporter on a real relay: every sample names its node; the
    # program's id and interface are an info metric's labels, not counts.
    r = sh(sys.executable, os.path.join(os.path.dirname(FABRIC), "dcn-exporter"),
           "-p", na["prefix"], "--once", check_rc=False)
    lines = [l for l in r.stdout.splitlines() if l and not l.startswith("#")]
    info = [l for l in lines if l.startswith("dcnfwd_xdp_info{") and
            'prog_id="%d"' % xdp1.get("prog_id", -1) in l]
    check(lines and all('node="%s"' % na["name"] in l for l in lines) and info and
          not any('verdict="prog_id"' in l or 'verdict="ifindex"' in l for l in lines),
          "dcn-exporter on %s: %d samples, each with its node; XDP program %s "
          "as dcnfwd_xdp_info, not a frame count" %
          (na["name"], len(lines), xdp1.get("prog_id")))


# Every generator started (its process and --file-prefix): a run cut
# short by an error stops those still running and removes their DPDK
# runtime directories.
GENS = []


def gen_start(st, src, dst, seconds):
    hosts = "dcnf-%s-hosts" % NAME
    prefix = "dcnf-%s-gen" % NAME
    cmd = ["ip", "netns", "exec", hosts, GEN, "-l", "0", "--no-huge", "-m", "256",
           "--no-pci", "--log-level=5", "--file-prefix=" + prefix, "--",
           "--tx", "net_af_packet0,iface=h%s" % src, "--rx",
           "net_af_packet1,iface=h%s" % dst,
           "--src", st["nodes"][src]["host_addr"],
           "--dst", st["nodes"][dst]["host_addr"], "--rate", str(RATE),
           "--duration", str(seconds), "--linger", "1", "--json"]
    g = (subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True), prefix)
    GENS.append(g)
    return g


def gens_stopped():
    """The generators this run started and did not wait for, stopped
    (by their PIDs), their runtime directories removed."""
    for p, prefix in GENS:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
            try:
                p.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.communicate()
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)


def gen_flowing(st, src, dst, seconds):
    """dcn-gen started from src to dst, once its frames reach src."""
    g = gen_start(st, src, dst, seconds)
    if not wait_flowing(st, st["nodes"][src]["name"]):
        gen_wait(*g)
        raise RuntimeError("no traffic from dcn-gen reached %s" %
                           st["nodes"][src]["name"])
    return g


def gen_wait(p, prefix):
    out, err = p.communicate(timeout=120)
    shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    for line in out.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise RuntimeError("dcn-gen: %s" % err[-2000:])


def ports_out(st, node):
    """Frames forwarded out of each fabric port of node (one query)."""
    t = tel(st, node["name"], "/dcn/ports")
    return {p: t.get("p%d" % p, {}).get("forwarded_out", 0) for p in node["ports"]}


def flow_cable(st, src):
    """The fabric port of src a flow from its host leaves by (the one that
    sends most over half a second, after a second to settle), and the
    frames each port had sent then."""
    time.sleep(1.0)
    o0 = ports_out(st, src)
    time.sleep(0.5)
    o1 = ports_out(st, src)
    cable = max(o1, key=lambda p: o1[p] - o0[p])
    check(o1[cable] > o0[cable], "the flow leaves %s by p%d" % (src["name"], cable))
    return cable, o1


def host_tx(st, node):
    return tel(st, node, "/dcn/ports").get("host", {}).get("tx", 0)


def delivery_rate(st, node, seconds=1.5):
    """Frames a second node's host port sends, over seconds."""
    t0, h0 = time.time(), host_tx(st, node)
    time.sleep(seconds)
    t1, h1 = time.time(), host_tx(st, node)
    return (h1 - h0) / (t1 - t0)


def rate_after_repair(st, node, timeout=8.0):
    """Frames a second node's host port sends once the fabric has routed
    around a failure: what is checked is that it does, not how soon (the
    outage is printed as a figure); a machine that stalls for a while
    only makes the wait longer. Half-second looks until the rate is back,
    or timeout, then the rate over 1.5 s."""
    end = time.time() + timeout
    while delivery_rate(st, node, 0.5) < 0.9 * RATE and time.time() < end:
        pass
    return delivery_rate(st, node)


def outage(what, rep):
    lost = max(rep["lost"], 0)
    print("OUTAGE %s: %.2f ms (%d frames lost of %d)" %
          (what, lost * 1000.0 / RATE, lost, rep["sent"]))


def wait_flowing(st, node, timeout=20):
    """Until the generator's frames reach node's host port (dcn-gen first
    waits for its own ports)."""
    first = tel(st, node, "/dcn/ports").get("host", {}).get("rx", 0)
    end = time.time() + timeout
    while time.time() < end:
        time.sleep(0.2)
        if tel(st, node, "/dcn/ports").get("host", {}).get("rx", 0) > first + RATE // 10:
            return True
    return False


def vertex_of(st, name):
    for v, n in st["nodes"].items():
        if n["name"] == name:
            return v


def flow_pair(st):
    """The flow the failure checks run: from the first node with a host
    to the one farthest from it."""
    src, dst, relays = pick_pair(st)
    print("flow %s -> %s at %d frames/s, route %s" % (
        src["name"], dst["name"], RATE, " ".join(h[0] for h in relays)))
    return src, dst, vertex_of(st, src["name"]), vertex_of(st, dst["name"])


def unplug_cable(st, src, dst, sv, dv):
    """The cable a flow leaves its first relay by, pulled ("dcn-fabric
    cable ... down": ip link set down) and mended: delivery goes on over
    another path meanwhile, "status --png" draws it, and once mended the
    cable carries the flow again."""
    # Long enough for every step below however slow the queries and the
    # drawing: the flow is stopped (SIGINT: sending ends, receiving
    # lingers) once the mended cable carries it.
    g, gp = gen_flowing(st, sv, dv, 300)
    t_flow = time.time()
    cable, o1 = flow_cable(st, src)
    fabric("cable", NAME, src["name"], str(cable), "down")
    rate_cut = rate_after_repair(st, dst["name"])
    check(rate_cut > 0.9 * RATE,
          "p%d of %s down: %s still delivers %.0f frames/s" %
          (cable, src["name"], dst["name"], rate_cut))
    # The flow now leaves src by another port: that cable is loaded.
    status_picture(st, src, cable, ["%s:%d" % (src["name"], p)
                                    for p in o1 if p != cable])
    fabric("cable", NAME, src["name"], str(cable), "up")
    # Hold-down: 100 ms after the hellos return; then the announcement
    # that withdraws the failure, on a machine of twenty processes.
    t_mend, carried = time.time(), 0
    time.sleep(1.0)
    while carried <= 0.5 * RATE and time.time() - t_mend < 10:
        m0 = ports_out(st, src)[cable]
        time.sleep(1.0)
        carried = ports_out(st, src)[cable] - m0
    check(carried > 0.5 * RATE,
          "p%d up again: it carries the flow again (%d frames in the second "
          "before %.1f s after the mend)" % (cable, carried,
                                             time.time() - t_mend))
    if carried <= 0.5 * RATE:
        o2 = ports_out(st, src)
        time.sleep(1.0)
        o3 = ports_out(st, src)
        print("  out of %s per port over 1 s: %s; its route to %s: %s; "
              "its links: %s" % (src["name"], {p: o3[p] - o2[p] for p in o3},
                                 dst["name"],
                                 tel(st, src["name"], "/dcn/route,%s" %
                                     dst["host_addr"].split("/")[0]),
                                 tel(st, src["name"], "/dcn/links")))
    g.send_signal(signal.SIGINT)
    flowed = time.time() - t_flow
    rep = gen_wait(g, gp)
    print("dcn-gen: %s" % json.dumps(rep))
    check(rep["sent"] > flowed * RATE * 0.9, "dcn-gen sent %d in %.1f s" %
          (rep["sent"], flowed))
    outage("carrier (ip link set down)", rep)


IMPAIR_DELAY_MS, IMPAIR_JITTER_MS, IMPAIR_LOSS_PCT = 5, 1, 2


def ledger(st):
    """The fabric's ledger of loss, summed over its relays."""
    out = {}
    for s in tel_each(st, "/dcn/stats").values():
        for k, v in s.get("loss", {}).items():
            out[k] = out.get(k, 0) + v
    return out


def impaired_cable(st, src, dst, sv, dv):
    """The cable a flow enters its last relay by made slow and lossy, as a
    user does it ("dcn-fabric cable NAME NODE PORT --delay 5 --jitter 1
    --loss 2"): the flow's latency percentiles move up by the delay; the
    frames the cable loses are counted (the ledger's "wire", /dcn/impair's
    "lost"), flow control takes the credits of the data frames among them
    back (lost_repaired) and the flow runs on; every cable mended ("cable
    NAME all --delay 0"), every credited link holds its full grant."""
    g, gp = gen_flowing(st, sv, dv, 300)

    def rx_in():
        t = tel(st, dst["name"], "/dcn/ports")
        return {p: t.get("p%d" % p, {}).get("rx", 0) for p in dst["ports"]}
    r0 = rx_in()
    time.sleep(1.0)
    r1 = rx_in()
    cable = max(r1, key=lambda p: r1[p] - r0[p])
    g.send_signal(signal.SIGINT)
    base = gen_wait(g, gp)
    r = fabric("cable", NAME, dst["name"], str(cable), "--delay",
               str(IMPAIR_DELAY_MS), "--jitter", str(IMPAIR_JITTER_MS),
               "--loss", str(IMPAIR_LOSS_PCT), check_rc=False)
    check(r.returncode == 0, "dcn-fabric cable %s %d --delay %d --jitter %d "
          "--loss %d: %s" % (dst["name"], cable, IMPAIR_DELAY_MS,
                             IMPAIR_JITTER_MS, IMPAIR_LOSS_PCT,
                             (r.stdout + r.stderr).strip()))
    l0 = ledger(st)
    rep = gen_wait(*gen_start(st, sv, dv, 3))
    l1 = ledger(st)
    im = tel(st, dst["name"], "/dcn/impair").get("p%d" % cable, {})
    shift = (rep["latency_us"]["p50"] - base["latency_us"]["p50"]) / 1000.0
    print("latency us before: %s; on the impaired cable: %s" %
          (base["latency_us"], rep["latency_us"]))
    check(shift >= IMPAIR_DELAY_MS - 1.0,
          "a %d ms cable (p%d into %s): the flow's p50 latency %.2f ms later "
          "(%.0f us, was %.0f us)" % (IMPAIR_DELAY_MS, cable, dst["name"], shift,
                                      rep["latency_us"]["p50"],
                                      base["latency_us"]["p50"]))
    wire = l1.get("wire", 0) - l0.get("wire", 0)
    repaired = l1.get("lost_repaired", 0) - l0.get("lost_repaired", 0)
    check(im.get("lost", 0) > 0 and wire > 0 and rep["lost"] > 0,
          "a %d%% lossy cable loses frames, counted: %d by /dcn/impair on p%d, "
          "%d as wire in the ledger while the flow ran; the flow lost %d of %d"
          % (IMPAIR_LOSS_PCT, im.get("lost", 0), cable, wire, rep["lost"],
             rep["sent"]))
    check(repaired > 0 and rep["received"] > 0.9 * rep["sent"],
          "flow control takes the lost data frames' credits back (%d "
          "lost_repaired) and the flow runs on: %d of %d delivered" %
          (repaired, rep["received"], rep["sent"]))
    lat = tel(st, dst["name"], "/dcn/latency")
    check(lat.get("samples", 0) > 0 and sum(lat.get("le_ns", {}).values()) ==
          lat.get("samples"),
          "%s's histogram of how long frames stay: %d samples, in its buckets" %
          (dst["name"], lat.get("samples", 0)))
    # Mended as every cable is: "cable NAME all --delay 0".
    fabric("cable", NAME, "all", "--delay", "0")
    im = tel(st, dst["name"], "/dcn/impair").get("p%d" % cable, {})
    check(im.get("delay_us") == 0 and im.get("loss_ppm") == 0,
          "mended (cable all --delay 0): p%d of %s passes frames as they "
          "come: %s" % (cable, dst["name"], im))
    full_credit(st)


def unplug_kill(st, src, dst, sv, dv):
    """The relay that carries the flow in the middle, killed: its
    neighbours' hellos stop and delivery goes round it. (Which relay: the
    one whose transit counter moves; routing may pick another than
    dcn-topo's draw.) Returns the nodes killed."""
    g, gp = gen_flowing(st, sv, dv, 120)
    middle = transit_relay(st, src, dst)
    if middle is None:
        print("no relay between %s and %s carries the flow: nothing to kill" %
              (src["name"], dst["name"]))
        g.send_signal(signal.SIGINT)
        gen_wait(g, gp)
        return ()
    fabric("kill", NAME, middle)
    rate_kill = rate_after_repair(st, dst["name"])
    check(rate_kill > 0.9 * RATE,
          "%s (in transit) killed: %s still delivers %.0f frames/s" %
          (middle, dst["name"], rate_kill))
    g.send_signal(signal.SIGINT)
    outage("killed relay (hellos)", gen_wait(g, gp))
    return (middle,)


def unplug_mode():
    st = up("--host", "veth")
    pair = flow_pair(st)
    unplug_cable(st, *pair)
    down(killed=unplug_kill(st, *pair))


def lost_inside(st):
    """Frames lost inside the fabric, summed over its nodes: fabric_drops
    less frames of an unknown EtherType (the hosts' kernels send IPv6
    neighbour discovery into their host ports, which is no fabric
    traffic)."""
    return sum(lost_by_reason(st).values())


def lost_by_reason(st):
    """{(node, reason): frames} of lost_inside, for a failure's message."""
    out = {}
    stats, ports = tel_each(st, "/dcn/stats"), None
    for n in st["nodes"].values():
        s = stats[n["name"]]
        drops = dict(s.get("drop", {}))
        drops.pop("unknown_ethertype", None)
        # fabric_drops is the reasons' sum inside the fabric; a reason
        # counted at the edge (ingress) is not in it.
        inside = s.get("fabric_drops", 0) - s.get("drop", {}).get("unknown_ethertype", 0)
        listed = 0
        for reason, k in drops.items():
            if k:
                out[(n["name"], reason)] = k
                listed += k
        if inside != listed:
            # The rest are port drops (queue full, link down, no
            # neighbour): by port, for the message.
            ports = ports or tel_each(st, "/dcn/ports")
            for pname, x in ports[n["name"]].items():
                if not isinstance(x, dict):
                    continue
                keys = ("down_drop", "nbr_drop", "tx_drop") + \
                    (() if x.get("kind") == "host" else ("in_drop",))
                for key in keys:
                    if x.get(key):
                        out[(n["name"], "%s.%s" % (pname, key))] = x[key]
                        listed += x[key]
        if inside != listed:
            out[(n["name"], "other")] = inside - listed
    return out


def transit_of(st, node):
    return tel(st, node, "/dcn/stats").get("transit", 0)


def links_up(st):
    """Every fabric link of every node up, as each node sees it: the
    returned relay's own and its neighbours' toward it (which a relay
    just continued from SIGSTOP sees up before its timers have run)."""
    for reply in dcn_fabric.telemetry_all(st, st["nodes"], "/dcn/links").values():
        links = dcn_fabric.link_states(reply)
        if not links or any(x != "up" for x in links.values()):
            return False
    return True


def transit_relay(st, src, dst):
    """The relay whose transit counter moves with the flow (routing may
    pick another than dcn-topo's draw), None if none carries it."""
    others = [n["name"] for n in st["nodes"].values() if n not in (src, dst)]
    t0 = {k: transit_of(st, k) for k in others}
    time.sleep(1.0)
    t1 = {k: transit_of(st, k) for k in others}
    middle = max(others, key=lambda k: t1[k] - t0[k])
    return middle if t1[middle] - t0[middle] >= RATE // 2 else None


def wait_transit(st, node, timeout=8.0):
    """Frames node carried in transit over a second, once it carries the
    flow again (up to timeout)."""
    end = time.time() + timeout
    while True:
        t0 = transit_of(st, node)
        time.sleep(1.0)
        got = transit_of(st, node) - t0
        if got >= RATE // 2 or time.time() > end:
            return got


def returned(st, dst, middle, how, t_back):
    """While the flow runs, after middle came back: its links, its
    transit, the rate, the announcements withdrawn. Returns the count of
    frames lost inside the fabric from its links' return on."""
    st = state()
    up_ms = None
    end = time.time() + 10
    while time.time() < end:
        if links_up(st):
            up_ms = (time.time() - t_back) * 1000
            break
        time.sleep(0.05)
    check(up_ms is not None, "%s (%s) back: its links and its neighbours' "
          "links to it are up after %s" %
          (middle, how, "%.0f ms" % up_ms if up_ms is not None else "10 s: no"))
    lost0 = lost_inside(st)
    carried = wait_transit(st, middle)
    check(carried >= RATE // 2, "%s (%s) back: it carries the flow in transit "
          "again (%d frames in 1 s)" % (middle, how, carried))
    rate = rate_after_repair(st, dst["name"])
    check(rate > 0.9 * RATE, "%s (%s) back: %s receives the flow at full rate "
          "(%.0f frames/s)" % (middle, how, dst["name"], rate))
    withdrawn(st, middle, how)
    return st, lost0


def settled(st, middle, how, lost0, g, gp):
    """Once the flow has stopped: every credited link at its full grant
    (the returned relay's own and its neighbours' toward it), and nothing
    lost inside the fabric since middle's links came back."""
    g.send_signal(signal.SIGTERM)
    rep = gen_wait(g, gp)
    print("dcn-gen: %s" % json.dumps(rep))
    outage(how, rep)
    full_credit(st)
    by = lost_by_reason(st)
    lost = sum(by.values()) - lost0
    check(lost == 0, "%s (%s) back: nothing lost inside the fabric since its "
          "links came up (%d; all drops so far by node and reason: %s)" %
          (middle, how, lost, sorted(by.items())))


def withdrawn(st, middle, how, timeout=5.0):
    """Every node has taken back what was announced of middle's failure:
    no link of the fabric is known down anywhere."""
    end = time.time() + timeout
    while True:
        down = {}
        for v, n in st["nodes"].items():
            k = (dcn_fabric.telemetry(st, v, "/dcn/links") or {}).get(
                "/dcn/links", {}).get("links_known_down", -1)
            if k != 0:
                down[n["name"]] = k
        if not down or time.time() > end:
            break
        time.sleep(0.3)
    check(not down, "%s (%s) back: no node knows a link down any more%s" %
          (middle, how, "; still: %s" % down if down else ""))


ROGUE = r"""
import socket, sys, time
iface, victim, seconds, rate = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind((iface, 0))
own, vm = s.getsockname()[4], bytes.fromhex(victim.replace(":", ""))
s.settimeout(10)
while True:            # one of the victim's hellos (fabric type 3)
    f = s.recv(2048)
    if f[6:12] == vm and f[14] & 0x0F == 3:
        break
forged = f[:6] + own + f[12:]          # "I am the victim"
sent, end = 0, time.time() + seconds
while time.time() < end:
    s.send(forged)
    sent += 1
    time.sleep(1.0 / rate)
print(sent)
"""


FORGE_LSA = r"""
import os, socket, struct, sys
iface, origin, hops = sys.argv[1], sys.argv[2], int(sys.argv[3])
links = [(l.split(":")[0], int(l.split(":")[1])) for l in sys.argv[4].split(",")]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind((iface, 0))
ip = lambda a: socket.inet_aton(a)
# An announcement from origin, a fresh epoch and a sequence far ahead,
# listing links down: fabric header (version 1, type 4), then origin,
# epoch, seq, hops, n, and (address, port) per link.
body = ip(origin) + struct.pack("!IIBBxx", 0x5eed, 1 << 30, hops, len(links))
body += b"".join(ip(a) + struct.pack("!Hxx", p) for a, p in links)
hdr = bytes([0x14, 0, 1, 0, 0, 0]) + struct.pack("!H", len(body)) + ip(origin) + bytes(8)
tag = os.urandom(24) if len(sys.argv) > 5 else b""   # a made-up trailer
s.send(b"\xff" * 6 + s.getsockname()[4] + b"\x88\xb5" + hdr + body + tag)
"""


def ping_series(node, addr, count, interval=0.1):
    """Which of count pings of addr from node got a reply, in order."""
    r = netns_exec(node, "ping", "-c", str(count), "-i", str(interval), "-W", "1",
                   addr, check_rc=False, timeout=count * interval + 30)
    got = {int(m) for m in re.findall(r"icmp_seq=(\d+)", r.stdout)}
    return [i in got for i in range(1, count + 1)]


def port_macs(n):
    out = sh("ip", "-n", n["ns"], "-j", "link", "show").stdout
    return {l["address"]: l["ifname"] for l in json.loads(out)
            if l["ifname"].startswith("p")}


def switch_segment(st, sw_ns):
    """A segment where two nodes meet: a bridge that learnt a port MAC of
    each. Returns (a, a_if, b, b_if, bridge, segment, owner, b_port):
    segment maps each bridge to the (node, interface) it learnt, owner
    each port MAC to its (node, interface), b_port is the bridge port b
    is behind; None when there is none."""
    owner = {}
    for n in st["nodes"].values():
        for mac, ifname in port_macs(n).items():
            owner[mac] = (n, ifname)
    a = b = bridge = b_port = None
    links = json.loads(sh("ip", "-n", sw_ns, "-j", "link", "show", "type",
                          "bridge").stdout)
    segment, fdbs = {}, {}
    for br in sorted(l["ifname"] for l in links):
        fdbs[br] = json.loads(sh("bridge", "-n", sw_ns, "-j", "fdb", "show", "br",
                                 br).stdout)
        segment[br] = [owner[e["mac"]] for e in fdbs[br] if e.get("mac") in owner]
    for br, seen in segment.items():
        if len({id(x[0]) for x in seen}) >= 2:
            (a, a_if), (b, b_if) = seen[0], next(x for x in seen if x[0] is not seen[0][0])
            bridge = br
            break
    check(bridge is not None, "a switch segment with two relays on it: %s" % bridge)
    if bridge is None:
        return None
    for e in fdbs[bridge]:
        if e.get("mac") in owner and owner[e["mac"]] == (b, b_if):
            b_port = e.get("ifname")
    return a, a_if, b, b_if, bridge, segment, owner, b_port


@contextlib.contextmanager
def rogue_port(sw_ns, bridge, learning=True):
    """A namespace of the rogue's, with its port "r0" on bridge of the
    switch namespace sw_ns (learning off: a rogue that sends from a
    relay's MAC does not draw the relay's frames to itself); removed
    after."""
    rogue_ns = "dcnf-%s-rogue" % NAME
    sh("ip", "netns", "add", rogue_ns)
    try:
        sh("ip", "-n", sw_ns, "link", "add", "rogue", "type", "veth", "peer",
           "name", "r0", "netns", rogue_ns)
        sh("ip", "-n", sw_ns, "link", "set", "rogue", "master", bridge, "up")
        if not learning:
            sh("bridge", "-n", sw_ns, "link", "set", "dev", "rogue",
               "learning", "off")
        sh("ip", "-n", rogue_ns, "link", "set", "r0", "up")
        yield rogue_ns
    finally:
        sh("ip", "netns", "del", rogue_ns, check_rc=False)


def rogue_elsewhere(st, sw_ns, rogue_ns, segment, a, b):
    """The rogue's second port "r1", on a switch segment b is not on (its
    bridge returned); the node farthest from b (to ping it from), and a node other than a, b
    and that one (whose announcements the rogue forges)."""
    other = next(br for br, seen in segment.items()
                 if seen and all(x[0] is not b for x in seen))
    sh("ip", "-n", sw_ns, "link", "add", "rogue2", "type", "veth", "peer",
       "name", "r1", "netns", rogue_ns)
    sh("ip", "-n", sw_ns, "link", "set", "rogue2", "master", other, "up")
    sh("ip", "-n", rogue_ns, "link", "set", "r1", "up")
    far = max((n for n in st["nodes"].values() if n is not b),
              key=lambda n: len(route(n["name"], b["name"])))
    origin = next(n for n in st["nodes"].values() if n not in (a, b, far))
    return other, far, origin


def rogue_mode():
    """A rogue port on an L2 switch segment, without a fabric key: it
    replays a neighbour's hellos from its own MAC, 20 times as often as
    the neighbour. (From a group MAC the bridge itself drops them, as
    802.1D has it.) The neighbour keeps its
    traffic (ping loss 0): its MAC is not taken while it speaks, and the
    refusals are counted. Once the neighbour is dead for the hold-down,
    the MAC that speaks for it is taken, and the change is counted and
    logged."""
    st = up()
    sw_ns = "dcnf-%s-sw" % NAME
    if sw_ns not in st["netns"]:
        skip("%s has no L2 switch" % SPEC)
    seg = switch_segment(st, sw_ns)
    if seg is None:
        return
    a, a_if, b, b_if, bridge, segment, owner, _ = seg
    b_mac = next(m for m, (n, i) in owner.items() if n is b and i == b_if)
    with rogue_port(sw_ns, bridge) as rogue_ns:
        before = tel(st, a["name"], "/dcn/neighbours").get(a_if, {})
        rogue = subprocess.Popen(["ip", "netns", "exec", rogue_ns, sys.executable,
                                  "-c", ROGUE, "r0", b_mac, "8", "2000"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        time.sleep(1.0)
        r = netns_exec(a["name"], "ping", "-c", "30", "-i", "0.1", "-W", "1",
                       b["host_addr"], check_rc=False, timeout=60)
        out, err = rogue.communicate(timeout=60)
        m = re.search(r"(\d+) received", r.stdout)
        got = int(m.group(1)) if m else 0
        check(rogue.returncode == 0 and got == 30,
              "a rogue port on %s sends %s hellos claiming to be %s: %s still "
              "pings it, %d of 30 replies%s" % (bridge, out.strip() or "no",
                                                b["name"], a["name"], got,
                                                "" if rogue.returncode == 0 else
                                                " (rogue: %s)" % err.strip()[-300:]))
        after = tel(st, a["name"], "/dcn/neighbours").get(a_if, {})
        d_mac = after.get("hello_mac_refused", 0) - before.get("hello_mac_refused", 0)
        check(d_mac > 1000 and after.get("peer_mac_changes", 0) == 0,
              "%s %s counts the forged hellos refused (%d), its neighbour's MAC "
              "unchanged (%d changes)" % (a["name"], a_if, d_mac,
                                          after.get("peer_mac_changes", 0)))
        # A forged announcement, once, on a segment b is not on: a node
        # says all of b's links are down. Who hears b refuses it (its
        # hellos say otherwise); who does not takes it until it ages
        # out, unrepeated (2 s).
        other, far, origin = rogue_elsewhere(st, sw_ns, rogue_ns, segment, a, b)
        before = {n["name"]: tel(st, n["name"], "/dcn/links")
                  for n in st["nodes"].values()}
        pinger = subprocess.Popen(["ip", "netns", "exec", far["ns"], "ping", "-c",
                                   "60", "-i", "0.1", "-W", "1", b["host_addr"]],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        sh("ip", "netns", "exec", rogue_ns, sys.executable, "-c", FORGE_LSA,
           "r1", origin["host_addr"], "8",
           ",".join("%s:%d" % (b["host_addr"], port) for port in b["ports"]))
        out, _ = pinger.communicate(timeout=60)
        got = {int(m) for m in re.findall(r"icmp_seq=(\d+)", out)}
        lost = [i for i in range(1, 61) if i not in got]
        after = {n["name"]: tel(st, n["name"], "/dcn/links")
                 for n in st["nodes"].values()}
        moved = lambda k: sum(after[x].get(k, 0) - before[x].get(k, 0) for x in after)
        check(len(lost) <= 25 and all(i in got for i in range(41, 61)),
              "a forged announcement (%s says %s's links are down): %s pinging "
              "%s lost %d of 60 at 10/s, none in the last 2 s (ageing: 2 s)"
              % (origin["name"], b["name"], far["name"], b["name"], len(lost)))
        check(moved("announcements_contradicted") > 0 and moved("announcements_aged") > 0,
              "nodes that hear %s refused it (%d), the others forgot it unrepeated (%d)"
              % (b["name"], moved("announcements_contradicted"),
                 moved("announcements_aged")))
        # The neighbour dies: once silent for the hold-down, whoever speaks
        # for it is taken (without a key nothing tells them apart), and
        # that is counted and logged.
        rogue = subprocess.Popen(["ip", "netns", "exec", rogue_ns, sys.executable,
                                  "-c", ROGUE, "r0", b_mac, "8", "100"],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
        time.sleep(1.0)    # it has a hello of b's to replay
        fabric("kill", NAME, b["name"])
        rogue.communicate(timeout=60)
        after = tel(st, a["name"], "/dcn/neighbours").get(a_if, {})
        log = os.path.join("/run/dcn-fabric", NAME, a["ns"] + ".log")
        with open(log, errors="replace") as f:
            logged = [l.strip() for l in f if "now speaks from" in l]
        check(after.get("peer_mac_changes", 0) == 1 and len(logged) == 1,
              "%s dead: the MAC speaking for it is taken once silent for the "
              "hold-down, counted (%d) and logged (%s)" % (
                  b["name"], after.get("peer_mac_changes", 0),
                  logged[0] if logged else "no log line"))
    down(killed=(b["name"],))


KEYED_ROGUE = r"""
import json, socket, struct, sys, time
iface, seconds, rate = sys.argv[1], float(sys.argv[4]), float(sys.argv[5])
bm, am = (bytes.fromhex(x.replace(":", "")) for x in sys.argv[2:4])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind((iface, 0))
own = s.getsockname()[4]
s.settimeout(20)
hello = credit = None
while hello is None or credit is None:    # b's, as the mirror shows them
    f = s.recv(2048)
    if f[6:12] != bm:
        continue
    if f[14] & 0x0F == 3:
        hello = f
    elif f[14] & 0x0F == 2 and f[:6] == am:
        credit = f
P = 34                                     # Ethernet and fabric headers
plen = struct.unpack("!H", credit[20:22])[0]
flip = lambda f, i: f[:i] + bytes([f[i] ^ 0x55]) + f[i + 1:]
frames = {
    "hello_other_mac": hello[:6] + own + hello[12:],
    "hello_replayed": hello,
    "hello_seq_changed": flip(hello, P + 12),
    "credit_replayed": credit,
    "credit_grant_0": credit[:P + 4] + bytes(4) + credit[P + 8:],
    "credit_grant_huge": credit[:P + 4] + b"\x00\xff\xff\xff" + credit[P + 8:],
    "credit_unsigned": credit[:P + plen],
}
sent = dict.fromkeys(frames, 0)
end = time.time() + seconds
while time.time() < end:
    for k, f in frames.items():
        s.send(f)
        sent[k] += 1
        time.sleep(1.0 / rate)
print(json.dumps(sent))
"""


CATCH_LSA = r"""
import socket, sys
iface, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind((iface, 0))
s.settimeout(30)
while True:
    f = s.recv(2048)
    if f[14] & 0x0F == 4 and f[34 + 13] > 0:   # lists a link down
        break
open(out, "w").write(f.hex())
"""


SEND_HEX = r"""
import socket, sys
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind((sys.argv[1], 0))
s.send(bytes.fromhex(open(sys.argv[2]).read()))
"""


def port_auth(st, node, ifname):
    """(missing, bad_tag, replayed) refused on node's port ifname."""
    p = tel(st, node, "/dcn/neighbours").get(ifname, {})
    return (p.get("auth_missing", 0), p.get("auth_bad_tag", 0),
            p.get("auth_replayed", 0))


def all_auth(st):
    """Each node's refused hellos and announcements, by reason, summed
    over its ports."""
    out = {}
    for name, nbrs in tel_each(st, "/dcn/neighbours").items():
        tot = [0, 0, 0]
        for p in nbrs.values():
            if isinstance(p, dict):
                for i, k in enumerate(("auth_missing", "auth_bad_tag", "auth_replayed")):
                    tot[i] += p.get(k, 0)
        out[name] = tot
    return out


def link_credit_auth(st, node, port, neighbour=None):
    """(unsigned, bad_tag, replayed) credit frames node refused on its
    link out of port (to neighbour, behind a switch): the counters of the
    link's VC 0 channel."""
    tot = [0, 0, 0]
    for key, c in tel(st, node, "/dcn/fc," + node).items():
        if (isinstance(c, dict) and c.get("port") == port and
                c.get("neighbour") == neighbour):
            for i, k in enumerate(("credit_unsigned", "credit_bad_tag", "credit_replayed")):
                tot[i] += c.get(k, 0)
    return tot


def pings(node, addr, count):
    r = netns_exec(node, "ping", "-c", str(count), "-i", "0.1", "-W", "1", addr,
                   check_rc=False, timeout=count * 0.1 + 60)
    m = re.search(r"(\d+) received", r.stdout)
    return int(m.group(1)) if m else 0


def rogue_while_pinging(ns, script, src, dst):
    """Run a rogue script (its source, then its arguments) in namespace
    ns while src pings dst 40 times. Returns the rogue's exit code, the
    replies, and what the rogue says it sent (JSON, by kind)."""
    rogue = subprocess.Popen(["ip", "netns", "exec", ns, sys.executable, "-c"] +
                             script, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    got = pings(src["name"], dst["host_addr"], 40)
    out, err = rogue.communicate(timeout=60)
    try:
        sent = json.loads(out)
    except ValueError:
        sent = {}
    print("rogue sent: %s %s" % (sent, err.strip()[-300:]))
    return rogue.returncode, got, sent


def keyed_switch(st, sw_ns):
    """A rogue port on an RRect switch segment, the fabric signed: the
    rogue sees what a neighbour b sends (a mirror of its switch port) and
    sends it again, and altered: b's hellos from its own MAC, verbatim
    (its switch port does not learn, so the switch is not fooled: only
    the relays could be), with a changed sequence; b's credit frames to
    a verbatim, with grant 0, with a huge grant, without a trailer. Then
    announcements: forged ones, fresh, and a real one replayed after it
    aged out. Nothing changes: ping loss 0, no link known down, every
    refusal counted by its reason."""
    seg = switch_segment(st, sw_ns)
    if seg is None:
        return
    a, a_if, b, b_if, bridge, segment, owner, b_port = seg
    b_mac = next(m for m, (n, i) in owner.items() if n is b and i == b_if)
    a_mac = next(m for m, (n, i) in owner.items() if n is a and i == a_if)
    with rogue_port(sw_ns, bridge, learning=False) as rogue_ns:
        r = sh("ip", "netns", "exec", sw_ns, "tc", "qdisc", "add", "dev", b_port,
               "clsact", check_rc=False)
        if r.returncode == 0:
            r = sh("ip", "netns", "exec", sw_ns, "tc", "filter", "add", "dev", b_port,
                   "ingress", "protocol", "all", "u32", "match", "u32", "0", "0",
                   "action", "mirred", "egress", "mirror", "dev", "rogue",
                   check_rc=False)
        if r.returncode != 0:
            skip("no tc mirror (u32, mirred) in this kernel: %s" % r.stderr.strip())
        hello0 = port_auth(st, a["name"], a_if)
        credit0 = link_credit_auth(st, a["name"], a_if, b["name"])
        rc, got, sent = rogue_while_pinging(rogue_ns, [KEYED_ROGUE, "r0", b_mac,
                                                       a_mac, "8", "2000"],
                                            a, b)
        check(rc == 0 and got == 40,
              "a rogue on %s replays and alters %s's hellos and credit frames "
              "(%d frames): %s pings %s, %d of 40 replies" %
              (bridge, b["name"], sum(sent.values()), a["name"], b["name"], got))
        hello1 = port_auth(st, a["name"], a_if)
        credit1 = link_credit_auth(st, a["name"], a_if, b["name"])
        dh = [x - y for x, y in zip(hello1, hello0)]
        dc = [x - y for x, y in zip(credit1, credit0)]
        n_h = sent.get("hello_replayed", 0)
        check(dh[1] >= sent.get("hello_other_mac", 1) + sent.get("hello_seq_changed", 1)
              and dh[2] >= n_h > 0,
              "%s %s refused the altered hellos as bad tags (%d) and the "
              "verbatim ones as replays (%d of %d)" % (a["name"], a_if, dh[1], dh[2], n_h))
        check(dc[0] >= sent.get("credit_unsigned", 1) and
              dc[1] >= sent.get("credit_grant_0", 1) + sent.get("credit_grant_huge", 1)
              and dc[2] >= sent.get("credit_replayed", 1) > 0,
              "%s refused %s's forged credit frames: unsigned %d, bad tag %d, "
              "replayed %d" % (a["name"], b["name"], dc[0], dc[1], dc[2]))
        nb = tel(st, a["name"], "/dcn/neighbours").get(a_if, {})
        check(nb.get("peer_mac_changes", 0) == 0,
              "%s still knows %s by its own MAC (%d changes)" %
              (a["name"], b["name"], nb.get("peer_mac_changes", 0)))
        full_credit(st)

        # Announcements, heard on a segment b is not on.
        other, far, origin = rogue_elsewhere(st, sw_ns, rogue_ns, segment, a, b)
        before = all_auth(st)
        pinger = subprocess.Popen(["ip", "netns", "exec", far["ns"], "ping", "-c",
                                   "40", "-i", "0.1", "-W", "1", b["host_addr"]],
                                  stdout=subprocess.PIPE, text=True)
        time.sleep(1.0)
        links = ",".join("%s:%d" % (b["host_addr"], port) for port in b["ports"])
        for extra in ((), ("tag",)):
            sh("ip", "netns", "exec", rogue_ns, sys.executable, "-c", FORGE_LSA,
               "r1", origin["host_addr"], "8", links, *extra)
            time.sleep(0.5)
        out, _ = pinger.communicate(timeout=60)
        replies = len(set(re.findall(r"icmp_seq=(\d+)", out)))
        after = all_auth(st)
        moved = [sum(after[k][i] - before[k][i] for k in after) for i in range(3)]
        check(replies == 40 and moved[0] > 0 and moved[1] > 0,
              "forged announcements (%s says %s's links are down), unsigned "
              "and with a made-up tag: %s pinging %s got %d of 40; refused "
              "as missing a tag %d times, as bad tags %d" %
              (origin["name"], b["name"], far["name"], b["name"], replies,
               moved[0], moved[1]))

        # A real announcement, recorded while origin's cable is out, and
        # played again once origin has mended it and the fabric forgot.
        port = origin["ports"][0]
        catch_file = os.path.join("/run/dcn-fabric", NAME, "lsa.hex")
        catcher = subprocess.Popen(["ip", "netns", "exec", rogue_ns, sys.executable,
                                    "-c", CATCH_LSA, "r1", catch_file],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        time.sleep(0.5)
        fabric("cable", NAME, origin["name"], str(port), "down")
        _, err = catcher.communicate(timeout=60)
        fabric("cable", NAME, origin["name"], str(port), "up")
        check(catcher.returncode == 0, "an announcement of %s's cable out "
              "recorded on %s%s" % (origin["name"], other, err.strip()[-200:]))
        withdrawn(st, origin["name"], "cable mended", timeout=15)
        time.sleep(4.0)      # its last refreshes (1.5 s), then ageing (2 s)
        replays = lambda: sum(tel(st, n["name"], "/dcn/links").get(
            "announcements_replayed", 0) for n in st["nodes"].values())
        before = replays()
        sh("ip", "netns", "exec", rogue_ns, sys.executable, "-c", SEND_HEX, "r1",
           catch_file)
        time.sleep(0.3)
        known = {n["name"]: tel(st, n["name"], "/dcn/links").get("links_known_down", -1)
                 for n in st["nodes"].values()}
        replayed = replays() - before
        check(replayed > 0 and all(v == 0 for v in known.values()),
              "the recording played again on %s: refused as a replay by %d "
              "node(s), no link known down anywhere (%s)" %
              (other, replayed, known))


CABLE_ROGUE = r"""
import json, os, socket, struct, sys, time
iface, addr, port, seconds, rate = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x88B5))
s.bind((iface, 0))
own = s.getsockname()[4]
ip = socket.inet_aton(addr)
eth = b"\xff" * 6 + own + b"\x88\xb5"
def frame(ftype, body, trailer):
    hdr = bytes([0x10 | ftype, 0, 1, 0, 0, 0]) + struct.pack("!H", len(body)) + ip + bytes(8)
    return eth + hdr + body + trailer
fake = lambda: os.urandom(24)
hello = ip + struct.pack("!HHII", port, 10, 0, 1 << 20)
vcs = 8
credit = lambda grant: struct.pack("!IIII", 7, grant, 0, 0) + bytes(12 * vcs)
# x announces that all four of its first ports are down, epoch and
# sequence far ahead
lsa = ip + struct.pack("!IIBBxx", 0x5eed, 1 << 30, 8, 4) + b"".join(
    ip + struct.pack("!Hxx", p) for p in range(4))
frames = {
    "hello_made_up_tag": lambda: frame(3, hello, fake()),
    "announcement_made_up_tag": lambda: frame(4, lsa, fake()),
    "credit_grant_0_made_up_tag": lambda: frame(2, credit(0), fake()),
    "credit_grant_huge_unsigned": lambda: frame(2, credit(1 << 24), b""),
}
sent = dict.fromkeys(frames, 0)
end = time.time() + seconds
while time.time() < end:
    for k, f in frames.items():
        s.send(f())
        sent[k] += 1
        time.sleep(1.0 / rate)
print(json.dumps(sent))
"""


def keyed_cable(st):
    """A rogue on a cable (frames sent into one end of a node's veth,
    as a tap on the wire would): made-up hellos and announcements in the
    node's name and credit frames that would stall the link (grant 0) or
    overrun its peer (a huge grant), with made-up tags or none. (A
    recording cannot be taken off a veth cable: XDP hands the fabric's
    frames to dcnfwd before any tap sees them; replays are the switch
    test's, and test_fc_dp's on a cable port.) The peer refuses
    them all, counted; traffic across the cable is untouched."""
    x = next(n for n in st["nodes"].values() if n["host_addr"])
    y = None
    for n in st["nodes"].values():
        if n is not x and n["host_addr"] and len(route(x["name"], n["name"])) == 2:
            y = n
            break
    check(y is not None, "a node one cable from %s: %s" % (x["name"], y and y["name"]))
    if y is None:
        return
    port = route(x["name"], y["name"])[0][1]
    y_if = "p%d" % route(y["name"], x["name"])[0][1]
    credit0 = link_credit_auth(st, y["name"], y_if)
    hello0 = all_auth(st)[y["name"]]
    rc, got, sent = rogue_while_pinging(x["ns"], [CABLE_ROGUE, "p%d" % port,
                                                  x["host_addr"], str(port), "8",
                                                  "1000"], x, y)
    check(rc == 0 and got == 40,
          "a rogue on the cable %s p%d -> %s (%d frames): %s pings %s, %d of 40 "
          "replies" % (x["name"], port, y["name"], sum(sent.values()), x["name"],
                       y["name"], got))
    dc = [a - b for a, b in zip(link_credit_auth(st, y["name"], y_if), credit0)]
    dh = [a - b for a, b in zip(all_auth(st)[y["name"]], hello0)]
    check(dc[0] >= sent.get("credit_grant_huge_unsigned", 1) > 0 and
          dc[1] >= sent.get("credit_grant_0_made_up_tag", 1) > 0 and
          dh[1] >= sent.get("hello_made_up_tag", 1) +
          sent.get("announcement_made_up_tag", 1) > 0,
          "%s refused them: credit frames unsigned %d, with bad tags %d; "
          "hellos and announcements with bad tags %d" %
          (y["name"], dc[0], dc[1], dh[1]))
    full_credit(st)


FAKETIME_LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"
# How long restart_relay hangs the transit relay (doc/testing.md).
PAUSE_S = float(os.environ.get("DCN_TEST_PAUSE_S", "3"))


def keyed_clock(st):
    """A keyed relay killed and started with its wall clock 100 days
    ahead (Debian's faketime), then killed and started with the right
    clock, 100 days back: each time every node takes it back, all links
    up, and none refuses a frame of it (the incarnations are random,
    proven by the neighbours' own challenge, whatever the clock says)."""
    if not os.path.exists(FAKETIME_LIB):
        check(False, "faketime installed (%s; tools/install-deps.sh)" % FAKETIME_LIB)
        return
    node = sorted(st["nodes"].values(), key=lambda n: n["name"])[0]["name"]
    before = auth_refusals(st)
    before[node] = 0          # its counts start over with it
    # env execs dcnfwd in its own process (faketime(1) would fork, and
    # the node's PID would be faketime's).
    ahead = "env LD_PRELOAD=%s FAKETIME=+100d" % FAKETIME_LIB
    for how, wrap in (("its clock 100 days ahead", ahead),
                      ("the right clock, 100 days back", "")):
        fabric("kill", NAME, node)
        time.sleep(0.3)
        t0 = time.time()
        r = fabric("start", NAME, node, "--wait-links", "0", "--wrap", wrap,
                   check_rc=False)
        check(r.returncode == 0, "dcn-fabric start %s (%s): %s" %
              (node, how, (r.stdout + r.stderr).strip()[-300:]))
        back = None
        while time.time() - t0 < 15:
            if links_up(state()):
                back = time.time() - t0
                break
            time.sleep(0.05)
        check(back is not None, "%s started with %s: every link of the "
              "fabric up again after %s" %
              (node, how, "%.1f s" % back if back is not None else "15 s: no"))
    after = auth_refusals(state())
    more = {k: after[k] - before.get(k, 0) for k in after
            if after[k] != before.get(k, 0)}
    check(not more, "after the restarts with the clock moved, no node refused a "
          "frame of the fabric's own (refusals since: %s)" % (more or "none"))


def keyed_mode():
    """The fabric signed (dcn-fabric up --key): a rogue on a switch
    segment (RRect, LaScaDa, Totoro) or on a cable changes nothing; a
    relay restarted with its clock moved is taken back."""
    st = up("--host", "tap", "--key")
    auth_clean(st, "up")
    sw_ns = "dcnf-%s-sw" % NAME
    if sw_ns in st["netns"]:
        keyed_switch(st, sw_ns)
    else:
        keyed_cable(st)
    keyed_clock(state())
    down()


def print_relay_drops(st):
    """What each relay counted of the frames it did not deliver: drops
    by reason and by port, at ingress, lost on cables, lost with a
    killed neighbour (relays that counted none are left out)."""
    stats, all_ports = tel_each(st, "/dcn/stats"), tel_each(st, "/dcn/ports")
    for n in st["nodes"].values():
        s = stats[n["name"]]
        why = {k: v for k, v in s.get("drop", {}).items() if v}
        ports = {k: {c: p[c] for c in ("tx_drop", "in_drop", "down_drop", "nbr_drop")
                     if p.get(c)}
                 for k, p in all_ports[n["name"]].items()
                 if isinstance(p, dict)}
        ports = {k: v for k, v in ports.items() if v}
        other = {k: s[k] for k in ("ingress_drops", "lost_repaired", "lost_to_restart")
                 if s.get(k)}
        if why or ports or other or s.get("fabric_drops"):
            print("%s: drops %d, by reason %s, by port %s, %s" %
                  (n["name"], s.get("fabric_drops", 0), why, ports, other))


def print_interface_drops(st):
    """Where else a frame can go: every interface's own drop counters."""
    for ns in st["netns"]:
        for l in json.loads(sh("ip", "-n", ns, "-s", "-j", "link", "show").stdout):
            d = (l["stats64"]["rx"]["dropped"], l["stats64"]["tx"]["dropped"])
            if any(d):
                print("  %s %s: rx_dropped %d tx_dropped %d" % ((ns, l["ifname"]) + d))


def kernel_tx_dropped(st):
    """The kernel's own count of frames dropped on their way out of every
    interface of every node's namespace (ip -s link)."""
    total = 0
    for n in st["nodes"].values():
        links = json.loads(sh("ip", "-n", n["ns"], "-s", "-j", "link", "show").stdout)
        total += sum(l["stats64"]["tx"]["dropped"] for l in links if l["ifname"] != "lo")
    return total


def flap_cable(st, src, dst, sv, dv, flaps=50):
    """The cable a flow leaves its first relay by, pulled and mended
    flaps times (more until the kernels have dropped a frame, at its far
    end every other time) under traffic (0.15 s out, 0.35 s in; ip link
    set, as "dcn-fabric cable" does, without its start-up per call), flow control
    on: every frame dcn-gen sent is received, or counted where it was
    lost, to the frame: dcnfwd's drops (inside the fabric, at a host
    port's input) and the data frames lost in a kernel under a cable that
    went down, which their receivers count as they give the credits back
    (lost_repaired). What the kernels dropped after dcnfwd sent it (data
    and control) is read back into dcnfwd's figures (kernel_tx_dropped),
    equal to the kernels' own. The counts are the fabric's since it came
    up: this runs first on it."""
    # A frame reaches a pulled cable only in the moments before its
    # relay hears of it: a few flaps in twenty leave the kernel's drop
    # counts at zero, which would leave nothing to read back. So the
    # flaps go on, five times as many at most, until the kernels have
    # dropped something.
    # Pulled at the relay's end, a frame is dropped by a kernel only when
    # a send races the pull; past the first flaps the cable is pulled at
    # its far end too, where whatever the relay sends into the cable
    # before it hears of the loss is dropped by its own kernel, counted.
    most = 5 * flaps
    g, gp = gen_flowing(st, sv, dv, most * 0.5 + 6)
    cable, _ = flow_cable(st, src)
    far_ns, far_if = far_end(st, vertex_of(st, src["name"]), cable)
    done = 0
    while done < most:
        ns, dev = ((src["ns"], "p%d" % cable) if done < flaps or done % 2
                   else (far_ns, far_if))
        sh("ip", "-n", ns, "link", "set", dev, "down")
        time.sleep(0.15)
        sh("ip", "-n", ns, "link", "set", dev, "up")
        time.sleep(0.35)
        done += 1
        if done >= flaps and kernel_tx_dropped(st) > 0:
            break
    flaps = done
    # A second on the mended cable, then the sending stops (receiving
    # lingers a second more).
    time.sleep(1.0)
    g.send_signal(signal.SIGINT)
    rep = gen_wait(g, gp)
    print("dcn-gen: %s" % json.dumps(rep))
    # Nothing in flight any more, and a second poll of the kernel's
    # counters (dcnfwd reads them once a second).
    time.sleep(2.5)
    tot = dict.fromkeys(("fabric_drops", "ingress_drops", "lost_repaired",
                         "kernel_tx_dropped", "foreign"), 0)
    for s in tel_each(st, "/dcn/stats").values():
        for k in tot:
            tot[k] += s.get(k, 0)
        # The hosts' kernels' own frames (IPv6 neighbour discovery) are
        # no fabric traffic.
        tot["foreign"] += s.get("drop", {}).get("unknown_ethertype", 0)
    # Past the last relay: what the kernel dropped between its host port
    # and the host (the veth's backlog full), and what the generator's
    # own port missed. Data frames only, unlike a fabric port's kernel
    # drops (hellos and credit frames too), whose data is lost_repaired.
    host_kernel = host_missed = 0
    for ports in tel_each(st, "/dcn/ports").values():
        h = ports.get("host", {})
        host_kernel += h.get("kernel_tx_dropped", 0)
        host_missed += h.get("rx_missed", 0)
    counted = (tot["fabric_drops"] - tot["foreign"] + tot["ingress_drops"] +
               tot["lost_repaired"] + host_kernel + host_missed +
               rep.get("rx_missed", 0))
    print_relay_drops(st)
    print("counted: %s" % json.dumps(tot))
    check(rep["sent"] > flaps * 0.5 * RATE * 0.8,
          "dcn-gen sent %d frames through %d flaps of %s p%d" %
          (rep["sent"], flaps, src["name"], cable))
    ok = rep["sent"] == rep["received"] + counted
    check(ok, "every frame sent is received or counted: sent %d = received %d "
          "+ dropped inside %d + at host ports %d + lost on cables, credits "
          "repaired %d + missed by host ports %d + dropped by a kernel toward "
          "a host %d + missed by the generator's port %d" %
          (rep["sent"], rep["received"], tot["fabric_drops"] - tot["foreign"],
           tot["ingress_drops"], tot["lost_repaired"], host_missed, host_kernel,
           rep.get("rx_missed", 0)))
    if not ok:
        print_interface_drops(st)
    kernel = kernel_tx_dropped(st)
    check(tot["kernel_tx_dropped"] > 0 and tot["kernel_tx_dropped"] == kernel,
          "what the kernels dropped after dcnfwd sent it (cables down), read "
          "back by dcnfwd: %d, the kernels' own count %d" %
          (tot["kernel_tx_dropped"], kernel))
    full_credit(st)


def flap_mode(flaps=50):
    st = up("--host", "veth")
    flap_cable(st, *flow_pair(st), flaps=flaps)
    down()


def interrupted_mode():
    """An up stopped half-way: by SIGTERM (or Ctrl-C) it takes down what
    it made; by SIGKILL it cannot, and a down afterwards does, the
    namespace it was making at that moment included."""
    state_file = "/run/dcn-fabric/%s/state.json" % NAME
    for sig in (signal.SIGTERM, signal.SIGKILL):
        p = subprocess.Popen([sys.executable, FABRIC, "up", SPEC, "--name", NAME,
                              "--dcnfwd", DCNFWD, "--dcn-topo", TOPO],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        # Half-way: namespaces made and a dcnfwd or two started.
        deadline, made = time.time() + 120, None
        while time.time() < deadline and p.poll() is None:
            try:
                with open(state_file) as f:
                    st = json.load(f)
            except (OSError, ValueError):
                st = None
            if st and sum(1 for n in st["nodes"].values() if n["pid"]) >= 2:
                made = st
                break
            time.sleep(0.01)
        if made is None:
            p.kill()
            p.communicate()
            check(False, "up reached no half-way point to stop it at")
            fabric("down", NAME, "--drop-logs", check_rc=False, timeout=120)
            return
        p.send_signal(sig)
        out, err = p.communicate(timeout=120)
        what = "up stopped by %s with %d namespaces and %d dcnfwd started" % (
            signal.Signals(sig).name, len(made["netns"]),
            sum(1 for n in made["nodes"].values() if n["pid"]))
        if sig == signal.SIGTERM:
            check(p.returncode != 0 and not os.path.exists(state_file),
                  "%s: exits %d and takes itself down (%s)" %
                  (what, p.returncode, err.strip().splitlines()[-1:]))
        else:
            r = fabric("down", NAME, check_rc=False, timeout=120)
            check(r.returncode == 0, "%s: dcn-fabric down after it: %s" %
                  (what, (r.stdout + r.stderr).strip()))
        shutil.rmtree("/var/log/dcn-fabric/" + NAME, ignore_errors=True)
        names = [d for d in os.listdir("/var/run/dpdk")
                 if d.startswith("dcnf-%s-" % NAME)] \
            if os.path.isdir("/var/run/dpdk") else []
        left = leftovers_settled(names)
        pids = [pid for pid in os.listdir("/proc") if pid.isdigit()
                and cmdline_has(int(pid), "--file-prefix=dcnf-%s-" % NAME)]
        check(not left and not pids, "%s: nothing of it left: %s" %
              (what, (left + ["pid " + x for x in pids]) or "none"))


def cmdline_has(pid, text):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return text.encode() in f.read()
    except OSError:
        return False


def transit_flow(st, src, dst, sv, dv, seconds):
    """A flow from sv to dv for at most seconds, and the relay that
    carries it in transit: (generator, its prefix, relay), or None (the
    generator stopped) when no relay does."""
    g, gp = gen_flowing(st, sv, dv, seconds)
    middle = transit_relay(st, src, dst)
    check(middle is not None, "a relay carries the flow in transit: %s" % middle)
    if middle is None:
        g.send_signal(signal.SIGINT)
        gen_wait(g, gp)
        return None
    return g, gp, middle


def kill_and_start(middle, cycles, *start_args, before_kill=lambda: None):
    """Relay middle killed (dcn-fabric kill: SIGKILL) and started again
    (dcn-fabric start START_ARGS) cycles times, 0.3 s down and 0.5 s up
    each; before_kill runs before each kill. @return the starts that
    succeeded (a failed one ends the cycles, and is reported)."""
    for i in range(cycles):
        before_kill()
        fabric("kill", NAME, middle)
        time.sleep(0.3)
        r = fabric("start", NAME, middle, *start_args, check_rc=False)
        if r.returncode != 0:
            check(False, "cycle %d: dcn-fabric start %s: %s" %
                  (i + 1, middle, (r.stdout + r.stderr).strip()))
            return i
        time.sleep(0.5)
    return cycles


def restart_relay(st, src, dst, sv, dv):
    """The relay carrying the flow in transit, killed (delivery goes round
    it) and started again ("dcn-fabric start"), then hung 3 s (SIGSTOP,
    "dcn-fabric pause") and continued: each time it rejoins (links,
    transit, full rate, announcements withdrawn), every credited link
    ends at its full grant, and nothing is lost inside the fabric from
    its return on. With a fabric key, a relay back from the dead is told
    from a recording of its earlier life by its later epoch, and taken at
    once; nothing honest is refused. @return (state, the relay)."""
    flow = transit_flow(st, src, dst, sv, dv, 120)
    if flow is None:
        return st, None
    g, gp, middle = flow
    # 1. Killed outright, then started again.
    fabric("kill", NAME, middle)
    # status says how it ended; its output cut short by a pipe, quietly.
    r = subprocess.run("%s %s status %s | head -1" % (sys.executable, FABRIC, NAME),
                       shell=True, capture_output=True, text=True)
    line = [x for x in fabric("status", NAME).stdout.splitlines()
            if x.split()[:1] == [middle]]
    check(line and " KILLED " in line[0] and r.stderr == "" and
          r.stdout.startswith(NAME + ":"),
          "status: %s KILLED, and | head -1 quiet: %r %r" %
          (middle, line, r.stderr[-200:]))
    rate = rate_after_repair(st, dst["name"])
    check(rate > 0.9 * RATE, "%s (in transit) killed: %s still receives "
          "%.0f frames/s" % (middle, dst["name"], rate))
    t_back = time.time()
    r = fabric("start", NAME, middle, "--wait-links", "0", check_rc=False)
    check(r.returncode == 0, "dcn-fabric start %s: %s" %
          (middle, (r.stdout + r.stderr).strip()))
    st, lost0 = returned(st, dst, middle, "killed", t_back)
    settled(st, middle, "killed", lost0, g, gp)
    # 2. Hung for PAUSE_S s (SIGSTOP; 3 unless DCN_TEST_PAUSE_S says
    # otherwise), then continued.
    g, gp = gen_flowing(st, sv, dv, 120)
    carried = wait_transit(st, middle)
    check(carried >= RATE // 2, "a new flow crosses %s again (%d frames in "
          "1 s)" % (middle, carried))
    t_stop = time.time()
    pause = subprocess.Popen([sys.executable, FABRIC, "pause", NAME, middle,
                              "%g" % PAUSE_S])
    # Its neighbours' hellos time out and routes go round it: some
    # half-second while it is stopped runs at the full rate (a pause
    # long enough to tell).
    if PAUSE_S >= 2:
        best = 0
        time.sleep(0.3)
        while time.time() - t_stop < PAUSE_S - 0.6 and best < 0.9 * RATE:
            best = max(best, delivery_rate(st, dst["name"], 0.5))
        check(best > 0.9 * RATE, "%s stopped: %s still receives %.0f frames/s" %
              (middle, dst["name"], best))
    check(pause.wait(timeout=30 + PAUSE_S) == 0, "dcn-fabric pause %s %g" %
          (middle, PAUSE_S))
    t_back = time.time()
    how = "stopped %g s" % PAUSE_S
    st, lost0 = returned(st, dst, middle, how, t_back)
    settled(st, middle, how, lost0, g, gp)
    return st, middle


def tally(st, nodes=None):
    """What the relays (all, or those named) have counted of the frames
    they did not deliver: drops inside the fabric (less the hosts'
    kernels' own frames), at host ports, data lost on cables (credits
    repaired), lost with a neighbour that was killed, and past the last
    relay (a kernel toward a host, a host port's misses), less the frames
    a killed incarnation was sending as it died that the port's peer
    counted as arrived (restart_doubt_left); and of those it was sending,
    the ones no peer has settled: counted, though some may have left
    (restart_in_doubt). @return (counted, in doubt)"""
    out = doubt = 0
    stats = tel_each(st, "/dcn/stats", nodes)
    ports = tel_each(st, "/dcn/ports", nodes)
    for name in stats:
        s = stats[name] or counts_of(st, name)
        out += (s.get("fabric_drops", 0) - s.get("drop", {}).get("unknown_ethertype", 0) +
                s.get("ingress_drops", 0) + s.get("lost_repaired", 0) +
                s.get("lost_to_restart", 0) - s.get("restart_doubt_left", 0))
        doubt += s.get("restart_in_doubt", 0)
        h = (ports[name] or tel(st, name, "/dcn/ports")).get("host", {})
        out += h.get("kernel_tx_dropped", 0) + h.get("rx_missed", 0)
    return out, doubt


def counts_of(st, node):
    """node's /dcn/stats, asked until it answers: a relay just started
    (or busy on a machine of twenty) may not answer the first time, and a
    count not read is a count lost."""
    for _ in range(40):
        s = tel(st, node, "/dcn/stats")
        if s:
            return s
        time.sleep(0.25)
    check(False, "%s answers /dcn/stats, for the count" % node)
    return {}


def kill_soak(st, src, dst, sv, dv, cycles):
    """The relay carrying a flow in transit killed (SIGKILL) and started
    again cycles times under the flow: every start succeeds, and every
    frame sent is received or counted: the relays' drops, and the frames
    lost with each killed incarnation, which its neighbours count as its
    next one first speaks (lost_to_restart). A killed relay's own counts
    die with it: each is read just before its kill. At the end every
    credited (link, VC) is back at its full grant."""
    flow = transit_flow(st, src, dst, sv, dv, cycles * 1.5 + 20)
    if flow is None:
        return st
    g, gp, middle = flow
    c, d = tally(st)
    counted, doubt = -c, -d

    def count_before_kill():
        # a killed relay's counts die with it: read just before
        nonlocal counted, doubt
        c, d = tally(st, (middle,))
        counted, doubt = counted + c, doubt + d
    t0 = time.time()
    started = kill_and_start(middle, cycles, "--wait-links", "0",
                             before_kill=count_before_kill)
    st = state()
    check(started == cycles, "%d kill -9/start cycles of %s (in transit) "
          "under a flow, every start back, in %.0f s" %
          (started, middle, time.time() - t0))
    wait_transit(st, middle)
    time.sleep(1.0)
    g.send_signal(signal.SIGINT)
    rep = gen_wait(g, gp)
    time.sleep(2.5)   # nothing in flight; kernel counters read again
    # and what the receiving generator's own port missed
    c, d = tally(st)
    counted, doubt = counted + c + rep.get("rx_missed", 0), doubt + d
    print("dcn-gen: %s" % json.dumps(rep))
    lost_restart = sum(s.get("lost_to_restart", 0)
                       for s in tel_each(st, "/dcn/stats").values())
    # Frame for frame: each start speaks its dead predecessor's last
    # word from its ledger, so its neighbours write off what the dead one
    # never freed, and it counts what the dead one had queued for output
    # (lib/fc/README.md, "A peer killed, counted"). Frames a kill caught
    # being sent (inside the port's send call, which AF_XDP makes a
    # system call: the kernel sends them, the process dies as it
    # returns) are counted lost until the next relay's first word to
    # the new incarnation says how many arrived; those it does not
    # settle (its port's peer restarted too, or a kill came first) stay
    # in doubt: the count may exceed the loss by those, never more,
    # never fall short.
    over = rep["received"] + counted - rep["sent"]
    check(0 <= over <= doubt,
          "across %d kills every frame sent is received or counted: sent %d, "
          "received %d, counted %d (lost with a killed relay: %d in all, %d of "
          "them in doubt): %d counted over (at most the %d in doubt)" %
          (started, rep["sent"], rep["received"], counted, lost_restart, doubt,
           over, doubt))
    if over != 0:
        print_relay_drops(st)
        print_interface_drops(st)
    full_credit(st)
    return st


def restart_mode():
    st = up("--host", "veth", "--key")
    st, _ = restart_relay(st, *flow_pair(st))
    auth_clean(st, "after the restart and the pause")
    down()


def veth_mode(flaps):
    """One fabric, hosts on veths for dcn-gen, a fabric key: the flap
    accounting (first: it counts from the fabric's start), a cable pulled
    and mended, a cable made slow and lossy and mended, a transit relay killed and started again, then hung and
    continued; then the kill soak on the transit relay of another flow."""
    st = up("--host", "veth", "--key")
    pair = flow_pair(st)
    flap_cable(st, *pair, flaps=flaps)
    unplug_cable(st, *pair)
    impaired_cable(st, *pair)
    st, middle = restart_relay(st, *pair)
    st = kill_soak(st, *soak_pair(st, pair, middle), KILL_CYCLES)
    auth_clean(st, "after the flaps, the pulled cable, the restarts and the "
               "pause")
    down()


def soak_pair(st, pair, avoid):
    """A flow for the kill soak whose route (by dcn-topo) crosses a relay
    other than avoid, the one the restart checks killed: pair reversed
    when its route does, else the longest such route from either end of
    pair; pair itself when none does."""
    src, dst = pair[0], pair[1]

    def relays(a, b):
        return [h[0] for h in route_nodes(st, a, b) if h[0] not in (a["name"], b["name"])]

    def fits(r):
        return r and avoid not in r
    r = relays(dst, src)
    best = (dst, src, r) if fits(r) else None
    if best is None:
        ends = {src["name"], dst["name"]}
        tried = [(a, b, relays(a, b)) for a in (dst, src) for b in hosted_nodes(st)
                 if b["name"] != a["name"] and {a["name"], b["name"]} != ends]
        best = max((t for t in tried if fits(t[2])), key=lambda t: len(t[2]),
                   default=None)
    if best is None:
        print("kill soak: every route from %s or %s crosses %s" %
              (src["name"], dst["name"], avoid))
        return pair
    a, b, r = best
    print("kill soak: flow %s -> %s, route %s (not %s)" % (
        a["name"], b["name"], " ".join(r), avoid))
    return a, b, vertex_of(st, a["name"]), vertex_of(st, b["name"])


def every_pair(st, seconds=3, rate=200):
    """Every host sends to each other one, round robin, and receives on
    the same port (one dcn-gen a host, all at once): the pairs whose
    destination heard no frame of their source. Generators started
    together on two cores busy with relays start seconds apart, so each
    sends until stopped: once every one is sending (its relay's host
    port takes its frames), all are listening, and seconds more of it
    reach every pair."""
    hosts_ns = "dcnf-%s-hosts" % NAME
    hosted = [v for v, n in sorted(st["nodes"].items(), key=lambda x: int(x[0]))
              if n["host_addr"]]
    names = [st["nodes"][v]["name"] for v in hosted]
    host_rx = lambda ports: {k: ports[k].get("host", {}).get("rx", 0) for k in names}
    rx0 = host_rx(tel_each(st, "/dcn/ports", names))
    # net_pcap, not net_af_packet: af_packet names its PACKET_FANOUT group
    # after pid ^ ifindex, and generators started together on h0, h1, ...
    # (consecutive pids, consecutive ifindexes) draw the same group and are
    # refused. rx_iface_in: a host hears what reaches it, not what it sends.
    procs = []
    for v in hosted:
        dev = "net_pcap0,rx_iface_in=h%s,tx_iface=h%s" % (v, v)
        others = ",".join(st["nodes"][d]["host_addr"] for d in hosted if d != v)
        prefix = "dcnf-%s-pair%s" % (NAME, v)
        cmd = ["ip", "netns", "exec", hosts_ns, GEN, "-l", "0", "--no-huge",
               "-m", "128", "--no-pci", "--log-level=5", "--file-prefix=" + prefix,
               "--", "--tx", dev, "--rx", dev,
               "--src", st["nodes"][v]["host_addr"], "--dst", others,
               "--pattern", "list", "--rate", str(rate), "--duration", "600",
               "--linger", "2", "--json"]
        procs.append((v, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                          stderr=subprocess.PIPE, text=True),
                      prefix))
    end = time.time() + 120
    while time.time() < end and all(p.poll() is None for _, p, _ in procs):
        rx = host_rx(tel_each(st, "/dcn/ports", names))
        if all(rx[k] - rx0[k] >= rate // 4 for k in names):
            break
        time.sleep(0.5)
    time.sleep(seconds)
    # A signal ends sending; each listens its linger more, for the frames
    # on their way, and reports.
    for _, p, _ in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGINT)
    short = []
    for v, p, prefix in procs:
        try:
            rep = gen_wait(p, prefix)
        except RuntimeError as e:
            short.append("%s: %s" % (st["nodes"][v]["name"], e))
            continue
        if rep.get("sources", 0) != len(hosted) - 1:
            short.append("%s heard %d sources of %d (it sent %d)" % (
                st["nodes"][v]["name"], rep.get("sources", 0), len(hosted) - 1,
                rep.get("sent", 0)))
    return len(hosted) * (len(hosted) - 1), short


def soak_mode(cycles):
    st = up("--host", "veth")
    src, dst, relays = pick_pair(st)
    sv, dv = vertex_of(st, src["name"]), vertex_of(st, dst["name"])
    flow = transit_flow(st, src, dst, sv, dv, 600)   # stopped after the cycles
    if flow is None:
        return
    g, gp, middle = flow
    t0 = time.time()
    started = kill_and_start(middle, cycles)
    check(started == cycles, "%d kill/start cycles of %s under traffic in %.0f s"
          % (started, middle, time.time() - t0))
    st = state()
    carried = wait_transit(st, middle)
    check(carried >= RATE // 2, "after the cycles %s carries the flow in "
          "transit (%d frames in 1 s)" % (middle, carried))
    g.send_signal(signal.SIGTERM)
    rep = gen_wait(g, gp)
    print("dcn-gen: %s" % json.dumps(rep))
    full_credit(st)
    names = after_kills(st)
    down()
    left = leftovers_settled(names)
    check(not left, "nothing of the fabric left: %s" % (left or "none"))


def after_kills(st):
    """After a relay was killed and started again: every host hears every
    other one, and one dcnfwd runs per node, the one dcn-fabric started
    last. @return the nodes' file prefixes."""
    pairs, bad = every_pair(st)
    check(not bad, "every pair of hosts delivers after the kills: %d pairs%s" %
          (pairs, "; short: " + ", ".join(bad[:6]) if bad else ""))
    # Only the processes started: one dcnfwd per node, each the one
    # dcn-fabric last started.
    ours = {n["prefix"]: n["pid"] for n in st["nodes"].values()}
    found = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                argv = f.read().split(b"\0")
        except OSError:
            continue
        for a in argv:
            if a.startswith(b"--file-prefix=dcnf-%s-" % NAME.encode()):
                found.setdefault(a.decode().split("=", 1)[1], []).append(int(pid))
    extra = {k: v for k, v in found.items() if v != [ours.get(k)]}
    check(not extra and len(found) == len(ours),
          "one dcnfwd per node is running, the one started last: %d of %d%s" %
          (len(found), len(ours), "; other: %s" % extra if extra else ""))
    return list(ours)


def huge_pool():
    """(persistent, surplus) 2 MB hugepages, as dcn-fabric counts them."""
    return dcn_fabric.huge_persistent(), dcn_fabric.huge_count("surplus_hugepages")


def patch_mode():
    """The fabric's L2 switches carved out of two 48-port physical
    switches as VLANs (dcn-plan --switches, applied by the plan's Linux
    bridge script, as a technician would): the fabric needs more ports
    than one has, so both carry some of them; each port is in its one
    VLAN (by VLAN filtering where this kernel has it, else a bridge a
    VLAN); no relay hears a hello from another VLAN's segment (none
    refused), and every relay pings every other across the fabric."""
    inv = "/run/dcn-fabric-%s-switches.ini" % NAME
    need = sum(len(topology().ports_of(s)) for s in topo_switches())
    check(need > 48, "%s needs more switch ports (%d) than one 48-port "
          "switch has" % (SPEC, need))
    with open(inv, "w") as f:
        f.write("[switch swa]\nports = 48\n[switch swb]\nports = 48\n")
    try:
        st = up("--switches", inv)
    finally:
        os.unlink(inv)
    # Each port's bridge, and its VLANs where the bridge filters them.
    sw_ns = "dcnf-%s-sw" % NAME
    master = {}
    for l in sh("ip", "-n", sw_ns, "-o", "link", "show").stdout.splitlines():
        m = re.search(r"^\d+: ([^:@]+)[@:].* master (\S+)", l)
        if m:
            master[m.group(1)] = m.group(2)
    patch = {}
    with open("/run/dcn-fabric/%s/patch.csv" % NAME) as f:
        for r in csv.DictReader(f):
            if r["peer"] != "-":
                patch["%s-%s" % (r["switch"], r["port"])] = (r["switch"], r["vlan"])
    filtering = any(b.startswith("br-") for b in master.values())
    if filtering:
        vl = {e["ifname"]: e.get("vlans", []) for e in json.loads(
            sh("bridge", "-n", sw_ns, "-j", "vlan", "show").stdout)}
        wrong = [i for i, (sw, vid) in patch.items()
                 if master.get(i) != "br-" + sw or [v["vlan"] for v in vl.get(i, [])]
                 != [int(vid)] or "Egress Untagged" not in vl[i][0].get("flags", [])]
    else:
        wrong = [i for i, (sw, vid) in patch.items()
                 if master.get(i) != "v%s-%s" % (vid, sw)]
    print("VLANs by %s; ports %d, bridges %s" % (
        "VLAN filtering" if filtering else "a bridge a VLAN", len(patch),
        sorted(set(master.values()))))
    check(patch and not wrong, "every switch port in its VLAN, as patch.csv "
          "says: %d ports, wrong %s" % (len(patch), wrong[:4]))
    check({sw for sw, _ in patch.values()} == {"swa", "swb"} and
          len({v for _, v in patch.values()}) == len(topo_switches()),
          "both physical switches carry topology switches, a VLAN each")
    addrs = [n["host_addr"] for n in st["nodes"].values()]

    def unreached(n):
        # each relay's pings one after another, the relays at once; a
        # ping lost once is tried again (and shown), twice is a failure
        others = " ".join(a for a in addrs if a != n["host_addr"])
        r = netns_exec(n["name"], "sh", "-c",
                       "for a in %s; do ping -q -c 1 -W 2 $a >/dev/null && "
                       "continue; echo again $a; ping -q -c 1 -W 2 $a >/dev/null "
                       "|| echo lost $a; done" % others, check_rc=False, timeout=180)
        return ["%s %s->%s" % (w[0], n["name"], w[1])
                for w in (l.split() for l in r.stdout.splitlines()) if len(w) == 2]
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        tries = sum(pool.map(unreached, st["nodes"].values()), [])
    bad = [t[5:] for t in tries if t.startswith("lost ")]
    print("pings answered only when tried again: %s" %
          [t[6:] for t in tries if t.startswith("again ")])
    if bad:
        print_relay_drops(st)
        print_interface_drops(st)
    check(not bad, "every relay pings every other across the VLANs "
          "(%d pairs): %s" % (len(addrs) * (len(addrs) - 1), bad[:5]))
    refused = {n["name"]: tel(st, n["name"], "/dcn/stats").get("hello_refused", -1)
               for n in st["nodes"].values()}
    check(all(v == 0 for v in refused.values()),
          "no hello from another VLAN's segment: %s" % refused)


def topo_switches():
    return [v for v, x in topology().vertex.items() if x["role"] == "switch"]


def main():
    if os.geteuid() != 0:
        skip("network namespaces need root")
    for tool in ("ip", "bpftool") + (("iperf3", "ping") if MODE.startswith("kernel")
                                     else ("ping",) if MODE == "patch" else ()):
        if shutil.which(tool) is None:
            skip("%s is not installed (tools/install-deps.sh)" % tool)
    huge_before = huge_pool() if os.path.exists(dcn_fabric.HUGE_DIR) else None
    FOREIGN_PROGS.update(xdp_progs())
    if FOREIGN_PROGS:
        print("%d dcn_xdp_steer programs loaded before this test: not its own"
              % len(FOREIGN_PROGS))
    try:
        if MODE in ("kernel", "kernel-udp"):
            kernel_mode()
        elif MODE == "restart":
            restart_mode()
        elif MODE == "soak":
            soak_mode(int(sys.argv[6]) if len(sys.argv) > 6 else 20)
        elif MODE == "interrupted":
            interrupted_mode()
        elif MODE == "rogue":
            rogue_mode()
        elif MODE == "keyed":
            keyed_mode()
        elif MODE == "flap":
            flap_mode(int(sys.argv[6]) if len(sys.argv) > 6 else 50)
        elif MODE == "patch":
            patch_mode()
        elif MODE == "veth":
            veth_mode(int(sys.argv[6]) if len(sys.argv) > 6 else 20)
        else:
            unplug_mode()
    except Exception as e:   # any error: report it, and still tear down
        failures.append(repr(e))
        print("FAIL " + repr(e))
    finally:
        gens_stopped()
        if os.path.exists("/run/dcn-fabric/" + NAME):
            fabric("down", NAME, "--drop-logs", check_rc=False, timeout=120)
    if huge_before is not None:
        # The pool comes back at once; pages the kernel still pins are
        # surplus by then and go when it releases them.
        after = huge_pool()
        check(after[0] == huge_before[0], "hugepage pool given back: %d "
              "persistent pages, was %d" % (after[0], huge_before[0]))
        end = time.time() + 120
        while huge_pool()[1] > huge_before[1] and time.time() < end:
            time.sleep(0.5)
        after = huge_pool()
        check(after[1] <= huge_before[1], "pinned hugepages released: %d "
              "surplus pages, was %d" % (after[1], huge_before[1]))
        if after[1] > huge_before[1]:
            print(dcn_fabric.pinned_report())
    print("%d failures" % len(failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
