#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run to completion with flow control: one relay, two workers, two RX
queues on each port.

Relay R = (1,0) of novacube:k=4,n=2 (encap = udp, flow control on) has
three memif ports of two queues each: west faces a dcn-gen that stands in
for relay (0,0) (transit traffic, fabric frames in IPv4/UDP), host faces
a dcn-gen that is R's host (ingress traffic), east is a cable to relay
E = (2,0), whose host port is a dcn-gen sink. R's worker 0 polls queue 0
of every port, worker 1 queue 1: each routes what it receives to
completion. memif does not hash: each generator puts every frame on the
queue a NIC programmed as dcnfwd programs it would (dcn-gen --txq 2:
rte_softrss with dcnfwd's key and RETA), so each flow keeps one queue.
E returns credits to R over the cable.

For SECONDS (default 30): every frame sent arrives (nothing lost inside
either relay or at their edges), every flow in order, each of R's
workers forwarded 40-60% of the frames, and each sent what it forwarded
on the cable itself (two senders a port, lib/fc/README.md), 40-60% each.
The generators hold their ports once they have reported (dcn-gen
--hold); the relays stop first, then they, and every process exits 0.

  lanes_relay.py DCNFWD DCN_GEN DCN_TOPO [SECONDS]   (exit 77: cannot run)
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

DCNFWD, GEN, TOPO = sys.argv[1:4]
SECONDS = float(sys.argv[4]) if len(sys.argv) > 4 else 30.0
SPEC = "novacube:k=4,n=2"
RATE = 10000          # per generator, frames a second
FLOWS = 64            # per generator: one destination, 64 source ports
failures = []


def check(cond, msg):
    print("%s %s" % ("ok  " if cond else "FAIL", msg), flush=True)
    if not cond:
        failures.append(msg)


def addr(node):
    """node's fabric address, from another relay's table (a table leaves
    its own node out)."""
    for other in ("(1,0)", "(0,0)"):
        out = subprocess.run([TOPO, "table", SPEC, other], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == node:
                return f[1]
    raise RuntimeError("no address for %s" % node)


COMMON = """[fabric]
topology = %s
node = {node}
role = relay
algo = dor
partial = yes
encap = udp
hello_interval_ms = 10
; forwarding is under test, not failure detection (a shared machine)
hello_miss = 20
{ports}
[queues]
mbufs = 32767
[flow_control]
; a generator that stalls for some ms must not fill an input queue
input_queue = 4096
output_queue = 8192
""" % SPEC


def relay_r(d):
    ports = """[port.west]
; dcn-gen stands in for (0,0): it sends no hellos and takes no credits
dev = net_memif0,role=server,socket={d}/west.sock
fabric_port = 1
rxq = 2
txq = 2
hellos = no
credits = no
[port.east]
dev = net_memif1,role=server,socket={d}/cable.sock
fabric_port = 0
rxq = 2
txq = 2
[port.host]
dev = net_memif2,role=server,socket={d}/host.sock
host = yes
rxq = 2
txq = 2
[worker.0]
lcore = 1
rx = west:0, east:0, host:0
[worker.1]
lcore = 2
rx = west:1, east:1, host:1""".format(d=d)
    return COMMON.format(node="(1,0)", ports=ports)


def relay_e(d):
    ports = """[port.west]
dev = net_memif0,role=client,socket={d}/cable.sock
fabric_port = 1
rxq = 2
txq = 2
[port.host]
dev = net_memif1,role=server,socket={d}/sink.sock
host = yes
[worker.0]
lcore = 1
rx = west:0, west:1, host:0""".format(d=d)
    return COMMON.format(node="(2,0)", ports=ports)


def wait_up(log, proc, what):
    for _ in range(150):
        text = open(log).read() if os.path.exists(log) else ""
        if " up: " in text:
            return
        if "EAL init failed" in text:
            print("SKIP: EAL did not start: %s" % text[-300:])
            sys.exit(77)
        if proc.poll() is not None:
            raise RuntimeError("%s exited %d:\n%s" % (what, proc.returncode, text[-1500:]))
        time.sleep(0.1)
    raise RuntimeError("%s did not come up:\n%s" % (what, open(log).read()[-1500:]))


def wait_report(path, proc, timeout):
    """Until the generator writing path has reported (it then holds)."""
    end = time.time() + timeout
    while time.time() < end:
        if os.path.exists(path) and any(l.startswith("{") for l in open(path)):
            return
        if proc.poll() is not None:
            raise RuntimeError("%s: the generator exited %d" % (path, proc.returncode))
        time.sleep(0.2)
    raise RuntimeError("%s: no report in %.0f s" % (path, timeout))


def main():
    if os.geteuid() != 0 and not os.access("/var/run/dpdk", os.W_OK):
        print("SKIP: DPDK's run directory is not writable here")
        return 77
    d = tempfile.mkdtemp(prefix="dcn-lanes.")
    tag = os.getpid()
    prefixes = ["dcn-ln-%s-%d" % (x, tag) for x in ("r", "e", "t", "h", "s")]
    procs = []

    def start(cmd, log):
        p = subprocess.Popen(cmd, stdout=open(log, "w"), stderr=subprocess.STDOUT)
        procs.append(p)
        return p

    try:
        a0, a1, a2 = addr("(0,0)"), addr("(1,0)"), addr("(2,0)")
        open(d + "/r.ini", "w").write(relay_r(d))
        open(d + "/e.ini", "w").write(relay_e(d))
        eal = ["--no-huge", "-m", "512", "--no-pci", "--log-level=5"]
        # R's two workers on two CPUs where there are two; E beside.
        cpus = sorted(os.sched_getaffinity(0))
        c1 = cpus[1 % len(cpus)]
        r = start([DCNFWD, "--lcores", "0@%d,1@%d,2@%d" % (cpus[0], cpus[0], c1)]
                  + eal + ["--file-prefix=" + prefixes[0], "--", "--config",
                           d + "/r.ini", "--stats", "0"], d + "/r.log")
        wait_up(d + "/r.log", r, "relay (1,0)")
        e = start([DCNFWD, "--lcores", "0@%d,1@%d" % (cpus[0], c1)] + eal +
                  ["--file-prefix=" + prefixes[1], "--", "--config", d + "/e.ini",
                   "--stats", "0"], d + "/e.log")
        wait_up(d + "/e.log", e, "relay (2,0)")
        time.sleep(1.0)   # hellos both ways: the cable's link up
        gen = [GEN, "-l", "0", "--no-huge", "-m", "256", "--no-pci", "--log-level=5"]
        dsts = ",".join([a2] * FLOWS)
        sink = start(gen + ["--file-prefix=" + prefixes[4], "--", "--rx",
                            "net_memif0,role=client,socket=%s/sink.sock" % d,
                            "--duration", str(SECONDS + 1), "--linger", "3",
                            "--json", "--hold"], d + "/sink.json")
        time.sleep(1.0)
        t = start(gen + ["--file-prefix=" + prefixes[2], "--", "--tx",
                         "net_memif0,role=client,socket=%s/west.sock" % d,
                         "--src", a0, "--dst", dsts, "--pattern", "list",
                         "--fabric", SPEC, "--encap", "udp", "--txq", "2",
                         "--rate", str(RATE), "--duration", str(SECONDS),
                         "--linger", "1", "--json", "--hold"], d + "/t.json")
        h = start(gen + ["--file-prefix=" + prefixes[3], "--", "--tx",
                         "net_memif0,role=client,socket=%s/host.sock" % d,
                         "--src", a1, "--dst", dsts, "--pattern", "list",
                         "--txq", "2", "--rate", str(RATE), "--duration",
                         str(SECONDS), "--linger", "1", "--json", "--hold"], d + "/h.json")
        # The generators hold their memif ports open, unpolled, once they
        # have reported (--hold); the relays stop first, so no ring is
        # unmapped under a burst that reads it (app/dcnfwd/ethdev.c).
        for p, name in ((t, "t.json"), (h, "h.json"), (sink, "sink.json")):
            wait_report(d + "/" + name, p, SECONDS + 120)
        # R first, E 50 ms later: E's worker is idle before R closes the
        # cable (100 ms after R's workers stop), and R has closed it
        # before E closes its end, so the two closes never meet.
        r.send_signal(signal.SIGTERM)
        time.sleep(0.05)
        e.send_signal(signal.SIGTERM)
        codes = [p.wait(timeout=60) for p in (r, e)]
        for p in (t, h, sink):
            p.send_signal(signal.SIGTERM)
        gen_codes = [p.wait(timeout=60) for p in (t, h, sink)]

        def report(name):
            text = open(d + "/" + name).read()
            rep = [json.loads(l) for l in text.splitlines() if l.startswith("{")]
            if not rep:
                raise RuntimeError("%s: no report:\n%s" % (name, text[-800:]))
            return rep[-1]

        tj, hj, sj = report("t.json"), report("h.json"), report("sink.json")
        print("transit generator:", tj)
        print("host generator:", hj)
        print("sink:", sj)
        rlog, elog = open(d + "/r.log").read(), open(d + "/e.log").read()
        check(codes == [0, 0], "both relays stopped cleanly on SIGTERM "
              "(exit codes %s)" % codes)
        check(gen_codes == [0, 0, 0], "the generators stopped cleanly "
              "(exit codes %s)" % gen_codes)
        sent = tj["sent"] + hj["sent"]
        check(tj["sent"] > RATE * SECONDS * 0.9 and hj["sent"] > RATE * SECONDS * 0.9,
              "both generators sent their load: %d transit, %d ingress frames in "
              "%.0f s" % (tj["sent"], hj["sent"], SECONDS))
        check(tj["tx_fail"] == 0 and hj["tx_fail"] == 0,
              "the relay's RX queues took every frame (refused: %d, %d)" %
              (tj["tx_fail"], hj["tx_fail"]))
        check(sj["received"] == sent and sj["lost"] == 0,
              "every frame arrived: sent %d, received %d" % (sent, sj["received"]))
        check(sj["reordered"] == 0 and sj["seq_gaps"] == 0,
              "every flow in order: %d reordered, %d gaps, %d flows" %
              (sj["reordered"], sj["seq_gaps"], sj["flows"]))
        check(sj["flows"] == 2 * FLOWS, "%d flows seen of %d" % (sj["flows"], 2 * FLOWS))
        for name, log in (("(1,0)", rlog), ("(2,0)", elog)):
            # Data frames: none dropped by a forwarding step, none refused
            # by an input queue. (A hello or credit frame a full memif
            # ring refused while the peer was descheduled is counted
            # with the node's drops too; the next one repairs it.)
            steps = re.findall(r"dropped (\S+)\s+(\d+)", log)
            m = re.search(r"losses beside the step's drops \(inside the fabric "
                          r"(\d+) in all\):.* host_in_full (\d+)", log)
            ports = re.findall(r"^\s+(\S+)\s+\d+\s+\d+\s+(\d+)\s+(\d+)$", log, re.M)
            check(m is not None and not steps and m.group(2) == "0" and
                  all(p[2] == "0" for p in ports),
                  "relay %s dropped no data frame (forwarding step: %s; input "
                  "queues: %s; control frames a full ring refused: %s)" %
                  (name, steps or "none", [p[2] for p in ports],
                   {p[0]: int(p[1]) for p in ports}))
        workers = [int(x) for x in re.findall(r"worker \d+ forwarded (\d+)", rlog)]
        total = sum(workers)
        print("relay (1,0), frames each worker forwarded:", workers)
        check(len(workers) == 2 and total >= sent,
              "relay (1,0) has two workers and forwarded %d frames of %d" % (total, sent))
        for i, n in enumerate(workers):
            share = n / total if total else 0
            check(0.4 <= share <= 0.6, "worker %d forwarded %.1f%% (%d frames)" %
                  (i, 100 * share, n))
        # Two senders on the cable: each worker sends what it routes, on
        # its own TX queue, under a share of E's credits.
        east = [int(x) for x in re.findall(r"worker \d+ sent\b.*\beast (\d+)", rlog)]
        print("relay (1,0), frames each worker sent on east:", east)
        check(len(east) == 2 and all(0.4 <= n / max(sum(east), 1) <= 0.6 for n in east)
              and sum(east) >= sent,
              "both workers sent on east, 40-60%% each: %s of %d" % (east, sent))
        m = re.search(r"transit (\d+)", rlog)
        check(m is not None and int(m.group(1)) >= tj["sent"],
              "relay (1,0) carried the transit: %s" % (m.group(0) if m else "?"))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for x in prefixes:
            shutil.rmtree("/var/run/dpdk/" + x, ignore_errors=True)
        if failures:
            for log in ("r.log", "e.log"):
                if os.path.exists(os.path.join(d, log)):
                    print("---- %s (tail)" % log)
                    print(open(os.path.join(d, log)).read()[-2500:])
        shutil.rmtree(d, ignore_errors=True)
    print("%d failures" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
