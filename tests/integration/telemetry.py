#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every /dcn/ telemetry command on running relays, with valid and
invalid parameters, before and after a link failure (when tables are
rebuilt and the old ones freed): each answers a non-empty JSON object
and dcnfwd is still alive afterwards.

emulated  every node of novacube:k=4,n=2 in one process; the cable
          (0,0):0 is pulled (carrier) half-way through.
config    two relays of novacube:k=4,n=2 from configuration files,
          joined by a memif cable; relay (1,0) is frozen (SIGSTOP), and
          (0,0) finds its neighbour silent and rebuilds its table.

The commands are those the documentation's telemetry table lists, which
must be those dcnfwd registers (DPDK's "/" command). /dcn/fc must show
every (port, VC) of a NovaCube relay, and (emulated) every (neighbour,
VC) of an RRect relay behind its two L2 switches, credits flowing on
them.

Usage: telemetry.py DCNFWD MODE      Exit 0 pass, 1 fail, 77 skip.
"""
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from localport import free_port

dcnfwd, mode = sys.argv[1:3]
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SPEC = "novacube:k=4,n=2"
EAL = ["-l", "0-1", "--no-huge", "-m", "512", "--no-pci", "--log-level=5"]
failed = []


def check(cond, msg):
    print("  %s: %s" % ("ok  " if cond else "FAIL", msg))
    if not cond:
        failed.append(msg)


def documented_commands():
    """The /dcn/ commands of the telemetry reference's table."""
    text = open(os.path.join(ROOT, "doc", "telemetry.md")).read()
    return sorted(set(re.findall(r"^\| `(/dcn/[a-z]+)", text, re.M)))


class Telemetry:
    """A telemetry v2 client of one process."""

    def __init__(self, prefix):
        path = "/var/run/dpdk/%s/dpdk_telemetry.v2" % prefix
        for _ in range(100):
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                time.sleep(0.1)
        else:
            sys.exit("FAIL: no telemetry socket at " + path)
        self.size = json.loads(self.s.recv(1024))["max_output_len"]

    def ask(self, cmd):
        self.s.send(cmd.encode())
        data = self.s.recv(self.size)
        if not data:
            return None
        return json.loads(data)[cmd.split(",")[0]]

    def ask_pages(self, cmd):
        """(reply with its pages joined, pages, largest page in bytes): a
        reply too long for one message ends with "next", the parameters
        that ask for the rest."""
        base, whole, pages, most = cmd.split(",")[0], {}, 0, 0
        while cmd is not None:
            self.s.send(cmd.encode())
            data = self.s.recv(self.size)
            if not data:
                return None, pages, most
            pages, most = pages + 1, max(most, len(data))
            page = json.loads(data)[base]
            nxt = page.pop("next", None) if isinstance(page, dict) else None
            dup = set(whole) & set(page or {})
            if dup:
                print("    page %d repeats %s" % (pages, sorted(dup)[:3]))
                return None, pages, most
            whole.update(page or {})
            cmd = base + "," + nxt if nxt else None
        return whole, pages, most


def sweep(tel, commands, nodes, addrs, pid, when):
    """Every command with every parameter: each answers a non-empty JSON
    object (an error for an invalid one), and the process lives on."""
    asked = bad = 0
    for cmd in commands:
        if cmd in ("/dcn/stats", "/dcn/events", "/dcn/xdp"):
            params = ["", "ignored"]
        elif cmd == "/dcn/route":
            params = (addrs + ["%s %s" % (n, a) for n in nodes
                                            for a in addrs[:2]] +
                      ["", "nosuchnode 1.2.3.4", "%s notanaddress" % nodes[0],
                       "1.2.3.4", "999.1.1.1", " "])
        else:
            params = [""] + nodes + ["nosuchnode", "(9,9)", "x" * 200]
        if cmd == "/dcn/fc":
            # a page past the last, or no number
            params += [nodes[0] + " 99999", nodes[0] + " x", nodes[0] + " "]
        for p in params:
            full = cmd + ("," + p if p else "")
            reply = tel.ask(full)
            asked += 1
            if not isinstance(reply, dict) or not reply:
                bad += 1
                print("    %s answered %r" % (full, reply))
    alive = pid.poll() is None
    check(bad == 0, "%s: %d queries, each answered a non-empty JSON object"
          % (when, asked))
    check(alive, "%s: dcnfwd alive after them" % when)
    return alive


# PORA's VCs: three dateline pairs, detour hops above them, 16 in all
# (lib/route/README.md, "Virtual channels").
NOVACUBE_PORA_VCS = 16


def check_fc(tel, node, n_ports, when):
    """Every (port, VC) channel, once, in pages that each fit DPDK's
    message (what does not fit one is left out without a word)."""
    fc, pages, most = tel.ask_pages("/dcn/fc," + node)
    chans = [v for v in (fc or {}).values() if isinstance(v, dict)]
    vcs = sorted(set(c.get("vc") for c in chans))
    check(len(chans) == NOVACUBE_PORA_VCS * n_ports and
          vcs == list(range(NOVACUBE_PORA_VCS)),
          "%s: /dcn/fc,%s shows %d (port, VC) channels (%d ports x %d VCs) "
          "in %d page(s), the largest %d of %d bytes"
          % (when, node, len(chans), n_ports, NOVACUBE_PORA_VCS, pages, most,
             tel.size))
    # credit frames refused whatever the key, by reason, per link
    vc0 = [c for c in chans if c.get("vc") == 0 and c.get("kind") == "credit"]
    check(vc0 and all("credit_few_vcs" in c and "credit_unknown" in c
                      for c in vc0),
          "%s: each credited link's VC 0 shows credit frames refused for "
          "fewer VCs and from an unknown sender (%d links)" % (when, len(vc0)))
    kinds = sorted(set(c.get("kind") for c in chans))
    check("credit" in kinds and all("in_cap" in c and "sent" in c
                                    for c in chans),
          "%s: each channel has its queues and counters (kinds %s)"
          % (when, ",".join(kinds)))


@contextlib.contextmanager
def emulating(prefix, spec, args):
    """dcnfwd emulating spec (args after it), with a telemetry client: the
    body runs while it does, then it must run to its end; stopped and its
    runtime directory removed whatever happens."""
    cmd = [dcnfwd] + EAL + ["--file-prefix=" + prefix, "--", "--emulate",
                            spec] + args
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True)
    try:
        yield p, Telemetry(prefix)
        p.communicate(timeout=60)
        check(p.returncode == 0, "dcnfwd ran to its end (exit %d)" % p.returncode)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)


def check_fc_switched(prefix):
    """RRect(4,2,1): relay 00 reaches 7 neighbours through each of its two
    switches; /dcn/fc has a channel per (neighbour, VC), each naming it,
    and credits are taken and sent per neighbour."""
    spec = "rrect:n=4,m=2,k=1"
    with emulating(prefix, spec, ["--rate", "2000", "--duration", "5",
                                  "--stats", "0"]) as (p, tel):
        time.sleep(3)
        fc = tel.ask("/dcn/fc,00")
        chans = [v for v in fc.values() if isinstance(v, dict)]
        sw = [c for c in chans if c.get("kind") == "switch"]
        vcs = len(set(c.get("vc") for c in chans))
        # a vertex may share both switches with 00: links are per port
        nbrs = sorted(set((c.get("port"), c.get("neighbour")) for c in sw))
        check(len(nbrs) == 14 and len(sw) == 14 * vcs and
              len(chans) == 15 * vcs,
              "/dcn/fc,00 of %s: %d channels, %d behind switches, one per "
              "(neighbour, VC) for %d neighbours x %d VCs"
              % (spec, len(chans), len(sw), len(nbrs), vcs))
        first = [c for c in sw if c.get("vc") == 0]
        check(all(c.get("credit_rx", 0) > 0 and c.get("credit_tx", 0) > 0
                  for c in first),
              "credit frames taken from and sent to each of the %d "
              "neighbours" % len(first))
        check(all(c.get("peer_grant", 0) > 0 and c.get("grant", 0) > 0
                  for c in sw), "every neighbour link granted both ways")


def commands_match(tel, commands):
    registered = sorted(c for c in tel.ask("/") if c.startswith("/dcn/"))
    check(registered == commands,
          "the documented commands are the registered ones: %s"
          % " ".join(registered))


def check_client_pages(prefix, node, n_ports):
    """tools/dcn-telemetry joins the pages as the test's own client does
    (dcn-exporter and dcn-fabric follow "next" alike)."""
    r = subprocess.run([os.path.join(ROOT, "tools", "dcn-telemetry"), "-p",
                        prefix, "/dcn/fc," + node], capture_output=True,
                       text=True, timeout=30)
    try:
        fc = json.loads(r.stdout).get("/dcn/fc", {})
    except ValueError:
        fc = {}
    chans = [v for v in fc.values() if isinstance(v, dict)]
    check(r.returncode == 0 and len(chans) == NOVACUBE_PORA_VCS * n_ports
          and "next" not in fc,
          "dcn-telemetry /dcn/fc,%s: %d channels, pages joined (exit %d)"
          % (node, len(chans), r.returncode))


def exporter_node(prefix, node):
    """A relay from a configuration file scraped by dcn-exporter: every
    sample carries its node (so that sums by node keep a rack's servers
    apart), and /dcn/stats names it."""
    # The memif cable's bytes, both ways (hellos and credits at least),
    # which dcnfwd reads from the device once a second.
    for _ in range(4):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "dcn-exporter"),
                            "-p", prefix, "--once"], capture_output=True, text=True,
                           timeout=60)
        lines = [l for l in r.stdout.splitlines() if l and not l.startswith("#")]
        moved = [l for l in lines if l.startswith("dcnfwd_port_bytes_total{") and
                 'port="cable"' in l and float(l.rsplit(" ", 1)[1]) > 0]
        if len(moved) == 2:
            break
        time.sleep(1)
    without = [l for l in lines if 'node="%s"' % node not in l]
    # How long frames stay: a histogram of the relay's own (/dcn/latency).
    hist = [l for l in lines if l.startswith("dcnfwd_residency_seconds_")]
    check(any(l.startswith('dcnfwd_residency_seconds_bucket{') and 'le="+Inf"' in l
              for l in hist) and
          any(l.startswith("dcnfwd_residency_seconds_count{") for l in hist),
          "dcnfwd_residency_seconds, a histogram of the relay's (buckets to "
          "+Inf, sum, count): %d samples" % len(hist))
    check(len(moved) == 2, "dcnfwd_port_bytes_total of the cable, rx and tx, "
          "above 0: %s" % [l for l in lines if l.startswith("dcnfwd_port_bytes")])
    check(r.returncode == 0 and lines and not without,
          "dcn-exporter: %d samples of the relay, %d without node=\"%s\"%s" %
          (len(lines), len(without), node,
           ": " + "; ".join(without[:3]) if without else ""))


def dead_relays_alert(prefixes, nodes):
    """Relays gone (one stopped, one killed), scraped as the exporter's
    unit does (--all): each is still listed, dcnfwd_up 0 with its node,
    and promtool fires DcnfwdNotAnswering on exactly that series."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "dcn-exporter"),
                        "--all", "--once"], capture_output=True, text=True,
                       timeout=120)
    rules = os.path.join(ROOT, "tools", "prometheus", "dcnfwd-alerts.yml")
    for prefix, node in zip(prefixes, nodes):
        series = 'dcnfwd_up{dcnfwd="%s",node="%s"}' % (prefix, node)
        check(series + " 0" in r.stdout.splitlines(),
              "dcn-exporter --all after relay %s went: %s not listed 0 (%s)" %
              (node, series, [l for l in r.stdout.splitlines()
                              if prefix in l][:3]))
        if shutil.which("promtool") is None:
            continue
        d = tempfile.mkdtemp(prefix="dcn-alert.")
        try:
            test = os.path.join(d, "dead.yml")
            labels = "{severity: critical, dcnfwd: '%s', node: '%s'}" % (prefix, node)
            with open(test, "w") as f:
                f.write(
                    "rule_files: ['%s']\nevaluation_interval: 15s\ntests:\n"
                    "  - interval: 15s\n    input_series:\n"
                    "      - series: '%s'\n        values: '1 0x8'\n"
                    "    alert_rule_test:\n"
                    "      - eval_time: 30s\n        alertname: DcnfwdNotAnswering\n"
                    "        exp_alerts: []\n"
                    "      - eval_time: 2m\n        alertname: DcnfwdNotAnswering\n"
                    "        exp_alerts:\n          - exp_labels: %s\n"
                    "            exp_annotations:\n"
                    "              summary: 'dcnfwd %s (node %s) does not answer its telemetry'\n"
                    "              description: \"The relay's process is gone or hung: "
                    "its node is cut off from the fabric.\"\n"
                    % (rules, series, labels, prefix, node))
            t = subprocess.run(["promtool", "test", "rules", test],
                               capture_output=True, text=True, timeout=60)
            check(t.returncode == 0, "promtool test rules: DcnfwdNotAnswering "
                  "for %s: %s%s" % (node, t.stdout[-600:], t.stderr[-600:]))
        finally:
            shutil.rmtree(d, ignore_errors=True)
    print("dead relays: %s listed by dcn-exporter --all as dcnfwd_up 0 with "
          "their nodes; DcnfwdNotAnswering fires%s" %
          (", ".join(nodes), "" if shutil.which("promtool") else
           " (not tested: no promtool)"))


def dashboard_per_node(prefixes, nodes):
    """Two relays from configuration files, one exporter, and a real
    Prometheus server scraping it: every query of the Grafana dashboard
    (tools/grafana/dcnfwd.json, its variables at All) evaluates, and each
    that keeps a node apart returns series of exactly these nodes, none
    merged, none without its node."""
    if shutil.which("prometheus") is None:
        print("SKIP (part): no Prometheus server to evaluate the dashboard's "
              "queries (package prometheus)")
        return
    import urllib.parse
    import urllib.request
    d = tempfile.mkdtemp(prefix="dcn-prom.")
    exp_port, prom_port = free_port(), free_port()
    exp = prom = None
    try:
        cmd = [sys.executable, os.path.join(ROOT, "tools", "dcn-exporter"),
               "--listen", "127.0.0.1:%d" % exp_port]
        for p in prefixes:
            cmd += ["-p", p]
        exp = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
        with open(os.path.join(d, "prometheus.yml"), "w") as f:
            f.write("global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                    "scrape_configs:\n  - job_name: dcnfwd\n    static_configs:\n"
                    "      - targets: ['127.0.0.1:%d']\n" % exp_port)
        prom = subprocess.Popen(
            ["prometheus", "--config.file=" + os.path.join(d, "prometheus.yml"),
             "--storage.tsdb.path=" + os.path.join(d, "data"),
             "--web.listen-address=127.0.0.1:%d" % prom_port, "--log.level=error"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(d, "prom.log"), "w"))

        def query(expr):
            url = "http://127.0.0.1:%d/api/v1/query?%s" % (
                prom_port, urllib.parse.urlencode({"query": expr}))
            try:
                with urllib.request.urlopen(url, timeout=10) as r:
                    return json.load(r)
            except (OSError, ValueError) as e:
                return {"status": "error", "error": str(e)}
        # Enough scrapes for rate() over the dashboard's window.
        deadline, scrapes = time.time() + 30, 0
        while time.time() < deadline:
            r = query("count_over_time(dcnfwd_up[1m])")
            scrapes = min((int(x["value"][1]) for x in r.get("data", {}).get("result", [])),
                          default=0)
            if scrapes >= 6:
                break
            time.sleep(0.5)
        check(scrapes >= 6, "Prometheus scraped the exporter (%d scrapes)" % scrapes)
        with open(os.path.join(ROOT, "tools", "grafana", "dcnfwd.json")) as f:
            dash = json.load(f)
        n, keyed = 0, 0
        for panel in dash["panels"]:
            for t in panel.get("targets", []):
                expr = (t["expr"].replace("$__rate_interval", "5s")
                        .replace("$dcnfwd", ".*").replace("$node", ".*"))
                r = query(expr)
                n += 1
                if r.get("status") != "success":
                    check(False, "%s: %s" % (panel["title"], r.get("error")))
                    continue
                res = r["data"]["result"]
                # sum by (node, ...) (...), or a quantile of one
                outer = re.match(r"^\s*(?:histogram_quantile\([\d.]+, )?\w+ by "
                                 r"\(([^)]*)\)", expr)
                if expr.startswith("dcnfwd_") or (outer and "node" in outer.group(1)):
                    keyed += 1
                    got = {x["metric"].get("node") for x in res}
                    check(got == set(nodes), "%s: %s gives the series of "
                          "nodes %s, not one per node of %s" %
                          (panel["title"], expr[:60], sorted(map(str, got)),
                           sorted(nodes)))
        print("dashboard: %d queries evaluated by Prometheus, %d kept per node "
              "(%s)" % (n, keyed, ", ".join(sorted(nodes))))
    finally:
        for p in (prom, exp):
            if p is not None:
                p.terminate()
                p.wait(timeout=30)
        shutil.rmtree(d, ignore_errors=True)


def every_byte(tel, commands, pid):
    """Every byte value 0x01-0xff in a parameter of every command: each
    reply is JSON (DPDK 22.11 escapes bytes >= 0x80 wrongly, so what is
    echoed must be plain ASCII), and the process lives on."""
    asked, bad = 0, []
    for cmd in commands:
        for b in range(1, 256):
            tel.s.send(cmd.encode() + b",x" + bytes([b]) + b"y")
            data = tel.s.recv(tel.size)
            asked += 1
            try:
                if not isinstance(json.loads(data), dict):
                    raise ValueError("not an object")
            except ValueError:
                bad.append("%s byte 0x%02x: %r" % (cmd, b, data[:80]))
    for line in bad[:5]:
        print("    " + line)
    check(not bad and pid.poll() is None,
          "%d queries with each byte 0x01-0xff in a parameter: %d replies "
          "not JSON, dcnfwd alive" % (asked, len(bad)))


def gen_of(tel, node):
    return tel.ask("/dcn/links," + node).get("table_generation", 0)


def emulated(commands, prefix):
    args = ["--rate", "2000", "--duration", "14", "--stats", "0", "--unplug",
            "(0,0):0", "--unplug-mode", "carrier", "--unplug-at", "6",
            "--replug-at", "0"]
    with emulating(prefix, SPEC, args) as (p, tel):
        time.sleep(2)
        if p.poll() is not None:
            out = p.stdout.read()
            if "EAL init failed" in out:
                print("SKIP: EAL did not start:", out[-300:])
                sys.exit(77)
            sys.exit("FAIL: dcnfwd exited: " + out[-2000:])
        commands_match(tel, commands)
        # Nodes by name and by address; two fabric addresses and one
        # outside the fabric.
        addrs = node_addrs(SPEC, ["(2,2)", "(0,1)"]) + ["192.0.2.1"]
        nodes = ["(0,0)", "(1,0)", "(3,3)", addrs[0]]
        check_fc(tel, "(0,0)", 6, "emulated")
        check_client_pages(prefix, "(0,0)", 6)
        g0 = gen_of(tel, "(0,0)")
        if sweep(tel, commands, nodes, addrs, p, "emulated, before the cut"):
            deadline = time.time() + 8
            while time.time() < deadline and gen_of(tel, "(0,0)") == g0:
                time.sleep(0.2)
            g1 = gen_of(tel, "(0,0)")
            check(g1 > g0, "the cut rebuilt (0,0)'s table (generation %d -> %d)"
                  % (g0, g1))
            route = tel.ask("/dcn/route,(0,0) " + addrs[0])
            check(route.get("table_generation") == g1,
                  "/dcn/route reads the rebuilt table")
            sweep(tel, commands, nodes, addrs, p, "emulated, after the cut")


def node_addrs(spec, names):
    topo = os.path.join(os.path.dirname(dcnfwd), "..", "..", "tools",
                        "dcn-topo", "dcn-topo")
    out = subprocess.run([topo, "table", spec, "(3,3)"], capture_output=True,
                         text=True, check=True).stdout
    addr = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0] in names:
            addr[f[0]] = f[1]
    return [addr[n] for n in names]


RELAY = """[fabric]
topology = {spec}
node = {node}
partial = yes
hello_interval_ms = 10
hello_miss = 10
[port.cable]
dev = net_memif0,role={role},socket={dir}/cable.sock
fabric_port = {fport}
[port.host]
dev = net_memif1,role=server,socket={dir}/host-{fport}.sock
host = yes
[worker.0]
lcore = 1
rx = cable:0, host:0
[queues]
idle_sleep_us = 2000
"""


def check_idle_sleeps(tel):
    """An idle worker's sleeps grow to idle_sleep_us (2000 here): the
    lengths it asks for, not the time they took, so that a loaded machine
    changes nothing. Hellos (every 10 ms) wake it and start it again
    from an eighth; the old fixed ceiling was 100 us."""
    s0 = tel.ask("/dcn/stats")
    time.sleep(1.0)
    s1 = tel.ask("/dcn/stats")
    n = s1["worker_idle_sleeps"] - s0["worker_idle_sleeps"]
    us = s1["worker_idle_sleep_us"] - s0["worker_idle_sleep_us"]
    check(n > 0 and us > 400 * n,
          "an idle relay sleeps up to idle_sleep_us: %d sleeps in a second, "
          "%.0f us asked on average" % (n, us / max(n, 1)))


def unsent_probes_not_fabric_loss(tel):
    """The host port's memif has no host connected: the ARP probes the
    relay sends it (at start, then a second apart) are refused. They are
    the relay's own frames, counted as control frames not sent, never as
    frames lost inside the fabric nor in the port's tx_drop (which the
    fabric's accounting adds up)."""
    deadline = time.time() + 5
    st = tel.ask("/dcn/stats")
    while time.time() < deadline and st.get("control_unsent", 0) == 0:
        time.sleep(0.2)
        st = tel.ask("/dcn/stats")
    host = (tel.ask("/dcn/ports,(0,0)") or {}).get("host", {})
    check(st.get("control_unsent", 0) >= 1 and st.get("fabric_drops") == 0 and
          st.get("port_tx_drop") == 0 and host.get("tx_drop") == 0,
          "ARP probes refused by a host port with no host: control_unsent "
          "%s, fabric_drops %s, port_tx_drop %s, the host port's tx_drop %s"
          % (st.get("control_unsent"), st.get("fabric_drops"),
             st.get("port_tx_drop"), host.get("tx_drop")))


def from_config(commands, prefix):
    d = tempfile.mkdtemp(prefix="dcn-tel.")
    procs = []
    try:
        for name, node, role, fport in (("a", "(0,0)", "server", 0),
                                        ("b", "(1,0)", "client", 1)):
            ini = os.path.join(d, name + ".ini")
            with open(ini, "w") as f:
                f.write(RELAY.format(spec=SPEC, node=node, role=role,
                                     fport=fport, dir=d))
            log = open(os.path.join(d, name + ".log"), "w")
            procs.append(subprocess.Popen(
                [dcnfwd] + EAL + ["--file-prefix=%s-%s" % (prefix, name), "--",
                                  "--config", ini, "--stats", "0"],
                stdout=log, stderr=subprocess.STDOUT))
            for _ in range(100):
                text = open(os.path.join(d, name + ".log")).read()
                if " up: " in text or procs[-1].poll() is not None:
                    break
                time.sleep(0.1)
            if "EAL init failed" in text:
                print("SKIP: EAL did not start:", text[-300:])
                sys.exit(77)
            if " up: " not in text:
                sys.exit("FAIL: relay %s did not start: %s" % (node, text[-2000:]))
        tel = Telemetry(prefix + "-a")
        for _ in range(100):
            if tel.ask("/dcn/links").get("cable", {}).get("state") == "up":
                break
            time.sleep(0.1)
        commands_match(tel, commands)
        nodes = ["(0,0)", "(1,0)"] + node_addrs(SPEC, ["(0,0)"])
        addrs = node_addrs(SPEC, ["(1,0)", "(2,2)"]) + ["192.0.2.1"]
        check_fc(tel, "(0,0)", 2, "relay")
        check(tel.ask("/dcn/stats").get("node") == "(0,0)",
              "/dcn/stats names the relay's node")
        unsent_probes_not_fabric_loss(tel)
        exporter_node(prefix + "-a", "(0,0)")
        dashboard_per_node([prefix + "-a", prefix + "-b"], ["(0,0)", "(1,0)"])
        every_byte(tel, commands, procs[0])
        g0 = gen_of(tel, "(0,0)")
        if sweep(tel, commands, nodes, addrs, procs[0], "relay, cable up"):
            # Frozen, not killed: silent as a dead relay, while its memif
            # end stays mapped (a peer that goes unmaps the shared rings
            # under (0,0)'s worker: "Memif cables", doc/failover.md). It
            # is killed once (0,0) has stopped.
            procs[1].send_signal(signal.SIGSTOP)
            deadline = time.time() + 10
            while time.time() < deadline and gen_of(tel, "(0,0)") == g0:
                time.sleep(0.1)
            g1 = gen_of(tel, "(0,0)")
            links = tel.ask("/dcn/links")
            check(g1 > g0 and links["cable"]["state"] != "up",
                  "(1,0) frozen: the cable is %s, the table rebuilt "
                  "(generation %d -> %d)" % (links["cable"]["state"], g0, g1))
            sweep(tel, commands, nodes, addrs, procs[0], "relay, neighbour dead")
            check_idle_sleeps(tel)
        procs[0].send_signal(signal.SIGTERM)
        check(procs[0].wait(timeout=30) == 0, "relay (0,0) stopped cleanly")
        procs[1].kill()
        procs[1].wait()
        dead_relays_alert([prefix + "-a", prefix + "-b"], ["(0,0)", "(1,0)"])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for name in ("a", "b"):
            shutil.rmtree("/var/run/dpdk/%s-%s" % (prefix, name),
                          ignore_errors=True)
        shutil.rmtree(d, ignore_errors=True)


def main():
    commands = documented_commands()
    check(len(commands) >= 8, "the reference lists %d commands" % len(commands))
    prefix = "dcn-tel-%d" % os.getpid()
    if mode == "emulated":
        emulated(commands, prefix)
        check_fc_switched(prefix + "-sw")
    elif mode == "config":
        from_config(commands, prefix)
    else:
        sys.exit("usage: telemetry.py DCNFWD emulated|config")
    if failed:
        print("FAIL: %d check(s)" % len(failed))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
