"""Fail a job with a reason a person can read: the one ``fail_job`` of the pipeline.

Every stage (chunking, inference, reassembly, the sweeps, the consumer's
exhausted-attempts hook) ends a job through this function, so the condition
(only a job that has not ended) and the shape of the reason live in one place.
"""

from __future__ import annotations

import logging

from shared_types.errors import ConditionFailedError, JobNotFoundError
from shared_types.failure import failure_code
from shared_types.models import JobError
from shared_types.ports import JobStore
from shared_types.transitions import fail_job_now

log = logging.getLogger(__name__)

MAX_MESSAGE = 2000


def fail_job(jobs: JobStore, job_id: str, *, code: str, message: str, stage: str) -> bool:
    """Set the job ``failed`` with ``JobError(code, message, stage)``.

    Conditional on the job not having ended (completed, failed or any other
    terminal status); returns False, changing nothing, when it has ended or does
    not exist. Store errors propagate (TransientStoreError).
    """
    error = JobError(code=code[:64], message=(message or code)[:MAX_MESSAGE], stage=stage[:64])
    try:
        fail_job_now(jobs, job_id, error)
    except (ConditionFailedError, JobNotFoundError) as cond:
        log.info("job_id=%s not marked failed (%s): %s", job_id, cond, message)
        return False
    log.warning("job_id=%s failed at %s: %s", job_id, stage, message)
    return True


def fail_job_for(jobs: JobStore, job_id: str, stage: str, exc: BaseException) -> bool:
    """:func:`fail_job` with the code and message taken from ``exc``."""
    return fail_job(jobs, job_id, code=failure_code(exc),
                    message=str(exc) or type(exc).__name__, stage=stage)
