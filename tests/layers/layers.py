#!/usr/bin/env python3
"""No include goes back up (issue 47 item 4): each folder of src/ includes only
itself and the folders below it, in the order src/CMakeLists.txt draws.

Usage: layers.py ROOT. Prints every include that goes up or sideways with its
file and line, and exits 1 when there is one (0 when none)."""
import os
import re
import sys

# Lowest first; folders on one line are side by side and never include each other.
LAYERS = [["util"], ["engine", "counters", "results"], ["hw", "model"], ["predict"], ["report"],
          ["run"], ["analysis"], ["sweep"], ["cluster", "serve"], ["experiments"]]
HEIGHT = {folder: i for i, row in enumerate(LAYERS) for folder in row}
INCLUDE = re.compile(r'#include "([a-z_]+)/')


def violations(root):
    src = os.path.join(root, "src")
    for folder in sorted(os.listdir(src)):
        if not os.path.isdir(os.path.join(src, folder)):
            continue
        if folder not in HEIGHT:
            yield f"src/{folder}: a folder without a layer (add it to LAYERS and src/CMakeLists.txt)"
            continue
        for dirpath, _, files in os.walk(os.path.join(src, folder)):
            if folder == "engine" and "/worker" in dirpath:
                continue  # the worker binary's side, linked on its own (engine/worker)
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                with open(path, errors="replace") as f:
                    for line_no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == folder or m.group(1) not in HEIGHT:
                            continue
                        if HEIGHT[m.group(1)] >= HEIGHT[folder]:
                            rel = os.path.relpath(path, root)
                            yield f"{rel}:{line_no}: {folder} includes {m.group(1)}/ (not below it)"


def main():
    found = list(violations(sys.argv[1] if len(sys.argv) > 1 else "."))
    for v in found:
        print(v)
    print(f"{len(found)} includes going up or sideways")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
