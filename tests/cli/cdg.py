#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dcn-topo cdg: the channel dependency graph of each routing with its VC
rule has no cycle, on the configurations the flow-control tests emulate
and on one larger one per topology, without failures and with the
failure routing of each paper (links failed at random, three seeds); on
Diamond and NovaCube, whose detours round failures take live paths, no
route is longer than the VCs under 5 to 30% of the links failed
(several seeds); and the check can fail: one VC on a ring, or on any of
the five fabrics, is a cycle, printed channel by channel.

Usage: cdg.py DCN-TOPO [--single-failures]
(--single-failures: only Totoro's sweep of every single failure.)
Exit 0 pass, 1 fail.
"""
import json
import subprocess
import sys

topo = sys.argv[1]
failed = []

# (spec, extra arguments): the emulated fabrics of the integration tests,
# then a larger one per topology (LaScaDa's failure routing explores
# detours whose branches multiply with the fabric: lascada:n=4,k=3 takes
# minutes with failures, so n=4,k=2 stands for it).
SMALL = ["novacube:k=4,n=2", "torus:k=4,n=2", "diamond:k=4",
         "rrect:n=2,m=2,k=1", "rrect:n=4,m=2,k=1",
         "lascada:n=2,k=2", "totoro:N=4,n=4,K=1"]
LARGE = [("novacube:k=8,n=2", []), ("novacube:k=4,n=3", []),
         ("diamond:k=12", []), ("rrect:n=8,m=2,k=2", []),
         ("lascada:n=4,k=2", []),
         ("totoro:N=8,n=8,K=2", [])]


def check(ok, what):
    print("  %s: %s" % ("ok" if ok else "FAIL", what))
    if not ok:
        failed.append(what)


def cdg(spec, extra):
    p = subprocess.run([topo, "--json"] + extra + ["cdg", spec],
                       capture_output=True, text=True, timeout=600)
    try:
        return p.returncode, json.loads(p.stdout)
    except ValueError:
        return p.returncode, {"error": p.stderr.strip()}


def acyclic(spec, extra, fits=False):
    """fits: every route fits its VCs even with the failures given."""
    rc, r = cdg(spec, extra)
    what = "%s %s: %s" % (spec, " ".join(extra), "acyclic" if rc == 0 else
                          "exit %d %s" % (rc, r.get("error") or r.get("cycle")))
    # Without failures every route fits its VCs: none is dropped as
    # too_long (a route past them would be, rather than wait in a cycle).
    ok = (rc == 0 and r.get("acyclic") is True and r.get("routes", 0) > 0 and
          r["vcs_used"] <= r["vcs"] and
          (("--fail-links" in extra and not fits) or r.get("too_long") == 0))
    if ok:
        what += " (%d channels, %d dependencies, %d of %d VCs, longest %d%s)" % (
            r["channels"], r["dependencies"], r["vcs_used"], r["vcs"],
            r["longest_route"],
            ", %d of %d branches too long" % (r["too_long"], r["routes"] + r["too_long"])
            if r.get("too_long") else "")
    check(ok, what)


def totoro_single_failures():
    """Totoro with one server of each link level a Totoro_0 (N = 2^K): a
    relay may take a TRA hop towards a crossing it cannot see is dead;
    every route under every single server or cable failure still fits the
    VCs."""
    for spec in ("totoro:N=4,n=4,K=2", "totoro:N=8,n=2,K=3"):
        out = subprocess.run([topo, "cables", spec], capture_output=True,
                             text=True, check=True).stdout.splitlines()
        names = {int(l.split()[1]): l.split()[2] for l in out
                 if l.startswith("vertex")}
        servers = [names[v] for v in names if names[v].startswith("[")]
        cables = [names[int(l.split()[1])] + ":" + l.split()[2] for l in out
                  if l.startswith("cable") and names[int(l.split()[1])].startswith("[")]
        worst, bad = 0, []
        for extra in ([["--fail-servers", s] for s in servers] +
                      [["--fail-links", c] for c in cables]):
            rc, r = cdg(spec, extra)
            if rc != 0 or r.get("too_long") != 0:
                bad.append(" ".join(extra))
            worst = max(worst, r.get("longest_route", 0))
        check(not bad and worst > 0,
              "%s: every single failure (%d) acyclic, no route past the VCs, "
              "longest %d hops%s" % (spec, len(servers) + len(cables), worst,
                                     ("; not: " + ", ".join(bad[:3])) if bad else ""))


if sys.argv[2:] == ["--single-failures"]:
    # Minutes under the sanitizers: a test of its own (tests/meson.build).
    totoro_single_failures()
    print("FAIL: %d checks" % len(failed) if failed else "PASS")
    sys.exit(1 if failed else 0)
for spec in SMALL:
    acyclic(spec, [])
    for seed in (1, 2, 3):
        acyclic(spec, ["--fail-links", "0.1", "--seed", str(seed)])
for spec, extra in LARGE:
    acyclic(spec, extra)
    acyclic(spec, extra + ["--fail-links", "0.05", "--seed", "7"])
# Diamond's and NovaCube's detours go over live paths: none too long for
# the VCs, however many links have failed here.
for spec in ("diamond:k=4", "diamond:k=8", "novacube:k=4,n=2", "novacube:k=8,n=2"):
    for pct in (5, 15, 30):
        for seed in (1, 2, 3):
            acyclic(spec, ["--fail-links", "%.2f" % (pct / 100.0), "--seed",
                           str(seed)], fits=True)

# The check can fail: a ring with one VC waits round itself.
rc, r = cdg("torus:k=4,n=1", ["--vcs", "1"])
cyc = r.get("cycle", [])
check(rc == 1 and r.get("acyclic") is False and len(cyc) == 4 and
      all(cyc[i]["to"] == cyc[(i + 1) % len(cyc)]["from"]
          for i in range(len(cyc))),
      "torus:k=4,n=1 with one VC: exit %d, cycle %s" %
      (rc, " -> ".join(c["from"] for c in cyc)))
for spec in SMALL:
    rc, r = cdg(spec, ["--vcs", "1"])
    check(rc == 1 and len(r.get("cycle", [])) >= 2,
          "%s with one VC: a cycle of %d channels" %
          (spec, len(r.get("cycle", []))))
# PORA on the paper's two VCs (a dateline only) is not enough.
rc, r = cdg("novacube:k=4,n=2", ["--vcs", "2"])
check(rc == 1, "novacube:k=4,n=2 with two VCs: a cycle (exit %d)" % rc)
# Text output names the cycle for a reader.
p = subprocess.run([topo, "--vcs", "1", "cdg", "torus:k=4,n=1"],
                   capture_output=True, text=True)
check(p.returncode == 1 and "a cycle" in p.stdout and
      "waiting for the first" in p.stdout,
      "text output prints the cycle")

if failed:
    print("FAIL: %d checks" % len(failed))
    sys.exit(1)
print("PASS")
