"""A job's poster frame: one small JPEG from early in the source, for job lists.

A poster is a nicety: failing to make one is logged, never fails the job.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from shared_types import keys
from shared_types.errors import StereoSpotError
from shared_types.ports import ObjectStorage
from stereo_media.errors import FfmpegFailedError
from stereo_media.ffmpeg_runner import FfmpegRunner

from media_worker.seeking import seek_attempts

log = logging.getLogger(__name__)

POSTER_WIDTH = 320
# Far enough in to skip a black first frame, never past a short clip's middle.
POSTER_AT_S = 1.0


def jpeg_scale(width: int) -> str:
    """The filter a JPEG frame of ``width`` pixels is made with: scaled, and
    moved to the full range JPEG holds (FFmpeg's MJPEG encoder refuses a
    limited-range frame, which a seek may hand it, as "non-standard")."""
    return f"scale={width}:-2:out_range=full,format=yuvj420p"


def poster_time(duration_s: float) -> float:
    """Where in the video the poster frame is taken (seconds)."""
    return max(0.0, min(POSTER_AT_S, duration_s / 2))


def make_poster(runner: FfmpegRunner, source_args: Sequence[str], duration_s: float,
                dest: Path) -> Path:
    """Write a JPEG of one frame of the input ``source_args`` name (ffmpeg input
    arguments), ``POSTER_WIDTH`` wide, to ``dest``; from the first frame when
    there is none after :func:`poster_time` (a clip of a frame or two). Raises
    Ffmpeg*Error."""
    def frame_at(at: float) -> bool:
        return frame_to_jpeg(runner, at, source_args, dest, width=POSTER_WIDTH, quality=5,
                             what="poster frame")

    at = poster_time(duration_s)
    if not (at > 0 and frame_at(at)) and not frame_at(0.0):  # no frame after it: the first
        raise FfmpegFailedError("ffmpeg made no poster frame")
    return dest


def frame_to_jpeg(runner: FfmpegRunner, at: float, source_args: Sequence[str], dest: Path,
                  *, width: int, quality: int, what: str) -> bool:
    """Write the picture at ``at`` seconds of the input ``source_args`` name to
    ``dest`` as a JPEG ``width`` wide (``-q:v quality``), read from where
    ``seeking.seek_attempts`` says; False (logged) when no attempt made it."""
    for attempt in seek_attempts(at, source_args):
        dest.unlink(missing_ok=True)
        try:
            runner.run([*attempt, "-map", "0:v:0", "-frames:v", "1", "-vf", jpeg_scale(width),
                        "-q:v", str(quality), str(dest)], what=what)
        except StereoSpotError as exc:
            log.info("%s at %.3f s not made this way: %s", what, at, exc)
            continue
        if dest.exists() and dest.stat().st_size > 0:
            return True
    log.warning("%s at %.3f s not made", what, at)
    return False


def store_poster(runner: FfmpegRunner, source_args: Sequence[str], duration_s: float,
                 work: Path, storage: ObjectStorage, job_id: str) -> bool:
    """Make the job's poster and put it at ``keys.poster_key``; False (logged)
    when that failed."""
    try:
        path = make_poster(runner, source_args, duration_s, work / "poster.jpg")
        storage.put_file(keys.poster_key(job_id), path, content_type="image/jpeg")
    except (StereoSpotError, OSError) as exc:
        log.warning("job_id=%s no poster frame: %s", job_id, exc)
        return False
    return True
