"""Cut a clip job's range out of its parent's source: ``-ss``/``-t``, re-encoded.

The cut re-encodes the video (so it starts exactly at ``start_s``, not at the
keyframe before) with a keyframe every second, and the first audio track (if
any) as AAC; what comes out is probed and chunked like any uploaded source.
The input is read where it lies (``played_timeline.played_source``: the
stored file, or a presigned URL ffmpeg reads with Range requests; a joined
recording's continuous copy) and ``-ss`` comes before it, so ffmpeg seeks:
ten seconds of a two-hour film on S3 read about ten seconds' worth of bytes,
not the film. The parent's packets are not probed again (that would read all
of it; only its header is); the range was checked against the duration
recorded when its strip was made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from stereo_media.demuxers import av_options
from stereo_media.errors import FfmpegFailedError, SourceUnreachableError, UnusableVideoError
from stereo_media.ffmpeg_runner import FfmpegRunner

from media_worker.errors import SourceReplacedError
from media_worker.seeking import seek_attempts

# What ffmpeg says when the store, not the video, failed a URL read.
UNREACHABLE = ("Server returned 5XX", "Connection refused", "Connection timed out",
               "Server returned 429")
# What ffmpeg says when the store refused the read's If-Match (412): the object
# is no longer the upload the URL was pinned to.
REPLACED = ("Server returned 412", "Server returned 4XX")


def cut_clip(runner: FfmpegRunner, source_args: Sequence[str], start_s: float,
             duration_s: float, dest: Path, *, source_duration_s: float | None = None,
             on_tick: Callable[[], None] | None = None) -> Path:
    """Write ``duration_s`` seconds from ``start_s`` of the input that
    ``source_args`` (ffmpeg input arguments) name to ``dest``. Raises
    UnusableVideoError when the range starts past ``source_duration_s`` (when
    known) or nothing was cut, SourceUnreachableError when the store did not
    serve a URL input (5XX, throttled, refused), SourceReplacedError when the
    stored object is no longer the one the URL was pinned to, Ffmpeg*Error."""
    if source_duration_s is not None and start_s >= source_duration_s:
        raise UnusableVideoError(
            f"The preview starts at {start_s:.1f} s but the video is only "
            f"{source_duration_s:.1f} s long; pick an earlier moment.")
    cut = ["-t", f"{duration_s:.3f}",
           "-map", "0:v:0", "-c:v", "libx264", "-preset", "veryfast", "-crf", "16",
           "-force_key_frames", "expr:gte(t,n_forced*1)",
           "-map", "0:a:0?", "-c:a", "aac", "-b:a", "160k",
           "-sn", "-dn", "-movflags", "+faststart", str(dest)]
    attempts = seek_attempts(start_s, source_args)
    for n, attempt in enumerate(attempts, 1):
        dest.unlink(missing_ok=True)
        try:
            runner.run([*attempt, *cut], on_tick=on_tick, what="preview clip")
        except FfmpegFailedError as exc:
            if any(sign in exc.stderr for sign in UNREACHABLE):
                raise SourceUnreachableError(str(exc)) from exc  # retried, not a bad video
            if any(sign in exc.stderr for sign in REPLACED):
                raise SourceReplacedError from exc  # the reason in words, not ffmpeg's
            if n == len(attempts):
                raise
            continue
        if _has_pictures(dest):
            return dest
    raise UnusableVideoError(f"The preview at {start_s:.1f} s could not be cut from the "
                             "video; pick another moment.")


def _has_pictures(path: Path) -> bool:
    """Whether the cut at ``path`` holds a picture: where no keyframe followed
    the seek, ffmpeg writes an MP4 with no video track, and exits 0."""
    import av

    try:
        with av.open(str(path), options=av_options()) as container:
            return bool(container.streams.video) and container.streams.video[0].frames > 0
    except (av.error.FFmpegError, OSError):
        return False
