#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""dcnfwd's log: a type a component, and the journal.

Usage: log_components.py DCNFWD CONF_DIR

1. --log-level=dcnfwd.fc:debug shows flow control's debug lines (a
   node's queues) and no other component's (a table published, the
   link component's); --log-level=dcnfwd.link:debug the other way round.
   Both in an emulated LaScaDa with a cable pulled, so tables are
   published.
2. As root: a start-up refusal (a worker on an lcore EAL was not given,
   found after EAL is up) and the worker lines of a start reach syslog,
   read from a socket of the test's own at /dev/log (bound over the
   system's in a mount namespace of its own when there is one), which is
   removed at the end.

Exit 0 pass, 1 fail, 77 skip (EAL cannot start here).
"""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

EAL = ["-l", "0-1", "--no-huge", "-m", "1024", "--no-pci"]
failed = []


def check(cond, msg):
    print("%s %s" % ("ok  " if cond else "FAIL", msg))
    if not cond:
        failed.append(msg)


def run(dcnfwd, eal_extra, args, tag, prefix_cmd=()):
    prefix = "dcn-log-%s-%d" % (tag, os.getpid())
    cmd = list(prefix_cmd) + [dcnfwd] + EAL + eal_extra + \
        ["--file-prefix=" + prefix, "--"] + args
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree("/var/run/dpdk/" + prefix, ignore_errors=True)
    if "EAL init failed" in p.stderr or "Cannot init" in p.stderr:
        print("SKIP: EAL did not start:", p.stderr[-400:])
        sys.exit(77)
    return p


def components(dcnfwd):
    emu = ["--emulate", "lascada:n=2,k=2", "--duration", "2", "--stats", "0",
           "--unplug", "busiest"]
    fc = run(dcnfwd, ["--log-level=dcnfwd.fc:debug"], emu, "fc").stderr
    link = run(dcnfwd, ["--log-level=dcnfwd.link:debug"], emu, "link").stderr
    fc_line, table_line = "flow control: ", "published, "
    check(fc_line in fc and table_line not in fc,
          "dcnfwd.fc:debug: flow control's debug lines (%d), no table's (%d)"
          % (fc.count(fc_line), fc.count(table_line)))
    check(table_line in link and fc_line not in link,
          "dcnfwd.link:debug: the tables' debug lines (%d), no flow control's (%d)"
          % (link.count(table_line), link.count(fc_line)))


def journal(dcnfwd, conf_dir):
    if os.geteuid() != 0:
        print("skip syslog part: not root")
        return
    tmp = tempfile.mkdtemp(prefix="dcn-log-")
    sock_path = os.path.join(tmp, "log")
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    s.bind(sock_path)
    made_dev_log = False
    if os.path.exists("/dev/log"):
        # The system's journal stays as it is: our socket is bound over
        # /dev/log in a mount namespace dcnfwd alone runs in.
        wrap = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                'mount --bind "$0" /dev/log && exec "$@"', sock_path]
    else:
        os.symlink(sock_path, "/dev/log")
        made_dev_log = True
        wrap = []
    try:
        with open(os.path.join(conf_dir, "pktgen-relay.ini")) as f:
            text = f.read()
        conf = os.path.join(tmp, "relay.ini")
        with open(conf, "w") as f:
            f.write(text.replace("lcore = 1", "lcore = 3")
                    .replace("socket=/tmp/", "socket=%s/" % tmp))
        bad = run(dcnfwd, ["--syslog=local0"], ["--config", conf], "sys1", wrap)
        good = run(dcnfwd, ["--syslog=local0"],
                   ["--emulate", "novacube:k=4,n=1", "--duration", "1",
                    "--stats", "0"], "sys2", wrap)
        got = []
        s.settimeout(0.5)
        deadline = time.time() + 3
        while time.time() < deadline:
            try:
                got.append(s.recv(65536).decode(errors="replace"))
            except socket.timeout:
                break
        text = "\n".join(got)
        refusal = "lcore 3 is not in EAL's lcore list"
        check(bad.returncode != 0 and refusal in bad.stderr and refusal in text,
              "a start-up refusal on stderr and in syslog (%d lines read)" % len(got))
        check(good.returncode == 0 and "dcnfwd: worker 0 on lcore 1" in text,
              "a start's worker line in syslog")
    finally:
        s.close()
        if made_dev_log:
            os.unlink("/dev/log")
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    dcnfwd, conf_dir = sys.argv[1:3]
    components(dcnfwd)
    journal(dcnfwd, conf_dir)
    print("FAIL" if failed else "OK")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
