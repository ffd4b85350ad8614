#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""encap = udp in every fabric, emulated: each of the five topologies in
one dcnfwd (--emulate SPEC --encap udp), flow control on, every host
sending for 3 s. The cables carry the fabric's frames in IPv4/UDP (the
run says so: not Diamond, whose frames are plain IPv4 either way), and
nothing is lost, reordered or dropped inside; every credited link ends
at its full grant.

  emulate_udp.py DCNFWD   (exit 77: EAL cannot start here)
"""
import json
import os
import shutil
import subprocess
import sys

SPECS = ["novacube:k=4,n=2", "diamond:k=4", "rrect:n=2,m=2,k=1",
         "lascada:n=2,k=2", "totoro:N=4,n=4,K=1"]


def main():
    dcnfwd = sys.argv[1]
    failures = 0
    for spec in SPECS:
        prefix = "dcn-eu-%d" % os.getpid()
        try:
            r = subprocess.run([dcnfwd, "--no-huge", "-m", "512", "--no-pci", "-l", "0-1",
                                "--file-prefix", prefix, "--log-level=4", "--",
                                "--emulate", spec, "--encap", "udp", "--duration", "3",
                                "--json"], capture_output=True, text=True, timeout=120)
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
        ok = (d["encap"] == want and d["sent"] > 0 and d["received"] == d["sent"] and
              d["lost"] == 0 and d["reordered"] == 0 and d["fabric_drops"] == 0 and
              d["links_at_full_credit"] == d["credit_links"])
        print("%s %s: wire format %s (want %s), sent %d, received %d, reordered %d, "
              "dropped inside %d, links at full credit %d of %d" % (
                  "ok  " if ok else "FAIL", spec, d["encap"], want, d["sent"],
                  d["received"], d["reordered"], d["fabric_drops"],
                  d["links_at_full_credit"], d["credit_links"]))
        failures += not ok
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
