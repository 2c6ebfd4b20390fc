"""The janitor: the periodic safety net that leaves no job silently stuck.

One pass repairs, idempotently and with conditional writes only (any number of
workers may run passes at once):

1. ``chunking_in_progress`` for longer than ``stuck_after_s`` (the media-worker
   died after uploading segments but before writing ``total_segments``): list
   ``segments/{job_id}/``; if the keys form one complete set ``0..n-1`` of the
   same ``n``, set ``total_segments=n`` + ``chunking_complete`` and run the
   reassembly trigger (the seed's "chunking failure recovery"). Otherwise
   chunking never finished: re-send the source's S3 event to the chunking queue
   (chunking is idempotent) or, when the source is gone, fail the job.
2. ``chunking_complete`` with every completion but no trigger (the race where
   the last segment finished before ``total_segments`` was written, if
   media-worker's own trigger call was lost): trigger reassembly.
3. ``chunking_complete`` for longer than ``stuck_after_s`` with a segment that
   is ``failed``, or still ``pending`` after ``max_segment_attempts`` attempts
   and untouched for ``stuck_after_s`` (its message went to the DLQ): fail the
   job with the segment's reason.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

from pydantic import BaseModel, Field
from shared_types.errors import ConditionFailedError, JobNotFoundError
from shared_types.events import build_s3_event_body
from shared_types.keys import parse_segment_key, segment_prefix, source_key
from shared_types.models import Job, JobStatus, JobUpdate, SegmentState
from shared_types.ports import Backend
from shared_types.reassembly_trigger import trigger_reassembly_if_ready

from video_worker.job_failure import fail_job

log = logging.getLogger(__name__)


class JanitorReport(BaseModel):
    """What one pass repaired, by job id."""

    chunking_recovered: list[str] = Field(default_factory=list)
    chunking_resent: list[str] = Field(default_factory=list)
    reassembly_triggered: list[str] = Field(default_factory=list)
    failed: list[str] = Field(default_factory=list)


def run_janitor_pass(
    backend: Backend,
    *,
    stuck_after_s: float,
    max_segment_attempts: int,
    now: float | None = None,
) -> JanitorReport:
    """Find and repair stuck jobs once; returns what was done.

    Store errors propagate (the caller logs them and tries again next pass).
    """
    t = time.time() if now is None else now
    report = JanitorReport()
    for job in _jobs_in(backend, JobStatus.CHUNKING_IN_PROGRESS):
        if t - job.updated_at >= stuck_after_s:
            _recover_chunking(backend, job, report)
    for job in _jobs_in(backend, JobStatus.CHUNKING_COMPLETE):
        if trigger_reassembly_if_ready(backend, job.job_id):
            log.warning("job_id=%s janitor: reassembly was not triggered; triggered now",
                        job.job_id)
            report.reassembly_triggered.append(job.job_id)
        elif t - job.updated_at >= stuck_after_s:
            _fail_if_segment_gave_up(backend, job, t, stuck_after_s, max_segment_attempts,
                                     report)
    return report


def _jobs_in(backend: Backend, status: JobStatus) -> Iterator[Job]:
    cursor = None
    while True:
        page = backend.jobs.list_by_status(status, limit=100, cursor=cursor)
        yield from page.items
        cursor = page.next_cursor
        if not cursor:
            return


def complete_segment_set(backend: Backend, job_id: str) -> int | None:
    """``n`` when the input bucket holds exactly the segments ``0..n-1`` of one
    chunking run (all keys agreeing on ``n``), else None."""
    storage = backend.input_storage
    found = [p for info in storage.list(segment_prefix(job_id))
             if (p := parse_segment_key(storage.bucket, info.key)) is not None]
    totals = {p.total_segments for p in found}
    if len(totals) != 1:
        return None
    total = totals.pop()
    return total if {p.segment_index for p in found} == set(range(total)) else None


def _recover_chunking(backend: Backend, job: Job, report: JanitorReport) -> None:
    job_id = job.job_id
    total = complete_segment_set(backend, job_id)
    try:
        if total is not None:
            backend.jobs.update(
                job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE, total_segments=total),
                expected_status=[JobStatus.CHUNKING_IN_PROGRESS])
            log.warning("job_id=%s janitor: chunking was stuck; inferred total_segments=%d",
                        job_id, total)
            report.chunking_recovered.append(job_id)
            if trigger_reassembly_if_ready(backend, job_id):
                report.reassembly_triggered.append(job_id)
            return
        source = backend.input_storage.head(source_key(job_id))
        if source is None:
            if fail_job(backend.jobs, job_id, code="source_missing", stage="chunking",
                        message="Chunking stopped and the uploaded video is gone; "
                                "please upload it again."):
                report.failed.append(job_id)
            return
        # Touch the job first so the next pass waits stuck_after_s before re-sending.
        backend.jobs.update(job_id, JobUpdate(), expected_status=[JobStatus.CHUNKING_IN_PROGRESS])
        backend.chunking_queue.send(build_s3_event_body(
            backend.input_storage.bucket, source.key, size=source.size, etag=source.etag))
        log.warning("job_id=%s janitor: chunking stuck with an incomplete segment set; "
                    "source event re-sent", job_id)
        report.chunking_resent.append(job_id)
    except (ConditionFailedError, JobNotFoundError):
        log.info("job_id=%s janitor: job moved on meanwhile; left alone", job_id)


def _fail_if_segment_gave_up(backend: Backend, job: Job, t: float, stuck_after_s: float,
                             max_attempts: int, report: JanitorReport) -> None:
    done = {c.segment_index for c in backend.completions.list(job.job_id)}
    for status in backend.segment_status.list(job.job_id):
        if status.segment_index in done or status.state == SegmentState.COMPLETE:
            continue
        exhausted = (status.attempts >= max_attempts
                     and t - status.updated_at >= stuck_after_s)
        if status.state == SegmentState.FAILED or exhausted:
            reason = status.last_error or "no answer from inference"
            message = (f"Segment {status.segment_index + 1} of {job.total_segments} could not "
                       f"be converted after {status.attempts} attempt(s): {reason}")
            if fail_job(backend.jobs, job.job_id, code="segment_gave_up", stage="inference",
                        message=message):
                report.failed.append(job.job_id)
            return
