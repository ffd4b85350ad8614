#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""What one pass of a dcnfwd worker's loop costs when most of its ports
have nothing: a whole fabric emulated in one dcnfwd (--emulate SPEC, one
worker, flow control on, every host sending a trickle), its worker
thread under callgrind, instructions divided by the loop's passes
(worker_loops of /dcn/stats), both counted over a window of --duration
seconds once traffic flows: the start and the end are not in it. Each
pass polls every port's RX queue and looks at every port's flow-control
steps (route, send, announce) and control ring, so this is what ports
nobody sends on cost, a fast path of its own: a relay of many ports, or
lanes, pays it on every pass.

With --build2 it measures a second build too, in turn (--runs each), and
prints the ratio of their medians. Instruction counts do not move with
the machine's load the way times do; the share of passes that found a
frame is printed beside them (at a trickle, a few in a hundred).
Nothing is asserted about cost; exit 1 when a run fails, 77 when
dcnfwd or valgrind cannot run here.

  idle_pass.py --build BUILD [--build2 OTHER] [--spec novacube:k=4,n=2]
               [--rate 25] [--duration 2] [--runs 1]
"""
import argparse
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import zero_loss  # noqa: E402  (its telemetry and callgrind readers)


class Skip(Exception):
    """What the bench needs is not here (exit 77)."""


def one_run(a, build, n):
    """One emulated run of build under callgrind: (instructions a pass,
    passes, share of passes with a frame forwarded at most, frames lost).

    --fair-sched: valgrind runs one thread at a time and by default hands
    the lock back to whichever asks first, so the polling worker starved
    the main thread (hellos, telemetry) for tens of seconds. Counting
    starts (callgrind_control -z) once the fabric forwards and stops
    (-d) --duration seconds later, the passes read from telemetry
    beside it."""
    dcnfwd = os.path.join(build, "app/dcnfwd/dcnfwd")
    if not os.access(dcnfwd, os.X_OK):
        raise RuntimeError("no %s" % dcnfwd)
    prefix = "dcn-idle-%d-%d" % (os.getpid(), n)
    work = tempfile.mkdtemp(prefix="dcn-idle.")
    cmd = ["valgrind", "--tool=callgrind", "--fair-sched=yes", "--instr-atstart=no",
           "--separate-threads=yes", "--callgrind-out-file=%s/cg.%%p" % work,
           dcnfwd, "--lcores", "0@%d,1@%d" % (a.cpus[0], a.cpus[-1]), "--no-huge",
           "-m", "1024", "--no-pci", "--file-prefix", prefix, "--log-level=4", "--",
           "--emulate", a.spec, "--rate", str(a.rate), "--duration", "600",
           "--json", "--no-backoff", "--flow-control", "on"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ctl = lambda *args: subprocess.run(["callgrind_control"] + list(args) + [str(p.pid)],
                                       capture_output=True, text=True, timeout=120)
    try:
        stats = None
        end = time.time() + 300
        while time.time() < end and p.poll() is None:
            stats = zero_loss.telemetry(prefix, "/dcn/stats")
            if stats and stats.get("transit", 0) > 0:
                break
            time.sleep(1)
        if p.poll() is not None:
            out, err = p.communicate()
            if "EAL init failed" in err:
                raise Skip("dcnfwd's EAL did not start here:\n%s" % err[-400:])
            raise RuntimeError("dcnfwd --emulate under callgrind exited %d:\n%s" %
                               (p.returncode, (out + err)[-600:]))
        if not stats:
            raise RuntimeError("no /dcn/stats from dcnfwd under callgrind")
        if ctl("-i", "on").returncode != 0 or ctl("-z").returncode != 0:
            raise RuntimeError("callgrind_control on %d failed" % p.pid)
        s0 = zero_loss.telemetry(prefix, "/dcn/stats")
        time.sleep(a.duration)
        s1 = zero_loss.telemetry(prefix, "/dcn/stats")
        ctl("-d")
        if not s0 or not s1:
            raise RuntimeError("no /dcn/stats from dcnfwd under callgrind")
        loops = s1["worker_loops"] - s0["worker_loops"]
        fwd = sum(s1[k] - s0[k] for k in ("transit", "encap", "decap"))
        # the worker: the thread of the dump that executed most (the
        # main lcore mostly sleeps)
        ir = max((t[0] for t in zero_loss.callgrind_threads(work, p.pid, 1).values()),
                 default=0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=300)
        rep = [json.loads(l) for l in out.splitlines()
               if l.startswith("{") and '"topology"' in l]
        if p.returncode != 0 or not rep:
            raise RuntimeError("dcnfwd --emulate under callgrind exited %d:\n%s" %
                               (p.returncode, (out + err)[-600:]))
        if loops <= 0 or ir == 0:
            raise RuntimeError("no passes or no callgrind dump counted")
        return ir / loops, loops, min(1.0, fwd / loops), rep[-1]["lost"]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--build2", help="a second build, measured in turn")
    ap.add_argument("--spec", default="novacube:k=4,n=2",
                    help="the fabric emulated (default novacube:k=4,n=2)")
    ap.add_argument("--rate", type=int, default=25,
                    help="frames a second each host sends (default 25: a few "
                         "frames in a hundred passes)")
    ap.add_argument("--duration", type=float, default=2.0,
                    help="seconds counted a run, once traffic flows (default 2)")
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
