"""The inference route: segment-uploaded events in, converted segments out.

``decode_segment_uploads`` turns a queue message into SegmentPayload commands;
``convert_segment`` handles one. Segment-first: the segment's status row is
written ``pending`` (attempts + 1) before any inference, so a crash
mid-conversion leaves a trace. A segment already ``complete`` is acknowledged
without work. Fenced on the chunking run the segment's key names
(``shared_types.runs``): a segment of a run that is no longer the job's is not
converted, a run taken over during the conversion stops it at the next
heartbeat, and its status writes and output are refused and counted. A
permanent inference error (a segment that is not a video, a depth model that
is missing or broken: ``shared_types.failure``) marks the segment ``failed``
with its reason and raises SegmentConversionError with the cause's code (the
consumer loop fails the job at once, stage ``inference``, and acknowledges the
message); a transient one propagates so the message is redelivered.
This handler never writes a SegmentCompletion: the output write raises an
event that the segment-output handler turns into one.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from shared_types.errors import JobCancelledError, JobNotFoundError, PermanentError
from shared_types.events import created_objects
from shared_types.failure import GENERIC_PERMANENT, failure_code
from shared_types.keys import output_segment_key, parse_segment_key
from shared_types.models import JobStatus, Message, SegmentPayload, SegmentState
from shared_types.ports import Backend
from shared_types.runs import refuse_other_run

from video_worker.deadline import ConversionDeadline
from video_worker.errors import SegmentConversionError
from video_worker.heartbeat import DEFAULT_INTERVAL_S, SegmentHeartbeater, default_worker_id
from video_worker.inference_backend import InferenceBackend, InferenceResult

log = logging.getLogger(__name__)

STAGE = "inference"


@dataclass(frozen=True)
class InferenceDeps:
    backend: Backend
    inference: InferenceBackend
    worker_id: str = field(default_factory=default_worker_id)
    heartbeat_s: float = DEFAULT_INTERVAL_S
    # wall-clock limit of one conversion: base + per frame of the segment (deadline.py)
    timeout_base_s: float = 600.0
    timeout_s_per_frame: float = 2.0


def decode_segment_uploads(message: Message) -> list[SegmentPayload]:
    """The segments an S3 event message names. Removal events and keys that are
    not canonical segment keys are skipped (logged). Raises MalformedMessageError
    for a body that is not an S3 event."""
    payloads, ignored = created_objects(message.body, parse_segment_key)
    for record in ignored:
        log.warning("ignoring non-segment key %r in bucket %s", record.key, record.bucket)
    return payloads


def job_is_over(backend: Backend, job_id: str, run: int | None = None) -> bool:
    """True when the job was cancelled or deleted, or (with ``run``) its current
    chunking run is another one: the work should stop."""
    job = backend.jobs.get(job_id)
    return (job is None or job.status == JobStatus.CANCELLED
            or (run is not None and job.run != run))


def _run_was_taken_over(backend: Backend, payload: SegmentPayload, what: str) -> bool:
    """True (counted) when the job still exists but converts another run now."""
    job = backend.jobs.get(payload.job_id)
    return job is not None and refuse_other_run(job, payload.run, STAGE, what)


def convert_segment(payload: SegmentPayload, deps: InferenceDeps) -> InferenceResult | None:
    """Convert one segment unless it is already complete or its job is over.

    Returns None when no work was needed. Raises JobNotFoundError for an
    unknown job, SegmentConversionError after recording a permanent inference
    error on the segment, and transient inference errors as they are.
    """
    backend, job_id, index = deps.backend, payload.job_id, payload.segment_index
    run = payload.run
    status = backend.segment_status.get(job_id, index)
    if status is not None and status.state == SegmentState.COMPLETE and status.run == run:
        log.info("job_id=%s segment_index=%d already complete; nothing to do", job_id, index)
        return None
    job = backend.jobs.get(job_id)
    if job is None:
        raise JobNotFoundError(f"segment {index} of unknown job {job_id}")
    if job.status.is_final:
        log.info("job_id=%s segment_index=%d job is %s; skipping", job_id, index, job.status)
        return None
    if refuse_other_run(job, run, STAGE, f"conversion of segment {index}"):
        return None
    status = backend.segment_status.mark_pending(job_id, index, run)
    if status.run != run:  # a newer run wrote the row since we read the job
        refuse_other_run(job.model_copy(update={"run": status.run}), run, STAGE,
                         f"status of segment {index}")
        return None
    if status.state == SegmentState.COMPLETE:
        return None
    log.info("job_id=%s segment_index=%d run %d inference attempt %d", job_id, index, run,
             status.attempts)
    output_key = output_segment_key(job_id, index, run)
    heartbeat = SegmentHeartbeater(backend.heartbeats, job_id, index, deps.worker_id,
                                   interval_s=deps.heartbeat_s,
                                   is_cancelled=lambda: job_is_over(backend, job_id, run))
    try:
        progress = ConversionDeadline(heartbeat, base_s=deps.timeout_base_s,
                                      s_per_frame=deps.timeout_s_per_frame)
        result = deps.inference.convert(payload, output_key, job.params, on_progress=progress)
    except JobCancelledError:
        if not _run_was_taken_over(backend, payload, f"conversion of segment {index}"):
            log.info("job_id=%s segment_index=%d job cancelled; conversion stopped",
                     job_id, index)
        return None
    except PermanentError as exc:
        reason = str(exc) or type(exc).__name__
        if _run_was_taken_over(backend, payload, f"failure of segment {index}"):
            return None  # a zombie's failure must not fail the run that replaced it
        backend.segment_status.mark_failed(job_id, index, reason, run)
        code = failure_code(exc)  # the cause's reason: invalid_media, model_unavailable, ...
        raise SegmentConversionError(
            f"Segment {index + 1} of {payload.total_segments} could not be converted: {reason}",
            code=None if code == GENERIC_PERMANENT else code) from exc
    except Exception:
        log.warning("job_id=%s segment_index=%d inference attempt %d failed; will retry",
                    job_id, index, status.attempts)
        raise
    if job_is_over(backend, job_id, run):  # cancelled (or run taken over) at the last frames
        backend.output_storage.delete(output_key)
        if not _run_was_taken_over(backend, payload, f"output of segment {index}"):
            log.info("job_id=%s segment_index=%d job cancelled; output removed", job_id, index)
        return None
    if result.frames is not None:
        heartbeat.finish(result.frames)
    log.info("job_id=%s segment_index=%d inference done -> %s", job_id, index, output_key)
    return result
