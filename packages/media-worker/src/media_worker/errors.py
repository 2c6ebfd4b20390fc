"""Errors of the media worker, under one base class.

Every concrete error is also a shared-types PermanentError or TransientError, so
the consumer loop classifies it without knowing this package. ``code`` is the
short machine-readable reason stored in JobError.code when a job fails.
"""

from __future__ import annotations

from shared_types.errors import (
    OwnedElsewhereError,
    PermanentError,
    StereoSpotError,
    TransientError,
)


class MediaWorkerError(StereoSpotError):
    """Base of every media-worker error."""

    code = "media_worker_error"


class SourceReplacedError(MediaWorkerError, PermanentError):
    """The job's upload was replaced by another one while it was being chunked."""

    code = "source_replaced"

    def __init__(self, message: str = (
            "The uploaded video was replaced by another upload while it was being "
            "converted; please start a new conversion for the other video.")) -> None:
        super().__init__(message)


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
