"""Trigger-on-write: send a job to reassembly exactly once, when it is ready.

Called by video-worker after every SegmentCompletion, by media-worker right
after it sets ``chunking_complete`` (closing the race where the last segment
finishes before ``total_segments`` is known), and by the janitor sweep.
"""

from __future__ import annotations

import logging

from shared_types.models import JobStatus, ReassemblyMessage
from shared_types.ports import Backend
from shared_types.runs import run_completions

log = logging.getLogger(__name__)


def is_ready_for_reassembly(backend: Backend, job_id: str) -> bool:
    """True when chunking is complete and every segment has a completion of the
    job's current chunking run."""
    job = backend.jobs.get(job_id)
    if job is None or job.status != JobStatus.CHUNKING_COMPLETE or not job.total_segments:
        return False
    return len(run_completions(backend, job)) >= job.total_segments


def trigger_reassembly_if_ready(backend: Backend, job_id: str) -> bool:
    """Send ``job_id`` to the reassembly queue if ready and not yet triggered.

    The conditional write of the trigger (once per ``Job.epoch``) makes this safe
    to call from any number of workers at once: exactly one of them sends.
    Returns True for it. If that one dies before its send lands, the janitor
    re-sends once the job is stale (docs/ARCHITECTURE.md, "Lifecycle").
    """
    job = backend.jobs.get(job_id)
    if job is None or not is_ready_for_reassembly(backend, job_id):
        return False
    if not backend.reassembly.trigger(job_id, job.epoch):
        return False
    backend.reassembly_queue.send(ReassemblyMessage(job_id=job_id).model_dump_json())
    log.info("job_id=%s all segments complete: reassembly triggered", job_id)
    return True
