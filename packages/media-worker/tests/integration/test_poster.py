"""Poster frames with real ffmpeg: chunking stores one small JPEG per job; a
failure to make it never fails the job."""

from __future__ import annotations

import av
from shared_types import keys
from shared_types.models import JobStatus
from shared_types.testing.memory import MemoryStorage
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner, file_input
from stereo_media.testing.media import make_video

from media_worker.poster import POSTER_WIDTH, poster_time, store_poster


def test_chunking_stores_a_small_jpeg_poster_of_the_source(
        local_backend, new_job, upload, worker_for, tmp_path):
    job = new_job(local_backend)
    upload(local_backend, job.job_id, make_video(tmp_path / "s.mp4", seconds=3))
    assert worker_for(local_backend).process_chunking_once(wait_s=1)
    assert local_backend.jobs.get(job.job_id).status == JobStatus.CHUNKING_COMPLETE

    poster = tmp_path / "poster.jpg"
    local_backend.output_storage.get_file(keys.poster_key(job.job_id), poster)
    assert poster.read_bytes()[:2] == b"\xff\xd8"
    with av.open(str(poster)) as container:
        stream = container.streams.video[0]
        assert stream.codec_context.width == POSTER_WIDTH


def test_a_poster_that_cannot_be_made_is_skipped(tmp_path):
    storage = MemoryStorage("output")
    broken = FfmpegRunner("/bin/false", timeout_s=10)
    assert store_poster(broken, file_input(tmp_path / "none.mp4"), 3.0, tmp_path, storage,
                        "job-1") is False
    assert list(storage.list("")) == []


def test_the_poster_time_stays_inside_short_clips():
    assert poster_time(60) == 1.0
    assert poster_time(0.5) == 0.25


def test_a_clip_of_one_frame_still_gets_its_poster(tmp_path):
    # the only frame is at 0: a seek to the middle of its 1/24 s finds none after it
    clip = make_video(tmp_path / "one.mp4", seconds=1 / 24, audio=False)
    storage = MemoryStorage("output")
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=30)
    assert store_poster(runner, file_input(clip), 1 / 24, tmp_path, storage, "job-1") is True
    assert storage.get_bytes(keys.poster_key("job-1"))[:2] == b"\xff\xd8"
