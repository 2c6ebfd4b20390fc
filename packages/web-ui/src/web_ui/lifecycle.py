"""Delete a job and its objects (Retry and Cancel are the domain use cases
``shared_types.retry`` and ``shared_types.cancel``)."""

from __future__ import annotations

import logging
from contextlib import suppress

from shared_types.cancel import abort_uploads, cancel_job, free_job_files
from shared_types.errors import ConditionFailedError, JobStateError
from shared_types.ports import Backend

log = logging.getLogger(__name__)


def delete_job(backend: Backend, job_id: str) -> None:
    """Remove the job, every object of it on every storage and every record of it.
    A job still running is cancelled first, so its workers stop (they see the
    status go) and whatever they write after is freed (``discard_if_cancelled``);
    a file its upload form still stores is removed by the chunker (an upload
    for an unknown job), and the input bucket's lifecycle rule is the backstop."""
    job = backend.jobs.get(job_id)
    if job is not None and not job.status.is_final:
        with suppress(ConditionFailedError, JobStateError):  # it ended meanwhile
            cancel_job(backend, job)
    free_job_files(backend, job_id, keep_poster=False)
    abort_uploads(backend, job_id)
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
