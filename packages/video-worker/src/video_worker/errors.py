"""Errors of video-worker, classified for the consumer loop's retry policy.

``InferenceRejectedError`` is permanent: the inference side refused the segment
(a 4xx, an async failure naming invalid input), so the segment and its job fail.
``InferenceUnavailableError`` is transient: the endpoint is unreachable, answered
5xx, timed out or sent a response we cannot read; the message is redelivered.
"""

from shared_types.errors import PermanentError, StereoSpotError, TransientError


class VideoWorkerError(StereoSpotError):
    """Base of every error raised by video_worker."""


class InferenceRejectedError(VideoWorkerError, PermanentError):
    """The inference backend refused this segment for good."""


class SegmentConversionError(VideoWorkerError, PermanentError):
    """A segment could not be converted for good; the message says which and why."""

    code = "inference_failed"


class ConversionTimeoutError(VideoWorkerError, PermanentError):
    """The engine ran past the wall-clock limit for its segment (it would again)."""

    code = "inference_timeout"


class InferenceUnavailableError(VideoWorkerError, TransientError):
    """The inference backend could not answer now; retrying may succeed."""


class ConfigurationError(VideoWorkerError):
    """This worker is set up wrong (no engine installed, http backend without a
    URL). Deliberately neither permanent nor transient: a misconfigured worker
    must not fail jobs; its messages are redelivered to a healthy worker."""
