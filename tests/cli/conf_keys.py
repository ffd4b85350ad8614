#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The configuration's four views agree:

- doc/configuration.md is exactly what `dcnfwd --config-reference` prints;
- `dcnfwd --help` lists the same (section, key) pairs, with the same
  override options;
- the parser takes each key with its default value (`--check-config` on a
  small relay's file with the key added), and refuses a key no table has;
- each override option takes its default and refuses a value out of its
  range, before EAL starts, with the option named.

Usage: conf_keys.py DCNFWD SOURCE_ROOT        Exit 0 pass, 1 fail.
"""
import os
import re
import subprocess
import sys
import tempfile

dcnfwd, src = sys.argv[1:3]
failed = []

BASE = {
    "fabric": ["topology = novacube:k=4,n=2", "node = (0,0)", "role = relay",
               "partial = yes"],
    "port.a": ["dev = net_null0", "fabric_port = 0"],
    "worker.0": ["lcore = 1", "rx = a:0"],
}


def check(cond, msg):
    print("  %s: %s" % ("ok  " if cond else "FAIL", msg))
    if not cond:
        failed.append(msg)


def run(args):
    return subprocess.run([dcnfwd] + args, capture_output=True, text=True)


def reference_keys(text):
    keys, section = [], None
    for line in text.splitlines():
        m = re.match(r"^## \[([a-z_]+)", line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r"^\| `([a-z_]+)` \| (.*?) \| (\S+) \| (`--([a-z-]+)`)? \|",
                     line)
        if m and section:
            keys.append((section, m.group(1), m.group(3), m.group(5)))
    return keys


def help_keys(text):
    keys, section = [], None
    body = text[text.index("Configuration ("):text.index("\nEAL:")]
    for line in body.splitlines():
        m = re.match(r"^  \[([a-z_]+)", line)
        if m:
            section = m.group(1)
            continue
        m = re.match(r"^    ([a-z_]+)(, --([a-z-]+))?", line)
        if m and section:
            keys.append((section, m.group(1), m.group(3)))
    return keys


def config_with(section, line):
    text = ""
    secs = dict((k, list(v)) for k, v in BASE.items())
    if line is not None:
        secs.setdefault(section, []).append(line)
    for s, lines in secs.items():
        text += "[%s]\n%s\n" % (s, "\n".join(lines))
    f = tempfile.NamedTemporaryFile("w", suffix=".ini", delete=False)
    f.write(text)
    f.close()
    return f.name


def main():
    ref = open(os.path.join(src, "doc", "configuration.md")).read()
    gen = run(["--config-reference"])
    check(gen.returncode == 0 and gen.stdout == ref,
          "doc/configuration.md is dcnfwd --config-reference's output")
    rkeys = reference_keys(ref)
    hkeys = help_keys(run(["--help"]).stdout)
    check(len(rkeys) >= 30, "the reference lists %d keys" % len(rkeys))
    check(sorted((s, k, o) for s, k, _, o in rkeys) == sorted(hkeys),
          "--help lists the same %d keys and options" % len(hkeys))

    refused = []
    for section, key, default, option in rkeys:
        sec = {"port": "port.a", "worker": "worker.0"}.get(section, section)
        if any(l.startswith(key + " ") for l in BASE.get(sec, [])):
            line = None          # the base file already gives it
        elif default in ("required", "none"):
            continue
        else:
            line = "%s = %s" % (key, default)
        path = config_with(sec, line)
        p = run(["--check-config", path])
        os.unlink(path)
        if p.returncode != 0:
            refused.append("[%s] %s: %s" % (sec, key, p.stderr.strip()))
    check(not refused, "the parser takes every key at its default%s"
          % ("; refused " + "; ".join(refused) if refused else ""))
    for sec in ("fabric", "port.a", "worker.0", "queues", "flow_control"):
        path = config_with(sec, "no_such_key = 1")
        p = run(["--check-config", path])
        os.unlink(path)
        check(p.returncode != 0 and "no_such_key: unknown key" in p.stderr,
              "[%s] refuses a key no table has" % sec)

    bad = []
    for section, key, default, option in rkeys:
        if option is None:
            continue
        ok = run(["--emulate", "novacube:k=4,n=2", "--" + option,
                  default if default != "default" else "dor"])
        if "EAL options and '--' go first" not in ok.stderr:
            bad.append("--%s %s: %s" % (option, default, ok.stderr.strip()))
        m = re.search(r"\| `%s` \| (\d+)\.\.(\d+)" % key, ref)
        if m:
            over = run(["--emulate", "novacube:k=4,n=2", "--" + option,
                        str(int(m.group(2)) + 1)])
            if "--%s: " % option not in over.stderr or over.returncode != 2:
                bad.append("--%s above its range: %s" % (option,
                                                         over.stderr.strip()))
    check(not bad, "every override takes its default and refuses what is "
          "out of range%s" % ("; " + "; ".join(bad) if bad else ""))
    if failed:
        print("FAIL: %d check(s)" % len(failed))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
