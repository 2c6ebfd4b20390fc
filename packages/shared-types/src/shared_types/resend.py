"""Send a job's next piece of work again: the one way sweeps and Retry re-send.

Every message sent here is safe to deliver twice (chunking, inference and
reassembly are idempotent and keyed on the object), so re-sending is always
allowed; *when* to re-send (and how often) is the caller's decision: the
janitor bounds it with ``Job.resends``, Retry does it once per press.
"""

from __future__ import annotations

import logging

from shared_types.events import build_s3_event_body
from shared_types.keys import segment_key, source_key
from shared_types.models import Job, ReassemblyMessage
from shared_types.ports import Backend
from shared_types.runs import run_completions

log = logging.getLogger(__name__)


def resend_source(backend: Backend, job_id: str) -> bool:
    """Send the source's S3-shaped upload event to the chunking queue again.
    Returns False (sending nothing) when the source is gone."""
    storage = backend.input_storage
    head = storage.head(source_key(job_id))
    if head is None:
        return False
    backend.chunking_queue.send(build_s3_event_body(storage.bucket, head.key, size=head.size,
                                                    etag=head.etag))
    log.info("job_id=%s source event re-sent to chunking", job_id)
    return True


def incomplete_segments(backend: Backend, job: Job) -> list[int]:
    """Indexes ``0..total_segments-1`` that have no SegmentCompletion of the
    job's current run yet."""
    done = {c.segment_index for c in run_completions(backend, job)}
    return [i for i in range(job.total_segments or 0) if i not in done]


def drop_lost_outputs(backend: Backend, job: Job) -> list[int]:
    """Forget the completions whose converted segment is no longer in the output
    bucket (expired or deleted), and put their status back to pending, so the
    segment counts as incomplete and is converted again (a complete status row
    would make the worker skip it). Returns their indexes."""
    lost = [c.segment_index for c in run_completions(backend, job)
            if not backend.output_storage.exists(c.output_key)]
    for index in lost:
        backend.completions.delete(job.job_id, index)
        backend.segment_status.delete(job.job_id, index)
    if lost:
        log.info("job_id=%s converted segment(s) %s gone: re-converting", job.job_id, lost)
    return lost


def missing_segment_sources(backend: Backend, job: Job, indexes: list[int]) -> list[int]:
    """Those of ``indexes`` whose chunked segment is no longer in the input bucket."""
    total = job.total_segments or 0
    return [i for i in indexes
            if not backend.input_storage.exists(segment_key(job.job_id, i, total, job.mode,
                                                            job.run))]


def resend_segments(backend: Backend, job: Job, indexes: list[int]) -> int:
    """Send the upload event of each segment in ``indexes`` to the video-worker
    queue again; segments whose file is gone are skipped. Returns how many were sent."""
    storage, total, sent = backend.input_storage, job.total_segments or 0, 0
    for index in indexes:
        head = storage.head(segment_key(job.job_id, index, total, job.mode, job.run))
        if head is None:
            continue
        backend.video_queue.send(build_s3_event_body(storage.bucket, head.key, size=head.size,
                                                     etag=head.etag))
        sent += 1
    log.info("job_id=%s %d segment event(s) re-sent to inference", job.job_id, sent)
    return sent


def resend_reassembly(backend: Backend, job_id: str) -> None:
    """Send ``job_id`` to the reassembly queue again (whatever the trigger row says)."""
    backend.reassembly_queue.send(ReassemblyMessage(job_id=job_id).model_dump_json())
    log.info("job_id=%s reassembly message re-sent", job_id)
