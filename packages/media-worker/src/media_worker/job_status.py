"""Conditional job status writes shared by chunking, reassembly and the failure hook."""

from __future__ import annotations

import logging

from shared_types.errors import ConditionFailedError, JobNotFoundError
from shared_types.models import IN_PROGRESS_STATUSES, JobError, JobStatus, JobUpdate, now
from shared_types.ports import JobStore

from media_worker.errors import error_code

log = logging.getLogger(__name__)

MAX_MESSAGE = 2000


def fail_job(jobs: JobStore, job_id: str, stage: str, exc: BaseException) -> bool:
    """Mark a job ``failed`` with a code, the error's message and the stage, unless it
    already ended (completed or failed). Returns True when this call failed it."""
    message = str(exc) or type(exc).__name__
    error = JobError(code=error_code(exc), message=message[:MAX_MESSAGE], stage=stage, at=now())
    try:
        jobs.update(job_id, JobUpdate(status=JobStatus.FAILED, error=error),
                    expected_status=IN_PROGRESS_STATUSES)
    except (ConditionFailedError, JobNotFoundError) as cond:
        log.info("job_id=%s not marked failed (%s): %s", job_id, cond, message)
        return False
    log.warning("job_id=%s failed at %s: %s", job_id, stage, message)
    return True
