#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""encap = udp in every fabric, emulated: each of the five topologies in
one dcnfwd (--emulate SPEC --encap udp), flow control on, every host
sending for 3 s. The cables carry the fabric's frames in IPv4/UDP (the
run says so: not Diamond, whose frames are plain IPv4 either way), and
nothing is lost, reordered or dropped inside; every credited link ends
at its full grant.

Then the same with two lanes (--lanes 2, two workers): every node port
has two RX queues spread by flow, as a NIC's RSS spreads them, each
routed by its own worker, which sends what it routes itself: two
senders a port, sharing the peer's credits (hosts at 5,000 frames a
second, five times the default, for 2 s). The same checks, and every
port of a node has two senders, and each worker sent 25-75% of the
frames. Last, incast with two lanes on NovaCube and RRect (cables, and
links behind L2 switches): every host but one sends to it at 200,000
frames a second; the excess is refused at the senders' host ports, and
nothing is dropped or reordered inside.

  emulate_udp.py DCNFWD   (exit 77: EAL cannot start here)
"""
import json
import os
import shutil
import subprocess
import sys

SPECS = ["novacube:k=4,n=2", "diamond:k=4", "rrect:n=2,m=2,k=1",
         "lascada:n=2,k=2", "totoro:N=4,n=4,K=1"]
# Every host but one sending to it, far beyond its port: the senders of
# each port on the way contend for credits that run out.
INCAST = ["--pattern", "all-to-one", "--rate", "200000"]


def main():
    dcnfwd = sys.argv[1]
    failures = 0
    cpus = sorted(os.sched_getaffinity(0))
    two = "0@%d,1@%d,2@%d" % (cpus[0], cpus[1 % len(cpus)], cpus[0])
    runs = ([(s, 1, []) for s in SPECS] + [(s, 2, ["--rate", "5000"]) for s in SPECS] +
            [(s, 2, INCAST) for s in ("novacube:k=4,n=2", "rrect:n=2,m=2,k=1")])
    for spec, lanes, extra in runs:
        prefix = "dcn-eu-%d" % os.getpid()
        cores = ["-l", "0-1"] if lanes == 1 else ["--lcores", two]
        try:
            r = subprocess.run([dcnfwd, "--no-huge", "-m", "512", "--no-pci"] + cores +
                               ["--file-prefix", prefix, "--log-level=4", "--",
                                "--emulate", spec, "--encap", "udp",
                                # the lanes' runs carry more a second
                                "--duration", "3" if lanes == 1 else "2",
                                "--lanes", str(lanes), "--json"] + extra,
                               capture_output=True, text=True, timeout=120)
        finally:
            shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
        if "EAL init failed" in r.stderr:
            print("SKIP: EAL did not start: %s" % r.stderr[-300:])
            return 77
        rep = [json.loads(l) for l in r.stdout.splitlines() if l.startswith('{"topology"')]
        if r.returncode != 0 or not rep:
            print("FAIL %s: dcnfwd exited %d\n%s" % (spec, r.returncode,
                                                     (r.stdout + r.stderr)[-800:]))
            failures += 1
            continue
        d = rep[-1]
        want = "ether" if spec.startswith("diamond") else "udp"
        # Incast: what the sink's port cannot take is refused at the
        # senders' host ports, counted; nothing inside.
        refused = d["ingress_drops"] if extra is INCAST else 0
        ok = (d["encap"] == want and d["sent"] > 0 and
              d["received"] + refused == d["sent"] and d["lost"] == refused and
              d["reordered"] == 0 and d["fabric_drops"] == 0 and
              d["links_at_full_credit"] == d["credit_links"])
        lanes_ok = True
        if lanes > 1:
            total = sum(d["worker_sent"]) or 1
            lanes_ok = (d["lanes"] == lanes and d["ports_with_several_senders"] > 0 and
                        len(d["worker_sent"]) == 2 and
                        all(0.25 <= n / total <= 0.75 for n in d["worker_sent"]))
        print("%s %s, %d lane(s)%s: wire format %s (want %s), sent %d, received %d, "
              "refused at ingress %d, reordered %d, dropped inside %d, links at full "
              "credit %d of %d; ports with several senders %d, frames each worker "
              "sent %s" % (
                  "ok  " if ok and lanes_ok else "FAIL", spec, lanes,
                  ", incast" if extra is INCAST else "", d["encap"], want,
                  d["sent"], d["received"], refused, d["reordered"], d["fabric_drops"],
                  d["links_at_full_credit"], d["credit_links"],
                  d["ports_with_several_senders"], d["worker_sent"]))
        ok = ok and lanes_ok
        failures += not ok
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
