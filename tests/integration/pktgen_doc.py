#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""doc/tools.md's Pktgen example, run as written on this machine: the
command block after "the pktgen-doc test runs these commands as written",
each command as the page gives it (dcnfwd and pktgen found on PATH, as a
user who installed them has them), the relay in the background as in its
own terminal, and pktgen told `start 0`, then `stop 0` and `quit` on its
console. The relay's host port must have received pktgen's frames.

    pktgen_doc.py BUILD_DIR        Exit 0 pass, 1 fail, 77 skip.
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

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
MARK = "the pktgen-doc test runs these"


def commands():
    with open(os.path.join(ROOT, "doc", "tools.md")) as f:
        text = f.read()
    at = text.index(MARK)
    block = re.search(r"```text\n(.*?)```", text[at:], re.S).group(1)
    return [c.strip() for c in block.replace("\\\n", " ").splitlines() if c.strip()]


def main():
    build = os.path.abspath(sys.argv[1])
    pktgen = os.environ.get("PKTGEN") or shutil.which("pktgen")
    if not pktgen:
        print("SKIP: no pktgen (PKTGEN=...; doc/tools.md, \"pktgen\")")
        return 77
    if os.geteuid() != 0:
        print("SKIP: needs root")
        return 77
    # The page's paths are from the source tree with its build in build/.
    if os.path.realpath(os.path.join(ROOT, "build")) != os.path.realpath(build):
        print("SKIP: the page's commands name build/, and this build is %s" % build)
        return 77
    cmds = commands()
    if len(cmds) != 3 or not cmds[1].startswith("dcnfwd ") or "pktgen " not in cmds[2]:
        print("FAIL: the example is not dcn-pktgen, dcnfwd, pktgen: %s" % cmds)
        return 1
    tmp = tempfile.mkdtemp(prefix="dcn-pktgen-doc.")
    os.symlink(os.path.join(build, "app", "dcnfwd", "dcnfwd"), os.path.join(tmp, "dcnfwd"))
    os.symlink(os.path.abspath(pktgen), os.path.join(tmp, "pktgen"))
    env = dict(os.environ, PATH=tmp + ":" + os.environ["PATH"])
    relay = None
    ok = True
    try:
        r = subprocess.run(["bash", "-c", cmds[0]], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            print("FAIL: %s: %s" % (cmds[0], r.stderr.strip()))
            return 1
        print("ok   %s" % cmds[0])
        log = open(os.path.join(tmp, "relay.log"), "w+")
        relay = subprocess.Popen(["bash", "-c", "exec " + cmds[1]], cwd=ROOT, env=env,
                                 stdout=log, stderr=subprocess.STDOUT)
        for _ in range(200):
            log.seek(0)
            if " up: " in log.read() or relay.poll() is not None:
                break
            time.sleep(0.1)
        log.seek(0)
        if " up: " not in log.read():
            log.seek(0)
            print("FAIL: the relay did not start: %s" % log.read()[-2000:])
            return 1
        print("ok   %s (up)" % cmds[1])
        pg = subprocess.Popen(["bash", "-c", cmds[2]], cwd=ROOT, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        time.sleep(8)    # pktgen starts and reads its file
        for line, pause in (("start 0", 3), ("stop 0", 1), ("quit", 0)):
            pg.stdin.write(line + "\n")
            pg.stdin.flush()
            time.sleep(pause)
        try:
            out, _ = pg.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            pg.kill()
            out, _ = pg.communicate()
        out = re.sub(r"\x1b\[[0-9;]*[a-zA-Z]", "", out)
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "dcn-telemetry"),
                            "-p", "relay", "/dcn/ports"], capture_output=True, text=True,
                           timeout=30)
        try:
            host = json.loads(r.stdout)["/dcn/ports"]["host"]
        except (ValueError, KeyError):
            host = {}
        got = host.get("rx", 0)
        ok = pg.returncode == 0 and got >= 1000
        print("%s %s: exit %d; the relay's host port received %d frames" %
              ("ok  " if ok else "FAIL", cmds[2][:60] + "...", pg.returncode, got))
        if not ok:
            print("\n".join(l for l in out.splitlines() if l.strip())[-1500:])
    finally:
        if relay is not None and relay.poll() is None:
            relay.send_signal(signal.SIGTERM)
            relay.wait(timeout=30)
        for p in ("relay", "pg"):
            shutil.rmtree("/var/run/dpdk/" + p, ignore_errors=True)
        for f in ("/tmp/relay-host.pkt", "/tmp/host.sock", "/tmp/west.sock", "/tmp/east.sock"):
            if os.path.exists(f):
                os.unlink(f)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
