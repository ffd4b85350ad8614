#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dcn-plan on each of the five topologies: every configuration it writes
passes dcnfwd --check-config and has each cabled port once; its cabling
plan holds exactly the cables of dcn-topo cables, each end's NIC port
the one the configuration names; the pictures are PNG and SVG; an
inventory changes hostnames and ports, and its errors name file, line
and key.

    plan.py DCNFWD DCN_TOPO
"""
import configparser
import csv
import ipaddress
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PLAN = os.path.join(HERE, "..", "..", "tools", "dcn-plan")
SPECS = ["novacube:k=4,n=2", "diamond:k=4", "rrect:n=2,m=2,k=1",
         "lascada:n=2,k=2", "totoro:N=4,n=4,K=1"]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


DCNFWD = None     # the dcnfwd under test (main)


def plan(dcn_topo, spec, out, *more):
    return subprocess.run([sys.executable, PLAN, spec, "--out", out,
                           "--dcn-topo", dcn_topo, "--dcnfwd", DCNFWD] + list(more),
                          capture_output=True, text=True)


def cables_of(dcn_topo, spec):
    r = subprocess.run([dcn_topo, "cables", spec], capture_output=True,
                       text=True, check=True)
    names, cables = {}, set()
    for line in r.stdout.splitlines():
        f = line.split()
        if f[0] == "vertex":
            names[int(f[1])] = (f[2], f[3], f[4] == "1")
        elif f[0] == "cable":
            a, pa, b, pb = (int(x) for x in f[1:5])
            cables.add(frozenset([(names[a][0], pa), (names[b][0], pb)]))
    return names, cables


def read_ini(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",),
                                   interpolation=None)
    cp.read(path)
    return cp


def one_topology(dcnfwd, dcn_topo, spec, root):
    out = os.path.join(root, spec.split(":")[0])
    r = plan(dcn_topo, spec, out)
    check(r.returncode == 0, "%s: dcn-plan failed: %s" % (spec, r.stderr))
    if r.returncode:
        return
    names, cables = cables_of(dcn_topo, spec)
    routers = {n for n, role, router in names.values() if router}
    inis = [f for f in os.listdir(out) if f.endswith(".ini")]
    check(len(inis) == len(routers), "%s: %d configurations for %d routing "
          "nodes" % (spec, len(inis), len(routers)))
    nic_of = {}          # (node, topology port) -> dev, from the configs
    for f in inis:
        path = os.path.join(out, f)
        r = subprocess.run([dcnfwd, "--check-config", path],
                           capture_output=True, text=True)
        check(r.returncode == 0, "%s: %s fails --check-config: %s" %
              (spec, f, r.stderr.strip()))
        cp = read_ini(path)
        node = cp["fabric"]["node"]
        check(node in routers, "%s: %s is for node %s, not a routing node"
              % (spec, f, node))
        check(os.path.exists(os.path.join(out, f[:-4] + ".env")),
              "%s: no %s.env" % (spec, f[:-4]))
        for sec in cp.sections():
            if sec.startswith("port.") and "fabric_port" in cp[sec]:
                key = (node, int(cp[sec]["fabric_port"]))
                check(key not in nic_of, "%s: %s port %d twice" %
                      (spec, node, key[1]))
                nic_of[key] = cp[sec]["dev"]
    cabled = {end for c in cables for end in c if end[0] in routers}
    check(set(nic_of) == cabled, "%s: configured ports %d, cabled ports of "
          "routing nodes %d" % (spec, len(nic_of), len(cabled)))
    with open(os.path.join(out, "cabling.csv")) as f:
        rows = list(csv.DictReader(f))
    planned = set()
    for row in rows:
        ends = []
        for side in ("a", "b"):
            end = (row[side + "_node"], int(row[side + "_port"]))
            ends.append(end)
            if row[side + "_kind"] == "server":
                check(nic_of.get(end) == row[side + "_nic"],
                      "%s: %s: cabling says %s at %s port %d, its "
                      "configuration %s" % (spec, row["cable"],
                                            row[side + "_nic"], end[0], end[1],
                                            nic_of.get(end)))
        planned.add(frozenset(ends))
    check(len(rows) == len(cables) and planned == cables,
          "%s: cabling plan has %d cables (%d as dcn-topo's), dcn-topo %d"
          % (spec, len(rows), len(planned & cables), len(cables)))
    with open(os.path.join(out, "cabling.txt")) as f:
        text = f.read()
    check(all(("C%d " % (i + 1)) in text for i in range(len(cables))),
          "%s: cabling.txt misses a cable" % spec)
    with open(os.path.join(out, "fabric.png"), "rb") as f:
        check(f.read(8) == b"\x89PNG\r\n\x1a\n", "%s: fabric.png is not a "
              "PNG" % spec)
    with open(os.path.join(out, "fabric.svg")) as f:
        svg = f.read()
    check("<svg" in svg and svg.count("class=\"edge\"") == len(cables),
          "%s: fabric.svg draws %d cables, not %d" %
          (spec, svg.count("class=\"edge\""), len(cables)))
    legible(spec, out, svg, cables)
    print("ok %s: %d configurations, %d cables" % (spec, len(inis),
                                                    len(cables)))


def legible(spec, out, svg, cables):
    """The picture can be cabled from: every word in a box (no cable
    carries a label of its own), no box on another as Graphviz lays them
    out, and each cable in the rows of both its ends (one, for a host's)."""
    import json
    import re
    edges = re.findall(r'<g id="edge\d+" class="edge">(.*?)</g>', svg, re.S)
    check(edges and not [e for e in edges if "<text" in e],
          "%s: %d of %d cables drawn with a label of their own" %
          (spec, len([e for e in edges if "<text" in e]), len(edges)))
    r = subprocess.run(["dot", "-Kneato", "-Tjson", os.path.join(out, "fabric.dot")],
                       capture_output=True, text=True, timeout=300)
    boxes = []
    for o in json.loads(r.stdout).get("objects", []):
        if "pos" in o and "width" in o:
            x, y = map(float, o["pos"].split(","))
            w, h = float(o["width"]) * 72 / 2, float(o["height"]) * 72 / 2
            boxes.append((o["name"], x - w, y - h, x + w, y + h))
    on = [(a[0], b[0]) for i, a in enumerate(boxes) for b in boxes[i + 1:]
          if a[1] < b[3] and b[1] < a[3] and a[2] < b[4] and b[2] < a[4]]
    check(len(boxes) > 0 and not on, "%s: %d boxes laid out, %d on another%s"
          % (spec, len(boxes), len(on), ": %s" % on[:3] if on else ""))
    with open(os.path.join(out, "fabric.dot")) as f:
        dot = f.read()
    rows = {int(c): n for c, n in
            __import__("collections").Counter(re.findall(r"&#8212; C(\d+) &#8212;",
                                                         dot)).items()}
    check(sorted(rows) == list(range(1, len(cables) + 1)) and
          all(n in (1, 2) for n in rows.values()),
          "%s: each cable in its ends' rows (%d cables, %d in rows)" %
          (spec, len(cables), len(rows)))


def inventory(dcnfwd, dcn_topo, root):
    spec = "rrect:n=2,m=2,k=1"
    inv = os.path.join(root, "inventory.ini")
    with open(inv, "w") as f:
        f.write("; a lab's servers\n[defaults]\nhostname = lab-{tag}\n"
                "port = net_af_xdp{port},iface=ens{port}\nworkers = 2\n"
                "idle_sleep_us = 1000\nhello_interval_ms = 10\n"
                "\n[node 01]\nhostname = rack1-s3\nport.1 = 0000:5e:00.1\n"
                "host = none\n")
    out = os.path.join(root, "inv")
    r = plan(dcn_topo, spec, out, "--inventory", inv)
    check(r.returncode == 0, "inventory: dcn-plan failed: %s" % r.stderr)
    if r.returncode:
        return
    cp = read_ini(os.path.join(out, "rack1-s3.ini"))
    check(cp["port.p0"]["dev"] == "net_af_xdp0,iface=ens0" and
          cp["port.p1"]["dev"] == "0000:5e:00.1" and
          not cp.has_section("port.host"),
          "inventory: rack1-s3's ports %s" % [dict(cp[s]) for s in
                                              cp.sections()])
    check(cp.has_section("worker.1"), "inventory: workers = 2 gave one")
    check(cp.get("queues", "idle_sleep_us", fallback=None) == "1000" and
          cp.get("fabric", "hello_interval_ms", fallback=None) == "10",
          "inventory: idle_sleep_us and hello_interval_ms in [queues] and "
          "[fabric]: %s" % [dict(cp[s]) for s in ("fabric", "queues")
                            if cp.has_section(s)])
    with open(os.path.join(out, "rack1-s3.env")) as f:
        env = f.read()
    check("-a 0000:5e:00.1" in env and "-l 0,1,2" in env,
          "inventory: rack1-s3.env is %r" % env)
    check(os.path.exists(os.path.join(out, "lab-00.ini")),
          "inventory: no lab-00.ini")
    r = subprocess.run([dcnfwd, "--check-config",
                        os.path.join(out, "rack1-s3.ini")],
                       capture_output=True, text=True)
    check(r.returncode == 0, "inventory: rack1-s3.ini fails --check-config: "
          "%s" % r.stderr.strip())
    # Errors name the inventory's file, line and key.
    for text, line, word in (
            ("[defaults]\nports = 9\n", 2, "ports"),
            ("[defaults]\nhostname = r{tga}\n", 2, "hostname"),
            ("[defaults]\n\n[node 01]\nspeed = 10\n", 4, "speed"),
            ("[node 99]\n", 1, "node 99"),
            # values that would change a written file's structure
            ("[defaults]\nhostname = a\n  hellos = no\n", 2, "a line break"),
            ("[defaults]\neal = x\"\nDCNFWD_EVIL=\"y\n", 2, "'\"'"),
            ("[defaults]\neal = $(reboot)\n", 2, "'$'"),
            ("[node 01]\nhostname = a\n [fabric]\n key_file = /etc/shadow\n",
             2, "a line break")):
        with open(inv, "w") as f:
            f.write(text)
        r = plan(dcn_topo, spec, out, "--inventory", inv)
        want = "%s:%d:" % (inv, line)
        check(r.returncode == 1 and want in r.stderr and word in r.stderr,
              "inventory error %r: %r, wanted %s and %s" %
              (text, r.stderr.strip(), want, word))
    # A setting the inventory's reader takes and dcnfwd refuses: found
    # when the plan is written (dcnfwd --check-config on each file), the
    # written file's line and key named, exit 1.
    with open(inv, "w") as f:
        f.write("[defaults]\nhello_interval_ms = 0\n")
    r = plan(dcn_topo, spec, out, "--inventory", inv)
    check(r.returncode == 1 and "hello_interval_ms" in r.stderr and
          ".ini:" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          "inventory hello_interval_ms = 0: %r" % r.stderr.strip())
    # --out naming a file: one line, no traceback
    for bad in ("/dev/null", inv):
        r = plan(dcn_topo, spec, bad)
        check(r.returncode == 1 and "Traceback" not in r.stderr and
              len(r.stderr.strip().splitlines()) == 1,
              "--out %s: %r" % (bad, r.stderr.strip()))
    print("ok inventory")


def rack_size(dcn_topo, root):
    """A plan of 1,024 servers: every file written, no picture (a line
    says why, and how to draw one anyway), fabric.dot whole; asked for a
    picture alone, a one-line error, not Graphviz for half an hour."""
    spec, out = "rrect:n=8,m=2,k=2", os.path.join(root, "rack")
    r = plan(dcn_topo, spec, out)
    inis = [f for f in os.listdir(out) if f.endswith(".ini")] if r.returncode == 0 else []
    check(r.returncode == 0 and len(inis) == 1024 and
          "no picture past 64" in r.stdout and
          not os.path.exists(os.path.join(out, "fabric.svg")) and
          os.path.getsize(os.path.join(out, "fabric.dot")) > 0,
          "%s: %d configurations, no picture, and why: %s%s" %
          (spec, len(inis), r.stdout.strip()[:300], r.stderr.strip()[:300]))
    r = subprocess.run([sys.executable, PLAN, spec, "--picture",
                        os.path.join(root, "rack.png"), "--dcn-topo", dcn_topo],
                       capture_output=True, text=True)
    check(r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and
          "--picture-max" in r.stderr,
          "%s --picture: one line saying why not: %r" % (spec, r.stderr.strip()))


PRIVATE = [ipaddress.IPv4Network(n) for n in
           ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10")]


def env_of(path):
    out = {}
    with open(path) as f:
        for line in f:
            if "=" in line and not line.startswith("#"):
                k, v = line.rstrip("\n").split("=", 1)
                out[k] = v.strip('"')
    return out


def host_addrs(out):
    """{hostname: the server's fabric address} from the HOST.env files."""
    return {f[:-4]: env_of(os.path.join(out, f)).get("DCNFWD_HOST_ADDR")
            for f in os.listdir(out) if f.endswith(".env")}


def address_plans(dcnfwd, dcn_topo, root):
    """Every plan's addresses in private space by default, NovaCube's
    included; an operator's network with --prefix (the configurations
    carry it, --check-config says it, the paper's layout kept); public
    space refused with a line that names the key."""
    for spec in SPECS:
        out = os.path.join(root, "priv-" + spec.split(":")[0])
        r = plan(dcn_topo, spec, out, "--no-picture")
        addrs = []
        if r.returncode == 0:
            # Every address of the fabric the configurations name.
            ini = [f for f in os.listdir(out) if f.endswith(".ini")][0]
            written = read_ini(os.path.join(out, ini))["fabric"]["topology"]
            c = subprocess.run([dcn_topo, "cables", written],
                               capture_output=True, text=True)
            addrs = [ln.split()[5] for ln in c.stdout.splitlines()
                     if ln.startswith("vertex") and ln.split()[5] != "-"]
        check(addrs and all(any(ipaddress.IPv4Address(a) in n for n in PRIVATE)
                            for a in addrs),
              "%s: the default plan's addresses all private: %s %s" %
              (spec, sorted(addrs)[:3], r.stderr.strip()))
    out = os.path.join(root, "moved")
    r = plan(dcn_topo, "novacube:k=4,n=2", out, "--no-picture",
             "--prefix", "10.77.0.0/16")
    net = ipaddress.IPv4Network("10.77.0.0/16")
    addrs = host_addrs(out) if r.returncode == 0 else {}
    check(len(addrs) == 16 and all(ipaddress.IPv4Address(a) in net
                                   for a in addrs.values()),
          "--prefix 10.77.0.0/16: every address inside: %s" % addrs)
    # The paper's layout in two bits a dimension (k=4): (1,2) is .6.
    check(addrs.get("relay-1-2") == "10.77.0.6",
          "(1,2) of novacube:k=4,n=2 in 10.77.0.0/16 is 10.77.0.6: %s" %
          addrs.get("relay-1-2"))
    env = env_of(os.path.join(out, "relay-1-2.env")) if addrs else {}
    check(env.get("DCNFWD_FABRIC_PREFIX") == "10.77.0.0/28",
          "the route into the fabric covers its 16 addresses: %s" % env)
    ini = os.path.join(out, "relay-1-2.ini")
    c = subprocess.run([dcnfwd, "--check-config", ini], capture_output=True,
                       text=True)
    check(c.returncode == 0 and "prefix=10.77.0.0/16" in c.stdout and
          "addresses in 10.77.0.0/16 (private)" in c.stdout,
          "--check-config of a moved plan: %r" % (c.stdout + c.stderr))
    for more in (["--prefix", "paper"], ["--prefix", "8.8.0.0/16"]):
        bad = os.path.join(root, "public")
        r = plan(dcn_topo, "novacube:k=4,n=2", bad, "--no-picture", *more)
        check(r.returncode == 1 and "--prefix" in r.stderr and
              "prefix=" in r.stderr and "public" in r.stderr and
              len(r.stderr.strip().splitlines()) == 1 and
              not os.path.exists(bad),
              "%s: refused in one line naming the key, nothing written: %r"
              % (" ".join(more), r.stderr.strip()))
    r = plan(dcn_topo, "novacube:k=4,n=2", os.path.join(root, "paper"),
             "--no-picture", "--prefix", "paper", "--public")
    addrs = host_addrs(os.path.join(root, "paper")) if r.returncode == 0 else {}
    check(addrs.get("relay-1-2") == "130.32.0.8",
          "--prefix paper --public: the paper's plan, (1,2) 130.32.0.8: %s %s"
          % (addrs.get("relay-1-2"), r.stderr.strip()))
    r = plan(dcn_topo, "diamond:k=4", os.path.join(root, "dm"), "--no-picture",
             "--prefix", "172.20.0.0/16")
    check(r.returncode == 1 and "/8 or shorter" in r.stderr,
          "Diamond's octet plan needs /8 or shorter: %r" % r.stderr.strip())
    print("ok address plans")


def patch_views(dcn_topo, root):
    """An inventory of two 48-port switches: every topology switch of
    rrect:n=4,m=2,k=1 (8 of 8 ports) a VLAN of its own and a run of
    consecutive ports on one, both switches used, no port twice, every
    switch end of the cabling plan in the patch view with its server, and
    a Linux bridge script that sh reads; too small an inventory, or a bad
    value, refused in a line naming it."""
    spec, out = "rrect:n=4,m=2,k=1", os.path.join(root, "patch")
    inv = os.path.join(root, "switches.ini")
    with open(inv, "w") as f:
        f.write("[switch swa]\nports = 48\n[switch swb]\nports = 48\n")
    r = plan(dcn_topo, spec, out, "--no-picture", "--switches", inv)
    check(r.returncode == 0, "--switches: %s" % r.stderr.strip())
    if r.returncode != 0:
        return
    with open(os.path.join(out, "patch.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(out, "cabling.csv")) as f:
        cables = [c for c in csv.DictReader(f) if c["b_kind"] == "switch"]
    phys = [(r["switch"], int(r["port"])) for r in rows]
    topo = [(r["topology_switch"], int(r["topology_port"])) for r in rows]
    check(len(set(phys)) == len(phys) == 64 and len(set(topo)) == 64,
          "64 ports, each once: %d physical, %d topology" %
          (len(set(phys)), len(set(topo))))
    by_sw = {}
    for r in rows:
        by_sw.setdefault(r["topology_switch"], []).append(r)
    runs_ok = all(len({x["vlan"] for x in g}) == 1 and
                  len({x["switch"] for x in g}) == 1 and
                  sorted(int(x["port"]) for x in g) ==
                  list(range(int(min(g, key=lambda x: int(x["port"]))["port"]),
                             int(min(g, key=lambda x: int(x["port"]))["port"]) + len(g)))
                  for g in by_sw.values())
    check(len(by_sw) == 8 and runs_ok and
          len({g[0]["vlan"] for g in by_sw.values()}) == 8,
          "8 topology switches, each one VLAN of its own on one run of ports")
    check({r["switch"] for r in rows} == {"swa", "swb"},
          "both switches carry topology switches")
    ends = {(r["topology_switch"], int(r["topology_port"])): (r["peer"], r["peer_port"])
            for r in rows}
    check(all(ends.get((c["b"], int(c["b_nic"].split()[1]))) == (c["a"], c["a_nic"])
              for c in cables) and len(cables) == 64,
          "every switch end of cabling.csv in the patch view, with its server")
    script = os.path.join(out, "vlans-linux-bridge.sh")
    sh_ok = subprocess.run(["sh", "-n", script]).returncode == 0
    with open(script) as f:
        text = f.read()
    check(sh_ok and all(("\nport %s %s %s\n" % (r["switch"], r["port"], r["vlan"]))
                        in text for r in rows),
          "the Linux bridge script: every port in its VLAN")
    with open(inv, "w") as f:
        f.write("[switch swa]\nports = 6\n[switch swb]\nports = 6\n")
    r = plan(dcn_topo, spec, os.path.join(root, "small"), "--no-picture",
             "--switches", inv)
    check(r.returncode == 1 and "fits on no switch" in r.stderr and
          "Traceback" not in r.stderr,
          "two 6-port switches refused: %r" % r.stderr.strip())
    with open(inv, "w") as f:
        f.write("[switch swa]\nports = many\n")
    r = plan(dcn_topo, spec, os.path.join(root, "bad"), "--no-picture",
             "--switches", inv)
    check(r.returncode == 1 and ("%s:2: [switch swa] ports" % inv) in r.stderr,
          "a bad value named by file, line and key: %r" % r.stderr.strip())
    print("ok patch views")


def main():
    global DCNFWD
    dcnfwd, dcn_topo = sys.argv[1], sys.argv[2]
    DCNFWD = dcnfwd
    import shutil
    if not shutil.which("dot"):
        print("SKIP: Graphviz's dot is not installed (tools/install-deps.sh)")
        return 77
    with tempfile.TemporaryDirectory() as root:
        for spec in SPECS:
            one_topology(dcnfwd, dcn_topo, spec, root)
        inventory(dcnfwd, dcn_topo, root)
        address_plans(dcnfwd, dcn_topo, root)
        patch_views(dcn_topo, root)
        rack_size(dcn_topo, root)
    if failures:
        print("%d failures" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
