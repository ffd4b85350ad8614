#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A traced LaScaDa detour against dcn-topo's route.

Usage: trace.py DCNFWD DCN_TOPO

An emulated lascada:n=2,k=2 with cable (2,1):0 pulled for good early on
(the route from (1,1) to (2,2) crossed it), started with --trace for one
frame of that flow; once the tables have settled, /dcn/trace asks for
the next 3 frames. Each is followed hop by hop across the fabric: its
relays, in order, are the route `dcn-topo --fail-links '(2,1):0' route`
gives, each hop leaving by that route's port (and the last to its host),
each with its candidates, pick and VCs; the exit report (--json) carries
the same hops. Exit 0 pass, 1 fail, 77 skip (EAL cannot start here).
"""
import json
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dcn_tel import ask  # noqa: E402

EAL = ["-l", "0-1", "--no-huge", "-m", "1024", "--no-pci"]
SPEC, CABLE, SRC, DST = "lascada:n=2,k=2", "(2,1):0", "(1,1)", "(2,2)"
failed = []


def check(cond, msg):
    print("%s %s" % ("ok  " if cond else "FAIL", msg))
    if not cond:
        failed.append(msg)


def model(topo):
    out = subprocess.run([topo, "--fail-links", CABLE, "--json", "route", SPEC, SRC,
                          DST], capture_output=True, text=True, check=True).stdout
    hops = json.loads(out)["hops"]
    return ([h["from"] for h in hops] + [hops[-1]["to"]],
            ["%s:%d" % (h["from"], h["port"]) for h in hops])


def frames_of(hops):
    """Hops grouped by frame, in the order they were written."""
    by = {}
    for h in hops:
        by.setdefault(h["frame"], []).append(h)
    return list(by.values())


def same_route(frame, nodes, ports, what):
    got = [h["node"] for h in frame]
    outs = [h["out"] for h in frame]
    check(got == nodes and outs[:-1] == ports and outs[-1].endswith("host") and
          all(h["why"] == "-" and 0 <= h["pick"] < max(1, len(h["candidates"].split(",")))
              for h in frame[:-1]),
          "%s: frame %s by %s" % (what, frame[0]["frame"], " > ".join(
              "%s(out %s, %s, vc %d>%d)" % (h["node"], h["out"], h["candidates"],
                                            h["vc_in"], h["vc_out"]) for h in frame)))


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    dcnfwd, topo = sys.argv[1:3]
    nodes, ports = model(topo)
    print("dcn-topo's route with %s pulled: %s" % (CABLE, " > ".join(nodes)))
    check(len(nodes) > 4, "the route is a detour (%d relays)" % len(nodes))
    prefix = "dcn-trace-%d" % os.getpid()
    p = subprocess.Popen([dcnfwd] + EAL + ["--file-prefix=" + prefix, "--",
                          "--emulate", SPEC, "--duration", "4", "--stats", "0",
                          "--json", "--unplug", CABLE, "--unplug-at", "0.3",
                          "--replug-at", "0", "--trace", "%s %s 1" % (SRC, DST)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = ask(prefix, "/dcn/trace")
        time.sleep(1.5)        # the cable pulled, the news spread and old
        armed = ask(prefix, "/dcn/trace,%s %s 3" % (SRC, DST))
        reply = None
        deadline = time.time() + 3
        while time.time() < deadline:
            reply = ask(prefix, "/dcn/trace")
            hops = [reply[str(k)] for k in range(reply["hops"])] if reply else []
            done = [f for f in frames_of(hops) if f[-1]["out"].endswith("host")]
            if len(done) >= 3:
                break
            time.sleep(0.2)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    if "EAL init failed" in err:
        print("SKIP: EAL did not start:", err[-400:])
        return 77
    check(p.returncode == 0, "dcnfwd ran to its end (exit %d)" % p.returncode)
    check(first is not None and first.get("frames") == 1,
          "--trace armed at start: %s" % (first or {}).get("frames"))
    check(armed is not None and armed.get("frames") == 3, "/dcn/trace asked for 3 frames")
    hops = [reply[str(k)] for k in range(reply["hops"])] if reply else []
    frames = frames_of(hops)
    check(len(frames) == 3, "3 frames traced (%d hops)" % len(hops))
    for f in frames:
        same_route(f, nodes, ports, "telemetry")
    final = [json.loads(l) for l in out.splitlines() if l.startswith('{"trace"')]
    lines = final[0]["trace"]["hops"] if final else []
    check(len(lines) == len(hops) and all(("node=%s " % h["node"]) in l
                                          for h, l in zip(hops, lines)),
          "the exit report's trace: the same %d hops" % len(lines))
    print("FAIL" if failed else "OK")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
