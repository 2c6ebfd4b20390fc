"""Every read of a user's file in the engine and in the modules it shares
names the formats it may be (#52, finding 12): each ffmpeg argument list with
an ``-i`` takes ``stereo_media.demuxers.file_only`` and each ``av.open``
passes options (``av_options``). Read from the source, so a new opener that
forgets cannot land; the control shows the scan finds one that forgets."""

from __future__ import annotations

import ast
from pathlib import Path

import stereo_media

import stereo_inference

ROOTS = [Path(stereo_media.__file__).parent, Path(stereo_inference.__file__).parent]
NOT_FFMPEG = {"iw3.py"}  # the -i of iw3's own command line, not of ffmpeg's


def unguarded(tree: ast.AST) -> list[int]:
    """Lines of ffmpeg argument lists with ``-i`` and neither ``*file_only(...)``
    nor ``-format_whitelist`` in them, and
    of ``av.open`` reads without ``options=``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.List) and any(
                isinstance(e, ast.Constant) and e.value == "-i" for e in node.elts):
            if not any((isinstance(e, ast.Starred) and isinstance(e.value, ast.Call)
                        and getattr(e.value.func, "id", "") == "file_only")
                       or (isinstance(e, ast.Constant) and e.value == "-format_whitelist")
                       for e in node.elts):
                lines.append(node.lineno)
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "open" and getattr(node.func.value, "id", "") == "av"):
            writing = len(node.args) > 1 or any(k.arg == "mode" for k in node.keywords)
            if not writing and not any(k.arg == "options" for k in node.keywords):
                lines.append(node.lineno)
    return lines


def test_every_read_of_a_file_names_its_formats():
    found = {}
    for root in ROOTS:
        for path in root.rglob("*.py"):
            if "testing" in path.parts or path.name in NOT_FFMPEG:
                continue
            lines = unguarded(ast.parse(path.read_text()))
            if lines:
                found[str(path.relative_to(root.parent))] = lines
    assert found == {}


def test_the_scan_finds_a_read_that_forgets():  # the control
    forgetful = ast.parse('import av\nav.open(str(p))\nargs = ["-protocol_whitelist", "file", '
                          '"-i", str(p)]\nok = [*file_only(), "-i", str(p)]\n')
    assert unguarded(forgetful) == [2, 3]
