"""A 3D upload whose container and H.264 stream both say so: the ffmpeg command
line stops on its first picture, so without ``stereo_twice`` it had no poster,
no thumbnail strip and no preview clip (the conversion, read by PyAV, was
never affected)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from shared_types import keys
from shared_types.models import ConversionParams, Job, JobStatus, OutputMode, new_job_id
from shared_types.preview import THUMBNAILS, start_clip
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.stereo_boxes import add_st3d
from stereo_media.testing.media import make_video
from stereo_media.testing.media_facts import ffmpeg_decode_error

from media_worker import stereo_twice
from media_worker.stereo_twice import decode_options

SECONDS = 6.0


def make_sbs(path: Path, *, st3d: bool = True) -> Path:
    """Side-by-side H.264 with x264's frame-packing SEI (left view first, on
    every keyframe) and, with ``st3d``, the MP4 container's stereo box too."""
    subprocess.run([
        ffmpeg_path(), "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi",
        "-i", f"testsrc2=size=160x96:rate=24:duration={SECONDS}", "-c:v", "libx264",
        "-preset", "ultrafast", "-g", "24", "-x264-params", "frame-packing=3", str(path)],
        check=True, timeout=60)
    if st3d:
        add_st3d(path, "sbs")
    return path


@pytest.fixture
def said_twice(tmp_path) -> Path:
    source = make_sbs(tmp_path / "sbs.mp4")
    assert "File exists" in (ffmpeg_decode_error(source) or "")  # what the CLI does
    return source


def test_only_a_source_said_3d_twice_has_its_sei_removed_for_decoding(tmp_path, said_twice):
    assert decode_options(str(said_twice)) == ["-bsf:v", "filter_units=remove_types=6"]
    assert decode_options(str(make_sbs(tmp_path / "sei.mp4", st3d=False))) == []
    assert decode_options(str(make_video(tmp_path / "plain.mp4", seconds=1))) == []
    assert decode_options(str(tmp_path / "missing.mp4")) == []  # the ffmpeg run says why


def held_job(backend, upload, source: Path) -> Job:
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS, title="3D film",
              status=JobStatus.AWAITING_CONFIRMATION)
    backend.jobs.create(job)
    upload(backend, job.job_id, source)
    return job


def test_a_source_said_3d_twice_gets_its_strip_poster_and_preview_clip(
        local_backend, upload, worker_for, said_twice):
    job = held_job(local_backend, upload, said_twice)
    worker = worker_for(local_backend)
    assert worker.process_chunking_once(wait_s=1)
    held = local_backend.jobs.get(job.job_id)
    assert held.thumbnails == THUMBNAILS
    assert local_backend.output_storage.exists(keys.poster_key(job.job_id))

    clip = start_clip(local_backend, held, 2.0, ConversionParams(), seconds=2.0)
    assert worker.process_chunking_once(wait_s=1)
    cut = local_backend.jobs.get(clip.job_id)
    assert cut.status == JobStatus.CHUNKING_COMPLETE, cut.error
    assert cut.total_segments >= 1


def test_without_the_sei_removal_the_strip_and_the_poster_are_lost(
        local_backend, upload, worker_for, said_twice, monkeypatch):
    """The control: the same upload, decoded as it is."""
    monkeypatch.setattr(stereo_twice, "SEI_UNITS", {})
    job = held_job(local_backend, upload, said_twice)
    assert worker_for(local_backend).process_chunking_once(wait_s=1)
    assert local_backend.jobs.get(job.job_id).thumbnails == 0
    assert not local_backend.output_storage.exists(keys.poster_key(job.job_id))


def test_chunking_a_source_said_3d_twice_stores_its_poster(
        local_backend, new_job, upload, worker_for, said_twice):
    job = new_job(local_backend)
    upload(local_backend, job.job_id, said_twice)
    assert worker_for(local_backend).process_chunking_once(wait_s=1)
    assert local_backend.jobs.get(job.job_id).status == JobStatus.CHUNKING_COMPLETE
    assert local_backend.output_storage.exists(keys.poster_key(job.job_id))
