"""Cancel: stop a job at any stage and free its storage.

The job moves to ``cancelled`` (terminal) in one conditional update, so every
worker sees it on its next look: video-workers check at each heartbeat and
stop the engine, queued messages for the job are acknowledged and ignored
(handlers skip final jobs), and chunking or reassembly that finishes later
finds its conditional update refused and removes what it wrote. The source,
segments and outputs are deleted now; the job record and its poster stay, so
the list still shows what was cancelled.
"""

from __future__ import annotations

import logging

from shared_types.errors import JobStateError
from shared_types.keys import input_prefix, output_prefix, poster_key, segment_prefix, source_key
from shared_types.models import Job, JobStatus
from shared_types.ports import Backend
from shared_types.transitions import cancel_job_now

log = logging.getLogger(__name__)


def free_job_files(backend: Backend, job_id: str, *, keep_poster: bool = True) -> int:
    """Delete every object of the job (its source and what was kept aside from
    it, segments, outputs, thumbnails; the poster too unless ``keep_poster``);
    returns how many objects were deleted."""
    deleted = 0
    keep = poster_key(job_id) if keep_poster else None
    for storage, prefix in ((backend.input_storage, input_prefix(job_id)),
                            (backend.input_storage, segment_prefix(job_id)),
                            (backend.output_storage, output_prefix(job_id))):
        for info in list(storage.list(prefix)):
            if info.key != keep:
                storage.delete(info.key)
                deleted += 1
    return deleted


def abort_uploads(backend: Backend, job_id: str) -> int:
    """Abort every unfinished upload of the job's source (the browser's
    resumable upload, and any leftover); returns how many."""
    source = source_key(job_id)
    open_ids = backend.input_storage.open_uploads(source)
    for upload_id in open_ids:
        backend.input_storage.abort_multipart(source, upload_id)
    return len(open_ids)


def discard_if_cancelled(backend: Backend, job_id: str) -> bool:
    """For a worker whose conditional update was refused, or whose job is gone:
    when the job was cancelled or deleted meanwhile, free what the worker wrote
    since. True if it was."""
    job = backend.jobs.get(job_id)
    if job is not None and job.status != JobStatus.CANCELLED:
        return False
    deleted = free_job_files(backend, job_id, keep_poster=job is not None)
    log.info("job_id=%s was %s while working; %d objects freed", job_id,
             "deleted" if job is None else "cancelled", deleted)
    return True


def cancel_job(backend: Backend, job: Job) -> Job:
    """Cancel a job that is not final and free its files. Raises JobStateError
    for a final job, ConditionFailedError when it became final meanwhile."""
    if job.status.is_final:
        raise JobStateError(f"The job is already {job.status.value}.")
    cancelled = cancel_job_now(backend.jobs, job.job_id)
    deleted = free_job_files(backend, job.job_id)
    abort_uploads(backend, job.job_id)
    backend.heartbeats.delete_job(job.job_id)
    log.info("job_id=%s cancelled (was %s); %d objects freed", job.job_id, job.status, deleted)
    return cancelled
