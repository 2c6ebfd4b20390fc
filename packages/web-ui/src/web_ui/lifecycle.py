"""Delete a job and its objects (Retry and Cancel are the domain use cases
``shared_types.retry`` and ``shared_types.cancel``)."""

from __future__ import annotations

import logging

from shared_types.cancel import free_job_files
from shared_types.ports import Backend

log = logging.getLogger(__name__)


def delete_job(backend: Backend, job_id: str) -> None:
    """Remove the job's source, segments, outputs and every record of it."""
    free_job_files(backend, job_id, keep_poster=False)
    backend.completions.delete_job(job_id)
    backend.heartbeats.delete_job(job_id)
    backend.segment_status.delete_job(job_id)
    backend.reassembly.reset(job_id)
    backend.jobs.delete(job_id)
    log.info("job_id=%s deleted", job_id)
