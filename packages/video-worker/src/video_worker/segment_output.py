"""The segment-output handler: a converted segment landed in the output bucket.

Records the SegmentCompletion (idempotent), marks the segment ``complete``
(which also clears an earlier ``failed``), then runs the trigger-on-write.
Fenced on the chunking run the output key names: an output of a run that is no
longer the job's (a zombie's late write) is refused and counted
(``shared_types.runs``), and the completion store itself never lets an older
run's completion replace a newer one's. Then
``trigger_reassembly_if_ready`` sends the job to reassembly exactly once, when
chunking is complete and every segment has a completion. ``final.mp4`` and any
other non-segment key are ignored.
"""

from __future__ import annotations

import logging

from shared_types.events import created_objects
from shared_types.keys import parse_output_segment_key
from shared_types.models import Message, SegmentCompletion, SegmentOutput
from shared_types.ports import Backend
from shared_types.reassembly_trigger import trigger_reassembly_if_ready
from shared_types.runs import refuse_other_run

log = logging.getLogger(__name__)

STAGE = "segment_output"


def decode_segment_outputs(message: Message) -> list[SegmentOutput]:
    """The converted segments an output-bucket event message names; ``final.mp4``
    and any other key are skipped. Raises MalformedMessageError for a body that is
    not an S3 event."""
    outputs, ignored = created_objects(message.body, parse_output_segment_key)
    for record in ignored:
        log.debug("ignoring output key %r (not a converted segment)", record.key)
    return outputs


def record_segment_output(output: SegmentOutput, backend: Backend) -> bool:
    """Record one converted segment and trigger reassembly if it was the last.

    Returns True when the completion was new. Completions for unknown jobs or
    out-of-range indexes are ignored (logged).
    """
    job_id, index = output.job_id, output.segment_index
    job = backend.jobs.get(job_id)
    if job is None:  # deleted while converting: what it wrote goes too
        backend.output_storage.delete(output.key)
        log.warning("job_id=%s segment_index=%d output for unknown job removed", job_id, index)
        return False
    if refuse_other_run(job, output.run, STAGE, f"completion of segment {index}"):
        return False
    if job.total_segments is not None and index >= job.total_segments:
        log.warning("job_id=%s segment_index=%d beyond total_segments=%d; ignored",
                    job_id, index, job.total_segments)
        return False
    new = backend.completions.put(SegmentCompletion(
        job_id=job_id, segment_index=index, output_key=output.key,
        total_segments=job.total_segments, run=output.run))
    backend.segment_status.mark_complete(job_id, index, output.run)
    log.info("job_id=%s segment_index=%d completion recorded (new=%s)", job_id, index, new)
    trigger_reassembly_if_ready(backend, job_id)
    return new
