#!/usr/bin/env python3
"""include-graph.py - the two structural rules of the source tree (issues 9 and 26), from its
#includes.

1. Layers: every .c and .h of the tree lies in one layer of LAYERS below, and includes only
   from its own layer or one below it (the layers it names, and theirs, transitively). Two
   layers neither of which lies below the other (unpacker/install and unpacker/validate, the
   bundler and the unpacker) may not include each other. LAYERS is the one place the order
   is written; docs/ARCHITECTURE.md shows it (include-graph.py --layers prints it).
2. No cycle: in the graph of quoted #includes between the project's files, where a .c and
   its own .h are one module (x.c including x.h is not an arrow), no module reaches itself.
   A cycle is reported with the files whose #include lines make it.

Usage: include-graph.py [TOP]   (TOP: the checkout, default: the current directory)
       include-graph.py --layers  (the layer table, lowest first, as Markdown)
       include-graph.py --objects FILE.c [PLATFORM.c...]  (the .c files FILE.c links: see
                                   link_sources; the Makefile's unit tests use it)
Exit 0 when every finding is in the allow-list below, 1 otherwise. One line per finding.
"""
import os
import re
import sys

# The folders whose sources are checked (DESIGN §1); tests and build outputs are not.
SOURCE_DIRS = ("common", "manifests", "signing", "bundler", "unpacker")
# The layers, lowest first: (name, the folders (ending in /) or files in it, the layers
# directly below it). A path belongs to the layer of its longest matching entry.
LAYERS = (
    ("common", ("common/",), ()),
    ("manifests", ("manifests/",), ("common",)),
    ("signing", ("signing/",), ("common",)),
    ("unpacker/target", ("unpacker/target/",), ("manifests", "signing")),
    ("unpacker/environment", ("unpacker/environment/",), ("unpacker/target",)),
    ("unpacker/install", ("unpacker/install/",), ("unpacker/environment",)),
    ("unpacker/validate", ("unpacker/validate/",), ("unpacker/environment",)),
    ("unpacker/cli", ("unpacker/cli/",), ("unpacker/install", "unpacker/validate")),
    ("bundler", ("bundler/",), ("manifests", "signing")),
    ("bundler/cli", ("bundler/main.c", "bundler/help.c", "bundler/help.h", "bundler/cmdtable.c",
                     "bundler/cmdtable.h", "bundler/verbs.c", "bundler/verbs.h"), ("bundler",)),
)

# Known violations, reported as "allowed" without failing: none. A violation is fixed, not
# listed; an entry here would need its reason beside it.
ALLOWED_LAYERING = set()
ALLOWED_CYCLES = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def source_files(top):
    for d in SOURCE_DIRS:
        for root, dirs, files in os.walk(os.path.join(top, d)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(root, f), top)


def resolve(top, including, name):
    """A quoted include as a path in the checkout: from the top (-I.), else beside the file."""
    for candidate in (name, os.path.join(os.path.dirname(including), name)):
        candidate = os.path.normpath(candidate)
        if os.path.isfile(os.path.join(top, candidate)):
            return candidate
    return None  # generated (build/) or a system header


def layer_of(path):
    """The layer a path lies in (its longest matching entry in LAYERS), or None."""
    best, length = None, -1
    for name, entries, _ in LAYERS:
        for entry in entries:
            hit = path.startswith(entry) if entry.endswith("/") else path == entry
            if hit and len(entry) > length:
                best, length = name, len(entry)
    return best


def below():
    """Each layer -> every layer below it (transitively)."""
    direct = {name: set(under) for name, _, under in LAYERS}
    result = {}
    for name, _, _ in LAYERS:  # lowest first: a layer's own lower layers are done already
        result[name] = set(direct[name])
        for d in direct[name]:
            result[name] |= result[d]
    return result


def print_layers():
    print("| layer | folders and files | may include (besides itself) |")
    print("|---|---|---|")
    everything_below = below()
    for name, entries, _ in LAYERS:
        lower = [n for n, _, _ in LAYERS if n in everything_below[name]]
        print(f"| {name} | {', '.join('`' + e + '`' for e in entries)} | "
              f"{', '.join(lower) if lower else '(nothing)'} |")


def module(path):
    return os.path.splitext(path)[0]


def strongly_connected(graph):
    """Tarjan's algorithm, iterative: the components of more than one module."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


# The header the platform layer implements in files of other names (platform_posix*.c, or
# platform_win*.c): the caller says which.
PLATFORM_HEADER = "common/platform.h"


def rows_sources(header):
    """A table of rows (x_rows.h: manifests/product_rows.h) is defined one row a file, beside
    it: x_<row>.c (product_cudnn.c). A header of another name brings none."""
    folder, name = os.path.split(header)
    if not name.endswith("_rows.h"):
        return []
    stem = name[: -len("_rows.h")] + "_"
    return sorted(os.path.join(folder, f) for f in os.listdir(folder or ".")
                  if f.startswith(stem) and f.endswith(".c"))


def link_sources(start, platform_sources):
    """The .c files that start links: what its quoted #includes reach, transitively, where a
    header brings its own .c (x.h: x.c), PLATFORM_HEADER the platform_sources given, and a
    table of rows its rows (rows_sources)."""
    seen, todo, found = set(), [start], set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if path.endswith(".c") and path != start:
            found.add(path)
        if path.endswith(".h"):
            own = path[:-2] + ".c"
            if os.path.isfile(own):
                todo.append(own)
            if path == PLATFORM_HEADER:
                todo.extend(platform_sources)
            todo.extend(rows_sources(path))
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        todo.extend(t for t in (resolve(".", path, n) for n in INCLUDE.findall(text)) if t)
    return sorted(found)


def main():
    if sys.argv[1:] == ["--layers"]:
        print_layers()
        return 0
    if sys.argv[1:2] == ["--objects"] and len(sys.argv) > 2:
        print(" ".join(link_sources(os.path.normpath(sys.argv[2]), sys.argv[3:])))
        return 0
    top = sys.argv[1] if len(sys.argv) > 1 else "."
    graph = {}   # module -> modules it includes
    arrows = {}  # (module, module) -> the "file -> header" lines that make the arrow
    layering = set()
    unplaced = []
    allowed_below = below()
    for path in source_files(top):
        with open(os.path.join(top, path), encoding="utf-8", errors="replace") as f:
            text = f.read()
        graph.setdefault(module(path), set())
        here = layer_of(path)
        if here is None:
            unplaced.append(path)
        for name in INCLUDE.findall(text):
            target = resolve(top, path, name)
            if not target:
                continue
            there = layer_of(target)
            if here and there and there != here and there not in allowed_below[here]:
                layering.add((path, target))
            a, b = module(path), module(target)
            if a != b:
                graph[a].add(b)
                arrows.setdefault((a, b), []).append(f"{path} -> {target}")

    failed = bool(unplaced)
    for path in unplaced:
        print(f"include-graph: {path} lies in no layer: put it in a folder of LAYERS "
              f"(tools/include-graph.py)")
    for path, target in sorted(layering):
        allowed = (path, target) in ALLOWED_LAYERING
        failed |= not allowed
        print(f"include-graph: {'allowed (known): ' if allowed else ''}{path} includes "
              f"{target}: {layer_of(path)} may not include from {layer_of(target)} (the layer "
              f"order of tools/include-graph.py)")
    cycles = strongly_connected(graph)
    for component in sorted(cycles, key=sorted):
        lines = sorted(line for (a, b), ls in arrows.items()
                       if a in component and b in component for line in ls)
        allowed = component in ALLOWED_CYCLES
        failed |= not allowed
        print(f"include-graph: {'allowed (known): ' if allowed else ''}include cycle between "
              f"{', '.join(sorted(component))}: {'; '.join(lines)}")
    for path, target in sorted(ALLOWED_LAYERING - layering):
        print(f"include-graph: note: the allow-list's {path} -> {target} is gone: remove it")
    for component in sorted(ALLOWED_CYCLES - set(cycles), key=sorted):
        print(f"include-graph: note: the allow-list's cycle {', '.join(sorted(component))} is "
              f"gone: remove it")
    if not failed:
        print(f"include-graph: passes ({len(graph)} modules in {len(LAYERS)} layers: no layering "
              f"violation or cycle but the allowed)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
