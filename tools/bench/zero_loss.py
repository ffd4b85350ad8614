#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Zero-loss throughput (RFC 2544 section 26.1) of one dcnfwd worker core
and of its peers, in one run, on the same ports.

Every device under test (DUT) gets memif ports only, from dcn-gen on
lcore 0, and forwards on lcore 1; for each frame size, dcn-gen searches
the highest rate at which every frame offered comes back (a full-load
trial, then bisection; see dcn-gen --help). The DUTs:

  dcnfwd transit   fabric frames in on a cable, out on another: relay (1,0)
                   of novacube:k=8,n=2 (DOR), to every node its +x cable
                   leads to; flow control on, dcn-gen answering credits
  dcnfwd ingress   host IPv4 in, encapsulated, out on the +x cable
  dcnfwd egress    fabric frames for (1,0) in, decapsulated, to the host
  testpmd io       dpdk-testpmd --forward-mode=io (Debian's dpdk-dev)
  dcnfwd transit-udp  transit with [fabric] encap = udp (only when --duts
                   names it): the fabric header in IPv4/UDP, 28 bytes more
                   a frame; --pairs gives its ratio to ether transit
  l3fwd            DPDK's l3fwd (LPM), built from Debian's dpdk-doc
                   examples; its request for RX checksum offload, which
                   virtual ports lack, is taken out, nothing else changed

Frame sizes are the host frame's, FCS included: a fabric frame carries 20
bytes more (the fabric header), so transit frames are bigger on the wire
and the same in packets per second. The peers forward plain IPv4 to
198.18.1.0/24, l3fwd's route to port 1. A memif port copies each frame
twice, so bytes cost time: with --same-wire the peers are also measured
at the transit frames' size on the wire (64 B host frames: 84 B), and
transit gets a second ratio against that.

Output in --out: zero_loss.csv, zero_loss.json and zero_loss.png (gnuplot).
The run prints per-core Mpps at 64 bytes and dcnfwd's ratios to the peers.

The machine runs in fast and slow phases tens of seconds long, so a
ratio of two searches a minute apart compares phases. --pairs N runs
instead N rounds of one short full-load trial per device in turn, dcnfwd
transit's trials between every two others' (T P T Q T ...), and gives
each ratio as the median [min-max] of the N ratios of a peer's trial to
the mean of transit's two beside it (pairs.csv, pairs.json).
--instructions counts instead what each device's forwarding thread
executes per frame forwarded, under callgrind, at full load, the passes
of its loop that found no frame taken out (count_instructions says
how): dcnfwd transit, ingress and egress with flow control on and off,
testpmd io and l3fwd, at the first size (instructions.csv); with
--same-wire the peers also at transit's size on the wire, for memif's
copies cost more past 64 bytes; with --breakdown, each device's
instructions per frame by source file too (instructions_by_file.csv).
Unlike a rate, this figure does not move with the machine's phases.
Nothing is asserted about speed; exit 1 only when a run fails, 77 when it
cannot run here (not root, no hugepages, no memif, no valgrind).

  zero_loss.py --build BUILD [--sizes 64,128,...] [--trial SEC] [--out DIR]
  zero_loss.py --build BUILD --sizes 64 --pairs 10 --trial 1 --same-wire
  zero_loss.py --build BUILD --sizes 64 --instructions [--window SEC] [--same-wire]
               [--breakdown]
"""
import argparse
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

SPEC = "novacube:k=8,n=2"
DUT_NODE, PREV_NODE = "(1,0)", "(0,0)"
OUT_PORT, IN_PORT = 0, 1          # (1,0)'s +x and -x cables
PEER_SRC, PEER_NET = "198.18.0.1", "198.18.1."
HUGE_PAGES = 768                  # DUT -m 512 plus generator -m 256 (2 MB)
RING = "rsize=12"                 # 4096-slot memif rings: absorb a hiccup
# dcnfwd's main lcore (its control thread, a 1 ms tick) shares CPU 1 with
# its worker, not CPU 0 with the generator: what it takes is the DUT's
# cost, and a generator woken off its core would pause its offered rate.
DCNFWD_LCORES = "0@1,1@1"

def load_tool(name, path):
    """A tool of ours (a script without .py) as a module."""
    loader = importlib.machinery.SourceFileLoader(
        name, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", path))
    mod = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader))
    loader.exec_module(mod)
    return mod


# The address plan and routes as for pktgen; hugepage counts as dcn-fabric
# keeps them.
dcn_pktgen = load_tool("dcn_pktgen", "pktgen/dcn-pktgen")
dcn_fabric = load_tool("dcn_fabric", "dcn-fabric")

ALL_DUTS = ["dcnfwd-transit", "dcnfwd-ingress", "dcnfwd-egress",
            "testpmd-io", "l3fwd", "dcnfwd-transit-udp"]
# Measured unless --duts says otherwise.
DEFAULT_DUTS = ALL_DUTS[:5]
PEERS = ("l3fwd", "testpmd-io")
FABRIC_HDR = 20
MAX_FRAME = 1518                  # FCS included, as dcn-gen sends it


def log(msg):
    print(msg, flush=True)


class Hugepages:
    """Reserve pages in a hugetlbfs mount of our own; give back the
    persistent pool (pages still pinned go as surplus, see dcn-fabric)."""

    def __init__(self, pages, work):
        self.added, self.dir = 0, None
        old = dcn_fabric.huge_persistent()
        with open(dcn_fabric.HUGE_NR, "w") as f:
            f.write(str(old + pages))
        self.added = dcn_fabric.huge_persistent() - old
        if self.added < pages:
            self.release()
            raise RuntimeError("asked %d hugepages, got %d" % (pages, self.added))
        self.dir = os.path.join(work, "huge")
        os.makedirs(self.dir)
        subprocess.run(["mount", "-t", "hugetlbfs", "-o", "pagesize=2M",
                        "nodev", self.dir], check=True)

    def release(self):
        if self.dir:
            subprocess.run(["umount", self.dir], check=False)
            self.dir = None
        if self.added:
            with open(dcn_fabric.HUGE_NR, "w") as f:
                f.write(str(max(dcn_fabric.huge_persistent() - self.added, 0)))
            self.added = 0


def on_generator_cpu():
    """Run on CPU 0 alone, the generator's (a process's preexec_fn). The
    generator started so has EAL put its control threads there too, not
    on the device's CPU, where a thread created behind the busy worker
    waited for the scheduler up to minutes and held the generator's
    start; a measuring tool so stays off the core it measures."""
    os.sched_setaffinity(0, {0})


def dcnfwd_forwarded(st):
    """Frames a dcnfwd has forwarded, from its /dcn/stats reply st."""
    return st["transit"] + st["encap"] + st["decap"]


class Bench:
    def __init__(self, args, work):
        self.a, self.work, self.n = args, work, 0
        self.dcnfwd = os.path.join(args.build, "app/dcnfwd/dcnfwd")
        self.gen = os.path.join(args.build, "tools/dcn-gen/dcn-gen")
        self.topo = os.path.join(args.build, "tools/dcn-topo/dcn-topo")
        self.huge = None
        # Called with (device process, its file prefix) once it is up,
        # before the generator starts (cycles.py samples it from there).
        self.on_dut_up = None
        plan = dcn_pktgen.Plan(self.topo, SPEC, "dor")
        self.addr = plan.addr
        # Transit: what (0,0) sends through (1,0) and out of its +x cable;
        # ingress: what (1,0) itself sends that way.
        self.transit_dst = plan.beyond(DUT_NODE, OUT_PORT, via=PREV_NODE)
        self.ingress_dst = plan.beyond(DUT_NODE, OUT_PORT)

    def eal(self, lcores, mem, prefix):
        # "0@1,1@1" maps lcores onto CPUs; "0,1" names CPUs as lcores.
        e = ["--lcores" if "@" in lcores else "-l", lcores, "--no-pci",
             "--file-prefix", prefix, "--log-level=4"]
        if self.huge:
            return e + ["-m", str(mem), "--huge-dir", self.huge.dir]
        return e + ["--no-huge", "-m", str(mem)]

    def sock(self, name):
        return os.path.join(self.work, "%s-%d.sock" % (name, self.n))

    def memif(self, i, name, role):
        return "net_memif%d,role=%s,socket=%s,%s" % (i, role, self.sock(name), RING)

    # --- devices under test ---------------------------------------------

    def encap(self, dut):
        """The wire format dut's fabric frames take."""
        return "udp" if dut.endswith("-udp") else self.a.encap

    def dcnfwd_conf(self, dut):
        conf = os.path.join(self.work, "dut-%d.ini" % self.n)
        with open(conf, "w") as f:
            f.write("""[fabric]
topology = %s
node = %s
role = relay
algo = dor
partial = yes
encap = %s
[port.west]
dev = %s
fabric_port = %d
hellos = no
[port.east]
dev = %s
fabric_port = %d
hellos = no
[port.host]
dev = %s
host = yes
[worker.0]
lcore = 1
rx = west:0, east:0, host:0
[queues]
mbufs = 8191
backoff = no
[flow_control]
enabled = %s
%s""" % (SPEC, DUT_NODE, self.encap(dut), self.memif(0, "west", "server"), IN_PORT,
       self.memif(1, "east", "server"), OUT_PORT, self.memif(2, "host", "server"),
       "yes" if self.a.flow_control == "on" else "no",
       ("input_queue = %d\n" % self.a.in_queue if self.a.in_queue else "") +
       ("credit_batch = %d\n" % self.a.credit_batch if self.a.credit_batch else "")))
        return conf

    def credit_batch(self, conf):
        """The credit batch relay configuration conf's node uses, as
        dcnfwd --check-config gives it (input_queue and credit_batch as
        set, or the defaults of its ports)."""
        out = subprocess.run([self.dcnfwd, "--check-config", conf],
                             capture_output=True, text=True, timeout=60)
        m = re.search(r"a credit frame each (\d+) freed", out.stdout)
        if out.returncode != 0 or not m:
            raise RuntimeError("dcnfwd --check-config %s gave no credit batch (%d): %s"
                               % (conf, out.returncode, (out.stdout + out.stderr)[-400:]))
        return int(m.group(1))

    def start_dut(self, dut, prefix):
        """@return (process, gen port args, gen traffic args)."""
        logf = open(self.log_path(dut), "w")
        if dut.startswith("dcnfwd"):
            conf = self.dcnfwd_conf(dut)
            cmd = self.a.wrap.split() + [self.dcnfwd] + self.eal(DCNFWD_LCORES, 512, prefix) + \
                  ["--", "--config", conf, "--stats", "0"]
            west, east, host = (self.memif(0, "west", "client"),
                                self.memif(1, "east", "client"),
                                self.memif(2, "host", "client"))
            fc = self.a.flow_control == "on"
            # The sink answers credits as the next relay would; the
            # sender obeys the device's, as the relay before it would
            # (a device is then measured on what it forwards, not on
            # frames it reads to drop at a full input queue).
            credits = ["--credits"] if fc else []
            # ... as often as the relay itself does: a next relay of the
            # same configuration.
            if fc:
                credits += ["--credit-batch", str(self.credit_batch(conf))]
            obey = ["--obey-credits"] if fc and not self.a.disobey else []
            # The generator speaks the relay's wire format (its fabric
            # frames and credits in IPv4/UDP with encap = udp).
            credits += ["--encap", self.encap(dut)]
            src, dut_addr = self.addr[PREV_NODE], self.addr[DUT_NODE]
            if dut in ("dcnfwd-transit", "dcnfwd-transit-udp"):
                gen = ["--tx", west, "--rx", east, "--fabric", SPEC, "--src", src,
                       "--dst", ",".join(self.transit_dst), "--pattern", "list"] + \
                      credits + obey
            elif dut == "dcnfwd-ingress":
                gen = ["--tx", host, "--rx", east, "--src", dut_addr,
                       "--dst", ",".join(self.ingress_dst), "--pattern", "list"] + credits
            else:
                gen = ["--tx", west, "--rx", host, "--fabric", SPEC, "--src", src,
                       "--dst", dut_addr, "--encap", self.encap(dut)] + obey
            ready = (" up: ", logf.name)
        else:
            vdevs = ["--vdev", self.memif(0, "p0", "server"),
                     "--vdev", self.memif(1, "p1", "server")]
            if dut == "testpmd-io":
                cmd = self.a.wrap.split() + [self.a.testpmd] + self.eal("0,1", 512, prefix) + vdevs + \
                      ["--", "--forward-mode=io", "--auto-start", "--nb-cores=1",
                       "--stats-period", "1000", "--total-num-mbufs", "32768",
                       "--disable-link-check"]
                ready = ("Press Ctrl+C", logf.name)
            else:
                cmd = self.a.wrap.split() + [self.l3fwd] + self.eal("1", 512, prefix) + vdevs + \
                      ["--", "-p", "0x3", "--config", "(0,0,1),(1,0,1)",
                       "--parse-ptype"]
                # It waits for links up (or 9 s) before its loop: the
                # generator's own link wait covers the rest.
                ready = ("Checking link status", logf.name)
            gen = ["--tx", self.memif(0, "p0", "client"),
                   "--rx", self.memif(1, "p1", "client"), "--src", PEER_SRC,
                   "--dst", ",".join(PEER_NET + str(i) for i in range(1, 65)),
                   "--pattern", "list"]
        p = subprocess.Popen(cmd, stdout=logf, stderr=subprocess.STDOUT,
                             start_new_session=True)
        # Under a wrapper (valgrind) a device starts many times slower.
        end = time.time() + (180 if self.a.wrap else 20)
        while time.time() < end and p.poll() is None:
            with open(ready[1], errors="replace") as f:
                if ready[0] in f.read():
                    break
            time.sleep(0.1)
        if p.poll() is not None:
            raise RuntimeError("%s exited %d; its log ends:\n%s" %
                               (dut, p.returncode, self.dut_log(dut)))
        return p, gen

    def log_path(self, dut):
        return os.path.join(self.work, "%s-%d.log" % (dut, self.n))

    def dut_log(self, dut, lines=15):
        """The last lines of the DUT's log (None: all of it)."""
        try:
            with open(self.log_path(dut), errors="replace") as f:
                return "".join(f.readlines()[-lines:] if lines else f.readlines())
        except OSError:
            return ""

    @staticmethod
    def stop(p):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM if any("dcnfwd" in x for x in p.args)
                          else signal.SIGINT)
        try:
            p.wait(timeout=15)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()

    def measure(self, dut, size):
        self.n += 1
        prefixes = ["dcn-zl-d%d-%d" % (os.getpid(), self.n),
                    "dcn-zl-g%d-%d" % (os.getpid(), self.n)]
        p = None
        try:
            p, gen_args = self.start_dut(dut, prefixes[0])
            if self.on_dut_up:
                self.on_dut_up(p, prefixes[0])
            cmd = [self.gen] + self.eal("0", 256, prefixes[1]) + \
                  ["--"] + gen_args + \
                  ["--size", str(size - 4), "--rate", "0", "--search",
                   "--trial", str(self.a.trial), "--resolution",
                   str(self.a.resolution), "--json"] + \
                  (["--max-trials", str(self.a.max_trials)] if self.a.max_trials else [])
            r = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=60 + 40 * self.a.trial,
                               preexec_fn=on_generator_cpu)
        finally:
            if p is not None:
                self.stop(p)
            for pf in prefixes:
                shutil.rmtree("/var/run/dpdk/" + pf, ignore_errors=True)
        line = [l for l in r.stdout.splitlines() if l.startswith("{")]
        if r.returncode != 0 or not line:
            raise RuntimeError("dcn-gen against %s at %d B failed (%d): %s\n"
                               "%s's log ends:\n%s" % (dut, size, r.returncode,
                                                       r.stderr[-400:], dut,
                                                       self.dut_log(dut)))
        res = json.loads(line[-1])
        if res["full_load_pps"] == 0:
            raise RuntimeError("%s forwarded nothing at %d B; its log ends:\n%s"
                               % (dut, size, self.dut_log(dut)))
        res.update(dut=dut, frame_bytes=size, wire_bytes=res.pop("frame_len") + 4,
                   busy_cycles_per_frame=self.busy_cycles(dut))
        return res

    def busy_cycles(self, dut):
        """dcnfwd's final counters: its worker's TSC cycles per frame in
        the loops that had frames, over all trials of the search (what a
        frame costs it, whatever the generator did); None for a peer."""
        m = re.search(r"(\d+) TSC cycles per frame", self.dut_log(dut, None))
        return int(m.group(1)) if m else None

    def build_l3fwd(self):
        src = "/usr/share/dpdk/examples/l3fwd"
        if not os.path.isdir(src):
            return None
        d = os.path.join(self.work, "l3fwd")
        shutil.copytree(src, d)
        main = os.path.join(d, "main.c")
        with open(main) as f:
            text = f.read()
        with open(main, "w") as f:
            f.write(text.replace(".offloads = RTE_ETH_RX_OFFLOAD_CHECKSUM,",
                                 ".offloads = 0,"))
        env = dict(os.environ, C_INCLUDE_PATH="/usr/share/dpdk/examples/common")
        r = subprocess.run(["make", "-C", d, "-j2", "static"], env=env,
                           capture_output=True, text=True)
        exe = os.path.join(d, "build", "l3fwd")
        if r.returncode != 0 or not os.path.exists(exe):
            r = subprocess.run(["make", "-C", d, "-j2"], env=env,
                               capture_output=True, text=True)
        return exe if os.path.exists(exe) else None


def plot(rows, out):
    gp = shutil.which("gnuplot")
    if gp is None:
        log("no gnuplot: no PNG (tools/install-deps.sh installs it)")
        return
    duts = sorted({r["dut"] for r in rows}, key=ALL_DUTS.index)
    script = ["set terminal png size 960,600",
              "set output '%s'" % os.path.join(out, "zero_loss.png"),
              "set title 'Zero-loss throughput, one forwarding core, memif ports'",
              "set xlabel 'frame size (bytes, host frame with FCS)'",
              "set ylabel 'Mpps'", "set logscale x 2", "set grid",
              "set key outside right", "set xtics (64,128,256,512,1024,1518)"]
    data = []
    for d in duts:
        pts = sorted((r["frame_bytes"], r["zero_loss_pps"] / 1e6)
                     for r in rows if r["dut"] == d)
        data.append("\n".join("%d %.4f" % p for p in pts) + "\ne")
    script.append("plot " + ", ".join("'-' using 1:2 with linespoints title '%s'" % d
                                      for d in duts))
    subprocess.run([gp], input="\n".join(script + data) + "\n", text=True,
                   check=True)


def report_ratios(rows, small, full_load):
    """dcnfwd's Mpps at the smallest size and its ratios to the peers in
    this run: at the same host frame size and, measured, at the same size
    on the wire. With one trial a search, the full-load rate (the zero-loss
    search did not run)."""
    key = "full_load_pps" if full_load else "zero_loss_pps"
    rate = {(r["dut"], r["frame_bytes"]): r[key] / 1e6 for r in rows}
    wire = {(r["dut"], r["frame_bytes"]): r["wire_bytes"] for r in rows}
    for d in ("dcnfwd-transit", "dcnfwd-ingress", "dcnfwd-egress"):
        if (d, small) not in rate:
            continue
        mpps, w = rate[d, small], wire[d, small]
        ratios = []
        for p in PEERS:
            # A peer's frames are plain: its frame size is its wire size.
            if rate.get((p, small)):
                ratios.append("%.2fx %s at %d B" % (mpps / rate[p, small], p, small))
            if w != small and rate.get((p, w)):
                ratios.append("%.2fx %s at %d B (same wire size)" %
                              (mpps / rate[p, w], p, w))
        log("%s at %d B (%d B on the wire): %.3f Mpps %s per core%s" % (
            d, small, w, mpps, "at full load" if full_load else "zero-loss",
            "; " + ", ".join(ratios) if ratios else ""))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2.0


def ratio_pairs(rates, d, p):
    """(median, min, max, n) of d's rate over p's, each ratio taken from
    one round, where the two were measured one after the other."""
    rs = [rates[d][i] / rates[p][i] for i in range(len(rates[d]))
          if rates[d][i] and rates[p][i]]
    return (median(rs), min(rs), max(rs), len(rs)) if rs else None


def round_order(points, anchor, rnd):
    """One round's trials: every point once, each round starting one
    point later (no device always follows the same one); with an anchor
    (dcnfwd transit), it is measured before, between and after the
    others (T P T Q T ...), so that every peer's trial has one of its
    own on each side."""
    turn = [pt for pt in points if pt != anchor]
    k = rnd % len(turn)
    turn = turn[k:] + turn[:k]
    if anchor is None:
        return turn
    seq = [anchor]
    for pt in turn:
        seq += [pt, anchor]
    return seq


def run_pairs(a, b, duts, sizes):
    """Short full-load trials of every device in turn (--pairs rounds):
    a ratio is the median of the rounds' ratios, given with their range.
    dcnfwd transit's trials bracket every other device's (T P T Q T ...)
    and its ratio to one is taken against the mean of the two trials
    beside that one's, so that the machine's slow and fast phases (tens
    of seconds) fall on both sides of a ratio, and a drift between two
    trials cancels, instead of falling between two devices measured a
    minute apart."""
    log("interleaved full-load trials: %s, %d rounds of %.1f s trials, "
        "flow control %s%s%s, %s pages; generator on lcore 0, DUT on lcore 1" %
        (",".join(duts), a.pairs, a.trial, a.flow_control,
         ", input_queue %d" % a.in_queue if a.in_queue else "",
         ", credit_batch %d" % a.credit_batch if a.credit_batch else "",
         "4 KB" if a.no_huge else "2 MB"))
    rows, summary = [], []
    for size in sizes:
        points = size_points(a, duts, size)
        anchor = ("dcnfwd-transit", size) if ("dcnfwd-transit", size) in points \
            and len(points) > 1 else None
        rates = {pt: [] for pt in points}
        # The anchor's rate beside each other point's trial: the mean of
        # its trials just before and after, one a round.
        beside = {pt: [] for pt in points}
        bound = {pt: 0 for pt in points}
        wire = {}
        for rnd in range(a.pairs):
            seq = round_order(points, anchor, rnd)
            got = []
            for d, sz in seq:
                r = b.measure(d, sz)
                got.append(r["full_load_pps"] / 1e6)
                rates[d, sz].append(got[-1])
                bound[d, sz] += r["generator_bound"]
                wire[d, sz] = r["wire_bytes"]
                rows.append({"dut": d, "frame_bytes": sz, "round": rnd + 1,
                             "wire_bytes": r["wire_bytes"],
                             "full_load_mpps": r["full_load_pps"] / 1e6,
                             "generator_bound": r["generator_bound"],
                             "busy_cycles_per_frame": r["busy_cycles_per_frame"]})
            if anchor is not None:
                for j in range(1, len(seq), 2):
                    beside[seq[j]].append((got[j - 1] + got[j + 1]) / 2.0)
        log("%-16s %6s %6s %10s %17s %s" % ("dut", "frame", "wire",
                                            "Mpps med", "[min-max]", "note"))
        for pt in points:
            xs = rates[pt]
            log("%-16s %6d %6d %10.3f   [%6.3f-%6.3f] %s" % (
                pt[0], pt[1], wire[pt], median(xs), min(xs), max(xs),
                "generator-bound in %d of %d" % (bound[pt], len(xs))
                if bound[pt] else ""))
        udp = ("dcnfwd-transit-udp", size)
        if anchor is not None and udp in rates:
            rp = ratio_pairs({"u": rates[udp], "t": beside[udp]}, "u", "t")
            if rp is not None:
                summary.append({"dut": udp[0], "peer": "dcnfwd-transit",
                                "frame_bytes": size, "peer_frame_bytes": size,
                                "median": rp[0], "min": rp[1], "max": rp[2],
                                "pairs": rp[3], "peer_generator_bound": 0})
                log("dcnfwd-transit-udp/dcnfwd-transit at %d B (encap = udp "
                    "against ether): median %.2fx [%.2f-%.2f] over %d pairs" %
                    (size, rp[0], rp[1], rp[2], rp[3]))
        for d in duts:
            if not d.startswith("dcnfwd") or (d, size) not in rates:
                continue
            for p in PEERS:
                for psz, how in ((size, "same frame"),
                                 (size + FABRIC_HDR, "same wire size")):
                    if (p, psz) not in rates or (psz != size and d != "dcnfwd-transit"):
                        continue
                    mine = beside[p, psz] if (d, size) == anchor else rates[d, size]
                    rp = ratio_pairs({d: mine, p: rates[p, psz]}, d, p)
                    if rp is None:
                        continue
                    note = (" (%s generator-bound in %d rounds: there the "
                            "ratio is an upper bound)" % (p, bound[p, psz])
                            if bound[p, psz] else "")
                    line = ("%s/%s at %d B against %d B (%s): median %.2fx "
                            "[%.2f-%.2f] over %d pairs%s" %
                            (d, p, size, psz, how, rp[0], rp[1], rp[2], rp[3], note))
                    summary.append({"dut": d, "peer": p, "frame_bytes": size,
                                    "peer_frame_bytes": psz, "median": rp[0],
                                    "min": rp[1], "max": rp[2], "pairs": rp[3],
                                    "peer_generator_bound": bound[p, psz]})
                    log(line)
    with open(os.path.join(a.out, "pairs.json"), "w") as f:
        json.dump({"spec": SPEC, "trial_s": a.trial, "rounds": a.pairs,
                   "flow_control": a.flow_control, "hugepages": not a.no_huge,
                   "input_queue": a.in_queue or None,
                   "credit_batch": a.credit_batch or None,
                   "trials": rows, "ratios": summary}, f, indent=1)
    with open(os.path.join(a.out, "pairs.csv"), "w") as f:
        f.write("dut,frame_bytes,wire_bytes,round,full_load_mpps,"
                "generator_bound,busy_cycles_per_frame\n")
        for r in rows:
            f.write("%s,%d,%d,%d,%.4f,%d,%s\n" % (
                r["dut"], r["frame_bytes"], r["wire_bytes"], r["round"],
                r["full_load_mpps"], r["generator_bound"],
                r["busy_cycles_per_frame"] or ""))
    log("written: %s" % ", ".join(os.path.join(a.out, "pairs." + x)
                                  for x in ("csv", "json")))
    return 0


def telemetry(prefix, cmd):
    """A DPDK process's reply to cmd, None when it cannot answer (a
    device under valgrind answers slowly)."""
    return (dcn_fabric.telemetry_prefix(prefix, cmd, timeout=20) or {}).get(
        cmd.split(",")[0])


def size_points(a, duts, size):
    """(device, frame size) pairs measured at size: every device, and with
    --same-wire the peers also at transit's size on the wire (a peer's
    frame has no header to add: 1518 B at most)."""
    points = [(d, size) for d in duts]
    if a.same_wire and "dcnfwd-transit" in duts and size + FABRIC_HDR <= MAX_FRAME:
        points += [(d, size + FABRIC_HDR) for d in duts if d in PEERS]
    return points


def callgrind_threads(work, pid, part):
    """{thread: (instructions, {function: calls}, dump path)} of dump part
    of process pid (one file per thread, --separate-threads=yes), the
    calls counted only into the memif driver (--compress-strings=no:
    names in full)."""
    out = {}
    for name in os.listdir(work):
        if not name.startswith("cg.%d." % pid):
            continue
        head, calls, cob, cfn = {}, {}, "", None
        with open(os.path.join(work, name), errors="replace") as f:
            for line in f:
                if line.startswith("cob="):
                    cob = line[4:]
                elif line.startswith("cfn="):
                    cfn = line[4:].strip()
                elif line.startswith("calls="):
                    if "memif" in cob and cfn:
                        calls[cfn] = calls.get(cfn, 0) + int(line[6:].split()[0])
                    cob = ""
                elif not line[:1].isdigit() and not line.startswith("+") and \
                        not line.startswith("-"):
                    k, sep, v = line.partition(":")
                    if sep and k in ("part", "thread", "summary", "totals"):
                        head.setdefault(k, v.strip())
        if head.get("part") == str(part) and ("summary" in head or "totals" in head):
            out[int(head.get("thread", 1))] = (
                int((head.get("summary") or head["totals"]).split()[0]), calls,
                os.path.join(work, name))
    return out


def instructions_by_file(path):
    """{source file: instructions} of a callgrind dump, a call's
    inclusive cost left out (it is the callee's own); code without debug
    information is named by its object (the memif driver's .so)."""
    out, ncols, fl, ob, skip = {}, 1, "???", "???", False
    with open(path, errors="replace") as f:
        for line in f:
            c = line[:1]
            if c.isdigit() or c in "+-*":
                if skip:
                    skip = False
                    continue
                cols = line.split()
                if len(cols) > ncols:
                    where = fl if fl != "???" else ob
                    out[where] = out.get(where, 0) + int(cols[ncols])
            elif line.startswith(("fl=", "fi=", "fe=")):
                fl = os.path.basename(line[3:].strip()) or "???"
            elif line.startswith("ob="):
                ob = os.path.basename(line[3:].strip()) or "???"
            elif line.startswith("calls="):
                skip = True
            elif line.startswith("positions:"):
                ncols = len(line.split()) - 1
    return out


def busy_by_file(busy_path, idle_path, idle_instructions, frames):
    """Instructions per frame by source file of the busy passes: the busy
    window's dump less the idle window's, scaled to the idle passes the
    busy window held (idle_instructions in all), per frame."""
    busy, idle = instructions_by_file(busy_path), instructions_by_file(idle_path)
    scale = idle_instructions / max(sum(idle.values()), 1)
    per = {k: (v - scale * idle.get(k, 0)) / frames for k, v in busy.items()}
    return sorted(per.items(), key=lambda kv: -kv[1])


# The RX queues a pass of each device's loop polls (dcnfwd: west, east
# and host; testpmd io and l3fwd: both ports), and a peer's burst.
POLLS = {"dcnfwd-transit": 3, "dcnfwd-transit-udp": 3, "dcnfwd-ingress": 3,
         "dcnfwd-egress": 3,
         "testpmd-io": 2, "l3fwd": 2}
PEER_BURST = 32


def port_of(prefix, name):
    """The ethdev id of the port named name (net_memif1) in a process."""
    for pid in telemetry(prefix, "/ethdev/list") or []:
        info = telemetry(prefix, "/ethdev/info,%d" % pid) or {}
        if info.get("name") == name:
            return pid
    return None


# What each device's frames leave by (the generator's --rx): its memif
# index, named net_memifN in the device.
OUT_MEMIF = {"dcnfwd-transit": 1, "dcnfwd-transit-udp": 1, "dcnfwd-ingress": 1,
             "dcnfwd-egress": 2,
             "testpmd-io": 1, "l3fwd": 1}


def count_instructions(a, b, dut, size, work):
    """What dut's forwarding thread executes per frame at full load,
    under callgrind, idle passes of its loop left out.

    One generator runs throughout (a device under valgrind takes long to
    accept a memif connection), stopped (SIGSTOP) at both ends of the
    window until the device has worked off what it had: the window
    starts and ends idle, so its frames are exactly the output port's
    count between them. The idle passes inside it (while the device
    drains, and the commands take effect) are taken out at the cost of
    an idle pass, measured in an idle window of the same process just
    after. A pass polls each RX queue once, so the passes are the calls
    to the memif receive function (callgrind counts them; idle, it is
    the one function of the driver a pass calls) over the queues; the
    busy ones are dcnfwd's own count (/dcn/stats), or for testpmd and
    l3fwd frames / 32, their bursts being full at full load under
    callgrind."""
    b.n += 1
    prefixes = ["dcn-zl-d%d-%d" % (os.getpid(), b.n),
                "dcn-zl-g%d-%d" % (os.getpid(), b.n)]
    # --fair-sched: one thread runs at a time under valgrind; unfair, the
    # polling worker starves the threads that answer memif and telemetry.
    a.wrap = ("valgrind --tool=callgrind --fair-sched=yes --instr-atstart=no "
              "--separate-threads=yes "
              "--compress-strings=no %s"
              "--callgrind-out-file=%s/cg.%%p" % (
                  "--dump-instr=yes " if a.profiles else "", work))
    p = g = None
    ctl = lambda *args: subprocess.run(["callgrind_control"] + list(args) + [str(p.pid)],
                                       capture_output=True, text=True, timeout=120)

    def stats():
        """dcnfwd's loop counts ({} from a peer, which has none)."""
        if not dut.startswith("dcnfwd"):
            return {}
        for _ in range(10):
            st = telemetry(prefixes[0], "/dcn/stats") or {}
            if "worker_loops" in st:
                return st
            time.sleep(1)
        raise RuntimeError("no /dcn/stats from %s" % dut)

    def out_count():
        """The frames forwarded once the count stops moving: dcnfwd's own
        (its port also sends credit frames now and then), else the
        output port's."""
        last = None
        for _ in range(60):
            if dut.startswith("dcnfwd"):
                st = stats()
                n = dcnfwd_forwarded(st)
            else:
                st = telemetry(prefixes[0], "/ethdev/stats,%d" % port)
                n = st.get("opackets") if st else None
            if n is not None and n == last:
                return n
            last = n
            time.sleep(0.5)
        raise RuntimeError("%s: output count never settled" % dut)

    try:
        p, gen_args = b.start_dut(dut, prefixes[0])
        port = port_of(prefixes[0], "net_memif%d" % OUT_MEMIF[dut])
        if port is None:
            raise RuntimeError("%s: no port net_memif%d" % (dut, OUT_MEMIF[dut]))
        g = subprocess.Popen([b.gen] + b.eal("0", 256, prefixes[1]) + ["--"] + gen_args +
                             # one long full-load trial, whose sink answers
                             # credits (--credits)
                             ["--size", str(size - 4), "--rate", "0", "--search",
                              "--max-trials", "1", "--trial", "3600", "--json",
                              "--link-wait", "300"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        end, first = time.time() + 300, None
        while time.time() < end:
            n = (telemetry(prefixes[0], "/ethdev/stats,%d" % port) or {}).get("opackets")
            if n is not None and first is None:
                first = n
            elif n is not None and n > first:
                break
            time.sleep(1)
        else:
            raise RuntimeError("%s forwards nothing under callgrind" % dut)
        if ctl("-i", "on").returncode != 0:
            raise RuntimeError("callgrind_control -i on %d failed" % p.pid)
        time.sleep(3)                          # warm-up, not counted
        g.send_signal(signal.SIGSTOP)
        f0 = out_count()
        s0 = stats()
        ctl("-z")
        t0 = time.time()
        g.send_signal(signal.SIGCONT)
        time.sleep(a.window)
        g.send_signal(signal.SIGSTOP)
        f1 = out_count()
        s1 = stats()
        ctl("-d")
        window = time.time() - t0
        ctl("-z")
        time.sleep(5)                          # the idle pass's cost
        ctl("-d")
        busy, idle = callgrind_threads(work, p.pid, 1), callgrind_threads(work, p.pid, 2)
        if not busy or not idle:
            raise RuntimeError("no callgrind dump of %s" % dut)
        # The forwarding thread: the one that executed most.
        w = max(busy, key=lambda t: busy[t][0])
        # The memif receive function: idle, a pass calls nothing else of
        # the driver (no symbol: named by its address).
        rx = max(idle[w][1], key=idle[w][1].get) if idle[w][1] else None
        if rx is None:
            raise RuntimeError("%s: no call into the memif driver counted" % dut)
        frames = f1 - f0
        passes = busy[w][1].get(rx, 0) / POLLS[dut]
        busy_passes = (s1["worker_busy_loops"] - s0["worker_busy_loops"]
                       if dut.startswith("dcnfwd") else frames / PEER_BURST)
        idle_passes = max(passes - busy_passes, 0)
        idle_cost = idle[w][0] / max(idle[w][1][rx] / POLLS[dut], 1)
        by_file = (busy_by_file(busy[w][2], idle[w][2], idle_passes * idle_cost, frames)
                   if a.breakdown and frames > 0 else [])
        return {"frames": frames, "worker": busy[w][0], "passes": passes,
                "by_file": by_file,
                "idle_passes": idle_passes, "idle_pass_cost": idle_cost,
                "busy_passes": busy_passes,
                "busy": busy[w][0] - idle_passes * idle_cost,
                "all": sum(v[0] for v in busy.values()), "threads": len(busy),
                "window_s": window}
    finally:
        if g is not None:
            g.send_signal(signal.SIGCONT)
            b.stop(g)
        if p is not None:
            b.stop(p)
        for pf in prefixes:
            shutil.rmtree("/var/run/dpdk/" + pf, ignore_errors=True)
        a.wrap = ""


def run_instructions(a, b, duts, size, work):
    """Instructions per frame forwarded of every device in one run."""
    if shutil.which("valgrind") is None or shutil.which("callgrind_control") is None:
        log("SKIP: no valgrind (callgrind); tools/install-deps.sh installs it")
        return 77
    log("instructions per frame at %d B: the forwarding thread under callgrind, "
        "%.0f s of full load, its idle passes taken out" % (size, a.window))
    log("%-16s %4s %5s %10s %14s %11s %9s %9s %10s" % (
        "dut", "fc", "frame", "frames", "instructions", "idle passes", "per pass",
        "per busy", "per frame"))
    rows = []
    for d, sz in size_points(a, duts, size):
        for fc in (("on", "off") if d.startswith("dcnfwd") else ("-",)):
            if fc != "-":
                a.flow_control = fc
            r = count_instructions(a, b, d, sz, work)
            if r["frames"] <= 0:
                raise RuntimeError("%s forwarded nothing under callgrind" % d)
            r.update(dut=d, flow_control=fc, frame_bytes=sz,
                     per_frame=r["busy"] / r["frames"])
            rows.append(r)
            log("%-16s %4s %5d %10d %14d %11.0f %9.0f %9.1f %10.1f" % (
                d, fc, sz, r["frames"], r["worker"], r["idle_passes"],
                r["idle_pass_cost"], r["frames"] / max(r["busy_passes"], 1),
                r["per_frame"]))
    if a.breakdown:
        log("instructions per frame by source file (busy passes; at least 0.5):")
        for r in rows:
            log("%s, flow control %s, %d B: %s" % (
                r["dut"], r["flow_control"], r["frame_bytes"],
                ", ".join("%s %.1f" % kv for kv in r["by_file"] if abs(kv[1]) >= 0.5)))
        with open(os.path.join(a.out, "instructions_by_file.csv"), "w") as f:
            f.write("dut,flow_control,frame_bytes,file,instructions_per_frame\n")
            for r in rows:
                for name, v in r["by_file"]:
                    f.write("%s,%s,%d,%s,%.2f\n" % (r["dut"], r["flow_control"],
                                                    r["frame_bytes"], name, v))
    per = {(r["dut"], r["flow_control"], r["frame_bytes"]): r["per_frame"] for r in rows}
    if per.get(("dcnfwd-transit-udp", "on", size)) and per.get(("dcnfwd-transit", "on", size)):
        log("dcnfwd-transit: encap = udp costs %+.0f%% instructions per frame "
            "(flow control on)" % (100.0 * (per["dcnfwd-transit-udp", "on", size] /
                                            per["dcnfwd-transit", "on", size] - 1)))
    for d in ("dcnfwd-transit", "dcnfwd-ingress", "dcnfwd-egress"):
        if per.get((d, "off", size)):
            log("%s: flow control on costs %+.0f%% instructions per frame" % (
                d, 100.0 * (per[d, "on", size] / per[d, "off", size] - 1)))
    for d in ("dcnfwd-ingress", "dcnfwd-egress"):
        if per.get((d, "on", size)) and per.get(("dcnfwd-transit", "on", size)):
            log("%s / dcnfwd-transit (flow control on): %.2fx the instructions "
                "per frame" % (d, per[d, "on", size] / per["dcnfwd-transit", "on", size]))
    for p in PEERS:
        for fc in ("on", "off"):
            t = per.get(("dcnfwd-transit", fc, size))
            if not t:
                continue
            if per.get((p, "-", size)):
                log("dcnfwd-transit (flow control %s) / %s at %d B: %.2fx the "
                    "instructions per frame" % (fc, p, size, t / per[p, "-", size]))
            if per.get((p, "-", size + FABRIC_HDR)):
                log("dcnfwd-transit (flow control %s) / %s at %d B, the same "
                    "wire: %.2fx the instructions per frame" % (
                        fc, p, size + FABRIC_HDR, t / per[p, "-", size + FABRIC_HDR]))
    with open(os.path.join(a.out, "instructions.csv"), "w") as f:
        f.write("dut,flow_control,frame_bytes,window_s,frames,worker_instructions,"
                "idle_passes,idle_pass_instructions,busy_passes,instructions_per_frame,"
                "all_thread_instructions,threads\n")
        for r in rows:
            f.write("%s,%s,%d,%.1f,%d,%d,%.0f,%.0f,%.0f,%.1f,%d,%d\n" % (
                r["dut"], r["flow_control"], r["frame_bytes"], r["window_s"],
                r["frames"], r["worker"], r["idle_passes"], r["idle_pass_cost"],
                r["busy_passes"], r["per_frame"], r["all"], r["threads"]))
    log("written: %s" % os.path.join(a.out, "instructions.csv"))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True, help="meson build directory")
    ap.add_argument("--sizes", default="64,128,256,512,1024,1518",
                    help="frame sizes, FCS included (default %(default)s)")
    ap.add_argument("--duts", default=",".join(DEFAULT_DUTS),
                    help="devices under test (default all: %(default)s)")
    ap.add_argument("--trial", type=float, default=1.0,
                    help="seconds per trial (default %(default)s)")
    ap.add_argument("--rounds", type=int, default=2,
                    help="measure each point this many times, the DUTs in "
                         "turn, and keep the best: a shared machine only "
                         "ever slows a run down (default %(default)s)")
    ap.add_argument("--max-trials", type=int, default=0,
                    help="at most this many trials a search (1: the full-load "
                         "trial only, whose cycles column is the cost of a "
                         "frame at full load); default dcn-gen's")
    ap.add_argument("--resolution", type=float, default=1.0,
                    help="search resolution, percent (default %(default)s)")
    ap.add_argument("--flow-control", choices=("on", "off"), default="on",
                    help="dcnfwd's credits and queues (default on)")
    ap.add_argument("--encap", choices=("ether", "udp"), default="ether",
                    help="dcnfwd's wire format ([fabric] encap; default "
                         "%(default)s): udp puts the fabric header in IPv4/UDP, "
                         "28 bytes more on the wire")
    ap.add_argument("--disobey", action="store_true",
                    help="flow control on: the generator sends at full load "
                         "whatever credits dcnfwd grants (by default it "
                         "obeys them, as the relay before would)")
    ap.add_argument("--same-wire", action="store_true",
                    help="also measure the peers at the transit frames' size "
                         "on the wire (the size plus the 20-byte fabric header, "
                         "up to 1518)")
    ap.add_argument("--in-queue", type=int, default=0, metavar="SLOTS",
                    help="dcnfwd's input_queue (default: dcnfwd's, 1024 on "
                    "its cables). A relay takes no more credit on a (link, VC) than its own "
                    "input queue holds, and ingress frames all leave on one "
                    "VC: a longer queue shows whether the credit window "
                    "binds")
    ap.add_argument("--credit-batch", type=int, default=0, metavar="N",
                    help="dcnfwd's credit_batch (default: dcnfwd's, 256, at "
                    "most a quarter of the grant): a credit frame after "
                    "every N frames freed (and from the generator's sink, "
                    "as the next relay), with --in-queue, what a wider "
                    "window and fewer credit frames give")
    ap.add_argument("--no-huge", action="store_true",
                    help="4 KB pages (slower for all: TLB misses)")
    ap.add_argument("--wrap", default="",
                    help="a command every device runs under (dcnfwd, "
                         "testpmd, l3fwd), e.g. \"valgrind --tool=callgrind\" "
                         "to count their instructions (the figures are then "
                         "not rates)")
    ap.add_argument("--pairs", type=int, default=0, metavar="N",
                    help="instead of searches: N rounds of one full-load "
                         "trial per device in turn (dcnfwd transit's before, "
                         "between and after the others'), and each ratio as "
                         "the median [min-max] of the rounds' ratios (at "
                         "least 10 for a figure to quote)")
    ap.add_argument("--instructions", action="store_true",
                    help="instead of rates: instructions per frame forwarded "
                         "of every device's forwarding thread, under callgrind "
                         "at full load (dcnfwd with flow control on and off), "
                         "at the first size")
    ap.add_argument("--window", type=float, default=30.0,
                    help="--instructions: seconds counted (default %(default)s)")
    ap.add_argument("--breakdown", action="store_true",
                    help="--instructions: also each device's instructions per "
                         "frame by source file, the idle passes' share taken "
                         "out (code without debug information by its library: "
                         "a build with -Dc_args=-g names dcnfwd's files)")
    ap.add_argument("--profiles", metavar="DIR",
                    help="--instructions: keep the callgrind dumps here "
                         "(cg.PID-tTHREAD.PART, part 1 the window, 2 the idle "
                         "one; read them with callgrind_annotate)")
    ap.add_argument("--out", default=".", help="where the CSV, JSON, PNG go")
    a = ap.parse_args()
    # Stopped by a test runner's timeout (SIGTERM): unwind, so that the
    # devices and generators started here (each in a session of its own,
    # out of the runner's reach) are stopped and their files removed.
    signal.signal(signal.SIGTERM, lambda sig, frame: sys.exit(128 + sig))
    if os.geteuid() != 0 and not a.no_huge:
        log("SKIP: hugepages need root (or give --no-huge)")
        return 77
    if a.pairs:
        a.max_trials = 1       # a trial at full load: the rate it carries
    sizes = [int(s) for s in a.sizes.split(",")]
    duts = a.duts.split(",")
    for d in duts:
        if d not in ALL_DUTS:
            ap.error("unknown DUT %s" % d)
    os.makedirs(a.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="dcn-zl.")
    b = Bench(a, work)
    rows = []
    try:
        if not a.no_huge:
            try:
                b.huge = Hugepages(HUGE_PAGES, work)
            except (OSError, RuntimeError) as e:
                log("SKIP: no hugepages (%s); --no-huge runs without" % e)
                return 77
        a.testpmd = shutil.which("dpdk-testpmd")
        if a.testpmd is None and "testpmd-io" in duts:
            log("no dpdk-testpmd (Debian's dpdk-dev): testpmd-io left out")
            duts.remove("testpmd-io")
        if "l3fwd" in duts:
            b.l3fwd = b.build_l3fwd()
            if b.l3fwd is None:
                log("cannot build l3fwd (Debian's dpdk-doc): left out")
                duts.remove("l3fwd")
        if a.pairs:
            return run_pairs(a, b, duts, sizes)
        if a.instructions:
            return run_instructions(a, b, duts, sizes[0], work)
        log("zero-loss search: %s, trial %.1f s, resolution %.1f%%, best of %d, "
            "flow control %s, %s pages; generator on lcore 0, DUT on lcore 1" %
            (",".join(duts), a.trial, a.resolution, a.rounds, a.flow_control,
             "4 KB" if a.no_huge else "2 MB"))
        log("%-16s %6s %6s %12s %12s %7s %7s %s" % (
            "dut", "frame", "wire", "0-loss Mpps", "full Mpps", "trials",
            "cycles", "note"))
        for size in sizes:
            points = size_points(a, duts, size)
            best = {}
            # Full load breaks ties (and decides with --max-trials 1,
            # where no trial passes).
            rank = lambda r: (r["zero_loss_pps"], r["full_load_pps"])
            for _ in range(a.rounds):
                for d, sz in points:
                    r = b.measure(d, sz)
                    if (d, sz) not in best or rank(r) > rank(best[d, sz]):
                        best[d, sz] = r
            for d, sz in points:
                r = best[d, sz]
                rows.append(r)
                log("%-16s %6d %6d %12.3f %12.3f %7d %7s %s" % (
                    d, sz, r["wire_bytes"], r["zero_loss_pps"] / 1e6,
                    r["full_load_pps"] / 1e6, len(r["trials"]),
                    r["busy_cycles_per_frame"] or "-",
                    "generator-bound (a lower bound)" if r["generator_bound"] else ""))
    except Exception as e:   # report, and still clean up
        log("FAIL: %s" % e)
        return 1
    finally:
        if b.huge:
            b.huge.release()
        if a.profiles:
            os.makedirs(a.profiles, exist_ok=True)
            for name in os.listdir(work):
                if name.startswith("cg."):
                    shutil.copy(os.path.join(work, name), a.profiles)
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(a.out, "zero_loss.json"), "w") as f:
        json.dump({"spec": SPEC, "trial_s": a.trial, "flow_control": a.flow_control,
                   "hugepages": not a.no_huge, "cpus": os.cpu_count(),
                   "results": rows}, f, indent=1)
    with open(os.path.join(a.out, "zero_loss.csv"), "w") as f:
        f.write("dut,frame_bytes,wire_bytes,zero_loss_mpps,full_load_mpps,"
                "generator_bound,trials,busy_cycles_per_frame\n")
        for r in rows:
            f.write("%s,%d,%d,%.4f,%.4f,%d,%d,%s\n" % (
                r["dut"], r["frame_bytes"], r["wire_bytes"], r["zero_loss_pps"] / 1e6,
                r["full_load_pps"] / 1e6, r["generator_bound"], len(r["trials"]),
                r["busy_cycles_per_frame"] or ""))
    plot(rows, a.out)
    report_ratios(rows, min(sizes), a.max_trials == 1)
    log("written: %s" % ", ".join(os.path.join(a.out, "zero_loss." + x)
                                  for x in ("csv", "json", "png")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
