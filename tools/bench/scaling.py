#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Zero-loss throughput of dcnfwd by number of worker cores.

A relay bench needs a core for the generator and one for each worker, so
a two-CPU machine cannot scale a relay fed from outside. This bench runs
a whole fabric in one dcnfwd (--emulate: every node, cables as rings,
hosts that send stamped traffic from the workers' own loops), so every
CPU can forward: its workers carry the fabric's nodes and hosts, spread
by node, and the main lcore (control, mostly asleep) shares CPU 0.

For 1, 2, ... workers (up to the CPUs this process may use; worker i on
CPU i mod CPUs), it searches the highest per-host rate at which every
frame offered arrives, flow control on: a trial passes when the hosts
sent all that fell due (the workers kept up with their own generators,
within --resolution) and nothing was lost. Figures per worker count:

  zero-loss host Mpps   host frames delivered a second at that rate
  zero-loss fwd Mpps    forwarding steps a second at that rate (a frame
                        takes one at each relay on its path)
  full-load fwd Mpps    forwarding steps a second with every host
                        offering far more than the fabric can take

and the speed-up of each against one worker, for each wire format of
--encap (default both: ether, the fabric EtherType, and udp, the fabric
header in IPv4/UDP, which the emulated cables carry wrapped and
unwrapped as a NIC's would). Output in --out: scaling.csv, scaling.json
and scaling.png (gnuplot). Nothing is asserted about speed; exit 1 when a
run fails or no rate passes, 77 when dcnfwd cannot start here.

With --lanes, work is spread by flow instead of by node, as a fast NIC's
RSS spreads it: every node port has as many RX queues (lanes) as the
trial has workers, worker q polls queue q of every port (the emulated
cables spread frames over a port's queues as dcnfwd's RSS does), and
each worker routes and sends its own frames (several senders a port,
lib/fc/README.md). --one-sender adds a configuration of the most workers
whose ports have their owner alone as sender (--port-senders 1): the
others' frames go through its queues. With --pairs, --lanes also runs
the most workers spread by node (one lane a port: "2/node"), for what
lanes cost beside it in the same rounds. Lanes need encap = udp (a NIC
hashes nothing of an ether frame: every frame would land in queue 0);
--lanes measures udp alone.

Every node's input queues have the slots a relay's have on cables
(--in-queue, default 1024: dcnfwd's input_queue = 0 on cables), not the
256 an emulation gives them by default to keep a large fabric's queues
small: with 256, two workers' frames wait on credits in flight (each
link's window a quarter of a relay's), the ingress queues refuse frames
while one worker's never fill, and the bench measures the window, not
the workers. --in-queue 0 gives the emulation's own.

With --pairs N it measures instead in short interleaved trials, as
zero_loss.py --pairs does: N rounds, each one full-load trial of every
worker count in turn (each round starting one count later), and each
count's speed-up as the median [min-max] of its N ratios to the
one-worker trial of the same round (a shared machine's fast and slow
phases last tens of seconds, longer than a round): scaling-pairs.csv
(every trial) and scaling-pairs.json. Each round also takes the
core-to-core round trip of a cache line before and after its trials
(tools/bench/core-rtt, when built): on a virtual machine it moves
between phases (about 80 ns and 380 ns on this project's CI machines),
and what several workers share pays it. So beside the median of every
round come the medians of the rounds whose round trips both stayed
under --near-ns ("cores near") and of the others ("cores far").

  scaling.py --build BUILD [--spec novacube:k=4,n=2] [--trial 2] [--pairs N]
             [--encap ether,udp] [--lanes [--one-sender]] [--near-ns NS]
             [--in-queue SLOTS] [--out DIR]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

FULL_LOAD_PPS = 10_000_000       # per host: far beyond any worker


def log(msg):
    print(msg, flush=True)


class Skip(Exception):
    """What the bench needs is not here (exit 77)."""


class Emulated:
    def __init__(self, a):
        self.a, self.n, self.encap = a, 0, "ether"
        self.dcnfwd = os.path.join(a.build, "app/dcnfwd/dcnfwd")
        self.core_rtt = os.path.join(a.build, "tools/bench/core-rtt")
        self.cpus = sorted(os.sched_getaffinity(0))

    def round_trip_ns(self):
        """A cache line's round trip between the first two CPUs now, or
        None (no core-rtt built, one CPU)."""
        if len(self.cpus) < 2 or not os.access(self.core_rtt, os.X_OK):
            return None
        r = subprocess.run([self.core_rtt, "0.1", str(self.cpus[0]), str(self.cpus[1])],
                           capture_output=True, text=True, timeout=30)
        m = re.search(r"round trip: (\d+) ns", r.stdout)
        return int(m.group(1)) if r.returncode == 0 and m else None

    def lcores(self, workers):
        """Main lcore 0 on the first CPU; worker i on CPU i mod CPUs."""
        c = self.cpus
        return ",".join(["0@%d" % c[0]] +
                        ["%d@%d" % (i, c[i % len(c)]) for i in range(1, workers + 1)])

    def trial(self, workers, rate, senders=0, lanes=0):
        """One emulated run at rate frames a second per host (senders: a
        port's at most, 0: one a lane; lanes: a node port's, 0: one, or
        with --lanes one a worker): its report."""
        self.n += 1
        prefix = "dcn-scale-%d-%d" % (os.getpid(), self.n)
        cmd = [self.dcnfwd, "--lcores", self.lcores(workers), "--no-huge", "-m",
               "1024", "--no-pci", "--file-prefix", prefix, "--log-level=4", "--",
               "--emulate", self.a.spec, "--rate", "%d" % rate, "--size",
               str(self.a.size - 4), "--duration", str(self.a.trial), "--json",
               "--no-backoff", "--flow-control", self.a.flow_control,
               "--encap", self.encap]
        if self.a.in_queue:
            cmd += ["--in-queue", str(self.a.in_queue)]
        lanes = lanes or (workers if self.a.lanes else 1)
        if lanes > 1:
            cmd += ["--lanes", str(lanes)]
        if senders:
            cmd += ["--port-senders", str(senders)]
        try:
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=60 + 4 * self.a.trial)
        finally:
            shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
        rep = [json.loads(l) for l in r.stdout.splitlines()
               if l.startswith("{") and '"topology"' in l]
        if r.returncode != 0 and "EAL init failed" in r.stderr:
            raise Skip("dcnfwd's EAL did not start here:\n%s" % r.stderr[-400:])
        if r.returncode != 0 or not rep:
            raise RuntimeError("dcnfwd --emulate with %d workers at %d pps exited %d:"
                               "\n%s" % (workers, rate, r.returncode,
                                         (r.stdout + r.stderr)[-600:]))
        rep = rep[-1]
        if rep["workers"] != workers:
            raise RuntimeError("asked %d workers, dcnfwd ran %d" %
                               (workers, rep["workers"]))
        offered = rate * rep["hosts"] * rep["seconds"]
        rep["kept_up"] = rep["sent"] >= offered * (1 - self.a.resolution / 100)
        rep["passed"] = rep["kept_up"] and rep["lost"] == 0
        rep["host_pps"] = rep["received"] / rep["seconds"]
        rep["fwd_pps"] = rep["forwarded"] / rep["seconds"]
        return rep

    def search(self, workers):
        """Full load, then bisection on the per-host rate below what the
        full-load trial delivered."""
        full = self.trial(workers, FULL_LOAD_PPS)
        lo, hi, best = 0, int(full["host_pps"] / full["hosts"] * 1.1) + 1, None
        trials = [full]
        while hi - lo > max(lo, 1) * self.a.resolution / 100 and len(trials) < 16:
            mid = (lo + hi) // 2
            t = self.trial(workers, mid)
            trials.append(t)
            if t["passed"]:
                lo, best = mid, t
            else:
                hi = mid
        return {"workers": workers, "encap": self.encap, "lcores": self.lcores(workers),
                "zero_loss_rate_per_host": lo,
                "zero_loss_host_pps": best["host_pps"] if best else 0.0,
                "zero_loss_fwd_pps": best["fwd_pps"] if best else 0.0,
                "full_load_fwd_pps": full["fwd_pps"],
                "full_load_host_pps": full["host_pps"],
                "trials": [{k: t[k] for k in ("rate_pps_per_host", "seconds", "sent",
                                              "received", "lost", "forwarded",
                                              "kept_up", "passed")}
                           for t in trials]}


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def run_pairs(a, e, counts):
    """N rounds of one full-load trial per configuration (a worker count,
    and with --one-sender the most workers with one sender a port); each
    one's speed-up over one worker as the median [min-max] of the
    rounds'."""
    if counts[0] != 1:
        counts = [1] + [c for c in counts if c != 1]
    # (name, workers, senders a port: 0 one a lane, lanes: 0 as --lanes)
    confs = [(str(c), c, 0, 0) for c in counts]
    if a.one_sender:
        confs.append(("%d/1s" % counts[-1], counts[-1], 1, 0))
    if a.lanes:
        # the same workers spread by node: what lanes cost beside it
        confs.append(("%d/node" % counts[-1], counts[-1], 0, 1))
    # refused Mpps: frames the ingress queues refused a second, there
    # when the fabric's credits, not the workers, set the pace
    log("%-6s %-8s %14s %14s %10s %14s" % ("round", "workers", "full fwd Mpps",
                                             "x 1 worker", "core rtt", "refused Mpps"))
    trials, ratios = [], {c[0]: [] for c in confs[1:]}
    for rnd in range(a.pairs):
        order = confs[rnd % len(confs):] + confs[:rnd % len(confs)]
        got, refused, this_round = {}, {}, []
        before = e.round_trip_ns()
        for name, c, s, lanes in order:
            t = e.trial(c, FULL_LOAD_PPS, s, lanes)
            got[name] = t["fwd_pps"]
            refused[name] = t["ingress_drops"] / t["seconds"]
            this_round.append({"round": rnd, "workers": name, "fwd_pps": t["fwd_pps"],
                               "host_pps": t["host_pps"], "lost": t["lost"],
                               "refused": t["ingress_drops"],
                               "reordered": t.get("reordered", 0)})
        after = e.round_trip_ns()
        rtt = max(before, after) if before is not None and after is not None else None
        for t in this_round:
            t["core_rtt_ns"] = rtt
        trials += this_round
        for name, c, s, lanes in confs:
            x = got[name] / got["1"] if got["1"] else None
            if name != "1" and x is not None:
                ratios[name].append((x, rtt))
            log("%-6d %-8s %14.3f %14s %10s %14.3f" % (
                rnd, name, got[name] / 1e6, "%.2fx" % x if x is not None else "-",
                "%d ns" % rtt if rtt is not None else "-", refused[name] / 1e6))
    summary = {}
    for c, xr in ratios.items():
        xs = [x for x, _ in xr]
        if not xs:
            continue
        summary[c] = {"median": median(xs), "min": min(xs), "max": max(xs),
                      "pairs": len(xs)}
        log("encap %s%s: %s workers against 1 (full load, forwarding steps): "
            "%.2fx [%.2f-%.2f] over %d interleaved pairs" % (
                e.encap, ", lanes" if a.lanes else "", c, summary[c]["median"],
                summary[c]["min"], summary[c]["max"], len(xs)))
        for phase, keep in (("near", lambda r: r is not None and r < a.near_ns),
                            ("far", lambda r: r is not None and r >= a.near_ns)):
            ys = [x for x, r in xr if keep(r)]
            if ys:
                summary[c][phase] = {"median": median(ys), "min": min(ys),
                                     "max": max(ys), "pairs": len(ys)}
                log("  %s workers, cores %s (round trip %s %d ns): %.2fx "
                    "[%.2f-%.2f] over %d pairs" % (
                        c, phase, "under" if phase == "near" else "at least",
                        a.near_ns, median(ys), min(ys), max(ys), len(ys)))
    log("frames of a flow out of order, every trial: %d; lost inside the "
        "fabric (not refused at ingress): %d" % (
            sum(t["reordered"] for t in trials),
            sum(t["lost"] - t["refused"] for t in trials)))
    with open(os.path.join(a.out, "scaling-pairs-%s.csv" % e.encap), "w") as f:
        f.write("round,workers,full_load_fwd_mpps,full_load_host_mpps,lost,"
                "refused_at_ingress,core_rtt_ns\n")
        for t in trials:
            f.write("%d,%s,%.4f,%.4f,%d,%d,%s\n" % (
                t["round"], t["workers"], t["fwd_pps"] / 1e6, t["host_pps"] / 1e6,
                t["lost"], t["refused"],
                "" if t["core_rtt_ns"] is None else t["core_rtt_ns"]))
    with open(os.path.join(a.out, "scaling-pairs-%s.json" % e.encap), "w") as f:
        json.dump({"spec": a.spec, "encap": e.encap, "frame_bytes": a.size,
                   "trial_s": a.trial,
                   "flow_control": a.flow_control, "input_queue": a.in_queue or None,
                   "cpus": len(e.cpus),
                   "lanes": a.lanes, "trials": trials,
                   "speedup": {str(c): v for c, v in summary.items()}}, f, indent=1)
    log("written: %s" % ", ".join(os.path.join(a.out, "scaling-pairs-%s.%s" %
                                               (e.encap, x)) for x in ("csv", "json")))
    return 0


def plot(rows, out):
    encaps = sorted({r["encap"] for r in rows})
    gp = shutil.which("gnuplot")
    if gp is None:
        log("no gnuplot: no PNG (tools/install-deps.sh installs it)")
        return
    script = ["set terminal png size 800,560",
              "set output '%s'" % os.path.join(out, "scaling.png"),
              "set title 'dcnfwd by worker cores: emulated fabric, flow control on'",
              "set xlabel 'worker cores'", "set ylabel 'Mpps'", "set grid",
              "set key top left", "set yrange [0:*]",
              "set xtics 1", "set xrange [0.5:%d.5]" % max(r["workers"] for r in rows),
              "plot " + ", ".join(
                  "'-' using 1:2 with linespoints title '%s, %s'" % (what, enc)
                  for enc in encaps for what in ("forwarding steps, full load",
                                                 "forwarding steps, zero loss",
                                                 "host frames, zero loss"))]
    for enc in encaps:
        for key in ("full_load_fwd_pps", "zero_loss_fwd_pps", "zero_loss_host_pps"):
            script += ["%d %.4f" % (r["workers"], r[key] / 1e6) for r in rows
                       if r["encap"] == enc] + ["e"]
    subprocess.run([gp], input="\n".join(script) + "\n", text=True, check=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--spec", default="novacube:k=4,n=2",
                    help="the emulated fabric (default %(default)s)")
    ap.add_argument("--size", type=int, default=64,
                    help="host frame size, FCS included (default %(default)s)")
    ap.add_argument("--workers", default="",
                    help="worker counts, e.g. 1,2 (default 1 to the CPUs here)")
    ap.add_argument("--trial", type=float, default=2.0,
                    help="seconds of traffic per trial (default %(default)s)")
    ap.add_argument("--resolution", type=float, default=2.0,
                    help="search resolution and the generator's allowance, "
                         "percent (default %(default)s)")
    ap.add_argument("--flow-control", choices=("on", "off"), default="on")
    ap.add_argument("--encap", default="ether,udp",
                    help="wire formats to measure, in turn (default %(default)s)")
    ap.add_argument("--pairs", type=int, default=0, metavar="N",
                    help="instead of searches: N rounds of one full-load trial "
                         "per worker count in turn, speed-ups as medians [min-max] "
                         "(at least 10 for a figure to quote)")
    ap.add_argument("--lanes", action="store_true",
                    help="spread by flow: every node port has a lane per worker "
                         "(implies --encap udp)")
    ap.add_argument("--one-sender", action="store_true",
                    help="with --lanes --pairs: also the most workers with one "
                         "sender a port")
    ap.add_argument("--near-ns", type=int, default=200,
                    help="with --pairs: a round's core-to-core round trip "
                         "under which its cores count as near (default %(default)s)")
    ap.add_argument("--in-queue", type=int, default=1024, metavar="SLOTS",
                    help="input queue slots per port of every node: a "
                         "relay's on cables (default %(default)s); 0: the "
                         "emulation's own (256)")
    ap.add_argument("--out", default=".", help="where the CSV, JSON, PNG go")
    a = ap.parse_args()
    if a.lanes:
        a.encap = "udp"
    if a.one_sender and not (a.lanes and a.pairs):
        ap.error("--one-sender goes with --lanes --pairs")
    e = Emulated(a)
    counts = ([int(x) for x in a.workers.split(",")] if a.workers
              else list(range(1, len(e.cpus) + 1)))
    os.makedirs(a.out, exist_ok=True)
    log("scaling: %s, %d B, trial %.1f s, flow control %s, input queues %s, "
        "%d CPUs" % (a.spec, a.size, a.trial, a.flow_control,
                     "%d slots" % a.in_queue if a.in_queue else "the emulation's",
                     len(e.cpus)))
    encaps = [x for x in a.encap.split(",") if x]
    if not encaps or any(x not in ("ether", "udp") for x in encaps):
        ap.error("--encap: ether, udp, or both (ether,udp)")
    rows = []
    try:
        if a.pairs:
            if len(counts) < 2 and len(e.cpus) < 2:
                raise Skip("one CPU: nothing to compare one worker with")
            for enc in encaps:
                e.encap = enc
                run_pairs(a, e, counts if len(counts) > 1 else [1, 2])
            return 0
        log("%-6s %-8s %-14s %16s %16s %16s" % (
            "encap", "workers", "lcores", "0-loss host Mpps", "0-loss fwd Mpps",
            "full fwd Mpps"))
        for enc in encaps:
            e.encap = enc
            for w in counts:
                r = e.search(w)
                if r["zero_loss_rate_per_host"] == 0:
                    raise RuntimeError("encap %s, %d workers: no trial without "
                                       "loss" % (enc, w))
                rows.append(r)
                log("%-6s %-8d %-14s %16.3f %16.3f %16.3f" % (
                    enc, w, r["lcores"], r["zero_loss_host_pps"] / 1e6,
                    r["zero_loss_fwd_pps"] / 1e6, r["full_load_fwd_pps"] / 1e6))
    except Skip as ex:
        log("SKIP: %s" % ex)
        return 77
    except (RuntimeError, subprocess.TimeoutExpired) as ex:
        log("FAIL: %s" % ex)
        return 1
    for enc in encaps:
        mine = [r for r in rows if r["encap"] == enc]
        base = mine[0]
        for r in mine:
            for key in ("zero_loss_host_pps", "zero_loss_fwd_pps", "full_load_fwd_pps"):
                r[key.replace("_pps", "_speedup")] = (r[key] / base[key] if base[key]
                                                     else None)
    with open(os.path.join(a.out, "scaling.json"), "w") as f:
        json.dump({"spec": a.spec, "frame_bytes": a.size, "trial_s": a.trial,
                   "flow_control": a.flow_control, "input_queue": a.in_queue or None,
                   "cpus": len(e.cpus),
                   "encaps": encaps, "results": rows}, f, indent=1)
    with open(os.path.join(a.out, "scaling.csv"), "w") as f:
        f.write("encap,workers,zero_loss_rate_per_host,zero_loss_host_mpps,"
                "zero_loss_fwd_mpps,full_load_fwd_mpps,full_load_speedup\n")
        for r in rows:
            f.write("%s,%d,%d,%.4f,%.4f,%.4f,%.3f\n" % (
                r["encap"], r["workers"], r["zero_loss_rate_per_host"],
                r["zero_loss_host_pps"] / 1e6, r["zero_loss_fwd_pps"] / 1e6,
                r["full_load_fwd_pps"] / 1e6, r["full_load_fwd_speedup"] or 0))
    plot(rows, a.out)
    for r in rows:
        if r["workers"] == counts[0]:
            continue
        log("encap %s: %d workers against %d: %s zero loss (host frames), %s "
            "full load (forwarding steps)" % (
                r["encap"], r["workers"], counts[0],
                "%.2fx" % r["zero_loss_host_speedup"] if r["zero_loss_host_speedup"]
                else "-", "%.2fx" % r["full_load_fwd_speedup"]))
    by = {(r["encap"], r["workers"]): r for r in rows}
    for w in counts:
        if ("ether", w) in by and ("udp", w) in by and by["ether", w]["full_load_fwd_pps"]:
            log("%d workers: encap udp / ether at full load (forwarding steps): "
                "%.2fx (one search each, not interleaved: --pairs for a ratio)" % (
                    w, by["udp", w]["full_load_fwd_pps"] /
                    by["ether", w]["full_load_fwd_pps"]))
    log("written: %s" % ", ".join(os.path.join(a.out, "scaling." + x)
                                  for x in ("csv", "json", "png")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
