import errno

import pytest

from shared_types.errors import (
    DiskFullError,
    InvalidMediaError,
    InvalidRequestError,
    ModelUnavailableError,
    PermanentError,
    RetriesExhaustedError,
    TransientError,
    TransientStoreError,
)
from shared_types.failure import (
    DISK_FULL,
    INPUT_FAILURE_CODES,
    can_retry,
    disk_full_as,
    exhausted_code,
    failure_code,
    is_disk_full,
    is_permanent,
    retry_refusal,
)
from shared_types.models import Job, JobError, JobStatus, OutputMode


def failed(code: str | None) -> Job:
    error = JobError(code=code, message="why", stage="inference") if code else None
    return Job(job_id="j", mode=OutputMode.SBS, status=JobStatus.FAILED, error=error)


@pytest.mark.parametrize("exc,code", [
    (InvalidMediaError("not a video"), "invalid_media"),
    (InvalidRequestError("unknown mode"), "invalid_request"),
    (ModelUnavailableError("no weights"), "model_unavailable"),
    (RetriesExhaustedError("gave up"), "retries_exhausted"),
    (PermanentError("other"), "permanent_error"),
    (TransientStoreError("throttled"), "transient"),
])
def test_each_error_has_a_code(exc, code):
    assert failure_code(exc) == code


def test_input_failures_are_permanent_errors():
    for cls in (InvalidMediaError, InvalidRequestError, ModelUnavailableError):
        assert is_permanent(cls("x")) and failure_code(cls("x")) in INPUT_FAILURE_CODES
    assert not is_permanent(TransientStoreError("x"))


@pytest.mark.parametrize("code", sorted(INPUT_FAILURE_CODES))
def test_a_job_that_failed_for_its_input_cannot_be_retried_and_says_why(code):
    job = failed(code)
    assert not can_retry(job)
    assert "Start a new conversion" in retry_refusal(job)


@pytest.mark.parametrize("code", [None, "retries_exhausted", "inference_failed", "stalled",
                                  "segment_gave_up", "inference_timeout", "transient"])
def test_a_job_that_failed_for_another_reason_can_be_retried(code):
    assert can_retry(failed(code))
    assert retry_refusal(failed(code)) is None


def test_only_a_failed_job_can_be_retried():
    assert not can_retry(Job(job_id="j", mode=OutputMode.SBS, status=JobStatus.COMPLETED))


# --- a full disk, wherever it shows ---------------------------------------------------

def _raised_from(cause: BaseException) -> BaseException:
    try:
        try:
            raise cause
        except BaseException as exc:
            raise RuntimeError("encoder failed") from exc
    except RuntimeError as outer:
        return outer


@pytest.mark.parametrize("failure", [
    OSError(errno.ENOSPC, "No space left on device"),
    OSError(errno.EDQUOT, "Disk quota exceeded"),
    DiskFullError("The disk is full"),
    "[mp4 @ 0x5] Error writing trailer: No space left on device",
    "sqlite3.OperationalError: database or disk is full",
], ids=["ENOSPC", "EDQUOT", "DiskFullError", "ffmpeg stderr", "sqlite"])
def test_a_full_disk_is_recognised_in_errors_and_tool_text(failure):
    assert is_disk_full(failure)
    if isinstance(failure, BaseException):
        assert is_disk_full(_raised_from(failure))  # also as the cause of another error


@pytest.mark.parametrize("failure", [
    OSError(errno.EACCES, "Permission denied"),
    TransientStoreError("throttled"),
    "Invalid data found when processing input",
])
def test_other_failures_are_not_a_full_disk(failure):
    assert not is_disk_full(failure)


def test_a_full_disk_inside_the_block_becomes_disk_full_error_naming_the_folder(tmp_path):
    with pytest.raises(DiskFullError, match=r"The disk is full: no space was left in "
                       rf"{tmp_path} while copying the source \(.* free then\)") as info:
        with disk_full_as(tmp_path, doing="copying the source"):
            raise OSError(errno.ENOSPC, "No space left on device")
    assert failure_code(info.value) == DISK_FULL
    assert isinstance(info.value, TransientError)  # freeing space makes the same step work
    assert isinstance(info.value.__cause__, OSError)


def test_other_errors_pass_the_disk_full_block_unchanged(tmp_path):
    with pytest.raises(PermissionError), disk_full_as(tmp_path):
        raise PermissionError(errno.EACCES, "Permission denied")


def test_a_job_whose_last_attempt_found_the_disk_full_fails_as_disk_full():
    assert exhausted_code(DiskFullError("full")) == DISK_FULL
    assert exhausted_code(OSError(errno.ENOSPC, "No space left on device")) == DISK_FULL
    assert exhausted_code(TransientStoreError("throttled")) == "retries_exhausted"
    assert can_retry(failed(DISK_FULL))  # free space, then Retry: not the input's fault

