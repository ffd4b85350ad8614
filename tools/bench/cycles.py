#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Where dcnfwd transit's time goes at full load, flow control on and off
in turn, on zero_loss.py's memif bench (the same relay, ports, generator
and CPUs).

Instructions (zero_loss.py --instructions) are the steady figure, but
they are counted under callgrind, where the device runs fifty times
slower than its generator and every burst is full. At speed, what a frame
costs also depends on how full the bursts are and on where its cache
lines were last written. This samples the device with perf's cpu-clock
event (a timer: no hardware counters needed, so it works in a VM) while
a full-load trial runs, counts the frames forwarded over the same window
from dcnfwd's telemetry, and gives nanoseconds a frame by part: dcnfwd's
own functions, each shared library (the memif driver among them) and
the kernel. Rounds alternate flow control on and off (A B A B ...), and
each figure is the median of its rounds, so that the machine's fast and
slow phases fall on both.

  cycles.py --build BUILD [--rounds 3] [--trial 4] [--window 2] [--top 8]
            [--in-queue SLOTS] [--credit-batch N] [--no-huge] [--out DIR]

Writes cycles.json in --out. Nothing is asserted; exit 77 when it cannot
run here (not root without --no-huge, no hugepages, no perf).
"""
import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import zero_loss as zl

PERF_HZ = 5000
PERF_START_S = 0.5                # perf attached and writing before the window
# "  12.73%   5000  dcnfwd  [.] fwd_burst_cable_chan"
REPORT_LINE = re.compile(r"^\s*[\d.]+%\s+(\d+)\s+(\S+)\s+\[(.)\]\s+(\S+)")


def forwarded(prefix):
    st = zl.telemetry(prefix, "/dcn/stats") or {}
    return zl.dcnfwd_forwarded(st) if "transit" in st else None


def sample(prefix, dut, window, path, out):
    """Once frames move (the generator's ports may take seconds to
    connect), perf samples process dut; out gets the frames forwarded
    over window seconds and that window's ends, on perf's clock
    (CLOCK_MONOTONIC, as time.monotonic)."""
    while not forwarded(prefix):
        if dut.poll() is not None:
            return
        time.sleep(0.05)
    perf = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", str(PERF_HZ),
                             "-k", "CLOCK_MONOTONIC", "-p", str(dut.pid), "-o", path],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            preexec_fn=zl.on_generator_cpu)
    try:
        time.sleep(PERF_START_S)
        n0, t0 = forwarded(prefix), time.monotonic()
        time.sleep(window)
        n1, t1 = forwarded(prefix), time.monotonic()
    finally:
        perf.send_signal(signal.SIGINT)
        err = perf.communicate(timeout=60)[1]
    # perf raises the signal it stopped on again as it exits.
    if perf.returncode not in (0, -signal.SIGINT) or not n0 or not n1 or n1 <= n0:
        out["error"] = "perf record exited %d (%s), frames %s then %s" % (
            perf.returncode, err.strip()[-300:], n0, n1)
        return
    out.update(path=path, frames=n1 - n0, window=(t0, t1))


def by_symbol(path, window, frames):
    """{part: ns a frame} of the samples of perf file path taken within
    window: dcnfwd's functions by name; a library (memif's driver has no
    symbols in Debian's build) or the kernel as one part."""
    rep = subprocess.run(["perf", "report", "-i", path, "--stdio", "--no-children",
                          "-n", "--sort", "dso,sym", "--time", "%.6f,%.6f" % window],
                         capture_output=True, text=True, timeout=300,
                         preexec_fn=zl.on_generator_cpu)
    parts = {}
    for line in rep.stdout.splitlines():
        m = REPORT_LINE.match(line)
        if not m:
            continue
        samples, dso, kind, sym = int(m.group(1)), m.group(2), m.group(3), m.group(4)
        key = sym if dso == "dcnfwd" else ("kernel" if kind == "k" else dso)
        parts[key] = parts.get(key, 0) + samples
    if not parts:
        raise RuntimeError("perf report %s: nothing in the window (%s)" %
                           (path, rep.stderr.strip()[-300:]))
    return {k: v * 1e9 / PERF_HZ / frames for k, v in parts.items()}


def sample_safe(prefix, dut, window, path, out):
    try:
        sample(prefix, dut, window, path, out)
    except Exception as e:   # told by measure, not lost in the thread
        out["error"] = "%s: %s" % (type(e).__name__, e)


def measure(b, a, fc, size):
    """One full-load trial of dcnfwd transit with flow control fc, sampled."""
    a.flow_control = fc
    got = {}

    def sample_from(p, prefix):
        path = os.path.join(b.work, "perf-%d.data" % b.n)
        got["thread"] = threading.Thread(target=sample_safe,
                                         args=(prefix, p, a.window, path, got),
                                         daemon=True)
        got["thread"].start()

    b.on_dut_up = sample_from
    try:
        r = b.measure("dcnfwd-transit", size)
    finally:
        b.on_dut_up = None
    got.pop("thread").join(timeout=a.window + 120)
    if "path" not in got:
        raise RuntimeError("no samples: %s" % got.get("error", "no frames moved, or "
                                                       "not for the window"))
    # dcnfwd's exit line: how full its bursts were.
    m = re.search(r"with work: ([\d.]+) frames in", b.dut_log("dcnfwd-transit", None))
    return {"flow_control": fc, "mpps": r["full_load_pps"] / 1e6,
            "busy_cycles_per_frame": r["busy_cycles_per_frame"],
            "frames_per_busy_pass": float(m.group(1)) if m else None,
            "frames": got["frames"], "perf": (got["path"], got["window"])}


def is_library(key):
    """A part that is not one of dcnfwd's functions."""
    return key.startswith(("lib", "ld-", "[")) or key == "kernel"


def by_part(ns):
    """dcnfwd's functions as one part, then each library and the kernel."""
    g = {"dcnfwd": sum(v for k, v in ns.items() if not is_library(k))}
    g.update({k: v for k, v in ns.items() if is_library(k)})
    return g


def report(rows, top):
    """Medians of the rounds, flow control on beside off."""
    fcs = [fc for fc in ("on", "off") if any(r["flow_control"] == fc for r in rows)]
    parts, funcs = {}, {}
    for fc in fcs:
        rs = [r for r in rows if r["flow_control"] == fc]
        full = [r["frames_per_busy_pass"] for r in rs if r["frames_per_busy_pass"]]
        zl.log("flow control %s: %.2f Mpps, %.1f ns a frame sampled, %s frames a busy "
               "pass (medians of %d)" % (
                   fc, zl.median([r["mpps"] for r in rs]),
                   zl.median([sum(r["ns_per_frame"].values()) for r in rs]),
                   "%.1f" % zl.median(full) if full else "-", len(rs)))
        for table, split in ((parts, by_part),
                             (funcs, lambda ns: {k: v for k, v in ns.items()
                                                 if not is_library(k)})):
            keys = set(k for r in rs for k in split(r["ns_per_frame"]))
            table[fc] = {k: zl.median([split(r["ns_per_frame"]).get(k, 0.0) for r in rs])
                         for k in keys}
    for title, table, n in (("by part", parts, None), ("dcnfwd's functions", funcs, top)):
        zl.log("%-40s %s" % ("ns a frame, " + title, "".join("%10s" % ("fc " + fc) for fc in fcs)))
        keys = sorted(set(k for fc in fcs for k in table[fc]),
                      key=lambda k: -max(table[fc].get(k, 0.0) for fc in fcs))
        for k in keys[:n]:
            zl.log("  %-38s %s" % (k[:38], "".join("%10.2f" % table[fc].get(k, 0.0)
                                                   for fc in fcs)))
    return parts, funcs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--size", type=int, default=64, help="frame size, FCS included")
    ap.add_argument("--rounds", type=int, default=3,
                    help="trials of each, in turn (default %(default)s)")
    ap.add_argument("--trial", type=float, default=4.0,
                    help="seconds of full load a trial (default %(default)s)")
    ap.add_argument("--window", type=float, default=2.0,
                    help="seconds sampled within it (default %(default)s)")
    ap.add_argument("--flow-control", default="on,off",
                    help="on, off or both in turn (default %(default)s)")
    ap.add_argument("--top", type=int, default=8,
                    help="dcnfwd's functions shown (default %(default)s)")
    ap.add_argument("--in-queue", type=int, default=0, metavar="SLOTS",
                    help="dcnfwd's input_queue (default dcnfwd's)")
    ap.add_argument("--credit-batch", type=int, default=0, metavar="N",
                    help="dcnfwd's credit_batch (default dcnfwd's)")
    ap.add_argument("--no-huge", action="store_true", help="4 KB pages")
    ap.add_argument("--out", default=".", help="where cycles.json goes")
    a = ap.parse_args()
    # Stopped by a test runner's timeout (SIGTERM): unwind, so that the
    # devices started here are stopped and their pages given back.
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    if a.window + PERF_START_S + 0.5 > a.trial:
        ap.error("--window must leave a second of the trial around it")
    if shutil.which("perf") is None:
        zl.log("SKIP: no perf (Debian's linux-perf)")
        return 77
    if os.geteuid() != 0:
        zl.log("SKIP: perf on another process and memif need root")
        return 77
    # What zero_loss.py's Bench reads of its arguments.
    a.wrap, a.encap, a.disobey, a.max_trials, a.resolution = "", "ether", False, 1, 1.0
    a.testpmd = None
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dcn-cy.")
    b = zl.Bench(a, work)
    rows = []
    try:
        if not a.no_huge:
            try:
                b.huge = zl.Hugepages(zl.HUGE_PAGES, work)
            except (OSError, RuntimeError) as e:
                zl.log("SKIP: no hugepages (%s); --no-huge runs without" % e)
                return 77
        zl.log("dcnfwd transit at %d B, full load, flow control %s in turn, %d rounds; "
               "%.1f s of each %.1f s trial sampled (perf cpu-clock, %d Hz), %s pages" %
               (a.size, a.flow_control, a.rounds, a.window, a.trial, PERF_HZ,
                "4 KB" if a.no_huge else "2 MB"))
        turns = a.flow_control.split(",")
        for _ in range(a.rounds):
            for fc in turns:
                try:
                    r = measure(b, a, fc, a.size)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    # A generator whose start stalls past its timeout (a
                    # busy machine) costs its trial, not the run.
                    zl.log("  flow control %-3s trial left out: %s" % (fc, str(e)[:200]))
                    continue
                rows.append(r)
                zl.log("  flow control %-3s %7.2f Mpps, %d frames sampled" %
                       (fc, r["mpps"], r["frames"]))
        missing = [fc for fc in turns if not any(r["flow_control"] == fc for r in rows)]
        if missing:
            raise RuntimeError("no trial of flow control %s" % ",".join(missing))
        # Read once every trial is done: perf report takes seconds.
        for r in rows:
            r["ns_per_frame"] = by_symbol(*r.pop("perf"), r["frames"])
        report(rows, a.top)
    except Exception as e:   # report, and still clean up
        zl.log("FAIL: %s" % e)
        return 1
    finally:
        if b.huge:
            b.huge.release()
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(a.out, "cycles.json"), "w") as f:
        json.dump({"spec": zl.SPEC, "size": a.size, "trial_s": a.trial,
                   "window_s": a.window, "perf_hz": PERF_HZ,
                   "input_queue": a.in_queue or None,
                   "credit_batch": a.credit_batch or None,
                   "hugepages": not a.no_huge, "trials": rows}, f, indent=1)
    zl.log("written: %s" % os.path.join(a.out, "cycles.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
