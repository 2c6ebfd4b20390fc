"""Cut a clip job's range out of its parent's source: ``-ss``/``-t``, re-encoded.

The cut re-encodes the video (so it starts exactly at ``start_s``, not at the
keyframe before) with a keyframe every second, and the first audio track as
AAC; what comes out is chunked like any uploaded source. Ten seconds cost about
a second of encoding, whatever the length of the parent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from media_worker.bounded_probe import SourceInfo
from media_worker.errors import UnusableVideoError
from media_worker.ffmpeg_runner import FfmpegRunner, file_input


def cut_clip(runner: FfmpegRunner, source: Path, video: SourceInfo, start_s: float,
             duration_s: float, dest: Path, *,
             on_tick: Callable[[], None] | None = None) -> Path:
    """Write ``duration_s`` seconds of ``source`` from ``start_s`` to ``dest``.
    Raises UnusableVideoError when the range is not inside the video, Ffmpeg*Error."""
    if start_s >= video.duration_s:
        raise UnusableVideoError(
            f"The preview starts at {start_s:.1f} s but the video is only "
            f"{video.duration_s:.1f} s long; pick an earlier moment.")
    args = ["-ss", f"{start_s:.3f}", *file_input(source), "-t", f"{duration_s:.3f}",
            "-map", "0:v:0", "-c:v", "libx264", "-preset", "veryfast", "-crf", "16",
            "-force_key_frames", "expr:gte(t,n_forced*1)"]
    if video.has_audio:
        args += ["-map", "0:a:0", "-c:a", "aac", "-b:a", "160k"]
    runner.run([*args, "-sn", "-dn", "-movflags", "+faststart", str(dest)],
               on_tick=on_tick, what="preview clip")
    return dest
