#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Frames lost while tables converge, over many runs of single failures.

Usage: converge_bench.py DCNFWD [--runs N] [--busy] [--seconds S]
                         [--spec SPEC[@NODE] ...]

Each run is an emulated fabric (every relay in one dcnfwd process, two
lcores) with all-to-all traffic at 2000 frames/s a host; the busiest
cable is pulled a third of the way in and mended at two thirds, then, in
another run, relay NODE is killed and revived. Per fabric and failure it
prints the frames dropped as too_long or loop (a loop between relays whose
tables disagree), the outage (frames lost between live hosts over the
rate of what the cable or relay carried before) as median and worst, how
often a frame was held as bouncing (lib/fwd/README.md, "Bounces"), and
apart from the loops, frames for the killed relay itself that the relays
passed round until they heard of its death (they cannot arrive).

--busy starts a CPU-bound process on lcore 1's CPU beside each run (a
busy neighbour), started and stopped by its PID. Figures only; nothing is
asserted.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

SPECS = ["lascada:n=2,k=2@(2,1)", "lascada:n=2,k=3@(2,1,1)", "novacube:k=4,n=2@(2,2)"]


def run(dcnfwd, spec, args, seconds):
    prefix = "dcn-cvb-%d" % os.getpid()
    cmd = [dcnfwd, "-l", "0-1", "--no-huge", "-m", "1024", "--no-pci",
           "--log-level=5", "--file-prefix=" + prefix, "--", "--emulate", spec,
           "--stats", "0", "--json", "--duration", str(seconds),
           "--rate", "2000"] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    finally:
        subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix])
    fo = fin = None
    for line in p.stdout.splitlines():
        if line.startswith('{"failover"'):
            fo = json.loads(line)["failover"]
        elif line.startswith('{"topology"'):
            fin = json.loads(line)
    return fo, fin


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dcnfwd")
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--busy", action="store_true")
    ap.add_argument("--spec", action="append",
                    help="SPEC[@NODE]: a fabric, and the relay to kill")
    a = ap.parse_args()
    hog = None
    if a.busy:
        hog = subprocess.Popen(["taskset", "-c", "1", "sh", "-c", "while :; do :; done"])
    print("%-18s %-6s %5s %9s %12s %12s %7s %9s" % ("fabric", "fails", "runs",
          "looped", "outage p50", "outage max", "held", "to killed"))
    try:
        for item in a.spec or SPECS:
            spec, _, node = item.partition("@")
            plans = [("cable", ["--unplug", "busiest"])]
            if node:
                plans.append(("relay", ["--unplug", node, "--unplug-mode", "kill"]))
            for what, args in plans:
                looped, outage, held, done, gone = 0, [], 0, 0, 0
                for _ in range(a.runs):
                    fo, fin = run(a.dcnfwd, spec, args, a.seconds)
                    if fo is None or fin is None:
                        continue
                    done += 1
                    d = fin["fabric_drops_by_reason"]
                    # Frames for a killed relay itself cannot arrive:
                    # apart (too_long_to_killed).
                    gone += fin.get("too_long_to_killed", 0)
                    looped += (d.get("too_long", 0) + d.get("loop", 0) -
                               fin.get("too_long_to_killed", 0))
                    outage.append(fo["outage_ms"])
                    held += fin["parked"]
                print("%-18s %-6s %5d %9d %9.1f ms %9.1f ms %7d %9d" %
                      (spec, what, done, looped,
                       statistics.median(outage) if outage else -1,
                       max(outage) if outage else -1, held, gone), flush=True)
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
