#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The papers' performance figures from dcn-sim, the paper's number
beside ours:

  tools/figures/sim-figures.py [-o DIR] [--time-ms T] [--quick] FIGURE...

FIGURE: novacube-fig10 (latency, NovaCube against the torus, k = 4 to 10,
three dimensions, at --load, default 0.2 of the line rate), novacube-fig11
(throughput, the same fabrics at full load), novacube-table2 (2D against
3D at 64 and 729 servers: APL, latency at --load, throughput at full
load), rrect-fig10a (RRect(8,2,2) against BCube(10,2), a permutation at
full load: aggregate throughput; as the RRect paper, no flow control and
buffers as large as the frames' pool), rrect-fig11 (the same,
all-to-all), or
"all". Each writes DIR/FIGURE.csv (one row a run: every figure of
dcn-sim --json) and DIR/FIGURE.md (the paper's value, ours, the ratio,
and the command of each run); with gnuplot, DIR/FIGURE.png for the
two NovaCube curves. --quick: the smallest size of each, 1 ms (a smoke
run). Runs of a thousand servers take about a minute each (most of it
EAL zeroing memory); "all" takes about half an hour.

dcn-sim's defaults are the NovaCube paper's NS-3 setting (1 Gbps, MTU
1500, 4 us propagation, 1.5 us processing, Weibull gaps, a random
permutation, credits); what the papers do not state is chosen in
doc/simulating.md and moved with dcn-sim's options (--load,
--weibull-shape, --in-queue) by hand.
"""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SIM = os.environ.get("DCN_SIM", os.path.join(HERE, "..", "..", "build", "tools",
                                             "dcn-sim", "dcn-sim"))
FIELDS = ["figure", "spec", "traffic", "load", "servers", "offered_gbps",
          "throughput_gbps", "per_server_mbps", "latency_mean_us", "latency_p99_us",
          "apl_hops", "delivered", "lost", "in_flight", "credit_stalls", "command"]


# The RRect paper's simulator: infinite buffers and no flow control; a
# buffer as large as the frames' pool stands for infinite.
UNBOUNDED = ["--flow-control", "off", "--switch-buffer", "16777216", "--out-queue", "262144"]


def run(fig, spec, a, load, traffic="permutation", extra=()):
    cmd = [SIM, spec, "--json", "--time-ms", str(a.time_ms), "--load", str(load),
           "--traffic", traffic, "--seed", str(a.seed)] + list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("sim-figures: %s exited %d: %s" % (" ".join(cmd), r.returncode,
                                                     r.stderr.strip()))
    j = json.loads(r.stdout)
    row = {"figure": fig, "spec": spec, "traffic": traffic, "load": load,
           "servers": j["servers"], "offered_gbps": j["offered_gbps"],
           "throughput_gbps": j["throughput_gbps"], "per_server_mbps": j["per_server_mbps"],
           "latency_mean_us": j["latency_us"]["mean"], "latency_p99_us": j["latency_us"]["p99"],
           "apl_hops": j["apl_hops"], "delivered": j["delivered"], "lost": j["lost"],
           "in_flight": j["in_flight"], "credit_stalls": j["credit_stalls"],
           "command": "dcn-sim " + " ".join(cmd[1:])}
    print("  %-22s %-11s load %-4s %8.2f Gbps  %9.1f us  %.3f hops" % (
        spec, traffic, load, row["throughput_gbps"], row["latency_mean_us"],
        row["apl_hops"]), flush=True)
    return row


def write(a, fig, rows, table):
    with open(os.path.join(a.out, fig + ".csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.out, fig + ".md"), "w") as f:
        f.write("| %s |\n| %s |\n" % (" | ".join(table[0]), " | ".join("---" for _ in table[0])))
        for t in table[1:]:
            f.write("| %s |\n" % " | ".join(str(x) for x in t))
        f.write("\nRuns (%s ms each):\n\n" % a.time_ms)
        for r in rows:
            f.write("    %s\n" % r["command"])
    print("written: %s.csv, %s.md" % (os.path.join(a.out, fig), os.path.join(a.out, fig)))


def plot(a, fig, rows, ycol, ylabel):
    if shutil.which("gnuplot") is None:
        return
    data = os.path.join(a.out, fig + ".dat")
    with open(data, "w") as f:
        for topo in ("novacube", "torus"):
            for r in rows:
                if r["spec"].startswith(topo):
                    f.write("%d %f\n" % (r["servers"], r[ycol]))
            f.write("\n\n")
    subprocess.run(["gnuplot", "-e",
                    "set terminal png size 800,500; set output '%s';"
                    "set xlabel 'servers'; set ylabel '%s'; set key left top;"
                    "plot '%s' index 0 with linespoints title 'NovaCube (PORA)',"
                    " '' index 1 with linespoints title 'torus (DOR)'" % (
                        os.path.join(a.out, fig + ".png"), ylabel, data)], check=False)


def ratio(x, y):
    return "%.2f" % (x / y) if y else "-"


def novacube_curve(a, fig, load, ycol, label, paper):
    ks = [4] if a.quick else [4, 6, 8, 10]
    rows, table = [], [["servers", "NovaCube", "torus", "ratio", "paper"]]
    for k in ks:
        nc = run(fig, "novacube:k=%d,n=3" % k, a, load)
        to = run(fig, "torus:k=%d,n=3" % k, a, load)
        rows += [nc, to]
        table.append([nc["servers"], "%.2f" % nc[ycol], "%.2f" % to[ycol],
                      ratio(nc[ycol], to[ycol]), paper])
    table[0][1:3] = ["NovaCube %s" % label, "torus %s" % label]
    write(a, fig, rows, table)
    plot(a, fig, rows, ycol, label)


def table2(a):
    fig = "novacube-table2"
    sizes = [(8, 4)] if a.quick else [(8, 4), (27, 9)]
    paper = {64: (3.06, 1.82, 16.12, 10.03, 616.28, 823.42),
             729: (9.46, 4.17, 49.87, 22.92, 355.31, 447.92)}
    rows, table = [], [["servers", "figure", "2D ours", "3D ours", "3D/2D ours",
                        "2D paper", "3D paper", "3D/2D paper"]]
    for k2, k3 in sizes:
        d2 = run(fig, "novacube:k=%d,n=2" % k2, a, a.load)
        d3 = run(fig, "novacube:k=%d,n=3" % k3, a, a.load)
        f2 = run(fig, "novacube:k=%d,n=2" % k2, a, 1.0)
        f3 = run(fig, "novacube:k=%d,n=3" % k3, a, 1.0)
        rows += [d2, d3, f2, f3]
        p = paper[d2["servers"]]
        for name, o2, o3, p2, p3 in (
                ("APL (hops)", d2["apl_hops"], d3["apl_hops"], p[0], p[1]),
                ("latency (us; paper ms)", d2["latency_mean_us"], d3["latency_mean_us"],
                 p[2], p[3]),
                ("throughput a server (Mbps; paper MBps)", f2["per_server_mbps"],
                 f3["per_server_mbps"], p[4], p[5])):
            table.append([d2["servers"], name, "%.2f" % o2, "%.2f" % o3, ratio(o3, o2),
                          p2, p3, ratio(p3, p2)])
    write(a, fig, rows, table)


def rrect(a, fig, traffic, paper):
    specs = [("rrect:n=4,m=2,k=1", "rrect:n=4,m=1,k=1")] if a.quick else \
        [("rrect:n=8,m=2,k=2", "rrect:n=10,m=1,k=2")]
    rows, table = [], [["fabric", "servers", "aggregate Gbps", "paper"]]
    for rr, bc in specs:
        x = run(fig, rr, a, 1.0, traffic, UNBOUNDED)
        y = run(fig, bc, a, 1.0, traffic, UNBOUNDED)
        rows += [x, y]
        table.append(["RRect " + rr, x["servers"], "%.1f" % x["throughput_gbps"], paper])
        table.append(["BCube " + bc, y["servers"], "%.1f" % y["throughput_gbps"], paper])
        table.append(["RRect / BCube", "", ratio(x["throughput_gbps"], y["throughput_gbps"]),
                      "about 1"])
    write(a, fig, rows, table)


FIGURES = {
    "novacube-fig10": lambda a: novacube_curve(a, "novacube-fig10", a.load, "latency_mean_us",
                                               "mean latency (us)", "about 0.6"),
    "novacube-fig11": lambda a: novacube_curve(a, "novacube-fig11", 1.0, "throughput_gbps",
                                               "throughput (Gbps)", "up to 1.9"),
    "novacube-table2": table2,
    "rrect-fig10a": lambda a: rrect(a, "rrect-fig10a", "permutation", "about 740"),
    "rrect-fig11": lambda a: rrect(a, "rrect-fig11", "all-to-all", "about 1000"),
}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("figures", nargs="+", metavar="FIGURE")
    p.add_argument("-o", "--out", default="figures")
    p.add_argument("--time-ms", type=float, default=10)
    p.add_argument("--load", type=float, default=0.2)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    if a.quick:
        a.time_ms = 1
    if not os.access(SIM, os.X_OK):
        sys.exit("sim-figures: build dcn-sim first (%s; DCN_SIM names another)" % SIM)
    names = list(FIGURES) if a.figures == ["all"] else a.figures
    for n in names:
        if n not in FIGURES:
            sys.exit("sim-figures: no figure %s (%s, all)" % (n, ", ".join(FIGURES)))
    os.makedirs(a.out, exist_ok=True)
    for n in names:
        print(n, flush=True)
        FIGURES[n](a)


if __name__ == "__main__":
    main()
