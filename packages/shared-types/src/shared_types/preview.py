"""Preview before converting all: a held job, its thumbnail strip, and clip jobs.

A job created held starts in ``awaiting_confirmation``. Its upload raises the
same chunking event as any other, but media-worker only makes the thumbnail
strip (``keys.thumbnail_key``) and records the source's duration: the job then
belongs to the person, and the janitor only expires it after its hold timeout.

A *clip job* is an ordinary job with ``parent_job_id``, ``clip_start_s``,
``clip_duration_s`` and its own params. A :class:`ClipMessage` on the chunking
queue makes media-worker cut that range out of the parent's source (``-ss`` /
``-t``) and chunk it; inference, reassembly, progress and playback are the
normal pipeline's. "Convert the whole video" moves the parent to ``created``
with the chosen params and sends its source event; if that send is lost the
janitor re-sends it (``created`` + source present).
"""

from __future__ import annotations

import json
import logging

from pydantic import ValidationError

from shared_types.errors import JobStateError, MalformedMessageError
from shared_types.events import parse_s3_event_body
from shared_types.keys import source_key
from shared_types.models import (
    ClipMessage,
    Container,
    ConversionParams,
    Job,
    JobUpdate,
    S3EventRecord,
    new_job_id,
)
from shared_types.ports import Backend
from shared_types.resend import resend_source
from shared_types.transitions import HELD, confirm_hold, create_job, record

log = logging.getLogger(__name__)

CLIP_SECONDS = 10.0
THUMBNAILS = 12


def thumbnail_times(duration_s: float, count: int = THUMBNAILS) -> list[float]:
    """Where strip thumbnail ``i`` is taken: the middle of the i-th of ``count``
    equal slices of the video (never its last frame, which a seek may miss)."""
    return [round((i + 0.5) * duration_s / count, 3) for i in range(count)]


def source_job_id(job: Job) -> str:
    """The job whose uploaded source ``job`` converts (its parent's for a clip)."""
    return job.parent_job_id or job.job_id


def has_source(backend: Backend, job: Job) -> bool:
    """True when the source ``job`` converts is in the input bucket."""
    return backend.input_storage.exists(source_key(source_job_id(job)))


def parse_chunking_body(body: str) -> list[S3EventRecord | ClipMessage]:
    """What one chunking-queue message asks for: a clip to cut and chunk, or the
    records of an S3 upload event. Raises MalformedMessageError."""
    try:
        doc = json.loads(body)
    except (TypeError, ValueError):
        doc = None
    if isinstance(doc, dict) and "clip_job_id" in doc:
        try:
            return [ClipMessage.model_validate(doc)]
        except ValidationError as exc:
            raise MalformedMessageError(f"invalid clip message: {exc}") from exc
    return list(parse_s3_event_body(body))


def resend_chunking(backend: Backend, job: Job) -> bool:
    """Send the message that (re)starts chunking ``job``: its source event, or
    for a clip its ClipMessage. False (nothing sent) when the source is gone."""
    if not job.is_clip:
        return resend_source(backend, job.job_id)
    if not has_source(backend, job):
        return False
    backend.chunking_queue.send(ClipMessage(clip_job_id=job.job_id).model_dump_json())
    log.info("job_id=%s clip message sent to chunking", job.job_id)
    return True


def clip_range(duration_s: float, start_s: float, seconds: float = CLIP_SECONDS
               ) -> tuple[float, float]:
    """``(start, length)`` of a clip of ``seconds`` from ``start_s`` that lies
    inside a source of ``duration_s`` (moved earlier near the end)."""
    length = min(seconds, duration_s)
    start = min(max(0.0, start_s), max(0.0, duration_s - length))
    return round(start, 3), round(length, 3)


def start_clip(backend: Backend, parent: Job, start_s: float, params: ConversionParams,
               *, seconds: float = CLIP_SECONDS) -> Job:
    """Create a clip job of ``parent`` (held, its strip made) from ``start_s``
    with ``params`` and send it to chunking; returns the clip. Raises
    JobStateError when the parent is not held or not read yet,
    ConditionFailedError when it left the hold meanwhile."""
    if parent.status not in HELD:
        raise JobStateError("Previews are made before the whole video is converted.")
    if parent.source_duration_s is None:
        raise JobStateError("The video is still being read; try again in a moment.")
    start, length = clip_range(parent.source_duration_s, start_s, seconds)
    minutes, secs = divmod(int(start), 60)
    clip = Job(job_id=new_job_id(), owner=parent.owner, mode=parent.mode,
               container=Container.MP4, params=params,
               title=f"{parent.title or 'Video'} (preview at {minutes}:{secs:02d})"[:200],
               parent_job_id=parent.job_id, clip_start_s=start, clip_duration_s=length)
    create_job(backend.jobs, clip)
    # Also refreshes the parent's updated_at: its hold expires counting from here.
    record(backend.jobs, parent.job_id, JobUpdate(preview_job_id=clip.job_id), while_in=HELD)
    resend_chunking(backend, clip)  # lost: the janitor re-sends (clip created and stale)
    log.info("job_id=%s preview clip %s from %.3f s for %.3f s", parent.job_id, clip.job_id,
             start, length)
    return clip


def convert_whole(backend: Backend, parent: Job, params: ConversionParams) -> Job:
    """Move a held job into the normal pipeline with ``params`` and send its
    source event. Raises JobStateError when it is not held or has no source yet,
    ConditionFailedError when it left the hold meanwhile."""
    if parent.status not in HELD:
        raise JobStateError("This video is already being converted.")
    if not has_source(backend, parent):
        raise JobStateError("Upload the video first.")
    job = confirm_hold(backend.jobs, parent.job_id, params)
    resend_source(backend, job.job_id)  # lost: the janitor re-sends (created + source)
    log.info("job_id=%s confirmed: converting the whole video", job.job_id)
    return job
