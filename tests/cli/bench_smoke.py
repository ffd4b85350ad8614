#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A benchmark as a smoke test: it runs (a short form, one trial), exits 0
and prints its figure lines. The figures themselves are not judged: the
docs quote the full commands' (doc/benchmarking.md).

  bench_smoke.py [--expect REGEX]... -- COMMAND [ARG]...

Each --expect must match some line of the benchmark's output, with a
number on it (a figure, not a heading). The output is passed through.
Exit: the benchmark's 77 (cannot run here) as is; 1 when it fails or a
figure line is missing; else 0.
"""
import re
import subprocess
import sys


def main():
    args = sys.argv[1:]
    if "--" not in args:
        sys.exit(__doc__)
    i = args.index("--")
    opts, cmd = args[:i], args[i + 1:]
    expect = [opts[k + 1] for k in range(len(opts) - 1) if opts[k] == "--expect"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    sys.stdout.write(p.stdout)
    if p.returncode == 77:
        return 77
    bad = []
    if p.returncode != 0:
        bad.append("the benchmark exited %d" % p.returncode)
    lines = p.stdout.splitlines()
    for pat in expect:
        rx = re.compile(pat)
        if not any(rx.search(l) and re.search(r"\d", l) for l in lines):
            bad.append("no figure line matching %r" % pat)
    for b in bad:
        print("FAIL: " + b)
    if not bad:
        print("ok: ran and printed %d figure line(s) of %d asked" %
              (len(expect), len(expect)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
