"""Find import cycles among a package's own modules.

Reads the source (``ast``), so imports inside functions count too: a cycle
hidden by a function-local import is still a cycle. An edge is an explicit
``import a.b`` / ``from a.b import c`` of another module of the same package;
the implicit import of a parent package's ``__init__`` is not an edge.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path


def module_imports(package_dir: Path) -> dict[str, set[str]]:
    """``{module: modules of the same package it imports}`` for every module
    under ``package_dir`` (a folder with ``__init__.py``)."""
    package_dir = Path(package_dir)
    root = package_dir.name
    modules = {_module_name(p, package_dir.parent): p for p in package_dir.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                targets.update(f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules
                               else node.module for a in node.names)
        graph[name] = {t for t in targets if t in modules and t != name and
                       t.split(".")[0] == root}
    return graph


def find_cycles(package_dir: Path) -> list[list[str]]:
    """Every import cycle among the package's modules, each as the list of its
    modules (empty when the imports form a DAG)."""
    graph = module_imports(package_dir)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def _module_name(path: Path, src: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def top_level_modules_loaded_by(*modules: str) -> set[str]:
    """The top-level names in ``sys.modules`` after a fresh interpreter imports
    ``modules`` (to check that a package does not pull in torch, boto3, ...)."""
    code = ("import importlib, sys\n"
            f"for m in {list(modules)!r}: importlib.import_module(m)\n"
            "print('\\n'.join(sorted({n.split('.')[0] for n in sys.modules})))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    return set(done.stdout.split())
