"""Errors of the 2D-to-3D engine, classified for the pipeline's retry policy
(``shared_types.failure``).

``InvalidInputError`` (code ``invalid_media``), ``InvalidRequestError``
(``invalid_request``) and ``ModelNotInstalledError`` (``model_unavailable``)
are permanent: retrying the same segment cannot help, so the job fails at once
with the reason. ``EngineTransientError`` may succeed on a retry, and so may
``EngineDiskFullError`` (code ``disk_full``) once space is freed.
"""

from pathlib import Path

from shared_types import errors as shared
from shared_types.errors import PermanentError, StereoSpotError, TransientError
from shared_types.failure import disk_full_message, is_disk_full


class EngineError(StereoSpotError):
    """Base of every error raised by stereo_inference."""


class InvalidInputError(EngineError, PermanentError):
    """The input is not a usable video (zero-byte, corrupt, audio-only, not
    decodable) or the request asks for something unknown (then the subclass
    InvalidRequestError)."""

    code = "invalid_media"


class InvalidRequestError(InvalidInputError, shared.InvalidRequestError):
    """The request asks for what cannot be done: an unknown mode or depth
    model, a URI of another scheme or outside the allowed folder."""

    code = "invalid_request"


class ModelNotInstalledError(EngineError, shared.ModelUnavailableError):
    """A depth model's weights (or the iw3 package) are not installed here, or
    the installed files cannot be loaded."""


class EngineTransientError(EngineError, TransientError):
    """A fault that may pass: storage unreachable, encoder crashed, out of memory."""


class EngineDiskFullError(EngineError, shared.DiskFullError):
    """The disk the engine writes its output to is full; the message names the folder."""


def write_failure(what: str, exc: BaseException, output: Path) -> EngineError:
    """The error for writing ``output`` failing with ``exc``: EngineDiskFullError
    when a full disk is the cause, else EngineTransientError."""
    if is_disk_full(exc):
        return EngineDiskFullError(disk_full_message(Path(output).parent, doing=what))
    return EngineTransientError(f"{what} failed: {exc}")


class EngineTimeoutError(EngineError, PermanentError):
    """The conversion ran past its wall-clock deadline (``stereo_inference.deadline``)
    and was stopped; the same input would again."""

    code = "inference_timeout"
