"""Read converted segments one after the other: the concat demuxer over our own list.

The list file is written by us and names only files inside our own temporary
folder, which is why ``-safe 0`` is acceptable here; a user-supplied list or
playlist is never read.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from stereo_media.ffmpeg_runner import VIDEO_DEMUXERS, file_input


def _quoted(path: Path) -> str:
    # concat list syntax: single-quoted, a quote written as '\''
    return "'" + str(path).replace("'", "'\\''") + "'"


def write_concat_list(segments: Sequence[Path], list_path: Path,
                      durations_us: Sequence[int | None] | None = None) -> Path:
    """Write a concat-demuxer list naming ``segments`` (which must lie in the
    list's folder), each with its entry of ``durations_us`` as its ``duration``
    where that is not None (``media_worker.segment_timeline``). Raises
    ValueError for any other path, for an empty list or for durations that do
    not match the segments."""
    if not segments:
        raise ValueError("nothing to concatenate")
    durations = list(durations_us) if durations_us is not None else [None] * len(segments)
    if len(durations) != len(segments):
        raise ValueError(f"{len(durations)} durations for {len(segments)} segments")
    root = list_path.parent.resolve()
    lines = []
    for seg, duration in zip(segments, durations, strict=True):
        resolved = Path(seg).resolve()
        if not resolved.is_relative_to(root) or "\n" in str(resolved):
            raise ValueError(f"refusing to list {seg}: not one of our temporary files")
        lines.append(f"file {_quoted(resolved)}\n")
        if duration is not None:
            lines.append(f"duration {int(duration)}us\n")
    list_path.write_text("ffconcat version 1.0\n" + "".join(lines), encoding="utf-8")
    return list_path


def concat_input(segments: Sequence[Path], list_path: Path,
                 durations_us: Sequence[int | None] | None = None) -> list[str]:
    """ffmpeg input arguments that read ``segments`` as one video, in order (the
    final mux copies from it: no joined intermediate file), each lasting its
    ``durations_us`` entry when given. Raises ValueError for a bad list
    (``write_concat_list``)."""
    list_path = write_concat_list(segments, list_path, durations_us)
    return ["-safe", "0",
            *file_input(list_path, demuxer="concat", format_whitelist=f"concat,{VIDEO_DEMUXERS}")]
