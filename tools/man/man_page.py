#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A manual page (roff, section 1) from a program's --help.

    man_page.py NAME VERSION SUMMARY OUT -- COMMAND...

Runs COMMAND (the program with --help), and writes OUT: NAME and SUMMARY
in NAME, the help text as the DESCRIPTION, verbatim, and the other
programs under SEE ALSO. One source for both: what --help says is what
man says, and a page cannot fall behind its program.
"""
import os
import subprocess
import sys

PROGRAMS = ["dcnfwd", "dcn-topo", "dcn-gen", "dcn-fcview", "dcn-plan",
            "dcn-fabric", "dcn-exporter", "dcn-telemetry", "dcn-host-if",
            "dcn-pktgen", "pktgen-relay"]


def roff_text(line):
    """One line of help as roff prints it: backslashes escaped, and a
    line starting with a dot or quote not taken for a request."""
    line = line.replace("\\", "\\e")
    if line.startswith((".", "'")):
        line = "\\&" + line
    return line


def main():
    if len(sys.argv) < 7 or sys.argv[5] != "--":
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    name, version, summary, out = sys.argv[1:5]
    # argparse wraps to the terminal: the same page from every build.
    env = dict(os.environ, COLUMNS="80")
    r = subprocess.run(sys.argv[6:], capture_output=True, text=True, env=env)
    if r.returncode != 0 or not r.stdout.strip():
        print("man_page.py: %s --help: exit %d: %s" %
              (name, r.returncode, r.stderr.strip()), file=sys.stderr)
        return 1
    lines = [
        '.TH %s 1 "" "dcnfwd %s" "dcnfwd manual"' % (name.upper(), version),
        ".SH NAME",
        "%s \\- %s" % (name, summary),
        ".SH DESCRIPTION",
        ".nf",
    ]
    lines += [roff_text(x.rstrip()) for x in r.stdout.splitlines()]
    lines += [
        ".fi",
        ".SH FILES",
        "The guides: /usr/share/doc/dcnfwd (under the installation's prefix).",
        ".SH SEE ALSO",
        ", ".join("\\fB%s\\fR(1)" % p for p in PROGRAMS if p != name),
    ]
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
