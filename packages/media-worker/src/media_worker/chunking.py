"""Chunking: from an uploaded source to canonical segments and ``chunking_complete``.

The chunking queue also carries clip requests (``shared_types.preview``): a clip
job is chunked from its range of its parent's source, cut first (``clip.py``);
an upload to a job held for a preview makes its thumbnail strip instead
(``thumbnails.py``).

Idempotent: a replayed event for a job already past chunking is left alone.
Fenced: the claim takes the job's next chunking run (``Job.run``, a conditional
write on the run it read), every segment key carries that run, and before every
side effect (poster, side streams, each segment, ``chunking_complete``) the
chunker checks that its run is still the job's: a chunker whose run was taken
over (a zombie) stops, its refusal counted in ``shared_types.runs``.
"""

from __future__ import annotations

import logging
import tempfile
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

from shared_types import keys
from shared_types.cancel import discard_if_cancelled, free_job_files
from shared_types.disk_room import WORK_FACTOR, require_room
from shared_types.errors import ConditionFailedError
from shared_types.failure import disk_full_as
from shared_types.keepalive import JobKeepAlive
from shared_types.models import (
    ClipMessage,
    Job,
    JobStatus,
    JobUpdate,
    ObjectInfo,
    S3EventRecord,
    now,
)
from shared_types.preview import CLIP_SECONDS, source_job_id
from shared_types.reassembly_trigger import trigger_reassembly_if_ready
from shared_types.runs import STALE_RUN_WRITES
from shared_types.transitions import CHUNKABLE, claim_chunking, finish_chunking, record
from stereo_media.bounded_probe import probe_video, refuse_oversize
from stereo_media.clock_jumps import continuous_source
from stereo_media.errors import UnusableVideoError
from stereo_media.source_cut import source_span

from media_worker.clip import cut_clip
from media_worker.cut_plan import planned_cuts
from media_worker.deps import MediaDeps
from media_worker.errors import SplitOffPlanError
from media_worker.played_timeline import played_source
from media_worker.poster import store_poster
from media_worker.publication import Publication
from media_worker.segment_order import publish_order, segment_seconds
from media_worker.segment_subtitles import add_cues_to_segments
from media_worker.side_streams import SideFiles, keep_side_streams
from media_worker.source_file import SourceLocation, source_file
from media_worker.splitting import prepare_and_split
from media_worker.thumbnails import store_strip

log = logging.getLogger(__name__)

STAGE = "chunking"
CHUNKING = (JobStatus.CHUNKING_IN_PROGRESS,)


def request_job_id(request: S3EventRecord | ClipMessage) -> str | None:
    """The job a chunking-queue request concerns (None for a foreign key)."""
    if isinstance(request, ClipMessage):
        return request.clip_job_id
    return keys.parse_source_key(request.key)


def handle_chunk_request(request: S3EventRecord | ClipMessage, deps: MediaDeps) -> int | None:
    """Chunk what one chunking-queue request asks for: an uploaded source, or a
    clip job's range of its parent's source (``shared_types.preview``)."""
    if isinstance(request, ClipMessage):
        return handle_clip_requested(request, deps)
    return handle_source_uploaded(request, deps)


def _checked_head(deps: MediaDeps, key: str) -> ObjectInfo:
    info = deps.backend.input_storage.head(key)
    if info is None:
        raise UnusableVideoError("The uploaded file could not be found; please upload it again.")
    refuse_oversize(info.size, deps.limits)
    return info


def handle_source_uploaded(record: S3EventRecord, deps: MediaDeps) -> int | None:
    """Chunk the job whose source ``record`` names (a job held for a preview
    gets its thumbnail strip instead). Returns the number of segments, or None
    when there was nothing to do (foreign key, unknown job, job past chunking,
    strip made). Raises UnusableVideoError and Ffmpeg*Error (permanent) or
    TransientError (storage)."""
    backend = deps.backend
    job_id = keys.parse_source_key(record.key)
    if job_id is None or record.bucket != backend.input_storage.bucket:
        log.warning("ignoring object %s/%s: not a source upload", record.bucket, record.key)
        return None
    job = backend.jobs.get(job_id)
    if job is None:
        # a deleted job's upload form used late (or a job that never was): nobody
        # will convert it, so it is removed now, not left to the bucket's rule
        deleted = free_job_files(backend, job_id, keep_poster=False)
        log.warning("job_id=%s source uploaded for an unknown job; %d objects removed",
                    job_id, deleted)
        return None
    if job.status == JobStatus.AWAITING_CONFIRMATION and job.thumbnails is None:
        info = _checked_head(deps, record.key)
        with _workspace(deps, job_id) as work:
            store_strip(job, info, work, deps)
        return None
    if job.status == JobStatus.CANCELLED:
        # an upload that landed after the cancel (its form was handed out before):
        # nobody will convert it, and the cancel already freed the job's files
        if discard_if_cancelled(backend, job_id):
            log.info("job_id=%s source uploaded after the cancel; removed", job_id)
        return None
    if job.status not in CHUNKABLE:
        log.info("job_id=%s already %s; replayed upload event ignored", job_id, job.status)
        return None
    info = _checked_head(deps, record.key)
    if (job.status == JobStatus.CHUNKING_IN_PROGRESS and job.source_etag is not None
            and info.etag != job.source_etag):
        # One source per job: a second, different upload (S3 cannot refuse it) is
        # not chunked; the run of the first one goes on (or fails if it is gone).
        log.warning("job_id=%s ignored a second upload (etag %s): the job converts the "
                    "upload with etag %s", job_id, info.etag, job.source_etag)
        return None
    return _chunk(job, info, deps)


def handle_clip_requested(message: ClipMessage, deps: MediaDeps) -> int | None:
    """Cut a clip job's range out of its parent's source and chunk it; None when
    there was nothing to do. Raises like :func:`handle_source_uploaded`."""
    job = deps.backend.jobs.get(message.clip_job_id)
    if job is None or not job.is_clip:
        log.warning("job_id=%s clip requested for no clip job; ignored", message.clip_job_id)
        return None
    if job.status not in CHUNKABLE:
        log.info("job_id=%s already %s; replayed clip message ignored", job.job_id, job.status)
        return None
    return _chunk(job, _checked_head(deps, keys.source_key(source_job_id(job))), deps)


@contextmanager
def _workspace(deps: MediaDeps, job_id: str) -> Iterator[Path]:
    """A temp folder in the work dir (``chunk-*``: swept at start-up if a killed
    worker left it behind), removed on the way out; a full disk met inside
    raises DiskFullError naming the work dir."""
    with disk_full_as(deps.work_dir, doing="chunking"):
        deps.work_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=deps.work_dir, prefix=f"chunk-{job_id}-") as tmp:
            yield Path(tmp)


def _parent_duration(deps: MediaDeps, clip: Job) -> float | None:
    parent = deps.backend.jobs.get(source_job_id(clip))
    return parent.source_duration_s if parent is not None else None


def _on_one_timeline(source: Path, work: Path, deps: MediaDeps, alive: JobKeepAlive) -> Path:
    """``source``, or in its place a copy on one timeline when its clock jumps
    (``stereo_media.clock_jumps``: joined recordings) or it has none (a raw
    H.264/HEVC stream: ``stereo_media.raw_video``)."""
    def run(args):
        deps.runner.run(args, on_tick=alive.tick, what="putting the source on one timeline")

    continuous = continuous_source(source, work, run)
    if continuous != source:
        log.info("source %s: not on one timeline; converting a copy that is", source.name)
        source.unlink()
    return continuous


def _chunk(job: Job, info: ObjectInfo, deps: MediaDeps) -> int | None:
    backend, job_id, run = deps.backend, job.job_id, job.run + 1
    try:
        claim_chunking(backend.jobs, job, JobUpdate(
            source_etag=info.etag, source_size_bytes=None if job.is_clip else info.size,
            started_at=now()))
    except ConditionFailedError:
        log.info("job_id=%s left chunking or was claimed by another chunker meanwhile; "
                 "nothing to do", job_id)
        return None
    log.info("job_id=%s chunking run %d claimed", job_id, run)
    alive = JobKeepAlive(backend.jobs, job_id, JobStatus.CHUNKING_IN_PROGRESS,
                         every_s=deps.keepalive_s, run=run)
    try:
        with _workspace(deps, job_id) as work, ExitStack() as asked:
            if job.is_clip:
                # Seconds of the parent's source, read where it lies (its header read;
                # a joined recording's continuous copy: played_timeline).
                source = cut_clip(
                    deps.runner,
                    played_source(deps, info, work)[0].ffmpeg_decode_input(deps.limits.timeout_s),
                    job.clip_start_s or 0.0, job.clip_duration_s or CLIP_SECONDS,
                    work / "clip.mp4", source_duration_s=_parent_duration(deps, job),
                    on_tick=alive.tick)
                record(backend.jobs, job_id, JobUpdate(source_size_bytes=source.stat().st_size),
                       while_in=CHUNKING, run=run)
            else:
                # the copy and its segments: refused (transient) before filling the disk
                require_room(deps.work_dir, WORK_FACTOR * info.size,
                             what="chunking this video in the work folder")
                source = source_file(backend.input_storage, info, work / "source.mp4")
                source = _on_one_timeline(source, work, deps, alive)
                # the part the job asks for (params start_s/end_s), if not all of it
                source = asked.enter_context(source_span(
                    deps.runner, source, work, start_s=job.params.start_s,
                    end_s=job.params.end_s, on_tick=alive.tick))
            video = probe_video(source, deps.limits)
            log.info("job_id=%s source %dx%d %.1f s, %d frames, audio=%s", job_id, video.width,
                     video.height, video.duration_s, video.video_frames, video.has_audio)
            # The ETA needs the frame count and size while the job is still splitting;
            # the timecode is put back on the final video (segments do not carry it).
            # Conditional on the run: also the check before the next side effect.
            record(backend.jobs, job_id, JobUpdate(source_frames=video.video_frames,
                                                   source_width=video.width,
                                                   source_height=video.height,
                                                   source_timecode=video.timecode),
                   while_in=CHUNKING, run=run)
            # The poster is for the page, not the pipeline: made beside the split and
            # uploads (its own ffmpeg), so the first segment is not waiting for it.
            poster = threading.Thread(
                target=lambda: store_poster(
                    deps.runner, SourceLocation(str(source)).ffmpeg_decode_input(
                        deps.limits.timeout_s),
                    video.duration_s, work, backend.output_storage, job_id),
                name=f"poster-{job_id}", daemon=True)
            poster.start()
            try:
                total, left_out = _split_and_upload(job, source, video, work, deps, run, alive)
            finally:
                poster.join()  # it writes into the workspace, removed on the way out
    except ConditionFailedError:  # the job moved on while we worked (keep-alive refused)
        if _stopped(deps, job_id, run):
            return None
        raise
    try:
        finish_chunking(backend.jobs, job_id, run=run, total_segments=total, left_out=left_out)
    except ConditionFailedError:
        if not _stopped(deps, job_id, run):
            log.warning("job_id=%s changed status during chunking run %d; total_segments "
                        "not written", job_id, run)
        return None
    log.info("job_id=%s chunking run %d complete: %d segments", job_id, run, total)
    trigger_reassembly_if_ready(backend, job_id)
    return total


def _split_and_upload(job: Job, source: Path, video, work: Path, deps: MediaDeps, run: int,
                      alive: JobKeepAlive) -> tuple[int, list[str]]:
    """Keep the side streams, cut the segments (as long as
    ``segment_order.segment_seconds`` says) and upload them in the order
    ``segment_order.publish_order`` gives for ``deps.segment_lanes``; returns
    their count and what no output can hold of the source (``SideFiles.left_out``).
    Raises ConditionFailedError once the job moved on, SplitOffPlanError when a
    streamed split cut another count than planned.

    A job's first run that needs no subtitle cues streams: its cuts are planned
    before the split (``cut_plan``), and each segment is uploaded as soon as it
    is cut (``publication``; a re-encode runs in the split's own ffmpeg), so the
    video-workers start converting while the rest is still being cut.
    Otherwise the whole split comes first. The side streams are copied out
    beside the split (two stream copies of the same file, each its own ffmpeg)
    and uploaded before the last segment; a streamed split's copy starts once
    its first segment is out, so that its ffmpeg does not share the cores with
    the split's before the first conversion can begin."""
    backend, job_id = deps.backend, job.job_id
    length = segment_seconds(video.duration_s, deps.segment_seconds, deps.segment_lanes)
    if backend.input_storage.exists(keys.depth_video_key(job_id)):
        # imported depth follows the whole source frame for frame: one segment
        length = video.duration_s + 3600.0
        log.info("job_id=%s has an imported depth video: one segment", job_id)
    streamed = run == 1 and not job.params.subtitles_3d
    cuts = planned_cuts(video, length) if streamed else None
    total = len(cuts) + 1 if cuts is not None else None

    def publication_of(count: int) -> Publication:
        # The count goes on the job before any segment of this run does: its progress
        # counts segments while the split cuts, and no completion of this run is
        # checked against another run's count (``segment_output``).
        record(backend.jobs, job_id, JobUpdate(total_segments=count), while_in=CHUNKING,
               run=run)

        def publish(index: int, path: Path) -> None:
            alive.touch()  # raises ConditionFailedError once the job moved on: stop writing
            key = keys.segment_key(job_id, index, count, job.mode, run)
            # moved, not copied, where the store is a folder on the work folder's disk
            backend.input_storage.put_file(key, path, content_type="video/mp4", move=True)
            log.info("job_id=%s segment_index=%d uploaded %s", job_id, index, key)

        return Publication(count, publish_order(count, deps.segment_lanes), publish)

    publication = publication_of(total) if total is not None else None
    with ThreadPoolExecutor(1, thread_name_prefix=f"side-{job_id}") as aside:
        kept: Future[SideFiles] | None = None  # the side-stream copy's future, once begun

        def keep_aside() -> Future[SideFiles]:
            nonlocal kept
            if kept is None:
                kept = aside.submit(keep_side_streams, deps.runner, source, work,
                                    on_tick=alive.tick)
            return kept

        def cut(index: int, path: Path) -> None:
            if publication is not None:  # (cut is handed to the split only then)
                publication.cut(index, path)
            keep_aside()  # once the first segment is out: its ffmpeg does not delay it

        if publication is None:
            keep_aside()
        segments = prepare_and_split(deps.runner, source, video, work, length,
                                     job_id=job_id, limits=deps.limits, on_tick=alive.tick,
                                     cuts=cuts, on_segment=cut if publication else None)
        side_files = keep_aside()  # begun here for a split that cut nothing before its end
        if publication is not None and len(segments) != total:
            raise SplitOffPlanError(
                f"the split cut {len(segments)} segments where {total} were planned "
                f"({publication.published} already handed out); chunking again")
        side = side_files.result()  # (its error, if any, is raised here)
    alive.touch()
    # before the last segment: reassembly may start after it
    if side.streams is not None:
        backend.input_storage.put_file(keys.streams_key(job_id), side.streams,
                                       content_type="video/x-matroska", move=True)
    if side.data is not None:
        backend.input_storage.put_file(keys.data_tracks_key(job_id), side.data,
                                       content_type="video/mp4", move=True)
    if publication is None:
        if job.params.subtitles_3d:
            add_cues_to_segments(deps.runner, source, segments, work, job_id=job_id,
                                 on_tick=alive.tick)
        total = len(segments)
        publication = publication_of(total)
    publication.finish(segments)
    return len(segments), list(side.left_out)


def _stopped(deps: MediaDeps, job_id: str, run: int) -> bool:
    """True when the job left this chunking run for good while it worked:
    cancelled (its files freed) or taken over by another chunker's run (counted:
    a zombie stopped before its next write). False when a sweep or a person
    moved it on otherwise."""
    if discard_if_cancelled(deps.backend, job_id):
        return True
    job = deps.backend.jobs.get(job_id)
    if job is not None and job.run != run:
        STALE_RUN_WRITES.record(STAGE, job_id, run, job.run, "chunking")
        return True
    return False
