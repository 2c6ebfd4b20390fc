"""Fail a job with a reason a person can read (never a completed one)."""

from __future__ import annotations

import logging

from shared_types.errors import ConditionFailedError, JobNotFoundError
from shared_types.models import JobError, JobStatus, JobUpdate
from shared_types.ports import JobStore

log = logging.getLogger(__name__)

FAILABLE_STATUSES = (
    JobStatus.CREATED, JobStatus.CHUNKING_IN_PROGRESS, JobStatus.CHUNKING_COMPLETE,
    JobStatus.REASSEMBLING,
)


def fail_job(jobs: JobStore, job_id: str, *, code: str, message: str, stage: str) -> bool:
    """Set the job ``failed`` with ``JobError(code, message, stage)``.

    Conditional on the job still being in progress; returns False (and changes
    nothing) when it is already completed or failed, or does not exist.
    """
    error = JobError(code=code[:64], message=message[:2000], stage=stage)
    try:
        jobs.update(job_id, JobUpdate(status=JobStatus.FAILED, error=error),
                    expected_status=FAILABLE_STATUSES)
    except (ConditionFailedError, JobNotFoundError):
        return False
    log.warning("job_id=%s failed at %s: %s", job_id, stage, message)
    return True
