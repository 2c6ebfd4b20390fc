"""Chunking: from an uploaded source to canonical segments and ``chunking_complete``.

Idempotent: the same source always yields the same segment keys, a replayed
event overwrites them with identical files, and a job already past chunking is
left alone.
"""

from __future__ import annotations

import logging
import tempfile
from pathlib import Path

from shared_types import keys
from shared_types.cancel import discard_if_cancelled
from shared_types.errors import ConditionFailedError
from shared_types.keepalive import JobKeepAlive
from shared_types.models import JobStatus, JobUpdate, S3EventRecord
from shared_types.reassembly_trigger import trigger_reassembly_if_ready

from media_worker.bounded_probe import probe_video
from media_worker.deps import MediaDeps
from media_worker.errors import SourceReplacedError, UnusableVideoError
from media_worker.poster import store_poster
from media_worker.side_streams import keep_side_streams
from media_worker.splitting import prepare_and_split

log = logging.getLogger(__name__)

STAGE = "chunking"
CHUNKABLE = (JobStatus.CREATED, JobStatus.CHUNKING_IN_PROGRESS)


def handle_source_uploaded(record: S3EventRecord, deps: MediaDeps) -> int | None:
    """Chunk the job whose source ``record`` names. Returns the number of segments,
    or None when there was nothing to do (foreign key, unknown job, job past
    chunking). Raises UnusableVideoError and Ffmpeg*Error (permanent) or
    TransientError (storage)."""
    backend = deps.backend
    job_id = keys.parse_source_key(record.key)
    if job_id is None or record.bucket != backend.input_storage.bucket:
        log.warning("ignoring object %s/%s: not a source upload", record.bucket, record.key)
        return None
    job = backend.jobs.get(job_id)
    if job is None:
        log.warning("job_id=%s source uploaded for an unknown job; ignored", job_id)
        return None
    if job.status not in CHUNKABLE:
        log.info("job_id=%s already %s; replayed upload event ignored", job_id, job.status)
        return None
    info = backend.input_storage.head(record.key)
    if info is None:
        raise UnusableVideoError("The uploaded file could not be found; please upload it again.")
    if info.size > deps.limits.max_bytes:
        raise UnusableVideoError(f"The file is too large ({info.size / 1e9:.2f} GB); the limit is "
                                 f"{deps.limits.max_bytes / 1e9:.2f} GB.")
    if (job.status == JobStatus.CHUNKING_IN_PROGRESS and job.source_etag is not None
            and info.etag != job.source_etag):
        # One source per job: a second, different upload (S3 cannot refuse it) is
        # not chunked; the run of the first one goes on (or fails if it is gone).
        log.warning("job_id=%s ignored a second upload (etag %s): the job converts the "
                    "upload with etag %s", job_id, info.etag, job.source_etag)
        return None
    try:
        backend.jobs.update(job_id, JobUpdate(status=JobStatus.CHUNKING_IN_PROGRESS,
                                              source_size_bytes=info.size,
                                              source_etag=info.etag),
                            expected_status=CHUNKABLE)
    except ConditionFailedError:
        log.info("job_id=%s left chunking meanwhile; nothing to do", job_id)
        return None
    alive = JobKeepAlive(backend.jobs, job_id, JobStatus.CHUNKING_IN_PROGRESS,
                         every_s=deps.keepalive_s)
    deps.work_dir.mkdir(parents=True, exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(dir=deps.work_dir, prefix=f"chunk-{job_id}-") as tmp:
            work = Path(tmp)
            source = work / "source.mp4"
            got = backend.input_storage.get_file(record.key, source)
            if info.etag is not None and got.etag != info.etag:
                raise SourceReplacedError(
                    "The uploaded video was replaced by another upload while it was being "
                    "converted; please start a new conversion for the other video.")
            video = probe_video(source, deps.limits)
            log.info("job_id=%s source %dx%d %.1f s, %d frames, audio=%s", job_id, video.width,
                     video.height, video.duration_s, video.video_frames, video.has_audio)
            alive.tick()
            store_poster(deps.runner, source, video, work, backend.output_storage, job_id)
            side = keep_side_streams(deps.runner, source, work / "streams.mkv", on_tick=alive.tick)
            alive.tick()
            if side is not None:  # before the segments: reassembly may start after the last one
                backend.input_storage.put_file(keys.streams_key(job_id), side,
                                               content_type="video/x-matroska")
            segments = prepare_and_split(deps.runner, source, video, work, deps.segment_seconds,
                                         job_id=job_id, on_tick=alive.tick)
            total = len(segments)
            for index, path in enumerate(segments):
                alive.tick()  # raises ConditionFailedError once the job moved on: stop writing
                key = keys.segment_key(job_id, index, total, job.mode)
                backend.input_storage.put_file(key, path, content_type="video/mp4")
                log.info("job_id=%s segment_index=%d uploaded %s", job_id, index, key)
    except ConditionFailedError:  # the job moved on while we worked (keep-alive refused)
        if discard_if_cancelled(backend, job_id):
            return None
        raise
    try:
        backend.jobs.update(job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                              total_segments=total),
                            expected_status=(JobStatus.CHUNKING_IN_PROGRESS,))
    except ConditionFailedError:
        if not discard_if_cancelled(backend, job_id):
            log.warning("job_id=%s changed status during chunking; total_segments not written",
                        job_id)
        return None
    log.info("job_id=%s chunking complete: %d segments", job_id, total)
    trigger_reassembly_if_ready(backend, job_id)
    return total
