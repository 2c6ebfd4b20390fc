"""Delete a job and its objects (Retry is the domain use case ``shared_types.retry``)."""

from __future__ import annotations

import logging

from shared_types.keys import output_prefix, segment_prefix, source_key
from shared_types.ports import Backend

log = logging.getLogger(__name__)


def delete_job(backend: Backend, job_id: str) -> None:
    """Remove the job's source, segments, outputs and every record of it."""
    backend.input_storage.delete(source_key(job_id))
    for prefix_storage, prefix in (
        (backend.input_storage, segment_prefix(job_id)),
        (backend.output_storage, output_prefix(job_id)),
    ):
        for info in list(prefix_storage.list(prefix)):
            prefix_storage.delete(info.key)
    backend.completions.delete_job(job_id)
    backend.heartbeats.delete_job(job_id)
    backend.segment_status.delete_job(job_id)
    backend.reassembly.reset(job_id)
    backend.jobs.delete(job_id)
    log.info("job_id=%s deleted", job_id)
