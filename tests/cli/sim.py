#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dcn-sim against dcn-topo's model and itself.

Paths: on novacube:k=4,n=2 and rrect:n=4,m=2,k=1, with nothing failed
and with one cable down, dcn-sim --paths sends one frame a pair, alone
in the fabric; every pair's frame must arrive, and each of its steps
(relay to relay, through a switch where the fabric has them) must be one
that `dcn-topo route --all` lists for that pair under the same failure.
PORA draws among routes per flow, so the model is the set of every hop
any of its frames may take, not one drawn path. With nothing failed, each
pair's frame also leaves every relay by the port it leaves by in
`dcnfwd --emulate SPEC --pairs 1` (the same flow: dcn-gen's frame).

Determinism: two runs with one seed give the same JSON but for the two
wall-clock figures (wall_s, packet_hops_per_s); another seed differs.

Figures: a permutation at load 0.5 delivers what it offers (less what
is on the way at the end), nothing lost.

Flow control: under 4:1 incast at line rate nothing is lost inside the
fabric with the relays' credits on, and frames are without them.

Capture: --pcap's files, read by tshark with tools/wireshark/dcnfwd.lua,
hold the data and credit frames a relay sent.

Figures: tools/figures/sim-figures.py's smoke form writes its table.

  sim.py DCN_SIM DCN_TOPO [DCNFWD]   (exit 77: dcn-sim cannot start here)
  sim.py DCN_SIM DCN_TOPO --single-failures
                         the paths alone, under every single cable failure
                         of novacube:k=4,n=2 and rrect:n=3,m=2,k=1
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

SIM, TOPO = sys.argv[1], sys.argv[2]
DCNFWD = sys.argv[3] if len(sys.argv) > 3 and not sys.argv[3].startswith("--") else None
if not SIM or not os.access(SIM, os.X_OK):
    print("SKIP: dcn-sim not built (ns-3 not found: tools/install-deps.sh installs it)")
    sys.exit(77)
CASES = [("novacube:k=4,n=2", None), ("novacube:k=4,n=2", "(0,0):0"),
         ("rrect:n=4,m=2,k=1", None), ("rrect:n=4,m=2,k=1", "#0:0")]
WALL = ("wall_s", "packet_hops_per_s")
bad = []


def check(cond, msg):
    print("%s %s" % ("ok  " if cond else "FAIL", msg), flush=True)
    if not cond:
        bad.append(msg)


def sim(*args):
    r = subprocess.run([SIM] + list(args), capture_output=True, text=True, timeout=600)
    if r.returncode == 77:
        print("SKIP: %s" % r.stderr.strip())
        sys.exit(77)
    if r.returncode != 0:
        print(r.stdout[-2000:], r.stderr[-2000:])
        check(False, "dcn-sim %s exited %d" % (" ".join(args), r.returncode))
        sys.exit(1)
    return r.stdout


def topo_lines(spec, kind):
    """dcn-topo cables SPEC's lines of kind ("vertex INDEX NAME ROLE
    ROUTES ADDRESS" or "cable V PORT PEER PEER_PORT"), split."""
    out = subprocess.run([TOPO, "cables", spec], capture_output=True, text=True,
                         check=True).stdout
    return [l.split() for l in out.splitlines() if l.startswith(kind + " ")]


def model_hops(spec, fail, src, dst):
    cmd = [TOPO, "--json", "route", "--all", spec, src, dst]
    if fail:
        cmd[1:1] = ["--fail-links", fail]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None
    hops = set()
    for h in json.loads(r.stdout)["hops"]:
        hops.add((h["from"], h["via"], h["to"]))
    return hops


def steps(path, switches):
    """(relay, switch or None, relay) steps of a list of vertex names."""
    out, i = [], 0
    while i + 1 < len(path):
        if path[i + 1] in switches:
            out.append((path[i], path[i + 1], path[i + 2] if i + 2 < len(path) else None))
            i += 2
        else:
            out.append((path[i], None, path[i + 1]))
            i += 1
    return out


def emulated_pairs(spec):
    """{(src, dst): {(node, port)}} of dcnfwd --emulate SPEC --pairs 1:
    where each pair's one frame left each relay, in the real data path."""
    prefix = "dcn-sim-emu-%d" % os.getpid()
    try:
        r = subprocess.run([DCNFWD, "-l", "0-1", "--no-huge", "-m", "1024", "--no-pci",
                            "--file-prefix", prefix, "--log-level=4", "--", "--emulate",
                            spec, "--pairs", "1"], capture_output=True, text=True,
                           timeout=300)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    out = {}
    for l in r.stdout.splitlines():
        if l.startswith("{"):
            p = json.loads(l)
            out[(p["src"], p["dst"])] = {(h["node"], h["port"]) for h in p["hops"]}
    return out


if "--single-failures" in sys.argv:
    # Every single cable down, one fabric of cables and one behind
    # switches: every pair's frame arrives, by steps dcn-topo route --all
    # lists under that failure (the plain build only: thousands of
    # dcn-topo calls).
    CASES = []
    for spec in ("novacube:k=4,n=2", "rrect:n=3,m=2,k=1"):
        CASES += [(spec, "#%s:%s" % (c[1], c[2])) for c in topo_lines(spec, "cable")]
    DCNFWD = None

for spec, fail in CASES:
    args = ["--paths", spec] + (["--fail-links", fail] if fail else [])
    lines = [l.split() for l in sim(*args).splitlines() if l.startswith("path ")]
    # path SRC DST: V:PORT ... DST
    got = {(l[1], l[2].rstrip(":")): [h.rsplit(":", 1)[0] for h in l[3:-1]] + [l[-1]]
           for l in lines}
    left = {(l[1], l[2].rstrip(":")): {tuple(h.rsplit(":", 1)) for h in l[3:-1]}
            for l in lines}
    vs = topo_lines(spec, "vertex")
    servers = [v[2] for v in vs if v[3] == "server"]
    switches = {v[2] for v in vs if v[3] == "switch"}
    pairs = [(s, d) for s in servers for d in servers if s != d]
    missing = [p for p in pairs if p not in got]
    wrong = []
    for (s, d) in pairs:
        if (s, d) not in got:
            continue
        path = got[(s, d)]
        hops = model_hops(spec, fail, s, d)
        ok = hops is not None and path[0] == s and path[-1] == d and \
            all(st in hops for st in steps(path, switches))
        if not ok:
            wrong.append((s, d, path, sorted(hops or [])))
    what = "%s%s" % (spec, ", %s down" % fail if fail else "")
    check(not missing, "%s: every one of %d pairs delivered (%d not)" %
          (what, len(pairs), len(missing)))
    check(not wrong, "%s: every path's steps are dcn-topo route --all's (%d not%s)" %
          (what, len(wrong), ": %s" % (wrong[0],) if wrong else ""))
    if fail is None and DCNFWD:
        # the emulation's relays, the same flow (dcn-gen's, UDP source
        # port 4000 + the destination's index): where each left every relay
        emu = emulated_pairs(spec)
        relays = {v for v in servers} | ({v[2] for v in vs if v[4] == "1"})
        sim_left = {k: {(n, int(p)) for n, p in v if n in relays} for k, v in left.items()}
        emu_left = {k: {(n, p) for n, p in v} for k, v in emu.items()}
        diff = [k for k in pairs if sim_left.get(k) != emu_left.get(k)]
        check(len(emu) == len(pairs) and not diff,
              "%s: every pair leaves each relay by the port the emulation's --pairs "
              "reports (%d of %d differ%s)" % (spec, len(diff), len(pairs),
                                               ": %s %s %s" % (diff[0], sim_left.get(diff[0]),
                                                               emu_left.get(diff[0]))
                                               if diff else ""))

if "--single-failures" in sys.argv:
    print("PASS: dcn-sim, every single cable failure" if not bad else
          "FAIL: dcn-sim (%d)" % len(bad))
    sys.exit(1 if bad else 0)

base = ["novacube:k=4,n=2", "--json", "--time-ms", "2", "--load", "0.5"]
runs = [json.loads(sim(*base, "--seed", s)) for s in ("7", "7", "8")]
strip = [{k: v for k, v in r.items() if k not in WALL} for r in runs]
check(json.dumps(strip[0]) == json.dumps(strip[1]),
      "one seed, the same JSON but the wall clock's figures")
check(json.dumps(strip[0]) != json.dumps(strip[2]), "another seed, other figures")
r = runs[0]
check(r["lost"] == 0 and r["delivered"] > 0 and
      r["delivered"] + r["in_flight"] == r["sent"],
      "permutation at 0.5: nothing lost, sent = delivered + in flight "
      "(%d = %d + %d)" % (r["sent"], r["delivered"], r["in_flight"]))
check(0.8 * r["offered_gbps"] < r["throughput_gbps"] <= 1.01 * r["offered_gbps"],
      "delivered %.3f Gbps of the %.3f offered" % (r["throughput_gbps"], r["offered_gbps"]))
# 4:1 incast at line rate, 20 ms: with the relays' credits nothing is
# lost inside the fabric (a full input queue at a server's own port may
# refuse its frames: host_in_full, ingress); without, the same load
# overflows queues inside, so the check can fail.
for spec in ("novacube:k=4,n=2", "rrect:n=4,m=2,k=1"):
    inc = ["--traffic", "incast", "--incast", "4", "--load", "1", "--time-ms", "20",
           "--json", spec]
    on = json.loads(sim(*inc))
    off = json.loads(sim(*inc, "--flow-control", "off"))
    inside = {k: v for k, v in on["lost_by_reason"].items() if k != "host_in_full"}
    check(not inside and on["delivered"] > 0 and on["credit_frames"] > 0,
          "%s 4:1 incast, flow control on: nothing lost inside (%s), %d delivered, "
          "%d credit frames" % (spec, on["lost_by_reason"], on["delivered"],
                                on["credit_frames"]))
    check(off["lost"] > 0 and "host_in_full" not in off["lost_by_reason"],
          "%s 4:1 incast, flow control off: lost inside the fabric (%s)" %
          (spec, off["lost_by_reason"]))
# --pcap: what (0,0)'s ports put on the wire, read by tshark with the
# project's dissector: data frames from (0,0)'s address, credit frames
# granting 204 (256 slots, 20% reserve).
lua = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                   "wireshark", "dcnfwd.lua")
if shutil.which("tshark") is None:
    print("skip --pcap check: tshark is not installed (tools/install-deps.sh)")
else:
    with tempfile.TemporaryDirectory() as d:
        sim("novacube:k=4,n=2", "--time-ms", "1", "--pcap", d + "/cap")
        rows = []
        for f in sorted(glob.glob(d + "/cap-0-*.pcap")):
            out = subprocess.run(["tshark", "-X", "lua_script:" + lua, "-r", f, "-T", "fields",
                                  "-E", "separator=;", "-e", "dcn.type", "-e", "dcn.src",
                                  "-e", "dcn.credit.grant"],
                                 capture_output=True, text=True).stdout
            rows += [l.split(";") for l in out.splitlines()]
        addr = [v[5] for v in topo_lines("novacube:k=4,n=2", "vertex") if v[1] == "0"][0]
        data = [r for r in rows if r[0] == "1"]
        credit = [r for r in rows if r[0] == "2"]
        check(len(glob.glob(d + "/cap-0-*.pcap")) == 5 and data and
              any(r[1] == addr for r in data) and credit and
              all(r[2] == "204" for r in credit),
              "--pcap: (0,0)'s 5 ports, %d data frames, its own from %s among them, %d credit frames "
              "granting 204, as the dissector reads them" % (len(data), addr, len(credit)))
# Bad input: a spec, a failure, a vertex to capture that do not exist
# are named, exit 1, and leave no EAL runtime directory behind.
before = set(glob.glob("/var/run/dpdk/dcn-sim-*"))
for args, says in ((["novacube:k=1,n=2"], "novacube:k=1,n=2"),
                   (["novacube:k=4,n=2", "--fail-links", "(9,9):0"], "(9,9)"),
                   (["novacube:k=4,n=2", "--pcap", "/tmp/x", "--pcap-vertex", "(7,7)"],
                    "(7,7)")):
    r = subprocess.run([SIM] + args, capture_output=True, text=True, timeout=120)
    check(r.returncode == 1 and says in r.stderr,
          "%s: exit 1, named (%d: %s)" % (" ".join(args), r.returncode,
                                           r.stderr.strip()[-120:]))
check(set(glob.glob("/var/run/dpdk/dcn-sim-*")) <= before,
      "no EAL runtime directory left: %s" %
      sorted(set(glob.glob("/var/run/dpdk/dcn-sim-*")) - before))

# tools/figures/sim-figures.py, its smoke form: Table 2's rows (2D and 3D
# at 64 servers), each with the paper's value and ours.
fig = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools",
                   "figures", "sim-figures.py")
with tempfile.TemporaryDirectory() as d:
    r = subprocess.run([sys.executable, fig, "--quick", "-o", d, "novacube-table2"],
                       capture_output=True, text=True, env=dict(os.environ, DCN_SIM=SIM))
    md = open(d + "/novacube-table2.md").read() if r.returncode == 0 else r.stderr
    rows = [l for l in md.splitlines() if l.startswith("| 64 |")]
    check(r.returncode == 0 and len(rows) == 3 and
          len(open(d + "/novacube-table2.csv").readlines()) == 5,
          "sim-figures.py --quick novacube-table2: 3 rows of 64 servers, 4 runs (%s)" %
          (rows[0] if rows else md[-300:]))
print("PASS: dcn-sim" if not bad else "FAIL: dcn-sim (%d)" % len(bad))
sys.exit(1 if bad else 0)
