"""Preview before converting all, with real ffmpeg on the local backend: a held
job's upload makes a thumbnail strip and no segments; a clip job is cut from its
parent's source at the right moment and chunked; Convert the whole video chunks
the parent."""

from __future__ import annotations

import av
import numpy as np
import pytest
from shared_types import keys
from shared_types.models import ConversionParams, Job, JobStatus, OutputMode, new_job_id
from shared_types.preview import THUMBNAILS, convert_whole, start_clip, thumbnail_times
from shared_types.resend import resend_source
from stereo_media.testing.media import make_video
from stereo_media.testing.timing import make_joined_recording, make_raw_stream

from media_worker.thumbnails import THUMB_WIDTH

from .conftest import measure

SOURCE_S = 12.0
FPS = 24


def frame_at(path, seconds: float) -> np.ndarray:
    """The first decoded frame at or after ``seconds`` (float RGB)."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        for frame in container.decode(stream):
            if frame.time is not None and frame.time >= seconds - 0.5 / FPS:
                return frame.to_ndarray(format="rgb24").astype(np.float32)
    raise AssertionError(f"no frame at {seconds} s")


def held_job(backend, upload, tmp_path):
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS, title="Film",
              status=JobStatus.AWAITING_CONFIRMATION)
    backend.jobs.create(job)
    source = make_video(tmp_path / "film.mp4", seconds=SOURCE_S, size=(160, 96), fps=FPS)
    upload(backend, job.job_id, source)
    return job, source


def segments_of(backend, job_id):
    return sorted(i.key for i in backend.input_storage.list(keys.segment_prefix(job_id)))


def test_a_held_upload_makes_the_strip_and_no_segments(local_backend, upload, worker_for,
                                                        tmp_path):
    job, _ = held_job(local_backend, upload, tmp_path)
    worker = worker_for(local_backend)
    assert worker.process_chunking_once(wait_s=1)
    held = local_backend.jobs.get(job.job_id)
    assert held.status == JobStatus.AWAITING_CONFIRMATION
    assert held.thumbnails == THUMBNAILS
    assert abs(held.source_duration_s - SOURCE_S) < 0.2
    assert segments_of(local_backend, job.job_id) == []
    assert local_backend.chunking_queue.stats().visible == 0
    for i in (0, THUMBNAILS - 1):
        thumb = tmp_path / f"t{i}.jpg"
        local_backend.output_storage.get_file(keys.thumbnail_key(job.job_id, i), thumb)
        with av.open(str(thumb)) as container:
            assert container.streams.video[0].codec_context.width == THUMB_WIDTH
    assert local_backend.output_storage.exists(keys.poster_key(job.job_id))
    # a replayed upload event (the janitor's, or SQS delivering twice) changes nothing
    resend_source(local_backend, job.job_id)
    assert worker.process_chunking_once(wait_s=1)
    assert local_backend.jobs.get(job.job_id).model_dump(exclude={"updated_at"}) == \
        held.model_dump(exclude={"updated_at"})
    assert segments_of(local_backend, job.job_id) == []


def test_thumbnail_times_spread_over_the_video_and_avoid_its_ends():
    times = thumbnail_times(120.0, 12)
    assert times[0] == 5.0 and times[-1] == 115.0
    assert all(b - a == 10.0 for a, b in zip(times, times[1:], strict=False))


def test_a_clip_is_cut_at_its_moment_and_chunked_then_the_whole_video(
        local_backend, upload, worker_for, tmp_path):
    job, source = held_job(local_backend, upload, tmp_path)
    worker = worker_for(local_backend)
    assert worker.process_chunking_once(wait_s=1)
    params = ConversionParams(divergence=4.0, convergence=0.3)
    clip = start_clip(local_backend, local_backend.jobs.get(job.job_id), 6.0, params,
                      seconds=3.0)
    assert worker.process_chunking_once(wait_s=1)

    chunked = local_backend.jobs.get(clip.job_id)
    assert (chunked.status, chunked.params) == (JobStatus.CHUNKING_COMPLETE, params)
    assert chunked.source_size_bytes < source.stat().st_size  # the clip's size, not the film's
    keys_ = segments_of(local_backend, clip.job_id)
    assert len(keys_) == chunked.total_segments >= 1
    frames, first = 0, None
    for i, key in enumerate(keys_):
        path = tmp_path / f"seg{i}.mp4"
        local_backend.input_storage.get_file(key, path)
        frames += measure(path).frames
        first = first if first is not None else path
    assert frames == 3 * FPS
    # the clip starts at 6 s of the film, not at its start or a keyframe before
    start = frame_at(first, 0.0)
    error = {at: np.abs(start - frame_at(source, at)).mean() for at in (0.0, 5.0, 6.0)}
    assert error[6.0] < min(error[0.0], error[5.0]), error

    assert local_backend.jobs.get(job.job_id).status == JobStatus.AWAITING_CONFIRMATION
    assert segments_of(local_backend, job.job_id) == []
    whole = convert_whole(local_backend, local_backend.jobs.get(job.job_id), params)
    assert worker.process_chunking_once(wait_s=1)
    done = local_backend.jobs.get(whole.job_id)
    assert (done.status, done.params) == (JobStatus.CHUNKING_COMPLETE, params)
    assert len(segments_of(local_backend, job.job_id)) == done.total_segments >= 2


# Sources with no timeline of their own to seek on, each played for DURATION s
# with a flash at FLASH s: the strip, the clip's moment and the clip follow it.
OFF_TIMELINE = {
    # two recordings joined with cat, the second one's clock 95 s behind: its
    # own clock makes it "26 hours" long (wrapped); played, it lasts 6 s
    "joined-recording": (lambda d: make_joined_recording(
        d / "joined.ts", clocks=(100.0, 5.0), part_s=3.0, flash_at=1.0, size=(160, 96)),
        6.0, 4.0, 1 / 25),
    # a Raspberry Pi camera's .h264: no container, no clock, 30 a second; no
    # demuxer of the header probe opens it
    "raw-camera-stream": (lambda d: make_raw_stream(
        d / "pi.h264", seconds=4.0, fps=30, flash_at=3.0, size=(160, 96)), 4.0, 3.0, 1.5 / 30),
}


@pytest.mark.parametrize("kind", sorted(OFF_TIMELINE))
def test_a_source_off_one_timeline_is_previewed_on_its_played_timeline(
        local_backend, upload, worker_for, tmp_path, kind):
    make, duration, flash_at, one_frame = OFF_TIMELINE[kind]
    job = Job(job_id=new_job_id(), mode=OutputMode.HALF_SBS, title=kind,
              status=JobStatus.AWAITING_CONFIRMATION)
    local_backend.jobs.create(job)
    upload(local_backend, job.job_id, make(tmp_path))
    worker = worker_for(local_backend)
    assert worker.process_chunking_once(wait_s=1)
    held = local_backend.jobs.get(job.job_id)
    assert held.status == JobStatus.AWAITING_CONFIRMATION, held.error
    assert abs(held.source_duration_s - duration) < 0.2
    assert held.thumbnails == THUMBNAILS

    clip_at = flash_at - 0.5
    clip = start_clip(local_backend, held, clip_at, ConversionParams(), seconds=1.0)
    assert worker.process_chunking_once(wait_s=1)
    assert local_backend.jobs.get(clip.job_id).status == JobStatus.CHUNKING_COMPLETE
    cut = tmp_path / "clip.mp4"
    local_backend.input_storage.get_file(segments_of(local_backend, clip.job_id)[0], cut)
    with av.open(str(cut)) as container:
        frames = [(f.time, f.to_ndarray(format="gray").mean()) for f in container.decode(video=0)]
    flash = max(frames, key=lambda frame: frame[1])[0] - frames[0][0]
    assert abs(clip_at + flash - flash_at) <= one_frame, frames
