"""Errors of the media worker, under one base class.

Every concrete error is also a shared-types PermanentError or TransientError, so
the consumer loop classifies it without knowing this package. ``code`` is the
short machine-readable reason stored in JobError.code when a job fails.
"""

from __future__ import annotations

from shared_types.errors import (
    DiskFullError,
    InvalidMediaError,
    OwnedElsewhereError,
    PermanentError,
    StereoSpotError,
    TransientError,
)


class MediaWorkerError(StereoSpotError):
    """Base of every media-worker error."""

    code = "media_worker_error"


class UnusableVideoError(MediaWorkerError, InvalidMediaError):
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


class SourceReplacedError(MediaWorkerError, PermanentError):
    """The job's upload was replaced by another one while it was being chunked."""

    code = "source_replaced"

    def __init__(self, message: str = (
            "The uploaded video was replaced by another upload while it was being "
            "converted; please start a new conversion for the other video.")) -> None:
        super().__init__(message)


class FfmpegFailedError(MediaWorkerError, PermanentError):
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


class FfmpegDiskFullError(MediaWorkerError, DiskFullError):
    """ffmpeg stopped because the disk it writes to is full (transient: it may
    work once space is freed; the message names the folder)."""

    code = "disk_full"


class FfmpegTimeoutError(MediaWorkerError, PermanentError):
    """ffmpeg ran past its wall-clock limit (the same input would again)."""

    code = "ffmpeg_timeout"


class FfmpegKilledError(MediaWorkerError, TransientError):
    """ffmpeg was killed by a signal it did not ask for (OOM killer, host stop)."""

    code = "ffmpeg_killed"


class SourceUnreachableError(MediaWorkerError, TransientError):
    """The storage did not serve a source read by URL (5XX, throttled, network)."""

    code = "source_unreachable"


class SegmentsMissingError(MediaWorkerError, TransientError):
    """Reassembly was asked for before every segment has a completion."""

    code = "segments_missing"


class ReassemblyBusyError(MediaWorkerError, OwnedElsewhereError):
    """Another worker holds the job's reassembly lease; retry after it ends."""

    code = "reassembly_busy"


class FinalMissingError(MediaWorkerError, PermanentError):
    """Reassembly is recorded as done but the final video is gone."""

    code = "final_missing"


class SplitOffPlanError(MediaWorkerError, TransientError):
    """A split streamed to the video-workers cut another number of segments than
    its plan (``cut_plan``): its run cannot complete (its last segment was held
    back), and the next run splits the whole source before it publishes."""

    code = "split_off_plan"
