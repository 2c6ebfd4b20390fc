"""What a failure means: the one place where failures are classified.

A failure is *permanent* when the same input can never succeed (retrying only
makes the person wait and may lose the reason) and *transient* when a retry
may succeed (a worker killed, a timeout, a storage or network hiccup). The
classification travels with the failure, whichever side of a wire it crosses:

- in a process, an exception's class says it (``errors.PermanentError`` /
  ``errors.TransientError``; the consumer loop acts on the class) and its
  ``code`` names the reason (:func:`failure_code`);
- over the inference contract (HTTP and SageMaker async) the error body
  carries ``code``, ``message`` and ``permanent`` (:class:`RemoteFailure`,
  written by ``envelope.error_body``, read by ``envelope.read_failure``);
- on a failed job, ``JobError.code`` keeps the reason. The codes of
  :data:`INPUT_FAILURE_CODES` say the job's own input or settings are at
  fault: Retry would run the same input again, so it is neither offered nor
  accepted (:func:`retry_refusal`). Every other failure (a step that gave up
  after its attempts, a stall, a lost segment) can be retried.
"""

from __future__ import annotations

from dataclasses import dataclass

from shared_types.errors import PermanentError
from shared_types.models import Job, JobStatus

INVALID_MEDIA = "invalid_media"  # the source or a segment is not a usable video
INVALID_REQUEST = "invalid_request"  # the job's settings ask for what cannot be done
MODEL_UNAVAILABLE = "model_unavailable"  # the chosen depth model is missing or broken
INPUT_NOT_FOUND = "input_not_found"  # a segment file is gone (Retry re-makes it)
GENERIC_PERMANENT = "permanent_error"
GENERIC_TRANSIENT = "transient"

INPUT_FAILURE_CODES = frozenset({INVALID_MEDIA, INVALID_REQUEST, MODEL_UNAVAILABLE})

_RETRY_REFUSALS = {
    INVALID_MEDIA: "The uploaded file is not a video this service can convert, so "
                   "converting it again would fail the same way. Start a new conversion "
                   "with another file.",
    INVALID_REQUEST: "The job's settings cannot be converted, so converting it again "
                     "would fail the same way. Start a new conversion with other settings.",
    MODEL_UNAVAILABLE: "The chosen depth model cannot be used here, so converting it "
                       "again would fail the same way. Start a new conversion with "
                       "another depth model.",
}


def failure_code(exc: BaseException) -> str:
    """The short reason of ``exc`` for ``JobError.code`` and error bodies: the
    ``code`` an error carries, else a generic one by its class."""
    code = getattr(exc, "code", None)
    if isinstance(code, str) and code:
        return code
    return GENERIC_PERMANENT if isinstance(exc, PermanentError) else GENERIC_TRANSIENT


def is_permanent(exc: BaseException) -> bool:
    """True when retrying the same work cannot help (the class says it)."""
    return isinstance(exc, PermanentError)


def is_input_failure(code: str | None) -> bool:
    """True when a failure with this code lies in the job's own input or settings."""
    return code in INPUT_FAILURE_CODES


def can_retry(job: Job) -> bool:
    """True when Retry may be offered: the job failed, and not for its input."""
    return job.status == JobStatus.FAILED and retry_refusal(job) is None


def retry_refusal(job: Job) -> str | None:
    """Why a failed job cannot be retried, in words for the person; None when it can."""
    if job.error is None or not is_input_failure(job.error.code):
        return None
    return _RETRY_REFUSALS[job.error.code]


@dataclass(frozen=True)
class RemoteFailure:
    """A failure reported across the inference contract (read from its error body)."""

    code: str
    message: str
    permanent: bool
