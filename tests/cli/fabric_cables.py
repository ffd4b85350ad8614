#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dcn-fabric's cables against dcn-topo's, on every topology at two sizes
and more (Diamond k=8 and k=12, whose edges have two and three servers):
each cable between relays is one veth pair, each cable to a switch one
veth into the switches' namespace, each port a relay is given has its
veth in that relay's namespace and no veth is given to none, no port
twice; a Diamond edge keeps the port of the one server its host
interface stands for, and leaves out the others (they have no namespace).
And a node is found by every name status shows.

    fabric_cables.py DCN_TOPO
"""
import importlib.machinery
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FABRIC = os.path.join(HERE, "..", "..", "tools", "dcn-fabric")
SPECS = ["novacube:k=4,n=2", "novacube:k=3,n=3", "diamond:k=4", "diamond:k=8",
         "diamond:k=12", "rrect:n=2,m=2,k=1", "rrect:n=2,m=1,k=3",
         "lascada:n=2,k=2", "lascada:n=2,k=3", "totoro:N=4,n=4,K=1",
         "totoro:N=4,n=2,K=2"]
ADD = re.compile(r"^link add p(\d+) netns (\S+) mtu \d+ type veth peer name "
                 r"(\S+) netns (\S+) mtu \d+$")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def load_fabric():
    loader = importlib.machinery.SourceFileLoader("dcn_fabric", FABRIC)
    mod = importlib.util.module_from_spec(
        importlib.util.spec_from_loader("dcn_fabric", loader))
    loader.exec_module(mod)
    return mod


def one(fab, dcn_topo, spec):
    topo = fab.Topology(dcn_topo, spec)
    routers = list(topo.routers())
    ns = {v: "ns%d" % v for v in routers}
    nodes = {str(v): {"ns": ns[v], "ports": []} for v in routers}
    host_ports = {v: topo.host_of(v)[1] for v in routers}
    cmds = fab.cable_links(topo, nodes, host_ports, None, "sw", 1500)
    made = {}   # (namespace, port) -> commands that made it
    pairs = 0
    for c in cmds:
        m = ADD.match(c)
        check(m is not None, "%s: a veth command as expected: %r" % (spec, c))
        if m is None:
            continue
        ends = [(m.group(2), "p" + m.group(1)), (m.group(4), m.group(3))]
        for e in ends:
            made[e] = made.get(e, 0) + 1
        pairs += 1
    check(all(n == 1 for n in made.values()),
          "%s: no interface made twice: %s" %
          (spec, [e for e, n in made.items() if n > 1][:4]))
    # What dcn-topo says, end by end.
    want, servers = 0, {}
    for a, pa, b, pb in topo.cables:
        ra, rb = topo.vertex[a]["router"], topo.vertex[b]["router"]
        if ra and rb:
            want += 1
            check((ns[a], "p%d" % pa) in made and (ns[b], "p%d" % pb) in made,
                  "%s: the cable %d:%d-%d:%d is a veth pair" % (spec, a, pa, b, pb))
        elif ra or rb:
            r, rp, o = (a, pa, b) if ra else (b, pb, a)
            if topo.vertex[o]["role"] == "server":
                servers.setdefault(r, []).append(rp)
                continue
            want += 1
            check((ns[r], "p%d" % rp) in made,
                  "%s: the cable of %d:%d to a switch is a veth" % (spec, r, rp))
    check(pairs == want, "%s: %d veth pairs for %d cables" % (spec, pairs, want))
    for v in routers:
        ports = nodes[str(v)]["ports"]
        check(len(ports) == len(set(ports)), "%s: %d has no port twice: %s" %
              (spec, v, sorted(ports)))
        veths = {p for p in ports if p != host_ports[v]}
        have = {int(e[1][1:]) for e in made if e[0] == ns[v]}
        check(veths == have, "%s: %d's ports %s are its veths %s" %
              (spec, v, sorted(veths), sorted(have)))
        if topo.diamond:
            # its own server's port, of those it has; the others left out
            on = servers.get(v, [])
            check((host_ports[v] in ports) == bool(on) and
                  not (set(on) - {host_ports[v]}) & set(ports),
                  "%s: %d keeps its host's server port %s of %s, no other" %
                  (spec, v, host_ports[v], on))
    return len(routers), max((len(p) for p in servers.values()), default=0)


def node_names(fab):
    """Every subcommand takes a node by any name status shows: the
    paper's (RRect's "05" is a name, not vertex 5), with or without its
    brackets, the vertex as N or vN, the address, the namespace."""
    st = {"name": "t", "nodes": {
        "5": {"name": "(0,5)", "host_addr": "10.0.0.5", "ns": "dcnf-t-v5"},
        "12": {"name": "05", "host_addr": "10.0.0.12", "ns": "dcnf-t-v12"}}}
    for what, want in (("05", "12"), ("5", "5"), ("v5", "5"), ("(0,5)", "5"),
                       ("0,5", "5"), ("10.0.0.5", "5"), ("dcnf-t-v5", "5"),
                       ("v12", "12"), ("12", "12")):
        got = fab.find_node(st, what)[0]
        check(got == want, "node %r is vertex %s, not %s" % (what, got, want))
    print("node names: every form found")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    fab = load_fabric()
    node_names(fab)
    for spec in SPECS:
        relays, most = one(fab, sys.argv[1], spec)
        print("%-22s %3d relays%s" % (spec, relays,
              ", up to %d servers an edge" % most if most else ""))
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
