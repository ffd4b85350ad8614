#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The ledger of loss, one list and four readers.

Usage: loss_ledger.py DCNFWD SOURCE_ROOT

The reasons are read from app/dcnfwd/stats.h (DCNFWD_LOSSES) as this test
runs, so a reason added there is looked for everywhere: in /dcn/stats
("loss", and its class in "loss_class"), in dcn-exporter's scrape
(dcnfwd_losses_total, a sample each), in the exit report's losses line,
and in the emulation's final JSON ("losses"), where the FABRIC ones with
the forwarding step's reasons also add up to fabric_drops, to the frame.
An emulated LaScaDa with a lossy cable (--wire-loss) and a cable pulled,
so some reasons count something.

Exit 0 pass, 1 fail, 77 skip (EAL cannot start here).
"""
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dcn_tel import ask  # noqa: E402

EAL = ["-l", "0-1", "--no-huge", "-m", "1024", "--no-pci"]
ARGS = ["--emulate", "lascada:n=2,k=2", "--duration", "3", "--stats", "0",
        "--wire-loss", "1", "--unplug", "busiest"]
failed = []


def check(cond, msg):
    print("%s %s" % ("ok  " if cond else "FAIL", msg))
    if not cond:
        failed.append(msg)


def ledger(root):
    text = open(os.path.join(root, "app", "dcnfwd", "stats.h")).read()
    block = text[text.index("#define DCNFWD_LOSSES"):]
    block = block[:block.index("enum dcnfwd_loss_class")]
    return re.findall(r'_\(\w+, "(\w+)", (\w+),', block)


def step_reasons(root):
    text = open(os.path.join(root, "lib", "fabric", "dcn_fabric.h")).read()
    block = text[text.index("#define DCN_DROP_REASONS"):]
    return re.findall(r'_\(\w+, "(\w+)",', block[:block.index("enum dcn_drop_reason")])


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    dcnfwd, root = sys.argv[1:3]
    names = ledger(root)
    check(len(names) >= 10, "the ledger lists %d reasons: %s" %
          (len(names), ", ".join(n for n, _ in names)))
    prefix = "dcn-ledger-%d" % os.getpid()
    p = subprocess.Popen([dcnfwd] + EAL + ["--file-prefix=" + prefix, "--"] + ARGS,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        st = ask(prefix, "/dcn/stats", ready=lambda r: "loss" in r)
        scrape = subprocess.run([sys.executable,
                                 os.path.join(root, "tools", "dcn-exporter"),
                                 "-p", prefix, "--once"],
                                capture_output=True, text=True, timeout=60).stdout
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    if "EAL init failed" in err:
        print("SKIP: EAL did not start:", err[-400:])
        return 77
    check(p.returncode == 0, "dcnfwd ran to its end (exit %d)" % p.returncode)
    loss = (st or {}).get("loss", {})
    cls = (st or {}).get("loss_class", {})
    check(set(loss) == {n for n, _ in names},
          "/dcn/stats loss: every reason and no other (%s)" % sorted(loss))
    check(all(cls.get(n) == c.lower() for n, c in names),
          "/dcn/stats loss_class: each reason's class")
    samples = set(re.findall(r'^dcnfwd_losses_total\{[^}]*reason="(\w+)"', scrape, re.M))
    check(samples == {n for n, _ in names},
          "dcn-exporter: a dcnfwd_losses_total sample each (%d)" % len(samples))
    line = [l for l in out.splitlines() if "losses beside the step's drops" in l]
    check(line and all(re.search(r"\b%s \d+" % n, line[0]) for n, _ in names),
          "the exit report's losses line names every reason: %s" %
          (line[0].strip() if line else "(none)"))
    # The balance, from a run with --json.
    prefix2 = prefix + "j"
    try:
        r = subprocess.run([dcnfwd] + EAL + ["--file-prefix=" + prefix2, "--"] +
                           ARGS + ["--json"], capture_output=True, text=True,
                           timeout=120)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix2, ignore_errors=True)
    final = [json.loads(l) for l in r.stdout.splitlines() if l.startswith('{"topology"')]
    fin = final[0] if final else {}
    losses, by = fin.get("losses", {}), fin.get("fabric_drops_by_reason", {})
    check(set(losses) == {n for n, _ in names},
          "the emulation's JSON: every reason in losses")
    fabric = [n for n, c in names if c == "FABRIC"]
    steps = step_reasons(root)
    total = sum(losses.get(n, 0) for n in fabric) + sum(by.get(n, 0) for n in steps)
    check(fin.get("fabric_drops") == total and
          all(by.get(n, 0) == losses.get(n) for n in fabric),
          "fabric_drops %s = the FABRIC reasons and the step's, %d (wire %s)" %
          (fin.get("fabric_drops"), total, losses.get("wire")))
    check(losses.get("wire", 0) > 0, "the lossy cable's frames are in the ledger")
    print("FAIL" if failed else "OK")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
