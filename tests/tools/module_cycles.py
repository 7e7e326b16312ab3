#!/usr/bin/env python3
"""module_cycles.py [--top TREE] [DIR...] - the include cycles between modules (a module: X.c and X.h).

Module A depends on module B when A.c or A.h includes "B.h". Prints each cycle (a strongly
connected set of two or more modules, with the includes that close it) and exits 1 if there
is one; 0 and nothing printed otherwise. With DIRs (relative to the tree's root: this
repository, or TREE), only modules under them count; without, every C folder of the tree.
"""
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def modules(dirs):
    found = {}
    for d in dirs:
        for base, _, files in os.walk(os.path.join(TOP, d)):
            for f in files:
                if f.endswith((".c", ".h")):
                    path = os.path.relpath(os.path.join(base, f), TOP)
                    found.setdefault(path[:-2], []).append(path)
    return found


def edges(found):
    graph = {}
    for mod, paths in found.items():
        deps = {}
        for p in paths:
            with open(os.path.join(TOP, p), encoding="utf-8", errors="replace") as fh:
                for inc in INCLUDE.findall(fh.read()):
                    target = inc[:-2] if inc.endswith(".h") else None
                    if target and target != mod and target in found:
                        deps.setdefault(target, p)
        graph[mod] = deps
    return graph


def cycles(graph):
    """Tarjan's strongly connected components with more than one module."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def main():
    global TOP
    args = sys.argv[1:]
    if args[:1] == ["--top"] and len(args) >= 2:
        TOP, args = os.path.abspath(args[1]), args[2:]
    dirs = args or ["common", "manifests", "signing", "bundler", "unpacker"]
    graph = edges(modules(dirs))
    found = cycles(graph)
    for comp in found:
        print("cycle: " + " ".join(comp))
        for m in comp:
            for dep, via in sorted(graph[m].items()):
                if dep in comp:
                    print("  %s includes %s.h" % (via, dep))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
