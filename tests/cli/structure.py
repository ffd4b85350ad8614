#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The codebase's shape, checked:

- no source file in app/ is over 600 lines, no C file in lib/ over 700;
- no circle among app/dcnfwd's files: A depends on B when A's object file
  uses a symbol B's defines (nm), so a circle is found even where a
  shared header hides it;
- no circle among the files of each library, by the same rule, nor among
  those of each tool written in C;
- no circle among the headers of each library (what includes what);
- no circle among app/dcnfwd's headers (what includes what);
- no circle among the libraries: lib/X depends on lib/Y when a file of X
  includes a header of Y;
- every drop reason lib/fabric declares (DCN_DROP_REASONS) is one some
  code of lib/ or app/ gives: a reason never counted would show as 0 in
  every report, whatever is lost.

A circle is printed when found.
Usage: structure.py SOURCE_ROOT BUILD_ROOT      Exit 0 pass, 1 fail.
"""
import glob
import os
import re
import subprocess
import sys

src, build = sys.argv[1:3]
MAX_LINES = 600
MAX_LIB_LINES = 700
failed = []


def check(cond, msg):
    print("  %s: %s" % ("ok  " if cond else "FAIL", msg))
    if not cond:
        failed.append(msg)


def find_cycle(graph):
    """A cycle of graph (dict node -> set of nodes) as a list, or None."""
    WHITE, GREY, BLACK = 0, 1, 2
    color = {n: WHITE for n in graph}
    stack = []

    def visit(n):
        color[n] = GREY
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if m not in color:
                continue
            if color[m] == GREY:
                return stack[stack.index(m):] + [m]
            if color[m] == WHITE:
                c = visit(m)
                if c:
                    return c
        stack.pop()
        color[n] = BLACK
        return None

    for n in sorted(graph):
        if color[n] == WHITE:
            c = visit(n)
            if c:
                return c
    return None


def includes(path):
    return re.findall(r'^#include "([^"]+)"', open(path).read(), re.M)


def sizes():
    for what, pattern, limit in (
            ("files in app/", os.path.join("app", "**", "*.[ch]"), MAX_LINES),
            ("C files in lib/", os.path.join("lib", "*", "*.c"), MAX_LIB_LINES)):
        files = glob.glob(os.path.join(src, pattern), recursive=True)
        big = ["%s (%d)" % (os.path.relpath(f, src), n) for f in files
               for n in [sum(1 for _ in open(f))] if n > limit]
        check(files and not big, "%d %s, none over %d lines%s"
              % (len(files), what, limit, ": " + ", ".join(big) if big else ""))


def call_graph(objs):
    """File -> the files whose symbols it uses, from the objects' nm."""
    defined, used = {}, {}
    for o in objs:
        mod = os.path.basename(o).split(".")[0]
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        used[mod] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                used[mod].add(f[1])
            elif len(f) == 3 and f[1] in "TDBRC":
                defined[f[2]] = mod
    return {m: {defined[s] for s in syms if s in defined and defined[s] != m}
            for m, syms in used.items()}


def lib_calls():
    """No circle among the files of any library (lib/route's route.c,
    route_tra.c and rtable.c used to make one)."""
    libs = sorted(glob.glob(os.path.join(build, "lib", "*", "*.a.p")))
    bad = []
    for d in libs:
        cycle = find_cycle(call_graph(glob.glob(os.path.join(d, "*.o"))))
        if cycle:
            bad.append("%s: %s" % (os.path.basename(os.path.dirname(d)),
                                   " -> ".join(cycle)))
    check(len(libs) >= 8 and not bad, "no call circle among the files of "
          "any of %d libraries%s" % (len(libs), ": " + "; ".join(bad) if bad else ""))


def tool_calls():
    """No circle among the files of each tool written in C."""
    tools = sorted(glob.glob(os.path.join(build, "tools", "*", "*.p")))
    bad = []
    for d in tools:
        cycle = find_cycle(call_graph(glob.glob(os.path.join(d, "*.o"))))
        if cycle:
            bad.append("%s: %s" % (os.path.basename(d), " -> ".join(cycle)))
    check(tools and not bad, "no call circle among the files of any of %d "
          "tools in C%s" % (len(tools), ": " + "; ".join(bad) if bad else ""))


def lib_header_includes():
    """No include circle among each library's own headers."""
    bad, n = [], 0
    for d in sorted(glob.glob(os.path.join(src, "lib", "*"))):
        graph = {}
        for f in glob.glob(os.path.join(d, "*.h")):
            h = os.path.basename(f)
            graph[h] = {i for i in includes(f)
                        if os.path.exists(os.path.join(d, i)) and i != h}
        n += len(graph)
        cycle = find_cycle(graph)
        if cycle:
            bad.append("%s: %s" % (os.path.basename(d), " -> ".join(cycle)))
    check(n and not bad, "no include circle among the %d headers of the "
          "libraries%s" % (n, ": " + "; ".join(bad) if bad else ""))


def app_calls():
    objs = glob.glob(os.path.join(build, "app", "dcnfwd", "dcnfwd.p", "*.o"))
    graph = call_graph(objs)
    cycle = find_cycle(graph)
    check(len(objs) >= 10 and cycle is None,
          "no call circle among %d app files%s"
          % (len(objs), ": " + " -> ".join(cycle) if cycle else ""))


def app_includes():
    d = os.path.join(src, "app", "dcnfwd")
    graph = {}
    for f in glob.glob(os.path.join(d, "*.h")):
        h = os.path.basename(f)
        graph[h] = {i for i in includes(f)
                    if os.path.exists(os.path.join(d, i)) and i != h}
    cycle = find_cycle(graph)
    check(cycle is None, "no include circle among %d app headers%s"
          % (len(graph), ": " + " -> ".join(cycle) if cycle else ""))


def lib_includes():
    libs = sorted(p for p in os.listdir(os.path.join(src, "lib"))
                  if os.path.isdir(os.path.join(src, "lib", p)))
    owner = {}
    for l in libs:
        for h in glob.glob(os.path.join(src, "lib", l, "*.h")):
            owner[os.path.basename(h)] = l
    graph = {l: set() for l in libs}
    for l in libs:
        for f in glob.glob(os.path.join(src, "lib", l, "*.[ch]")):
            for i in includes(f):
                if i in owner and owner[i] != l:
                    graph[l].add(owner[i])
    cycle = find_cycle(graph)
    check(cycle is None, "no include circle among %d libraries%s"
          % (len(libs), ": " + " -> ".join(cycle) if cycle else ""))


def drop_reasons():
    hdr = os.path.join(src, "lib", "fabric", "dcn_fabric.h")
    with open(hdr) as f:
        text = f.read()
    block = text[text.index("#define DCN_DROP_REASONS"):]
    block = block[:block.index("enum dcn_drop_reason")]
    names = re.findall(r"_\((\w+),", block)
    code = ""
    for path in glob.glob(os.path.join(src, "lib", "*", "*.[ch]")) + \
            glob.glob(os.path.join(src, "app", "*", "*.[ch]")):
        if os.path.basename(path) != "dcn_fabric.h":
            with open(path) as f:
                code += f.read()
    unused = [n for n in names if not re.search(r"\bDCN_DROP_%s\b" % n, code)]
    check(names and not unused, "every one of the %d drop reasons is given by "
          "some code%s" % (len(names), ": not " + ", ".join(unused) if unused else ""))


def self_test():
    """The checker finds a circle it is shown."""
    check(find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
          and find_cycle({"a": {"b"}, "b": set()}) is None,
          "the circle finder finds a -> b -> c -> a and nothing in a -> b")


self_test()
sizes()
app_calls()
lib_calls()
tool_calls()
app_includes()
lib_header_includes()
lib_includes()
drop_reasons()
if failed:
    print("FAIL: %d check(s)" % len(failed))
    sys.exit(1)
print("ok")
