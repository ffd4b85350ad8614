#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every node of a small fabric in one dcnfwd process (--emulate).

1. Each ordered pair of hosts alone (--pairs): the frames of one flow must
   all reach the destination host and no other, and the ports they left by
   (per-port counters, node by node) must form one path from the source to
   the destination made of hops that `dcn-topo route --all` allows.
2. Every host sends to every other at a rate well below capacity: zero
   loss, every source-destination pair delivered.

Usage: emulated_fabric.py DCNFWD DCN_TOPO SPEC
Exit 0 pass, 1 fail, 77 skip (EAL could not start).
"""
import json
import os
import shutil
import subprocess
import sys

dcnfwd, dcn_topo, spec = sys.argv[1:4]
prefix = "dcn-it-%d" % os.getpid()
EAL = ["-l", "0-1", "--no-huge", "-m", "1024", "--no-pci",
       "--file-prefix=" + prefix, "--log-level=4"]


def run_dcnfwd(args, timeout):
    try:
        p = subprocess.run([dcnfwd] + EAL + ["--"] + args,
                           capture_output=True, text=True, timeout=timeout)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    if "EAL init failed" in p.stderr:
        print("SKIP: EAL did not start:", p.stderr.strip()[-300:])
        sys.exit(77)
    return p


def fail(msg):
    print("FAIL %s: %s" % (spec, msg))
    sys.exit(1)


def allowed_hops(src, dst):
    out = subprocess.run([dcn_topo, "--json", "route", "--all", spec, src,
                          dst], capture_output=True, text=True, check=True)
    edges = {}
    for h in json.loads(out.stdout)["hops"]:
        edges.setdefault((h["from"], h["port"]), set()).add(h["to"])
    return edges


def check_pair(rec):
    src, dst = rec["src"], rec["dst"]
    what = "%s -> %s" % (src, dst)
    if rec["received"] != rec["sent"] or rec["stray"] != 0:
        fail("%s: sent %d, received %d, %d at other hosts" %
             (what, rec["sent"], rec["received"], rec["stray"]))
    seen = {(h["node"], h["port"]): h["frames"] for h in rec["hops"]}
    for key, n in seen.items():
        if n != rec["sent"]:
            fail("%s: %s port %d sent %d frames of a %d-frame flow" %
                 (what, key[0], key[1], n, rec["sent"]))
    edges = allowed_hops(src, dst)
    nodes_seen = {k[0] for k in seen}
    cur, used = src, set()
    if src not in nodes_seen:
        # The source is a plain host (Diamond): its one cable first.
        first = [t for (f, p), ts in edges.items() if f == src for t in ts]
        if len(set(first)) != 1:
            fail("%s: source's first hop is not unique: %s" % (what, first))
        cur = first[0]
    while cur != dst:
        outs = [k for k in seen if k[0] == cur]
        if len(outs) != 1:
            fail("%s: at %s the flow left by %d ports: %s" %
                 (what, cur, len(outs), sorted(seen)))
        key = outs[0]
        if key not in edges:
            fail("%s: %s port %d is not a hop dcn-topo allows (%s)" %
                 (what, key[0], key[1], sorted(edges)))
        used.add(key)
        nxt = [t for t in edges[key] if t == dst or t in nodes_seen]
        if not nxt:
            fail("%s: after %s port %d the flow went nowhere allowed" %
                 (what, key[0], key[1]))
        cur = dst if dst in nxt else nxt[0]
        if len(used) > 64:
            fail("%s: path longer than 64 hops" % what)
    if used != set(seen):
        fail("%s: ports off the path also sent the flow: %s" %
             (what, sorted(set(seen) - used)))
    return len(used)


# 1. Pair by pair.
p = run_dcnfwd(["--emulate", spec, "--pairs", "4"], timeout=600)
recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
if p.returncode != 0 and not recs:
    fail("dcnfwd --pairs exited %d: %s" % (p.returncode, p.stderr[-500:]))
hosts = {r["src"] for r in recs} | {r["dst"] for r in recs}
if len(recs) != len(hosts) * (len(hosts) - 1) or len(hosts) < 4:
    fail("%d pair records for %d hosts" % (len(recs), len(hosts)))
hops = [check_pair(r) for r in recs]
print("%s: %d pairs, each on an allowed path (%d to %d node hops)" %
      (spec, len(recs), min(hops), max(hops)))

# 2. All together, well below capacity.
p = run_dcnfwd(["--emulate", spec, "--duration", "3", "--rate", "2000",
                "--json"], timeout=120)
if p.returncode != 0:
    fail("dcnfwd traffic exited %d: %s" % (p.returncode, p.stderr[-500:]))
rep = json.loads([l for l in p.stdout.splitlines()
                  if l.startswith('{"topology"')][-1])
n = rep["hosts"]
if rep["sent"] < n * 2000 * 2:
    fail("hosts sent only %d frames" % rep["sent"])
if rep["lost"] != 0 or rep["received"] != rep["sent"]:
    fail("sent %d, received %d" % (rep["sent"], rep["received"]))
if rep["pairs_delivered"] != n * (n - 1):
    fail("%d of %d pairs delivered" % (rep["pairs_delivered"], n * (n - 1)))
print("%s: %d hosts, %d frames, zero loss, all %d pairs, p99 %.1f us" %
      (spec, n, rep["sent"], n * (n - 1), rep["latency_us"]["p99"]))
