"""Retry a failed job from where it stopped, or delete a job and its objects."""

from __future__ import annotations

import logging

from shared_types.events import build_s3_event_body
from shared_types.keys import output_prefix, segment_key, segment_prefix, source_key
from shared_types.models import (
    Job,
    JobStatus,
    JobUpdate,
    ReassemblyMessage,
    SegmentState,
)
from shared_types.ports import Backend

from web_ui.errors import JobStateError

log = logging.getLogger(__name__)


def _incomplete_segments(backend: Backend, job: Job, total: int) -> list[int]:
    done = {c.segment_index for c in backend.completions.list(job.job_id)}
    return [i for i in range(total) if i not in done]


def _rechunk(backend: Backend, job: Job) -> Job:
    """Back to ``created``; when the source exists, re-send its upload event."""
    key = source_key(job.job_id)
    head = backend.input_storage.head(key)
    job = backend.jobs.update(
        job.job_id, JobUpdate(status=JobStatus.CREATED, clear_error=True),
        expected_status=[JobStatus.FAILED],
    )
    if head is not None:
        backend.chunking_queue.send(
            build_s3_event_body(backend.input_storage.bucket, key, size=head.size, etag=head.etag)
        )
    log.info("job_id=%s retry: re-chunking (source present: %s)", job.job_id, head is not None)
    return job


def retry_job(backend: Backend, job: Job) -> Job:
    """Resume a failed job, redoing only what is not complete.

    Chunking never finished: status ``created`` and the source's S3-shaped event
    goes to the chunking queue again. Chunking finished: failed segment rows are
    reset, status ``chunking_complete``, and each segment that is not complete is
    sent to the video-worker queue again (or, when all are complete, reassembly
    is triggered again). Raises JobStateError unless the job is failed, and
    ConditionFailedError if its status changed meanwhile.
    """
    if job.status != JobStatus.FAILED:
        raise JobStateError("Only a failed job can be retried.")
    if not backend.reassembly.is_done(job.job_id):
        backend.reassembly.reset(job.job_id)
    total = job.total_segments
    if not total:
        return _rechunk(backend, job)
    missing = _incomplete_segments(backend, job, total)
    keys = [segment_key(job.job_id, i, total, job.mode) for i in missing]
    heads = [backend.input_storage.head(k) for k in keys]
    if any(h is None for h in heads):
        return _rechunk(backend, job)
    for status in backend.segment_status.list(job.job_id):
        if status.state == SegmentState.FAILED:
            backend.segment_status.mark_pending(job.job_id, status.segment_index)
    job = backend.jobs.update(
        job.job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE, clear_error=True),
        expected_status=[JobStatus.FAILED],
    )
    for key, head in zip(keys, heads, strict=True):
        backend.video_queue.send(
            build_s3_event_body(backend.input_storage.bucket, key, size=head.size, etag=head.etag)
        )
    if not missing:
        backend.reassembly.trigger(job.job_id)
        backend.reassembly_queue.send(ReassemblyMessage(job_id=job.job_id).model_dump_json())
    log.info("job_id=%s retry: %d segment(s) re-sent", job.job_id, len(missing))
    return job


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
    backend.segment_status.delete_job(job_id)
    backend.reassembly.reset(job_id)
    backend.jobs.delete(job_id)
    log.info("job_id=%s deleted", job_id)
