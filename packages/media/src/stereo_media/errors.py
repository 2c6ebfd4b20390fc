"""Errors of reading and writing media, under one base class.

Every concrete error is also a shared-types PermanentError or TransientError, so
the consumer loop classifies it without knowing this package. ``code`` is the
short machine-readable reason stored in JobError.code when a job fails.
"""

from __future__ import annotations

from shared_types.errors import (
    DiskFullError,
    InvalidMediaError,
    PermanentError,
    StereoSpotError,
    TransientError,
)


class MediaError(StereoSpotError):
    """Base of every error of the media toolkit: a source that is not a usable
    video, or an ffmpeg run that failed."""

    code = "media_error"


class UnusableVideoError(MediaError, InvalidMediaError):
    """The source is not a video we can convert; the message says why, in plain words."""

    code = "invalid_media"


class TooLongError(UnusableVideoError):
    """The source's header says it lasts longer than allowed; ``container`` is its
    demuxer (a transport stream whose clock jumps reads as hours long)."""

    def __init__(self, message: str, *, container: str | None = None) -> None:
        super().__init__(message)
        self.container = container


class UnknownFormatError(UnusableVideoError):
    """The source opens as none of the video formats read (``VIDEO_DEMUXERS``)."""


class FfmpegFailedError(MediaError, PermanentError):
    """ffmpeg exited with an error on a file that passed the probe. The message is
    one line (it becomes a failed job's reason); ``stderr`` is the tail of what
    ffmpeg said, for the log and for callers that read its words."""

    code = "ffmpeg_failed"

    def __init__(self, message: str, *, stderr: str = "") -> None:
        super().__init__(message)
        self.stderr = stderr or message


class FfmpegUndecodableError(FfmpegFailedError, UnusableVideoError):
    """ffmpeg gave up decoding an input (more of its packets refused than it
    tolerates): the file is damaged beyond what players skip over."""

    code = "invalid_media"


class FfmpegDiskFullError(MediaError, DiskFullError):
    """ffmpeg stopped because the disk it writes to is full (transient: it may
    work once space is freed; the message names the folder)."""

    code = "disk_full"


class FfmpegTimeoutError(MediaError, PermanentError):
    """ffmpeg ran past its wall-clock limit (the same input would again)."""

    code = "ffmpeg_timeout"


class FfmpegKilledError(MediaError, TransientError):
    """ffmpeg was killed by a signal it did not ask for (OOM killer, host stop)."""

    code = "ffmpeg_killed"


class SourceUnreachableError(MediaError, TransientError):
    """The storage did not serve a source read by URL (5XX, throttled, network)."""

    code = "source_unreachable"
