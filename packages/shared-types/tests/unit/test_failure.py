import pytest

from shared_types.errors import (
    InvalidMediaError,
    InvalidRequestError,
    ModelUnavailableError,
    PermanentError,
    RetriesExhaustedError,
    TransientStoreError,
)
from shared_types.failure import (
    INPUT_FAILURE_CODES,
    can_retry,
    failure_code,
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
