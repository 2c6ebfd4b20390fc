"""``--start`` / ``--end``: the part of a source between two times, as a file of its own.

A stream copy can only cut at keyframes (seconds off where asked), so the
picture is re-encoded, near-losslessly (x264 at ``-qp 0``: no generation loss
worth the name, fast, temporary), starting exactly at ``start_s``; every other
stream (audio, subtitles, chapters, tags) is copied. The copy is an MKV, which
holds any stream the source has, written beside the output and removed by the
caller when the conversion ends.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from shared_types.errors import InvalidRequestError

from stereo_media.ffmpeg_runner import FfmpegRunner, file_input


def check_span(start_s: float | None, end_s: float | None) -> None:
    """Raise InvalidRequestError for a negative start or an end not after the start."""
    if start_s is not None and start_s < 0:
        raise InvalidRequestError(f"--start {start_s:g} is before the video begins")
    if end_s is not None and end_s <= (start_s or 0):
        raise InvalidRequestError(f"--end {end_s:g} must come after --start {start_s or 0:g}")


def cut_command(source: Path, dest: Path, start_s: float | None,
                end_s: float | None) -> list[str]:
    """ffmpeg arguments writing ``source`` from ``start_s`` to ``end_s`` (seconds
    of its own timeline; None: its beginning / its end) to the MKV ``dest``."""
    span = ["-ss", f"{start_s:.6f}"] if start_s else []
    if end_s is not None:
        span += ["-t", f"{end_s - (start_s or 0):.6f}"]
    # after the input: every stream is read from its beginning and cut exactly at
    # start_s (before it, ffmpeg began the copied audio half a second off the picture)
    return [*file_input(source), *span, "-map", "0", "-c", "copy", "-c:v:0", "libx264",
            "-qp", "0", "-preset", "ultrafast", "-f", "matroska", str(dest)]


@contextmanager
def source_span(runner: FfmpegRunner, source: Path, folder: Path, *, start_s: float | None,
                end_s: float | None) -> Iterator[Path]:
    """``source`` itself when neither time is given, else a copy of that part of it
    in ``folder`` (removed when the block ends). Raises InvalidRequestError for a
    span that is not one, Ffmpeg*Error when the copy fails."""
    if start_s is None and end_s is None:
        yield source
        return
    check_span(start_s, end_s)
    # a folder of its own: the copy keeps the source's name (a job's title)
    scratch = Path(tempfile.mkdtemp(prefix=".span-", dir=folder))
    dest = scratch / f"{Path(source).stem}.mkv"
    try:
        runner.run(cut_command(source, dest, start_s, end_s), what="cut the asked part")
        yield dest
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
