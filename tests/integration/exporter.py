#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dcn-exporter against a running emulated fabric: two scrapes over HTTP
pass `promtool check metrics` (no error, no lint warning); the families
a failover test watches are there for every node (link state of every
fabric port, frames per port, drops by reason, flow control per link and
VC, worker loops); counters move between the scrapes; every metric the
Grafana dashboard (tools/grafana/dcnfwd.json) queries is served; --all
finds the process; once the dcnfwd is gone, dcnfwd_up is 0.

    exporter.py DCNFWD DCN_TOPO
"""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

from localport import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
EXPORTER = os.path.join(ROOT, "tools", "dcn-exporter")
DASHBOARD = os.path.join(ROOT, "tools", "grafana", "dcnfwd.json")
ALERTS = os.path.join(ROOT, "tools", "prometheus", "dcnfwd-alerts.yml")


def drop_reasons():
    """The drop reasons dcnfwd has: its X-macro's entries."""
    with open(os.path.join(ROOT, "lib", "fabric", "dcn_fabric.h")) as f:
        text = f.read()
    macro = text[text.index("#define DCN_DROP_REASONS"):text.index("enum dcn_drop_reason")]
    return len(re.findall(r'_\(\w+, "\w+"', macro))


SPEC = "rrect:n=2,m=2,k=1"
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def samples(text):
    """{(name, labels): value} of an exposition."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            m = re.match(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)$", line)
            if m:
                out[(m[1], m[2] or "")] = float(m[3])
    return out


def promtool(text, label):
    r = subprocess.run(["promtool", "check", "metrics"], input=text,
                       capture_output=True, text=True)
    check(r.returncode == 0 and not r.stdout.strip() and not r.stderr.strip(),
          "%s: promtool check metrics: rc %d: %s %s" %
          (label, r.returncode, r.stdout.strip()[:400], r.stderr.strip()[:400]))


def get(url):
    with urllib.request.urlopen(url, timeout=30) as r:
        check(r.headers.get("Content-Type", "").startswith("text/plain; version=0.0.4"),
              "Content-Type %s" % r.headers.get("Content-Type"))
        return r.read().decode()


def threads(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^Threads:\s+(\d+)", f.read(), re.M)[1])


def idle_connections(pid, port, url):
    """Forty connections that send nothing (or half a request): the
    exporter gives at most --max-connections (8) of them a thread, closes
    each after --idle-timeout (1 s), and serves /metrics after."""
    socks = []
    for i in range(40):
        s = socket.create_connection(("127.0.0.1", port), timeout=5)
        if i % 2:
            s.sendall(b"GET /metr")
        socks.append(s)
    time.sleep(0.3)
    busy = threads(pid)
    time.sleep(1.5)
    closed = 0
    for s in socks:
        try:
            closed += s.recv(100) == b""
        except OSError:
            closed += 1
        s.close()
    check(busy <= 8 + 2, "%d threads for 40 idle connections (at most 8 "
          "served at once)" % busy)
    check(closed == 40, "%d of 40 idle connections closed by the exporter"
          % closed)
    check("dcnfwd_up" in get(url), "no /metrics after idle connections")
    print("idle connections: %d threads at most, all 40 closed, /metrics "
          "served after" % busy)


def main():
    dcnfwd, dcn_topo = sys.argv[1], sys.argv[2]
    if not shutil.which("promtool"):
        print("SKIP: promtool is not installed (package prometheus; "
              "tools/install-deps.sh)")
        return 77
    prefix = "dcn-exp-%d" % os.getpid()
    tmp = tempfile.mkdtemp(prefix="dcn-exporter.")
    log = open(os.path.join(tmp, "dcnfwd.log"), "w+")
    fwd = subprocess.Popen([dcnfwd, "-l", "0-1", "--no-huge", "-m", "512",
                            "--no-pci", "--log-level=4", "--file-prefix=" + prefix,
                            "--", "--emulate", SPEC, "--rate", "2000",
                            "--duration", "60", "--stats", "0"],
                           stdout=log, stderr=subprocess.STDOUT)
    exp = None
    try:
        sock = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        for _ in range(200):
            if os.path.exists(sock) or fwd.poll() is not None:
                break
            time.sleep(0.1)
        time.sleep(2)
        if fwd.poll() is not None:
            log.seek(0)
            print(log.read())
            print("FAIL: dcnfwd exited")
            return 1
        port = free_port()
        exp = subprocess.Popen([sys.executable, EXPORTER, "-p", prefix,
                                "--listen", "127.0.0.1:%d" % port,
                                "--dcn-topo", dcn_topo, "--idle-timeout", "1",
                                "--max-connections", "8"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
        print(exp.stdout.readline().strip())
        url = "http://127.0.0.1:%d/metrics" % port
        first = get(url)
        time.sleep(2)
        second = get(url)
        idle_connections(exp.pid, port, url)
        promtool(first, "first scrape")
        promtool(second, "second scrape")
        a, b = samples(first), samples(second)
        names = {n for n, _ in b}
        print("scrape: %d samples in %d families" % (len(b), len(names)))
        check(b.get(("dcnfwd_up", '{dcnfwd="%s"}' % prefix)) == 1.0,
              "dcnfwd_up is not 1")
        built = [k for k in b if k[0] == "dcnfwd_build_info"]
        check(len(built) == 1 and re.search(r'version="\d+\.\d+\.\d+"', built[0][1])
              and 'dpdk="DPDK ' in built[0][1],
              "dcnfwd_build_info with the release and DPDK's: %s" % built)

        def series(name, **labels):
            return {k: v for k, v in b.items() if k[0] == name and
                    all('%s="%s"' % kv in k[1] for kv in labels.items())}
        nodes = {re.search(r'node="([^"]+)"', k[1])[1]
                 for k in series("dcnfwd_link_up")}
        check(len(nodes) == 8, "link state of %d nodes, not 8" % len(nodes))
        check(len(series("dcnfwd_link_up")) == 16,
              "%d links, not 16" % len(series("dcnfwd_link_up")))
        check(all(v == 1.0 for v in series("dcnfwd_link_up").values()),
              "a link is down in a healthy fabric")
        reasons = drop_reasons()
        check(len(series("dcnfwd_drops_total")) == reasons,
              "%d drop reasons, not %d" % (len(series("dcnfwd_drops_total")), reasons))
        fc = series("dcnfwd_fc_grant", kind="switch")
        check(len(fc) > 0, "no flow-control channel behind a switch")
        for name in ("dcnfwd_port_frames_total", "dcnfwd_port_drops_total",
                     "dcnfwd_fc_credit_frames_total", "dcnfwd_worker_loops_total",
                     "dcnfwd_worker_busy_tsc_cycles_total", "dcnfwd_events_total",
                     "dcnfwd_announcements_total", "dcnfwd_port_hellos_total"):
            check(name in names, "%s not served" % name)
        moved = [k for k, v in b.items() if k[0] == "dcnfwd_port_frames_total"
                 and v > a.get(k, v)]
        check(len(moved) >= 16, "only %d port counters moved between scrapes"
              % len(moved))
        check(all(v >= a.get(k, 0) for k, v in b.items()
                  if k[0].endswith("_total")), "a counter went back")
        print("counters that moved: %d of %d port series" %
              (len(moved), len(series("dcnfwd_port_frames_total"))))
        with open(DASHBOARD) as f:
            dash = json.load(f)
        used = set()
        for p in dash["panels"]:
            for t in p.get("targets", []):
                used |= set(re.findall(r"\b(dcnfwd_[a-z_]+)\b", t["expr"]))
        check(used and used <= names, "the dashboard queries metrics not "
              "served: %s" % sorted(used - names))
        print("dashboard: %d panels, %d metrics, all served" %
              (len(dash["panels"]), len(used)))
        # The alerts: valid rules, over metrics that are served.
        r = subprocess.run(["promtool", "check", "rules", ALERTS],
                           capture_output=True, text=True)
        check(r.returncode == 0, "promtool check rules %s: %s%s" %
              (ALERTS, r.stdout[-400:], r.stderr[-400:]))
        with open(ALERTS) as f:
            rules = f.read()
        alerted = set(re.findall(r"\b(dcnfwd_[a-z_]+)\b", "\n".join(
            l for l in rules.splitlines() if l.strip().startswith(("expr", "sum", "and", ">")))))
        check(alerted and alerted <= names, "the alerts watch metrics not "
              "served: %s" % sorted(alerted - names))
        print("alerts: %s; %d metrics, all served" %
              (r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "?",
               len(alerted)))
        r = subprocess.run([sys.executable, EXPORTER, "--all", "--once",
                            "--dcn-topo", dcn_topo], capture_output=True,
                           text=True, timeout=120)
        check(('dcnfwd_up{dcnfwd="%s"} 1' % prefix) in r.stdout,
              "--all did not find %s" % prefix)
        fwd.send_signal(2)
        fwd.wait(timeout=60)
        gone = samples(get(url))
        check(gone.get(("dcnfwd_up", '{dcnfwd="%s"}' % prefix)) == 0.0 and
              len(gone) == 1, "after exit: %s" % list(gone.items())[:3])
    finally:
        for p in (exp, fwd):
            if p is not None and p.poll() is None:
                p.terminate()
                p.wait(timeout=30)
        subprocess.run(["rm", "-rf", "/var/run/dpdk/" + prefix, tmp])
    if failures:
        print("%d failures" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
