"""One error hierarchy for the whole pipeline.

Every error is either *permanent* (retrying cannot help: the job is failed, the
message acknowledged) or *transient* (retry by redelivery, then dead-letter).
Adapters translate vendor errors into these with ``raise ... from exc``.
"""


class StereoSpotError(Exception):
    """Base of every error raised by StereoSpot code."""


class PermanentError(StereoSpotError):
    """Retrying the same input cannot succeed."""


class TransientError(StereoSpotError):
    """The operation may succeed if retried later (network, throttling, 5xx)."""


class CodeFromCause(StereoSpotError):
    """An error whose ``code`` is its class's unless the raiser names its
    cause's (``code=``), so the job records the reason behind it."""

    code: str

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        if code:
            self.code = code


class RetriesExhaustedError(CodeFromCause, PermanentError):
    """A step failed transiently on its last allowed attempt; the job is failed.
    ``code`` is ``retries_exhausted`` unless the last error's kind is one the
    person must act on (``shared_types.failure.exhausted_code``: ``disk_full``)."""

    code = "retries_exhausted"


class OwnedElsewhereError(TransientError):
    """Another worker owns this piece of work right now (a busy lease). Retried
    later, and never a reason to fail the job: the owner finishes it, or the
    janitor re-sends it once the owner is gone."""


class MalformedMessageError(PermanentError):
    """A queue message body is not what its queue carries."""


class InvalidKeyError(PermanentError, ValueError):
    """An object key is unsafe or does not follow the canonical formats."""


class InvalidMediaError(PermanentError):
    """An input file is not a usable video (or over a limit)."""

    code = "invalid_media"


class InvalidRequestError(PermanentError):
    """A job or an invocation asks for what cannot be done (an unknown mode or
    depth model, a parameter out of range, an unusable URI)."""

    code = "invalid_request"


class NotFoundError(PermanentError):
    """A job, object or record does not exist."""


class JobNotFoundError(NotFoundError):
    """No job with this id."""


class ObjectNotFoundError(NotFoundError):
    """No object with this key."""


class JobStateError(PermanentError):
    """The job is not in a state that allows the action (e.g. retry a running job)."""


class ConditionFailedError(StereoSpotError):
    """A conditional write lost: the record was not in the expected state."""


class LeaseLostError(ConditionFailedError):
    """The caller no longer holds the lease (it expired and was retaken)."""


class ObjectExistsError(ConditionFailedError):
    """A write-once object (a job's source) already exists; it was not replaced."""


class DiskFullError(TransientError):
    """A disk (or a quota) is full where a step writes, or has clearly too little
    room for the job; the message says where and how much is free. Transient:
    the same step succeeds once space is freed, so it is retried with backoff and,
    once its attempts are spent, the job fails with code ``disk_full``
    (``shared_types.failure``)."""

    code = "disk_full"


class TransientStoreError(TransientError):
    """A store, queue or bucket is unreachable, throttled or returned a 5xx."""


class PermanentStoreError(PermanentError):
    """A store refused the request for good (access denied, validation)."""


class UploadNotFoundError(NotFoundError):
    """No multipart upload with this id for this key (finished, aborted or never made)."""


class InvalidUploadError(PermanentError):
    """An upload cannot be accepted as sent: a part is missing or too small."""


class UploadTooLargeError(InvalidUploadError):
    """An upload is over its size cap (the storage refused it)."""


class UploadTooSmallError(InvalidUploadError):
    """A form upload is under its policy's content-length-range."""


class PolicyViolationError(InvalidUploadError):
    """A form (presigned POST) upload breaks its policy, or the policy is
    malformed or expired."""


class FfmpegNotFoundError(PermanentError):
    """No usable ffmpeg binary."""


class AdapterMissingError(PermanentError):
    """The adapter package of the configured backend is not installed."""


class MalformedResponseError(TransientError):
    """A service answered with a body we cannot read (not JSON, not the expected
    envelope). Transient: the work may still have been done, and a retry is harmless."""


class JobCancelledError(PermanentError):
    """The job was cancelled while this work ran: stop, and leave nothing behind."""


class ModelUnavailableError(PermanentError):
    """A depth model is not installed and will not be downloaded here, or its
    installed files cannot be loaded."""

    code = "model_unavailable"


class ModelDownloadError(TransientError):
    """Downloading a depth model failed (network, hub, or a corrupt transfer)."""
