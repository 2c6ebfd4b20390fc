"""Errors of video-worker, classified for the consumer loop's retry policy
(``shared_types.failure``).

``InferenceRejectedError`` is permanent: the inference side said a retry cannot
help (its error body's ``permanent``, or a 4xx from a server that does not say),
so the segment and its job fail at once, with the reason's ``code``
(``invalid_media``, ``model_unavailable``, ...). ``InferenceUnavailableError``
is transient: the endpoint is unreachable, answered 5xx, timed out, said a
retry may help or sent a response we cannot read; the message is redelivered.
"""

from shared_types.errors import CodeFromCause, PermanentError, StereoSpotError, TransientError


class VideoWorkerError(StereoSpotError):
    """Base of every error raised by video_worker."""


class InferenceRejectedError(CodeFromCause, VideoWorkerError, PermanentError):
    """The inference backend refused this segment for good; ``code`` is its reason."""

    code = "inference_rejected"


class SegmentConversionError(CodeFromCause, VideoWorkerError, PermanentError):
    """A segment could not be converted for good; the message says which and why,
    ``code`` is its cause's (``inference_failed`` when the cause names none)."""

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
