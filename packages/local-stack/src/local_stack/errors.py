"""Errors of the stereo-spot CLI, classified like the rest of the pipeline."""

from shared_types.errors import PermanentError, StereoSpotError, TransientError


class LocalStackError(StereoSpotError):
    """Base of every error raised by local_stack; its message is shown to a person."""


class ConversionFailedError(LocalStackError, PermanentError):
    """The pipeline finished the job as ``failed`` (the message says why)."""


class ServiceMissingError(LocalStackError, PermanentError):
    """A service package the command needs is not installed."""


class StackTimeoutError(LocalStackError, TransientError):
    """A job did not reach a final state in the time allowed."""


class PortInUseError(LocalStackError, PermanentError):
    """``serve``'s port is held by another program (the message names it)."""


class ExposureError(LocalStackError, PermanentError):
    """``serve`` was asked to listen beyond this machine without what that needs."""
