"""Errors of the 2D-to-3D engine, classified for the pipeline's retry policy.

``InvalidInputError`` and ``ModelNotInstalledError`` are permanent (retrying the
same segment cannot help); ``EngineTransientError`` may succeed on a retry.
"""

from shared_types.errors import PermanentError, StereoSpotError, TransientError


class EngineError(StereoSpotError):
    """Base of every error raised by stereo_inference."""


class InvalidInputError(EngineError, PermanentError):
    """The input is not a usable video (zero-byte, corrupt, audio-only) or the
    request asks for something unknown (mode, URI scheme, parameters)."""


class ModelNotInstalledError(EngineError, PermanentError):
    """A depth model's weights (or the iw3 package) are not installed here."""


class EngineTransientError(EngineError, TransientError):
    """A fault that may pass: storage unreachable, encoder crashed, out of memory."""
