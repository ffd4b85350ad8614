#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Credit-based flow control on an emulated fabric (one dcnfwd process,
every cable a ring of limited rate: --link-rate), any of the five:
NovaCube's and Diamond's cables, and RRect's, LaScaDa's and Totoro's
relays behind L2 switches (credits per neighbour).

incast    hosts 1..4 send to host 0, together four times what the last
          link carries, for SECONDS: no drop anywhere inside the fabric,
          loss only at the senders' ingress (counted), and host 0
          receiving at least 90% of what one uncontended sender at full
          rate delivers. The same with --flow-control off must lose frames
          inside the fabric (else this test could not fail).
deadlock  permutation, then all-to-all traffic far above what the links
          carry, queues small, for SECONDS each: delivery rises every
          second, nothing dropped inside the fabric, every pair of hosts
          delivered.
small-queue  input queues of 16 frames, a quarter of a burst (64), under
          permutation traffic above what the links carry: a burst that
          cannot all move at once is routed in pieces and held within the
          queue's room (dcnfwd does not crash), delivery rises every
          second, nothing dropped inside the fabric.
credit-loss  30% of credit frames thrown away at the sender: no loss, and
          at the end every link holds its full credit again (dcnfwd waits
          up to 500 ms for that: a state whose repeats were all lost comes
          back on the slow refresh, every 100 ms).
wire-loss  every cable between nodes and switches loses 1% of its frames
          (--wire-loss): every data frame lost inside the fabric was lost
          on a wire, and its sender took its credit back (lost_repaired,
          after credit_repair_ms without sending on the channel); at the
          end nothing is left queued and every link holds its full grant.
          Without the repair a link keeps fewer credits for each frame it
          lost, and stalls for good once they are all gone.
switch-buffer  (a fabric with L2 switches) incast with the grants within
          the emulated switches' egress buffers: nothing lost in a switch;
          then with grants far beyond them (--in-queue 4096,
          --switch-buffer 256): dcnfwd warns at start, frames are lost in
          the switches and counted there, every frame sent is delivered,
          refused at ingress, or lost in a switch, and the senders take
          the credits of those lost back (credit_repair_ms): nothing
          stays queued, every link ends at its full grant.

Usage: flow_control.py DCNFWD MODE [SECONDS [SPEC]]
SPEC: the fabric (default novacube:k=4,n=2). FC_INCAST_SENDERS: the
senders of incast (default 4; 10 for a 10:1 incast).
Exit 0 pass, 1 fail, 77 skip (EAL could not start).
"""
import json
import os
import shutil
import subprocess
import sys

dcnfwd, mode = sys.argv[1:3]
seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 30
SPEC = sys.argv[4] if len(sys.argv) > 4 else "novacube:k=4,n=2"
LINK = 20000        # frames/s on every emulated cable
SENDERS = os.environ.get("FC_INCAST_SENDERS", "4")
prefix = "dcn-fc-%d" % os.getpid()
# Every type at errors only but the emulation's, whose warnings (a switch
# buffer smaller than the grants) are looked for. (A bare --log-level=4
# would be a ceiling for every type: doc/telemetry.md, "Logs".)
EAL = ["-l", "0-1", "--no-huge", "-m", "1024", "--no-pci",
       "--file-prefix=" + prefix, "--log-level=*:4", "--log-level=dcnfwd.emu:warning"]
failed = []
stderr = [""]


# An emulated cable of limited rate queues up to 1024 frames "on the
# wire": at 20000 frames/s a hello may take 51 ms to cross, longer than
# the default 9 ms of silence that declares a neighbour dead. Hellos may
# miss 30 intervals here (90 ms); real cables do not queue.
SLOW_WIRE = ["--hello-miss", "30"]

def run(args, duration):
    cmd = [dcnfwd] + EAL + ["--", "--emulate", SPEC, "--json",
                            "--duration", str(duration)] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True,
                           timeout=duration + 120)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    stderr[0] = p.stderr
    if "EAL init failed" in p.stderr:
        print("SKIP: EAL did not start:", p.stderr.strip()[-300:])
        sys.exit(77)
    recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")
            and '"exit"' not in l[:8] and '"failover"' not in l[:12]]
    if p.returncode != 0 or not recs or "topology" not in recs[-1]:
        print(p.stdout[-2000:], p.stderr[-2000:])
        sys.exit("dcnfwd %s failed (exit %d)" % (" ".join(args), p.returncode))
    rep = recs[-1]
    print("  %-60s sent %9d received %9d fabric drops %7d ingress drops %8d"
          % (" ".join(args), rep["sent"], rep["received"], rep["fabric_drops"],
             rep["ingress_drops"]))
    return rep, [r for r in recs if "t" in r]


def check(cond, msg):
    print("  %s: %s" % ("ok  " if cond else "FAIL", msg))
    if not cond:
        failed.append(msg)


def incast():
    link = ["--link-rate", str(LINK), "--pattern", "all-to-one"] + SLOW_WIRE
    many = link + ["--senders", SENDERS, "--rate", str(LINK)]
    one = link + ["--senders", "1", "--rate", str(2 * LINK)]
    rep, _ = run(many, seconds)
    check(rep["fabric_drops"] == 0,
          "incast, flow control on: no drop inside the fabric (%d)"
          % rep["fabric_drops"])
    check(rep["lost"] == rep["ingress_drops"],
          "every lost frame counted at ingress (%d lost, %d counted)"
          % (rep["lost"], rep["ingress_drops"]))
    check(rep["ingress_drops"] > 0, "the senders were held back (%d refused)"
          % rep["ingress_drops"])
    # A host port reads no more than its input queue has room for: the
    # rest is refused by the port (the sender's NIC here), not read only
    # to be dropped.
    check(rep["ingress_drops_read"] == 0,
          "none of them read by the relays first (%d read, then dropped at a "
          "full input queue)" % rep["ingress_drops_read"])
    got = rep["received_per_host"][0] / rep["seconds"]
    # One sender alone takes the link's rate at once: 3 s measure it.
    base, _ = run(one, min(seconds, 3))
    alone = base["received_per_host"][0] / base["seconds"]
    check(got >= 0.9 * alone,
          "host 0 receives %.0f fps under incast, %.0f fps from one sender "
          "alone: ratio %.2f (at least 0.90)" % (got, alone, got / alone))
    # Some seconds of overload: a fabric without credits loses frames
    # inside within the first.
    off, _ = run(many + ["--flow-control", "off"], min(seconds, 3))
    check(off["fabric_drops"] > 0,
          "flow control off: frames lost inside the fabric (%d)"
          % off["fabric_drops"])


def deadlock(patterns=("permutation", "uniform"), link=LINK, in_queue=32):
    for pattern in patterns:
        args = SLOW_WIRE + ["--link-rate", str(link), "--rate", str(2 * link),
                "--pattern", pattern, "--in-queue", str(in_queue),
                "--out-queue", "64"]
        rep, prog = run(args, seconds)
        rx = [r["received"] for r in prog]
        stuck = [i for i in range(1, len(rx)) if rx[i] <= rx[i - 1]]
        check(len(rx) >= int(seconds) - 1 and not stuck,
              "%s: delivered count rose in each of %d seconds (%s)"
              % (pattern, len(rx), "stalled at second %s" % stuck if stuck
                 else "last %d" % (rx[-1] if rx else 0)))
        check(rep["fabric_drops"] == 0,
              "%s: no drop inside the fabric (%d)" % (pattern,
                                                     rep["fabric_drops"]))
        n = rep["hosts"]
        want = n if pattern == "permutation" else n * (n - 1)
        check(rep["pairs_delivered"] >= want,
              "%s: %d source-destination pairs delivered (all %d)"
              % (pattern, rep["pairs_delivered"], want))


def credit_loss():
    args = ["--rate", "3000", "--credit-drop", "30"]
    rep, _ = run(args, seconds)
    check(rep["credit_frames_lost"] > 0, "credit frames thrown away: %d of %d"
          % (rep["credit_frames_lost"],
             rep["credit_frames_lost"] + rep["credit_frames"]))
    # Lost credits come back late (on the refresh), so a stall of this
    # shared machine can back a queue up to a host, whose frames are then
    # refused at the edge: the back-pressure credit flow control exists
    # for. Inside the fabric nothing may go, and every frame the hosts
    # sent is delivered or counted as refused at the edge.
    check(rep["fabric_drops"] == 0 and rep["lost"] == rep["ingress_drops"],
          "no frame lost in the fabric (%d lost: %d in the fabric, %d "
          "refused at the edge)"
          % (rep["lost"], rep["fabric_drops"], rep["ingress_drops"]))
    check(rep["credit_links"] > 0 and
          rep["links_at_full_credit"] == rep["credit_links"],
          "links at full credit at the end: %d of %d"
          % (rep["links_at_full_credit"], rep["credit_links"]))


def wire_loss():
    # Hellos may miss many intervals: a neighbour declared dead and
    # back (three hellos lost in a row) would drop frames for reasons
    # other than the wire's, and this counts the wire's alone.
    rep, _ = run(["--rate", "3000", "--wire-loss", "1"] + SLOW_WIRE, seconds)
    lost_inside = rep["lost"] - rep["ingress_drops"]
    check(rep["wire_drops"] > 0 and rep["fabric_drops"] == rep["wire_drops"],
          "frames lost on the wires (%d), nowhere else in the fabric (%d in "
          "all)" % (rep["wire_drops"], rep["fabric_drops"]))
    check(lost_inside > 0 and rep["lost_repaired"] == lost_inside,
          "the senders took back the credits of exactly the data frames "
          "lost on the wires: %d of %d (%d sent, %d refused at ingress)"
          % (rep["lost_repaired"], lost_inside, rep["sent"],
             rep["ingress_drops"]))
    check(rep["queued_at_end"] == 0 and rep["credit_links"] > 0 and
          rep["links_at_full_credit"] == rep["credit_links"],
          "nothing left queued (%d), links at full credit at the end: %d "
          "of %d" % (rep["queued_at_end"], rep["links_at_full_credit"],
                     rep["credit_links"]))


def switch_buffer():
    many = ["--link-rate", str(LINK), "--pattern", "all-to-one", "--senders",
            "4", "--rate", str(LINK)] + SLOW_WIRE
    warning = "may be lost in the switch"
    rep, _ = run(many, seconds)
    check(warning not in stderr[0], "default grants within the switch "
          "buffer: no warning at start")
    check(rep["switch_drops"] == 0 and rep["fabric_drops"] == 0,
          "grants within the buffer: nothing lost in a switch (%d) or "
          "elsewhere in the fabric (%d)" % (rep["switch_drops"],
                                            rep["fabric_drops"]))
    rep, _ = run(many + ["--in-queue", "4096", "--switch-buffer", "256"],
                 seconds)
    check(warning in stderr[0], "grants beyond the switch buffer: dcnfwd "
          "warns at start")
    check(rep["switch_drops"] > 0,
          "grants beyond the buffer: frames lost in the switches (%d)"
          % rep["switch_drops"])
    # A frame lost in a switch never reaches its neighbour's arrived
    # count; once its sender has paused for the repair time, it takes
    # that credit back (lib/fc/README.md, "Lost frames"). A switch drops
    # control frames too (hellos, credits), which no host sent: the data
    # among its drops is what the hosts lost beyond the edge, and exactly
    # what the senders counted lost.
    lost_inside = rep["lost"] - rep["ingress_drops"]
    check(0 < lost_inside <= rep["switch_drops"] and
          rep["fabric_drops"] == rep["switch_drops"],
          "every frame sent and not delivered accounted for: %d lost, %d "
          "refused at ingress, the other %d among the %d dropped in "
          "switches (%d dropped in the fabric in all)"
          % (rep["lost"], rep["ingress_drops"], lost_inside,
             rep["switch_drops"], rep["fabric_drops"]))
    check(rep["lost_repaired"] == lost_inside,
          "the senders took back the credits of exactly the frames lost "
          "in switches (%d of %d)" % (rep["lost_repaired"], lost_inside))
    check(rep["queued_at_end"] == 0 and
          rep["links_at_full_credit"] == rep["credit_links"],
          "nothing left queued behind lost credits (%d), links at full "
          "credit at the end: %d of %d"
          % (rep["queued_at_end"], rep["links_at_full_credit"],
             rep["credit_links"]))


def small_queue():
    # Faster cables than deadlock's: a loop then reads many frames a port.
    deadlock(("permutation",), link=10 * LINK, in_queue=16)


{"incast": incast, "deadlock": deadlock, "small-queue": small_queue,
 "credit-loss": credit_loss, "wire-loss": wire_loss,
 "switch-buffer": switch_buffer}[mode]()
if failed:
    print("FAIL %s: %d checks failed" % (mode, len(failed)))
    sys.exit(1)
print("PASS %s" % mode)
