#!/usr/bin/env python3
"""Fails when modules of one crate import each other in a circle.

For every module directory of every crate (`src/` with lib.rs or main.rs,
and each folder with a mod.rs), the sibling modules form a graph: A -> B when
A's code (tests and comments left out) names B through `super::`/`crate::`,
directly or through a name the parent re-exports from B (`pub use b::X`). A
cycle in that graph is reported with its path, and the exit status is 1.
Parent and child (a mod.rs re-exporting its children, a child using
`super::`) do not count: that is how a module exposes its parts.

Usage: scripts/module-cycles.py [crate folders...]   (default: every crate of the workspace)
"""
import os
import re
import sys

CRATES = ["engine", "engine/reference", "data", "search", "book", "selfplay", "nn", "train", "arena", "store", "run", "cli", "python"]


def strip(text):
    text = re.sub(r"#\[cfg\(test\)\]\s*mod tests \{.*", "", text, flags=re.S)
    return re.sub(r"//.*", "", text)


def sibling_cycles(dirpath, modpath):
    parent = next((os.path.join(dirpath, n) for n in ("mod.rs", "lib.rs", "main.rs") if os.path.exists(os.path.join(dirpath, n))), None)
    kids = {}
    for f in sorted(os.listdir(dirpath)):
        p = os.path.join(dirpath, f)
        if f.endswith(".rs") and f not in ("mod.rs", "lib.rs", "main.rs"):
            kids[f[:-3]] = [p]
        elif os.path.isdir(p) and os.path.exists(os.path.join(p, "mod.rs")):
            kids[f] = [os.path.join(r, x) for r, _, fs in os.walk(p) for x in fs if x.endswith(".rs")]
    if not parent or len(kids) < 2:
        return []
    exports = {}
    for child, names in re.findall(r"pub use (\w+)::\{?([\w, \n]+)\}?;", open(parent).read()):
        if child not in kids:
            continue  # a re-export from another crate
        for n in names.split(","):
            exports[n.strip()] = child
    prefix = "::".join(["crate"] + modpath)
    refs = r"\b(?:super|" + re.escape(prefix) + r")::"
    graph = {k: set() for k in kids}
    for k, files in kids.items():
        for p in files:
            text = strip(open(p).read())
            names = re.findall(refs + r"(\w+)", text)
            for group in re.findall(r"use (?:super|" + re.escape(prefix) + r")::\{([^}]*)\}", text):
                names += re.findall(r"\w+", group)
            for n in names:
                target = n if n in kids else exports.get(n)
                if target and target != k:
                    graph[k].add(target)
    cycles, color, stack = [], {}, []

    def dfs(u):
        color[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if color.get(v) == 1:
                cycles.append(stack[stack.index(v):] + [v])
            elif not color.get(v):
                dfs(v)
        stack.pop()
        color[u] = 2

    for u in sorted(graph):
        if not color.get(u):
            dfs(u)
    return cycles


def main():
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    crates = sys.argv[1:] or CRATES
    found = 0
    for crate in crates:
        src = os.path.join(root, crate, "src")
        if not os.path.isdir(src):
            continue
        for dirpath, _, files in os.walk(src):
            modpath = os.path.relpath(dirpath, src).split(os.sep) if dirpath != src else []
            for cycle in sibling_cycles(dirpath, modpath):
                found += 1
                where = "::".join([crate] + modpath)
                print(f"module cycle in {where}: {' -> '.join(cycle)}")
    if found:
        sys.exit(1)
    print(f"no module cycles in {', '.join(crates)}")


if __name__ == "__main__":
    main()
