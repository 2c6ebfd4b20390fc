"""A work folder on a disk that fills up (a real tmpfs of a few MiB, real ffmpeg,
real SQLite): chunking and reassembly end the job ``failed`` with code
``disk_full`` and a sentence that names the folder, after a few retries with
backoff; nothing partial is left, no temp folder stays; and when space comes
back between attempts, the job completes."""

from __future__ import annotations

import pytest
from shared_types import keys
from shared_types.errors import TransientError
from shared_types.models import JobStatus
from shared_types.testing.disk import entries, fill, small_disk
from shared_types.testing.waiting import wait_until
from stereo_media.errors import FfmpegDiskFullError
from stereo_media.ffmpeg import ffmpeg_path
from stereo_media.ffmpeg_runner import FfmpegRunner, file_input
from stereo_media.testing.media import make_video

from media_worker.bootstrap import build_worker

MIB = 1024 * 1024


@pytest.fixture
def work_disk(tmp_path):
    with small_disk(tmp_path / "work-disk", 4 * MIB) as disk:
        yield disk


@pytest.fixture
def source(tmp_path):
    return make_video(tmp_path / "source.mp4", seconds=6, size=(320, 192))


def test_ffmpeg_on_a_full_disk_is_a_transient_disk_full_naming_its_output_folder(
        work_disk, source):
    fill(work_disk, leave_bytes=16 * 1024)
    runner = FfmpegRunner(ffmpeg_path(), timeout_s=60)
    with pytest.raises(FfmpegDiskFullError) as info:
        runner.run([*file_input(source), "-c", "copy", str(work_disk / "copy.mp4")],
                   what="copy")
    assert isinstance(info.value, TransientError)  # freeing space makes it work again
    assert info.value.code == "disk_full"
    assert f"no space was left in {work_disk} while running ffmpeg (copy)" in str(info.value)


def _worker_on(work_disk, settings, backend):
    return build_worker(settings.model_copy(update={"work_dir": work_disk / "work"}),
                        backend=backend)


def _settle(backend, job_id, process):
    """Let the worker take the message again (backoff) until the job ends."""
    def ended():
        process(wait_s=0.2)
        return backend.jobs.get(job_id).status.is_final
    assert wait_until(ended, timeout_s=60)
    return backend.jobs.get(job_id)


def test_chunking_refuses_a_source_the_work_folder_has_clearly_no_room_for(
        local_backend, settings, new_job, upload, work_disk, source):
    job = new_job(local_backend)
    upload(local_backend, job.job_id, source)
    fill(work_disk, leave_bytes=int(1.5 * source.stat().st_size))  # the copy fits, not the split
    worker = _worker_on(work_disk, settings, local_backend)

    failed = _settle(local_backend, job.job_id, worker.process_chunking_once)

    assert failed.status == JobStatus.FAILED
    assert (failed.error.code, failed.error.stage) == ("disk_full", "chunking")
    assert "Not enough free disk space" in failed.error.message
    assert str(work_disk / "work") in failed.error.message
    assert not list(local_backend.input_storage.list(keys.segment_prefix(job.job_id)))
    assert entries(work_disk / "work") == []  # no chunk-* folder left behind
    stats = local_backend.chunking_queue.stats()
    assert stats.visible + stats.in_flight == 0
    # other jobs are unaffected: a source that fits is chunked by the same worker
    small = new_job(local_backend)
    upload(local_backend, small.job_id, make_video(work_disk.parent / "small.mp4", seconds=1))
    assert worker.process_chunking_once(wait_s=1)
    assert local_backend.jobs.get(small.job_id).status == JobStatus.CHUNKING_COMPLETE


def _ready_for_reassembly(backend, settings, new_job, upload, worker_for, convert_segments,
                          source):
    job = new_job(backend)
    upload(backend, job.job_id, source)
    assert worker_for(backend).process_chunking_once(wait_s=1)
    assert convert_segments(backend) >= 2
    return job, sum(o.size for o in backend.output_storage.list(
        keys.output_segment_prefix(job.job_id)))


def test_reassembly_on_a_full_disk_fails_the_job_as_disk_full_with_nothing_partial(
        local_backend, settings, new_job, upload, worker_for, convert_segments, work_disk,
        source):
    job, segments = _ready_for_reassembly(local_backend, settings, new_job, upload, worker_for,
                                          convert_segments, source)
    fill(work_disk, leave_bytes=int(1.3 * segments))  # the downloads fit, the final does not
    worker = _worker_on(work_disk, settings, local_backend)

    failed = _settle(local_backend, job.job_id, worker.process_reassembly_once)

    assert failed.status == JobStatus.FAILED, failed
    assert (failed.error.code, failed.error.stage) == ("disk_full", "reassembly")
    assert "The disk is full" in failed.error.message
    assert str(work_disk / "work") in failed.error.message
    assert not local_backend.output_storage.exists(keys.final_key(job.job_id, job.container))
    assert entries(work_disk / "work") == []  # no join-* folder, no half-written final
    assert not local_backend.reassembly.is_done(job.job_id)


def test_reassembly_completes_when_space_comes_back_between_attempts(
        local_backend, settings, new_job, upload, worker_for, convert_segments, work_disk,
        source):
    job, segments = _ready_for_reassembly(local_backend, settings, new_job, upload, worker_for,
                                          convert_segments, source)
    filler = fill(work_disk, leave_bytes=int(1.3 * segments))
    worker = _worker_on(work_disk, settings, local_backend)
    assert worker.process_reassembly_once(wait_s=1)
    assert local_backend.jobs.get(job.job_id).status == JobStatus.REASSEMBLING  # to be retried

    filler.unlink()  # space is freed: the next attempt takes the lease again and finishes
    done = _settle(local_backend, job.job_id, worker.process_reassembly_once)

    assert done.status == JobStatus.COMPLETED, done.error
    assert local_backend.output_storage.exists(done.final_key)
    assert entries(work_disk / "work") == []
