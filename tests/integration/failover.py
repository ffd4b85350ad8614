#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Failover in an emulated fabric (every node in one dcnfwd process).

Usage: failover.py DCNFWD unplug SPEC   one flow at a fixed rate; the cable
                                        it uses is pulled (carrier event,
                                        then silently: hellos only) and
                                        mended; on NovaCube also a transit
                                        node dies (kill)
       failover.py DCNFWD soak SPEC N   all-to-all traffic while a cable is
                                        pulled and mended N times
       failover.py DCNFWD held SPEC CABLE  all-to-all traffic; CABLE (NODE:PORT)
                                        pulled for the rest of the run
       failover.py DCNFWD converge SPEC NODE  all-to-all traffic; the busiest
                                        cable pulled, then (another run)
                                        relay NODE killed

Checks, for each pull: delivery resumes on another path while the cable is
out (the flow's delivery ratio in the second half of the cut), the cable
carries traffic again once mended, and the process exits with every mbuf
back and no memzone left. held: only what was in flight while the
failure was detected is lost (the frames the cable carried in 50 ms at
most: tables that disagreed used to loop some pairs for as long as the
failure lasted), every pair delivers in the last second. converge: no
frame is lost to a loop while the relays' tables disagree (too_long,
loop): one that two relays would bounce between them waits for the news
instead (lib/fwd/README.md, "Bounces"). The outage (frames lost / the cable's rate) and
the detection and convergence times are printed, not asserted: these
machines are shared. Exit 77 when the EAL cannot start here.
"""
import json
import os
import subprocess
import sys

EAL = ["-l", "0-1", "--no-huge", "-m", "1024", "--no-pci", "--log-level=5"]


def run(dcnfwd, spec, args, tag):
    prefix = "dcn-fo-%s-%d" % (tag, os.getpid())
    cmd = [dcnfwd] + EAL + ["--file-prefix=" + prefix, "--", "--emulate",
                            spec, "--stats", "0", "--json"] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    finally:
        subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix])
    if "EAL init failed" in p.stderr:
        print("SKIP: EAL did not start:", p.stderr[-400:])
        sys.exit(77)
    out = {}
    for line in p.stdout.splitlines():
        if not line.startswith("{"):
            continue
        j = json.loads(line)
        if "failover" in j:
            out["failover"] = j["failover"]
        elif "exit" in j:
            out["exit"] = j["exit"]
        elif "topology" in j:
            out["final"] = j
    if p.returncode != 0 or "final" not in out or "exit" not in out:
        print("FAIL: dcnfwd exited %d\n%s\n%s" % (p.returncode, p.stdout[-2000:],
                                                 p.stderr[-2000:]))
        sys.exit(1)
    return out


def check_exit(out, what):
    ex = out["exit"]
    if ex["mbufs_leaked"] != 0 or ex["memzones_left"] != 0:
        print("FAIL: %s: %d mbufs not returned, %d memzones left" %
              (what, ex["mbufs_leaked"], ex["memzones_left"]))
        return 1
    return 0


def unplug(dcnfwd, spec):
    modes = ["carrier", "silent"] + (["kill"] if spec.startswith("novacube") else [])
    bad = 0
    for mode in modes:
        # Pulled a third of the way in, mended at two thirds: a second
        # and more each side, beyond any hold-down (100 ms).
        out = run(dcnfwd, spec, ["--duration", "4", "--rate", "20000",
                                 "--senders", "1", "--pattern", "permutation",
                                 "--unplug", "busiest", "--unplug-mode", mode],
                  mode)
        fo, fin = out.get("failover"), out["final"]
        what = "%s %s" % (spec, mode)
        if fo is None:
            print("FAIL: %s: no failover report" % what)
            bad += 1
            continue
        print("%-28s pulled %-14s outage %8.3f ms (%d frames at %.0f/s), "
              "detected %.3f ms, converged %.3f ms, back after %.1f ms" %
              (what, fo["what"], fo["outage_ms"], fo["lost"],
               fo["link_pps_before"], fo["detect_ms"], fo["converge_ms"],
               fo["restore_ms"]))
        if fo["during_cut_delivered"] < 0.99:
            print("FAIL: %s: delivery did not resume while it was out "
                  "(%.3f of what was sent arrived)" % (what, fo["during_cut_delivered"]))
            bad += 1
        if fo["after_mend_delivered"] < 0.99:
            print("FAIL: %s: delivery after the mend %.3f" % (what, fo["after_mend_delivered"]))
            bad += 1
        if fo["frames_over_it_after_mend"] == 0:
            print("FAIL: %s: the original path did not come back" % what)
            bad += 1
        if fo["detect_ms"] < 0 or fo["tables_built"] == 0:
            print("FAIL: %s: no link event or no table rebuilt" % what)
            bad += 1
        if fin["pairs_delivered"] != 1:
            print("FAIL: %s: the flow was not delivered" % what)
            bad += 1
        bad += check_exit(out, what)
    return bad


def soak(dcnfwd, spec, cycles):
    # The cycles run from 3 s to 7 s before the end (the longest
    # hold-down has run out by the last second): 0.15 s cut, 0.15 s
    # mended each.
    out = run(dcnfwd, spec, ["--duration", "%.1f" % (10 + 0.3 * cycles),
                             "--rate", "500",
                             "--unplug", "busiest", "--unplug-at", "3",
                             "--flaps", str(cycles)], "soak")
    fo, fin = out.get("failover"), out["final"]
    hosts = fin["hosts"]
    print("%s: %d pull/mend cycles of %s, %d of %d frames delivered, "
          "%d pairs delivering; in the last second %.4f delivered" %
          (spec, fo["cycles"] if fo else 0, fo["what"] if fo else "-",
           fin["received"], fin["sent"], fin["pairs_delivered"],
           fo["last_second_delivered"] if fo else -1))
    bad = 0
    if fo is None or fo["cycles"] != cycles:
        print("FAIL: %d cycles asked, %s done" % (cycles, fo and fo["cycles"]))
        bad += 1
    if fin["pairs_delivered"] != hosts * (hosts - 1):
        print("FAIL: not every pair delivered")
        bad += 1
    if fo is not None and fo["last_second_delivered"] < 0.999:
        print("FAIL: flows not all delivering at the end")
        bad += 1
    return bad + check_exit(out, "soak")


def held(dcnfwd, spec, cable):
    out = run(dcnfwd, spec, ["--duration", "6", "--unplug", cable, "--unplug-at",
                             "2", "--replug-at", "0"], "held")
    fo, fin = out.get("failover"), out["final"]
    bad = 0
    if fo is None:
        print("FAIL: %s: no failover report" % spec)
        return 1
    # The outage from frame counts: frames lost over the cable's rate.
    print("%s: %s pulled for good: lost %d frames at %.0f/s (outage %.1f ms), "
          "detected %.3f ms, converged %.3f ms; in the last second %.4f "
          "delivered, %d pairs" % (spec, fo["what"], fo["lost"],
                                   fo["link_pps_before"], fo["outage_ms"],
                                   fo["detect_ms"], fo["converge_ms"],
                                   fo["last_second_delivered"],
                                   fin["pairs_delivered"]))
    if fo["lost"] > fo["link_pps_before"] * 0.050:
        print("FAIL: more lost than the cable carries in 50 ms")
        bad += 1
    if fo["last_second_delivered"] < 0.999:
        print("FAIL: flows not all delivering at the end")
        bad += 1
    hosts = fin["hosts"]
    if fin["pairs_delivered"] != hosts * (hosts - 1):
        print("FAIL: not every pair delivered")
        bad += 1
    return bad + check_exit(out, "held")


def converge(dcnfwd, spec, node):
    bad = 0
    for what, args in (("cable", ["--unplug", "busiest"]),
                       ("relay", ["--unplug", node, "--unplug-mode", "kill"])):
        out = run(dcnfwd, spec, ["--duration", "3", "--rate", "2000"] + args,
                  "cv" + what)
        fo, fin = out.get("failover"), out["final"]
        if fo is None:
            print("FAIL: %s %s: no failover report" % (spec, what))
            bad += 1
            continue
        drops = fin["fabric_drops_by_reason"]
        # Frames for the killed relay itself cannot arrive: those the
        # relays pass round until they hear of its death are shown apart.
        gone = fin.get("too_long_to_killed", 0)
        looped = drops.get("too_long", 0) + drops.get("loop", 0) - gone
        print("%s: %s %s: lost %d frames (outage %.1f ms of its %.0f frames/s), "
              "converged %.1f ms; sent back %d, held %d times; lost to "
              "loops %d (and %d for the killed relay itself); drops %s" %
              (spec, what, fo["what"], fo["lost"], fo["outage_ms"],
               fo["link_pps_before"], fo["converge_ms"], fin["bounced"],
               fin["parked"], looped, gone, json.dumps(drops)))
        if looped:
            print("FAIL: %s %s: %d frames lost to loops" % (spec, what, looped))
            bad += 1
        bad += check_exit(out, "converge " + what)
    return bad


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    dcnfwd, mode, spec = sys.argv[1:4]
    if mode == "unplug":
        bad = unplug(dcnfwd, spec)
    elif mode == "soak":
        bad = soak(dcnfwd, spec, int(sys.argv[4]) if len(sys.argv) > 4 else 100)
    elif mode == "held" and len(sys.argv) > 4:
        bad = held(dcnfwd, spec, sys.argv[4])
    elif mode == "converge" and len(sys.argv) > 4:
        bad = converge(dcnfwd, spec, sys.argv[4])
    else:
        print(__doc__)
        return 2
    print("FAIL" if bad else "OK")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
