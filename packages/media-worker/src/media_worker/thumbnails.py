"""The thumbnail strip of a job held for a preview: N frames spread over the
source, which the page's slider runs over to pick the moment to preview.

Each thumbnail is one fast input seek (``-ss`` before ``-i``) and one decoded
frame, so a two-hour film costs N short ffmpeg runs, not a full decode. The
source is read where it lies (``played_timeline.played_source``): on S3 through a
presigned URL, so the header and N seeks cost a few Range requests, not a
download of the film; only its header is probed there (the full bounded probe
runs before the whole video is chunked). The strip is made instead of chunking
(``chunking.handle_source_uploaded``); the job stays held and records its
source's duration and how many thumbnails exist.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

from shared_types import keys
from shared_types.models import Job, JobUpdate, ObjectInfo
from shared_types.preview import THUMBNAILS, thumbnail_times
from shared_types.transitions import HELD, record
from stereo_media.bounded_probe import probe_video
from stereo_media.ffmpeg_runner import FfmpegRunner

from media_worker.deps import MediaDeps
from media_worker.played_timeline import played_source
from media_worker.poster import frame_to_jpeg, store_poster

log = logging.getLogger(__name__)

THUMB_WIDTH = 160


def make_thumbnails(runner: FfmpegRunner, source_args: Sequence[str], duration_s: float,
                    out_dir: Path, count: int = THUMBNAILS) -> list[Path]:
    """JPEGs ``THUMB_WIDTH`` wide at :func:`thumbnail_times` of the input
    ``source_args`` name, in order; stops at the first one ffmpeg cannot make
    (a strip is a nicety). Raises nothing."""
    made: list[Path] = []
    for i, at in enumerate(thumbnail_times(duration_s, count)):
        dest = out_dir / f"thumb-{i:02d}.jpg"
        if not frame_to_jpeg(runner, at, source_args, dest, width=THUMB_WIDTH, quality=6,
                             what=f"thumbnail {i}"):
            break
        made.append(dest)
    return made


def store_strip(job: Job, info: ObjectInfo, work: Path, deps: MediaDeps) -> int:
    """Probe the held job's uploaded source (bounded), store its poster and
    thumbnail strip, and record the duration and strip size on the job; returns
    how many thumbnails were stored. Raises UnusableVideoError (not a video we
    can read: the job fails with that reason), TransientError (storage), and
    ConditionFailedError when the job left the hold meanwhile."""
    backend, job_id = deps.backend, job.job_id
    where, header = played_source(deps, info, work)
    if header is not None and where.is_url:  # read in place: its header says enough
        duration_s = header.duration_s
    else:  # a local file is probed in full where it lies: no copy, refused early
        duration_s = probe_video(Path(where.target), deps.limits).duration_s
    source_args = where.ffmpeg_decode_input(deps.limits.timeout_s)
    store_poster(deps.runner, source_args, duration_s, work, backend.output_storage, job_id)
    thumbs = make_thumbnails(deps.runner, source_args, duration_s, work)
    for i, path in enumerate(thumbs):
        backend.output_storage.put_file(keys.thumbnail_key(job_id, i), path,
                                        content_type="image/jpeg")
    record(backend.jobs, job_id, JobUpdate(thumbnails=len(thumbs),
                                           source_duration_s=round(duration_s, 3),
                                           source_size_bytes=info.size, source_etag=info.etag),
           while_in=HELD)
    log.info("job_id=%s held for a preview: %d thumbnails over %.1f s", job_id, len(thumbs),
             duration_s)
    return len(thumbs)
