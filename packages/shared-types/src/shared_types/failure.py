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

A full disk is told apart wherever it shows (:func:`is_disk_full`: ENOSPC or
EDQUOT on an OSError or an error it was raised from, ffmpeg's or SQLite's
words for it): the code that writes re-raises it as ``DiskFullError`` naming
the folder (:func:`disk_full_as`, :func:`disk_full_error`). It is transient
(freeing space makes the same step work), so the consumer retries it with
backoff; a job whose last attempt found the disk full fails with code
``disk_full`` (:func:`exhausted_code`), not the generic ``retries_exhausted``.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from shared_types.byte_size import size_words
from shared_types.disk_room import free_bytes
from shared_types.errors import DiskFullError, PermanentError
from shared_types.models import Job, JobStatus

INVALID_MEDIA = "invalid_media"  # the source or a segment is not a usable video
INVALID_REQUEST = "invalid_request"  # the job's settings ask for what cannot be done
MODEL_UNAVAILABLE = "model_unavailable"  # the chosen depth model is missing or broken
INPUT_NOT_FOUND = "input_not_found"  # a segment file is gone (Retry re-makes it)
DISK_FULL = "disk_full"  # a disk or quota filled up where a step writes
RETRIES_EXHAUSTED = "retries_exhausted"  # a transient failure on the last attempt
GENERIC_PERMANENT = "permanent_error"
GENERIC_TRANSIENT = "transient"

# How a full disk is said: the kernel's errnos, the words ffmpeg (strerror in
# its stderr) and SQLite (SQLITE_FULL) use for it, and our own sentence (a
# DiskFullError that crossed the inference contract arrives as its message).
_DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT})
_DISK_FULL_WORDS = ("no space left on device", "disk quota exceeded",
                    "database or disk is full", "the disk is full:")

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


def is_disk_full(failure: BaseException | str) -> bool:
    """True when ``failure`` says a disk or quota is full: a DiskFullError, an
    error with errno ENOSPC or EDQUOT (PyAV's errors carry one too) or whose
    text says so, or any error it was raised from; or a tool's error text
    (ffmpeg's stderr) with those words."""
    if isinstance(failure, str):
        text = failure.lower()
        return any(words in text for words in _DISK_FULL_WORDS)
    seen: set[int] = set()
    exc: BaseException | None = failure
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if isinstance(exc, DiskFullError) or getattr(exc, "errno", None) in _DISK_FULL_ERRNOS:
            return True
        if is_disk_full(str(exc)):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def disk_full_message(where: Path | str, *, doing: str | None = None) -> str:
    """What a full disk at ``where`` is called for the person: a sentence
    naming the folder, what was being done and what was free then (before the
    failed write's partial files were removed)."""
    free = free_bytes(where)
    shown = "" if free is None else f" ({size_words(free)} free then)"
    what = f" while {doing}" if doing else ""
    return (f"The disk is full: no space was left in {where}{what}{shown}. "
            "Free some space there, then convert the video again.")


def disk_full_error(where: Path | str, *, doing: str | None = None) -> DiskFullError:
    """The DiskFullError a full disk at ``where`` raises (:func:`disk_full_message`)."""
    return DiskFullError(disk_full_message(where, doing=doing))


@contextmanager
def disk_full_as(where: Path | str, *, doing: str | None = None) -> Iterator[None]:
    """Re-raise an OSError that says a disk is full (:func:`is_disk_full`)
    inside the block as :func:`disk_full_error` for ``where``, from the
    original; every other error passes unchanged."""
    try:
        yield
    except OSError as exc:
        if not is_disk_full(exc):
            raise
        raise disk_full_error(where, doing=doing) from exc


def exhausted_code(exc: BaseException) -> str:
    """The code of a job failed because its last attempt failed transiently with
    ``exc``: ``disk_full`` for a full disk (the person must free space first),
    else ``retries_exhausted``."""
    return DISK_FULL if is_disk_full(exc) else RETRIES_EXHAUSTED


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
