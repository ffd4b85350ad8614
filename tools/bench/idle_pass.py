#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What one pass of a dcnfwd worker's loop costs when most of its ports
have nothing: a whole fabric emulated in one dcnfwd (--emulate SPEC, one
worker, flow control on, every host sending a trickle), its worker
thread under callgrind, instructions divided by the loop's passes (the
emulation's report, worker_loops). Each pass polls every port's RX queue
and looks at every port's flow-control steps (route, send, announce) and
control ring, so this is what ports nobody sends on cost, a fast path of
its own: a relay of many ports, or lanes, pays it on every pass.

With --build2 it measures a second build too, in turn (--runs each), and
prints the ratio of their medians. Instruction counts do not move with
the machine's load the way times do; the share of passes that found a
frame is printed beside them (at a trickle, a few in a hundred).
Nothing is asserted about cost; exit 1 when a run fails, 77 when
dcnfwd or valgrind cannot run here.

  idle_pass.py --build BUILD [--build2 OTHER] [--spec novacube:k=4,n=2]
               [--rate 100] [--duration 2] [--runs 1]
"""
import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


class Skip(Exception):
    """What the bench needs is not here (exit 77)."""


def worker_instructions(work, pid):
    """The instructions of the thread of pid that executed most (the
    worker: the main lcore mostly sleeps) from callgrind's per-thread
    dumps."""
    best = 0
    for f in glob.glob(os.path.join(work, "cg.%d-*" % pid)):
        with open(f) as fh:
            for line in fh:
                if line.startswith("summary:") or line.startswith("totals:"):
                    best = max(best, int(line.split()[1]))
                    break
    return best


def one_run(a, build, n):
    """One emulated run of build under callgrind: (instructions a pass,
    passes, share of passes with a frame forwarded at most)."""
    dcnfwd = os.path.join(build, "app/dcnfwd/dcnfwd")
    if not os.access(dcnfwd, os.X_OK):
        raise RuntimeError("no %s" % dcnfwd)
    prefix = "dcn-idle-%d-%d" % (os.getpid(), n)
    work = tempfile.mkdtemp(prefix="dcn-idle.")
    cmd = ["valgrind", "--tool=callgrind", "--separate-threads=yes",
           "--callgrind-out-file=%s/cg.%%p" % work,
           dcnfwd, "--lcores", "0@%d,1@%d" % (a.cpus[0], a.cpus[-1]), "--no-huge",
           "-m", "1024", "--no-pci", "--file-prefix", prefix, "--log-level=4", "--",
           "--emulate", a.spec, "--rate", str(a.rate), "--duration", str(a.duration),
           "--json", "--no-backoff", "--flow-control", "on"]
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = p.communicate(timeout=300 + 10 * a.duration)
        if p.returncode != 0 and "EAL init failed" in err:
            raise Skip("dcnfwd's EAL did not start here:\n%s" % err[-400:])
        rep = [json.loads(l) for l in out.splitlines()
               if l.startswith("{") and '"topology"' in l]
        if p.returncode != 0 or not rep or "worker_loops" not in rep[-1]:
            raise RuntimeError("dcnfwd --emulate under callgrind exited %d:\n%s" %
                               (p.returncode, (out + err)[-600:]))
        rep = rep[-1]
        loops = rep["worker_loops"][0]
        ir = worker_instructions(work, p.pid)
        if loops == 0 or ir == 0:
            raise RuntimeError("no passes or no callgrind dump counted")
        return ir / loops, loops, min(1.0, rep["forwarded"] / loops), rep["lost"]
    finally:
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--build2", help="a second build, measured in turn")
    ap.add_argument("--spec", default="novacube:k=4,n=2",
                    help="the fabric emulated (default novacube:k=4,n=2)")
    ap.add_argument("--rate", type=int, default=100,
                    help="frames a second each host sends (default 100)")
    ap.add_argument("--duration", type=float, default=2.0,
                    help="seconds of traffic a run (default 2)")
    ap.add_argument("--runs", type=int, default=1, help="runs of each build")
    a = ap.parse_args()
    if shutil.which("valgrind") is None:
        print("SKIP: no valgrind (tools/install-deps.sh installs it)")
        return 77
    a.cpus = sorted(os.sched_getaffinity(0))
    builds = [a.build] + ([a.build2] if a.build2 else [])
    per = {b: [] for b in builds}
    try:
        n = 0
        for r in range(a.runs):
            for b in builds:
                n += 1
                cost, loops, busy, lost = one_run(a, b, n)
                per[b].append(cost)
                print("run %d %s: %.0f instructions a pass over %d passes "
                      "(frames forwarded per pass at most %.3f; lost %d)" %
                      (r + 1, b, cost, loops, busy, lost), flush=True)
    except Skip as e:
        print("SKIP: %s" % e)
        return 77
    except (RuntimeError, subprocess.TimeoutExpired, OSError) as e:
        print("FAIL: %s" % e)
        return 1
    med = {b: statistics.median(v) for b, v in per.items()}
    for b in builds:
        print("idle pass of %s, %s: %.0f instructions (median of %d)" %
              (a.spec, b, med[b], len(per[b])))
    if a.build2:
        print("idle pass: %s / %s = %.2fx the instructions" %
              (a.build2, a.build, med[a.build2] / med[a.build]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
