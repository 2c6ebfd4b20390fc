"""Read converted segments one after the other: the concat demuxer over our own list.

The list file is written by us and names only files inside our own temporary
folder, which is why ``-safe 0`` is acceptable here; a user-supplied list or
playlist is never read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from media_worker.ffmpeg_runner import VIDEO_DEMUXERS, file_input


def _quoted(path: Path) -> str:
    # concat list syntax: single-quoted, a quote written as '\''
    return "'" + str(path).replace("'", "'\\''") + "'"


def write_concat_list(segments: Sequence[Path], list_path: Path) -> Path:
    """Write a concat-demuxer list naming ``segments`` (which must lie in the
    list's folder). Raises ValueError for any other path or for an empty list."""
    if not segments:
        raise ValueError("nothing to concatenate")
    root = list_path.parent.resolve()
    lines = []
    for seg in segments:
        resolved = Path(seg).resolve()
        if not resolved.is_relative_to(root) or "\n" in str(resolved):
            raise ValueError(f"refusing to list {seg}: not one of our temporary files")
        lines.append(f"file {_quoted(resolved)}\n")
    list_path.write_text("ffconcat version 1.0\n" + "".join(lines), encoding="utf-8")
    return list_path


def concat_input(segments: Sequence[Path], list_path: Path) -> list[str]:
    """ffmpeg input arguments that read ``segments`` as one video, in order (the
    final mux copies from it: no joined intermediate file). Raises ValueError
    for a bad list (``write_concat_list``)."""
    list_path = write_concat_list(segments, list_path)
    return ["-safe", "0",
            *file_input(list_path, demuxer="concat", format_whitelist=f"concat,{VIDEO_DEMUXERS}")]
