"""Reads of a user's file that name no formats, found in source code (for tests).

Each ffmpeg argument list with an ``-i`` must hold ``*file_only(...)`` or a
``-format_whitelist`` of its own, and each ``av.open`` read must pass
``options=`` (``stereo_media.demuxers.av_options``): a package's test runs
:func:`unguarded_reads` over its own modules, so a new opener that forgets
the whitelist cannot land (#52, finding 12).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path


def _guarded_args(node: ast.List) -> bool:
    return any((isinstance(e, ast.Starred) and isinstance(e.value, ast.Call)
                and getattr(e.value.func, "id", "") == "file_only")
               or (isinstance(e, ast.Constant) and e.value == "-format_whitelist")
               for e in node.elts)


def unguarded(tree: ast.AST) -> list[int]:
    """Lines in ``tree`` of ffmpeg inputs and ``av.open`` reads without a whitelist."""
    lines = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.List) and not _guarded_args(node)
                and any(isinstance(e, ast.Constant) and e.value == "-i" for e in node.elts)):
            lines.append(node.lineno)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "open" and getattr(node.func.value, "id", "") == "av"):
            writing = len(node.args) > 1 or any(k.arg == "mode" for k in node.keywords)
            if not writing and not any(k.arg == "options" for k in node.keywords):
                lines.append(node.lineno)
    return sorted(lines)


def unguarded_reads(roots: Iterable[Path], *, skip: Iterable[str] = ()) -> dict[str, list[int]]:
    """``{module path: lines}`` of unguarded reads in the packages at ``roots``
    (their ``testing`` folders and the file names in ``skip`` left out)."""
    skipped = set(skip)
    found = {}
    for root in roots:
        for path in sorted(Path(root).rglob("*.py")):
            if "testing" in path.relative_to(root).parts or path.name in skipped:
                continue
            lines = unguarded(ast.parse(path.read_text()))
            if lines:
                found[str(path.relative_to(Path(root).parent))] = lines
    return found
