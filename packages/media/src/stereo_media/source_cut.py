"""``--start`` / ``--end``: the part of a source between two times, as a file of its own.

A stream copy can only cut at keyframes (seconds off where asked), so the
picture is re-encoded, near-losslessly (x264 at ``-qp 0``: no generation loss
worth the name, fast, temporary), starting exactly at ``start_s``; every other
stream (audio, subtitles, chapters, tags) is copied. Only the last seconds
before the start are decoded (``cut_command``). The copy is an MKV, which
holds any stream the source has, written beside the output and removed by the
caller when the conversion ends.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from shared_types.errors import InvalidRequestError

from stereo_media.demuxers import av_options
from stereo_media.ffmpeg_runner import FfmpegRunner, file_input

PREROLL_S = 10.0  # the keyframe jumped to lies at most this far before the start


def check_span(start_s: float | None, end_s: float | None) -> None:
    """Raise InvalidRequestError for a negative start or an end not after the start."""
    if start_s is not None and start_s < 0:
        raise InvalidRequestError(f"--start {start_s:g} is before the video begins")
    if end_s is not None and end_s <= (start_s or 0):
        raise InvalidRequestError(f"--end {end_s:g} must come after --start {start_s or 0:g}")


def cut_command(source: Path, dest: Path, start_s: float | None, end_s: float | None,
                *, origin_s: float = 0.0) -> list[str]:
    """ffmpeg arguments writing ``source`` from ``start_s`` to ``end_s`` (seconds
    from its beginning; None: its beginning / its end) to the MKV ``dest``.
    ``origin_s`` is the source's first timestamp (a recording's clock may start
    hours in). ffmpeg first jumps to a keyframe up to ``PREROLL_S`` before the
    start (no decoding of everything before it), keeping the source's
    timestamps (``-copyts``), then cuts every stream exactly at the start and
    moves it to 0: a start given before the input alone cut the copied audio
    at the keyframe and the picture at the start, half a second apart."""
    span: list[str] = []
    if start_s:
        at = origin_s + start_s
        span = ["-ss", f"{at:.6f}", "-output_ts_offset", f"{-at:.6f}"]
        seek = ["-ss", f"{max(0.0, start_s - PREROLL_S):.6f}", "-copyts"]
    else:
        seek = []
    if end_s is not None:
        span += ["-t", f"{end_s - (start_s or 0):.6f}"]
    return [*seek, *file_input(source), *span, "-map", "0", "-c", "copy", "-c:v:0",
            "libx264", "-qp", "0", "-preset", "ultrafast", "-f", "matroska", str(dest)]


def _origin_s(source: Path, start_s: float | None) -> float:
    """The source's first timestamp in seconds (0 when it says none). Raises
    InvalidRequestError when it says it ends before ``start_s``."""
    import av

    try:
        with av.open(str(source), options=av_options()) as container:
            origin, length = (container.start_time or 0) / 1e6, container.duration
    except (av.FFmpegError, OSError):
        return 0.0  # the cut's own ffmpeg says what is wrong with it
    if start_s and length is not None and start_s >= length / 1e6:
        raise InvalidRequestError(f"The start ({start_s:g} s) is at or after the end of "
                                  f"the video ({length / 1e6:.1f} s long).")
    return origin


@contextmanager
def source_span(runner: FfmpegRunner, source: Path, folder: Path, *, start_s: float | None,
                end_s: float | None, on_tick: Callable[[], None] | None = None
                ) -> Iterator[Path]:
    """``source`` itself when neither time is given, else a copy of that part of it
    in ``folder`` (removed when the block ends). Raises InvalidRequestError for a
    span that is not one, Ffmpeg*Error when the copy fails. ``on_tick`` is
    called while ffmpeg cuts (a job's keep-alive)."""
    if start_s is None and end_s is None:
        yield source
        return
    check_span(start_s, end_s)
    origin_s = _origin_s(source, start_s)
    # a folder of its own: the copy keeps the source's name (a job's title)
    scratch = Path(tempfile.mkdtemp(prefix=".span-", dir=folder))
    dest = scratch / f"{Path(source).stem}.mkv"
    try:
        runner.run(cut_command(source, dest, start_s, end_s, origin_s=origin_s),
                   what="cut the asked part", on_tick=on_tick)
        yield dest
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
