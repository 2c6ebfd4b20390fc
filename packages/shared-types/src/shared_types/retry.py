"""Retry: put a failed job back on its way, redoing only what is not complete.

A use case of the domain (the web UI's Retry button and ``stereo-spot retry``
both call it). It cannot strand a job: it first moves the job from ``failed``
to a non-terminal status with a fresh liveness proof, then sends; if a send is
lost, the janitor finds that status stale and re-sends (docs/ARCHITECTURE.md,
"Lifecycle"). It never resets the reassembly lease: it bumps ``Job.epoch`` so
the trigger can fire once more while the fencing token keeps growing, and a
holder from before the retry still cannot complete.
"""

from __future__ import annotations

import logging

from shared_types.errors import JobStateError
from shared_types.failure import retry_refusal
from shared_types.models import Job, JobStatus, SegmentState
from shared_types.ports import Backend
from shared_types.preview import has_source, resend_chunking
from shared_types.reassembly_trigger import trigger_reassembly_if_ready
from shared_types.resend import (
    drop_lost_outputs,
    incomplete_segments,
    missing_segment_sources,
    resend_reassembly,
    resend_segments,
)
from shared_types.runs import run_statuses
from shared_types.segment_retention import keep_segments
from shared_types.transitions import reopen_failed

log = logging.getLogger(__name__)


def retry_job(backend: Backend, job: Job) -> Job:
    """Resume a failed job.

    Chunking never finished (or a segment file is gone): status ``created`` and
    the source's upload event is sent again (without a source, the job waits for
    a new upload). Chunking finished: ``failed`` segments go back to pending,
    status ``chunking_complete``, and only segments without a completion are sent
    again; when every segment is complete, reassembly is sent again. A completion
    whose converted segment is gone from the output bucket is dropped first, so
    that segment is converted again. Raises
    JobStateError unless the job is failed, and for a job that failed for its
    own input or settings (``shared_types.failure``: it would fail the same way
    again; nothing is changed then), ConditionFailedError if its status
    changed meanwhile, TransientStoreError when a store or queue is unreachable
    (the job is then left to the janitor, never stranded).
    """
    if job.status != JobStatus.FAILED:
        raise JobStateError("Only a failed job can be retried.")
    refusal = retry_refusal(job)  # it failed for its own input: it would fail again
    if refusal is not None:
        raise JobStateError(refusal)
    keep_segments(backend, job.job_id)  # none may expire while the job runs again
    if job.total_segments:
        drop_lost_outputs(backend, job)
    missing = incomplete_segments(backend, job) if job.total_segments else []
    if not job.total_segments or missing_segment_sources(backend, job, missing):
        return _rechunk(backend, job)
    return _resume(backend, job, missing)


def _rechunk(backend: Backend, job: Job) -> Job:
    present = has_source(backend, job)
    job = reopen_failed(backend.jobs, job, JobStatus.CREATED)
    if present:
        resend_chunking(backend, job)
    log.info("job_id=%s retry: re-chunking (source present: %s)", job.job_id, present)
    return job


def _resume(backend: Backend, job: Job, missing: list[int]) -> Job:
    for status in run_statuses(backend, job):
        if status.state == SegmentState.FAILED and status.segment_index in missing:
            backend.segment_status.mark_pending(job.job_id, status.segment_index, job.run)
    job = reopen_failed(backend.jobs, job, JobStatus.CHUNKING_COMPLETE)
    if missing:
        resend_segments(backend, job, missing)
    elif not trigger_reassembly_if_ready(backend, job.job_id):
        resend_reassembly(backend, job.job_id)
    log.info("job_id=%s retry (epoch %d): %d segment(s) re-sent", job.job_id, job.epoch,
             len(missing))
    return job
