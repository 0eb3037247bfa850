"""Count the house's import circles and the imports that break its layers (figures for a review).

    .venv/bin/python scripts/import_report.py

Reads the layers from pyproject.toml's "studbot layers" contract, builds the import graph with grimp
(import-linter's graph, TYPE_CHECKING and function-level imports included) and prints:
- circles: strongly connected groups of modules (two or more modules that reach each other);
- upward imports: a module importing from a layer above its own, or from a sibling on its own line.
Exit status 1 when either is not zero.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[1]


def layers() -> list[list[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    contract = next(c for c in config["contracts"] if c["type"] == "layers")
    return [[name.strip() for name in line.split("|")] for line in contract["layers"]]


def place(module: str, lines: list[list[str]]) -> tuple[int, str] | None:
    """The line and the layer a module belongs to (the longest matching prefix), or None."""
    best: tuple[int, str] | None = None
    for level, line in enumerate(lines):
        for layer in line:
            if (module == layer or module.startswith(layer + ".")) and (best is None or len(layer) > len(best[1])):
                best = (level, layer)
    return best


def circles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Tarjan's strongly connected components of size two or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(start: str) -> None:
        nonlocal counter
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def upward(graph: grimp.ImportGraph, lines: list[list[str]]) -> list[tuple[str, str]]:
    broken = []
    for importer in sorted(graph.modules):
        mine = place(importer, lines)
        if mine is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            theirs = place(imported, lines)
            if theirs is None or theirs[1] == mine[1]:
                continue
            if theirs[0] <= mine[0]:  # a line above, or a sibling on the same line
                broken.append((importer, imported))
    return broken


def main() -> int:
    sys.path.insert(0, str(ROOT))
    graph = grimp.build_graph("engine", "bot", "adapters", include_external_packages=False)
    lines = layers()
    found = circles(graph)
    broken = upward(graph, lines)
    imports = sum(len(graph.find_modules_directly_imported_by(module)) for module in graph.modules)
    print(f"modules: {len(graph.modules)}   imports: {imports}")
    print(f"circles: {len(found)}")
    for group in found:
        print("  " + " <-> ".join(group))
    print(f"upward or sibling imports: {len(broken)}")
    for importer, imported in broken:
        print(f"  {importer} -> {imported}")
    return 1 if found or broken else 0


if __name__ == "__main__":
    raise SystemExit(main())
