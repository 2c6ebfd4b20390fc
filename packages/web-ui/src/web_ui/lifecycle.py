"""Delete a job and its objects (Retry and Cancel are the domain use cases
``shared_types.retry`` and ``shared_types.cancel``)."""

from __future__ import annotations

import logging

from shared_types.cancel import cancel_job, free_job_files
from shared_types.errors import ConditionFailedError, JobStateError
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


def discard_clip(backend: Backend, clip_id: str | None) -> None:
    """Drop a preview clip its parent no longer shows (a newer preview, or the
    parent deleted): one still converting is cancelled (its workers stop, its
    files go, its record stays, never listed); a finished one is deleted."""
    clip = backend.jobs.get(clip_id) if clip_id else None
    if clip is None or not clip.is_clip:
        return
    if not clip.status.is_final:
        try:
            cancel_job(backend, clip)
            return
        except (ConditionFailedError, JobStateError):
            pass  # it ended meanwhile: delete it
    delete_job(backend, clip.job_id)
