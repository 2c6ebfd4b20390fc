"""Object key formats: the only place that builds or parses a key.

Input bucket:  ``input/{job_id}/source.mp4`` and
               ``segments/{job_id}/r{run}/{i:05d}_{n:05d}_{mode}.mp4``.
               ``input/{job_id}/streams.mkv`` (the source's non-video streams, kept aside),
               ``input/{job_id}/data.mp4`` (its data tracks, which MKV cannot hold).
Output bucket: ``jobs/{job_id}/segments/r{run}/{i}.mp4``, ``jobs/{job_id}/final.{mp4,mkv}``,
               ``jobs/{job_id}/poster.jpg`` and ``jobs/{job_id}/thumbs/{i:02d}.jpg``
               (the strip a held job's preview slider runs over).

``run`` is the job's chunking run (``Job.run``, >= 1): a late write of another
run lands beside, never over, the current run's objects, and its parsed payload
says which run it belongs to. Run 0 (jobs chunked before runs existed) keeps
the keys without the ``r{run}/`` part.

Builders raise :class:`InvalidKeyError` for bad arguments; parsers return None
for any key that is not exactly canonical (so a hostile or foreign key is
ignored, never half-understood).
"""

from __future__ import annotations

import re

from shared_types.errors import InvalidKeyError
from shared_types.models import Container, OutputMode, SegmentOutput, SegmentPayload

JOB_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}"
MAX_SEGMENTS = 99_999

INPUT_PREFIX = "input/"
SEGMENTS_PREFIX = "segments/"
OUTPUT_PREFIX = "jobs/"

_JOB_ID_RE = re.compile(f"^{JOB_ID_PATTERN}$")
_MODES = "|".join(re.escape(m.value) for m in OutputMode)
_SOURCE_RE = re.compile(rf"^input/(?P<job>{JOB_ID_PATTERN})/source\.mp4$")
MAX_RUN = 999_999_999
_RUN = r"(?:r(?P<run>[1-9]\d{0,8})/)?"
_SEGMENT_RE = re.compile(
    rf"^segments/(?P<job>{JOB_ID_PATTERN})/{_RUN}"
    rf"(?P<i>\d{{5}})_(?P<n>\d{{5}})_(?P<mode>{_MODES})\.mp4$"
)
_OUTPUT_RE = re.compile(
    rf"^jobs/(?P<job>{JOB_ID_PATTERN})/segments/{_RUN}(?P<i>0|[1-9]\d{{0,4}})\.mp4$")
_FINAL_RE = re.compile(rf"^jobs/(?P<job>{JOB_ID_PATTERN})/final\.(?:mp4|mkv)$")


def is_valid_job_id(job_id: str) -> bool:
    """True when ``job_id`` is safe to embed in a key."""
    return bool(_JOB_ID_RE.match(job_id))


def _check_job_id(job_id: str) -> None:
    if not is_valid_job_id(job_id):
        raise InvalidKeyError(f"invalid job id {job_id!r}")


def _check_index(index: int, total: int) -> None:
    if not (1 <= total <= MAX_SEGMENTS):
        raise InvalidKeyError(f"total_segments must be 1..{MAX_SEGMENTS}, got {total}")
    if not (0 <= index < total):
        raise InvalidKeyError(f"segment_index must be 0..{total - 1}, got {index}")


def input_prefix(job_id: str) -> str:
    """Prefix of a job's source and the files kept aside from it (not its segments)."""
    _check_job_id(job_id)
    return f"input/{job_id}/"


def source_key(job_id: str) -> str:
    """Key of a job's uploaded source video. Raises InvalidKeyError."""
    _check_job_id(job_id)
    return f"input/{job_id}/source.mp4"


def depth_video_key(job_id: str) -> str:
    """Key of a job's imported depth video (uploaded before its source: the job is
    then converted in one segment with that depth). Raises InvalidKeyError."""
    _check_job_id(job_id)
    return f"input/{job_id}/depth.mkv"


def streams_key(job_id: str) -> str:
    """Key of the source's non-video streams (audio, subtitles, chapters, tags),
    kept aside at chunking for reassembly. Raises InvalidKeyError."""
    _check_job_id(job_id)
    return f"input/{job_id}/streams.mkv"


def data_tracks_key(job_id: str) -> str:
    """Key of the source's data tracks that MKV cannot hold (a camera's telemetry),
    kept aside in an MP4 at chunking for reassembly. Raises InvalidKeyError."""
    _check_job_id(job_id)
    return f"input/{job_id}/data.mp4"


def parse_source_key(key: str) -> str | None:
    """The job id of a source key, or None when ``key`` is not one."""
    m = _SOURCE_RE.match(key)
    return m["job"] if m else None


def _run_part(run: int) -> str:
    if not (0 <= run <= MAX_RUN):
        raise InvalidKeyError(f"run must be 0..{MAX_RUN}, got {run}")
    return f"r{run}/" if run else ""


def _run_of(match: re.Match) -> int:
    return int(match["run"]) if match["run"] else 0


def segment_key(
    job_id: str, segment_index: int, total_segments: int, mode: OutputMode | str,
    run: int = 0,
) -> str:
    """Key of one input segment of chunking run ``run``. Raises InvalidKeyError
    for bad arguments."""
    _check_job_id(job_id)
    _check_index(segment_index, total_segments)
    try:
        mode = OutputMode(mode)
    except ValueError as exc:
        raise InvalidKeyError(f"unknown mode {mode!r}") from exc
    return (f"segments/{job_id}/{_run_part(run)}"
            f"{segment_index:05d}_{total_segments:05d}_{mode.value}.mp4")


def segment_prefix(job_id: str) -> str:
    """Prefix under which all of a job's input segments live (every run's)."""
    _check_job_id(job_id)
    return f"segments/{job_id}/"


def parse_segment_key(bucket: str, key: str) -> SegmentPayload | None:
    """The canonical segment payload for a segment key, or None when malformed."""
    m = _SEGMENT_RE.match(key)
    if not m:
        return None
    index, total = int(m["i"]), int(m["n"])
    if total < 1 or index >= total:
        return None
    return SegmentPayload(
        job_id=m["job"], segment_index=index, total_segments=total,
        mode=OutputMode(m["mode"]), bucket=bucket, key=key, run=_run_of(m),
    )


def output_segment_key(job_id: str, segment_index: int, run: int = 0) -> str:
    """Key of one converted segment of chunking run ``run`` in the output bucket.
    Raises InvalidKeyError."""
    _check_job_id(job_id)
    if not (0 <= segment_index < MAX_SEGMENTS):
        raise InvalidKeyError(f"invalid segment_index {segment_index}")
    return f"jobs/{job_id}/segments/{_run_part(run)}{segment_index}.mp4"


def output_segment_prefix(job_id: str) -> str:
    """Prefix under which all of a job's converted segments live. Raises InvalidKeyError."""
    _check_job_id(job_id)
    return f"jobs/{job_id}/segments/"


def parse_output_segment_key(bucket: str, key: str) -> SegmentOutput | None:
    """The converted segment for an output key; None for ``final.mp4`` and anything else."""
    m = _OUTPUT_RE.match(key)
    if not m:
        return None
    return SegmentOutput(job_id=m["job"], segment_index=int(m["i"]), bucket=bucket, key=key,
                         run=_run_of(m))


def final_key(job_id: str, container: Container | str = Container.MP4) -> str:
    """Key of a job's reassembled 3D video. Raises InvalidKeyError."""
    _check_job_id(job_id)
    try:
        container = Container(container)
    except ValueError as exc:
        raise InvalidKeyError(f"unknown container {container!r}") from exc
    return f"jobs/{job_id}/final.{container.value}"


def parse_final_key(key: str) -> str | None:
    """The job id of a final key, or None."""
    m = _FINAL_RE.match(key)
    return m["job"] if m else None


def poster_key(job_id: str) -> str:
    """Key of a job's poster frame (a small JPEG shown in job lists).
    Raises InvalidKeyError."""
    _check_job_id(job_id)
    return f"jobs/{job_id}/poster.jpg"


MAX_THUMBNAILS = 60


def thumbnail_key(job_id: str, index: int) -> str:
    """Key of thumbnail ``index`` of a job's strip over its source's duration.
    Raises InvalidKeyError."""
    _check_job_id(job_id)
    if not (0 <= index < MAX_THUMBNAILS):
        raise InvalidKeyError(f"thumbnail index must be 0..{MAX_THUMBNAILS - 1}, got {index}")
    return f"jobs/{job_id}/thumbs/{index:02d}.jpg"


def output_prefix(job_id: str) -> str:
    """Prefix under which all of a job's outputs live."""
    _check_job_id(job_id)
    return f"jobs/{job_id}/"
