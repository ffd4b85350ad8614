#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every command block of the README and the guides that says it runs
(a fenced block marked `sh`, or `sh root` where it needs root) runs as
written and exits 0. Other blocks (`text`, `ini`) show commands that need
a NIC, pktgen or minutes, and are not run.

Each block runs in bash -e -o pipefail, with DURATION=5 in its
environment (tools/run.sh's length, 20 s when unset: the figures it
prints need no more), in the source tree (the blocks
say build/, as tools/test.sh builds there: the test skips when the build
under test is elsewhere), with a timeout; anything it started and left
running is killed with its process group, and what it left in
/var/run/dpdk, and any fabric of tools/dcn-fabric it left up, is
removed; at the end, every path under /tmp or /run/dcn that a block
names and that was not there before is removed too.

Usage: doc_commands.py SOURCE_ROOT BUILD_ROOT    Exit 0 pass, 1 fail.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import time

src, build = (os.path.abspath(p) for p in sys.argv[1:3])
TIMEOUT = 240
failed = []


def blocks(path):
    """(line, kind, text) of every ```sh or ```sh root block."""
    out, cur, kind, start = [], None, None, 0
    for n, line in enumerate(open(path), 1):
        m = re.match(r"^```(\S*)\s*(\S*)\s*$", line)
        if cur is None and m and m.group(1):
            if m.group(1) == "sh":
                cur, kind, start = [], m.group(2) or "any", n
            else:
                cur, kind, start = None, "skip", n
                continue
            continue
        if cur is not None:
            if line.startswith("```"):
                out.append((start, kind, "".join(cur)))
                cur = None
            else:
                cur.append(line)
    return out


def fabrics():
    out = subprocess.run([os.path.join(src, "tools", "dcn-fabric"), "list"],
                         capture_output=True, text=True).stdout
    return {l.split()[0] for l in out.splitlines() if l.strip()}


FABRIC_LOGS = "/var/log/dcn-fabric"


def fabric_logs():
    return set(os.listdir(FABRIC_LOGS)) if os.path.isdir(FABRIC_LOGS) else set()


def rundirs():
    return set(os.listdir("/var/run/dpdk")) if os.path.isdir("/var/run/dpdk") \
        else set()


def main():
    files = [os.path.join(src, "README.md"), os.path.join(src, "conf", "README.md")] + \
        sorted(glob.glob(os.path.join(src, "doc", "*.md")))
    if os.path.realpath(os.path.join(src, "build")) != os.path.realpath(build):
        print("SKIP: the documented commands use build/, and the build under "
              "test is %s" % build)
        return 77
    root = os.geteuid() == 0
    ran = skipped = 0
    # Paths the blocks write (/tmp/plan-rrect, /run/dcn/pair): theirs to
    # remove at the end, unless they were there before.
    named = set()
    for f in files:
        for _, _, text in blocks(f):
            named |= set(re.findall(r"(/tmp/[\w.-]+|/run/dcn/[\w.-]+)", text))
    if any(x.startswith("/run/dcn/") for x in named):
        named.add("/run/dcn")  # made by mkdir -p on the way
    existed = {x for x in named if os.path.lexists(x)}
    if True:
        for f in files:
            for line, kind, text in blocks(f):
                where = "%s:%d" % (os.path.relpath(f, src), line)
                first = text.strip().splitlines()[0]
                if kind == "root" and not root:
                    print("  skip: %s (needs root): %s" % (where, first))
                    skipped += 1
                    continue
                t0 = time.time()
                before, up = rundirs(), fabrics() if root else set()
                logs_before = fabric_logs()
                p = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", text],
                                     cwd=src, env=dict(os.environ, DURATION="5"),
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True,
                                     start_new_session=True)
                try:
                    out, _ = p.communicate(timeout=TIMEOUT)
                    rc = p.returncode
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    out, _ = p.communicate()
                    rc = "timeout"
                try:
                    os.killpg(p.pid, signal.SIGKILL)  # what it left running
                except ProcessLookupError:
                    pass
                for d in rundirs() - before:
                    shutil.rmtree(os.path.join("/var/run/dpdk", d),
                                  ignore_errors=True)
                for name in (fabrics() - up) if root else ():
                    subprocess.run([os.path.join(src, "tools", "dcn-fabric"),
                                    "down", "--drop-logs", name],
                                   capture_output=True)
                for name in fabric_logs() - logs_before:  # "down" kept them
                    shutil.rmtree(os.path.join(FABRIC_LOGS, name),
                                  ignore_errors=True)
                ran += 1
                ok = rc == 0
                print("  %s: %5.1f s %s: %s" % ("ok  " if ok else "FAIL",
                                                time.time() - t0, where, first))
                if not ok:
                    failed.append(where)
                    print("    exit %s; its output ends:" % rc)
                    for l in out.splitlines()[-25:]:
                        print("    | " + l)
    for x in sorted(named - existed, reverse=True):  # /run/dcn last
        if os.path.isdir(x) and not os.path.islink(x):
            shutil.rmtree(x, ignore_errors=True)
        elif os.path.lexists(x):
            os.unlink(x)
    if ran < 8:
        failed.append("only %d blocks ran" % ran)
    print("%d blocks ran, %d skipped, %d failed" % (ran, skipped, len(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
