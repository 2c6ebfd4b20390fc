"""A job's segments expire only once the job has ended, never while it runs.

Input segments (``segments/{job_id}/``) and converted segments
(``jobs/{job_id}/segments/``) are needed until the job is completed or failed,
however long a backlog or a long source keeps it running. So the step that
ends a job marks them expirable (``ObjectStorage.mark_expirable``: on S3 a tag
the buckets' lifecycle rules expire by after ``segment_retention_days``; on the
local backend a mark its sweep honours after ``segment_retention_s``), and
Retry unmarks what is left before it re-uses them (a segment that expired
meanwhile is re-made: shared_types.resend). Cancel deletes them at once
(shared_types.cancel).

Marking happens after the job's terminal update, so a crash in between leaves
segments unmarked (kept, not lost); a transient failure is logged, not raised,
because the job has already ended and its message must not be redelivered.
"""

from __future__ import annotations

import logging

from shared_types.errors import TransientError
from shared_types.job_failure import fail_job, fail_job_for
from shared_types.keys import output_segment_prefix, segment_prefix
from shared_types.ports import Backend, ObjectStorage

log = logging.getLogger(__name__)


def _segment_places(backend: Backend, job_id: str) -> list[tuple[ObjectStorage, str]]:
    return [(backend.input_storage, segment_prefix(job_id)),
            (backend.output_storage, output_segment_prefix(job_id))]


def release_segments(backend: Backend, job_id: str) -> int:
    """Mark the ended job's input and converted segments expirable; returns how
    many objects were marked (0 when storage was unreachable: logged)."""
    marked = 0
    try:
        for storage, prefix in _segment_places(backend, job_id):
            marked += storage.mark_expirable(prefix)
    except TransientError as exc:
        log.warning("job_id=%s segments not marked expirable (kept): %s", job_id, exc)
    else:
        log.info("job_id=%s ended; %d segment objects marked expirable", job_id, marked)
    return marked


def keep_segments(backend: Backend, job_id: str) -> int:
    """Unmark a retried job's segments so none expires while it runs again;
    returns how many objects were unmarked. Raises TransientStoreError (Retry
    then changes nothing)."""
    kept = sum(storage.unmark_expirable(prefix)
               for storage, prefix in _segment_places(backend, job_id))
    log.info("job_id=%s retried; %d segment objects kept", job_id, kept)
    return kept


def fail_and_release(backend: Backend, job_id: str, *, code: str, message: str,
                     stage: str) -> bool:
    """:func:`shared_types.job_failure.fail_job`, then release the segments of
    the job it failed. True if this call failed the job."""
    if not fail_job(backend.jobs, job_id, code=code, message=message, stage=stage):
        return False
    release_segments(backend, job_id)
    return True


def fail_for_and_release(backend: Backend, job_id: str, stage: str,
                         exc: BaseException) -> bool:
    """The consumers' exhausted-attempts hook: :func:`fail_job_for`, then
    release the segments of the job it failed."""
    if not fail_job_for(backend.jobs, job_id, stage, exc):
        return False
    release_segments(backend, job_id)
    return True
