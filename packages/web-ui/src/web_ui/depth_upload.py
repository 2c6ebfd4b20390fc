"""A job's imported depth video: uploaded before its source, it replaces depth
estimation for the whole video (as ``stereo-inference convert --depth-video``).

The file is what ``stereo-inference depth`` writes (16-bit grey, one frame per
source frame, 65535 nearest), perhaps edited. It is stored at
``keys.depth_video_key``; chunking then makes one segment of the source (the
depth video follows the whole source frame for frame) and the engine checks the
frame count and shape before converting, failing the job with what it expected.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from fastapi import UploadFile
from shared_types.keys import depth_video_key, source_key
from shared_types.models import Job, JobStatus
from shared_types.ports import Backend

from web_ui.errors import BadRequestError, JobStateError, TooLargeError

CHUNK_BYTES = 1 << 20
DEPTH_TYPES = (".mkv", ".mp4", ".mov", ".avi", ".nut")


def has_depth_video(backend: Backend, job: Job) -> bool:
    """Whether ``job`` converts with an imported depth video."""
    return backend.input_storage.exists(depth_video_key(job.job_id))


def store_depth_video(backend: Backend, job: Job, upload: UploadFile, *, max_bytes: int,
                      work_dir: Path | None = None) -> str:
    """Store ``upload`` as ``job``'s depth video; returns its key. Raises
    JobStateError once the job's source is uploaded (its segments would not
    follow it), TooLargeError over ``max_bytes``, BadRequestError for an empty
    file, a name that is not a video's, or a job that converts only a part of its
    video (a depth video follows the whole of it, frame for frame)."""
    if job.status is not JobStatus.CREATED or backend.input_storage.exists(
            source_key(job.job_id)):
        raise JobStateError("A depth video goes with a job before its video is uploaded.")
    if job.params.start_s is not None or job.params.end_s is not None:
        raise BadRequestError("A depth video follows the whole video, frame for frame: it "
                              "cannot go with a start or end time.")
    name = upload.filename or ""
    if not name.lower().endswith(DEPTH_TYPES):
        raise BadRequestError(f"{name or 'the file'} is not a depth video "
                              f"({', '.join(DEPTH_TYPES)}; `stereo-inference depth` writes .mkv)")
    with tempfile.NamedTemporaryFile(dir=work_dir, suffix=".mkv", delete=False) as out:
        path = Path(out.name)
        try:
            size = 0
            while chunk := upload.file.read(CHUNK_BYTES):
                size += len(chunk)
                if size > max_bytes:
                    raise TooLargeError(f"the depth video is over {max_bytes} bytes")
                out.write(chunk)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
    if size == 0:
        path.unlink(missing_ok=True)
        raise BadRequestError("the depth video is empty")
    try:
        key = depth_video_key(job.job_id)
        backend.input_storage.put_file(key, path, content_type="video/x-matroska", move=True)
    finally:
        path.unlink(missing_ok=True)
    return key
