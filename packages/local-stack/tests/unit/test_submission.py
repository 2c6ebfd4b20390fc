"""Submitting a job and following it, on the in-memory backend."""

import dataclasses
import os
from pathlib import Path

import pytest
from shared_types.errors import DiskFullError
from shared_types.keys import final_key, source_key
from shared_types.models import (
    ConversionParams,
    JobError,
    JobStatus,
    JobUpdate,
    OutputMode,
    SegmentCompletion,
)
from shared_types.testing.memory import memory_backend
from shared_types.testing.memory_storage import MemoryStorage

from local_stack.errors import ConversionFailedError, StackTimeoutError
from local_stack.submission import (
    JobSnapshot,
    fetch_result,
    near_end,
    snapshot,
    submit_job,
    wait_for_job,
)


@pytest.fixture
def backend():
    return memory_backend()


@pytest.fixture
def source(tmp_path: Path) -> Path:
    path = tmp_path / "clip.mp4"
    path.write_bytes(b"not really a video, the workers decide")
    return path


def test_submit_creates_the_job_and_uploads_the_source_under_its_key(backend, source):
    job = submit_job(backend, source, mode=OutputMode.TB, params=ConversionParams(divergence=3))
    stored = backend.jobs.get(job.job_id)
    assert stored.status == JobStatus.CREATED
    assert stored.mode == OutputMode.TB
    assert stored.params.divergence == 3
    assert stored.title == "clip.mp4"
    assert backend.input_storage.get_bytes(source_key(job.job_id)) == source.read_bytes()


def test_snapshot_counts_completions_of_a_chunked_job(backend, source):
    job = submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                              total_segments=3))
    backend.completions.put(SegmentCompletion(job_id=job.job_id, segment_index=1,
                                              output_key="k"))
    backend.segment_status.mark_failed(job.job_id, 2, "boom")
    snap = snapshot(backend, job.job_id)
    assert (snap.segments_total, snap.segments_done, snap.segments_failed) == (3, 1, 1)
    assert not snap.is_final


def test_wait_returns_the_final_snapshot_and_ticks_between_polls(backend, source):
    job = submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())
    ticks = []

    def tick():
        ticks.append(1)
        if len(ticks) == 3:
            backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))

    seen = []
    snap = wait_for_job(backend, job.job_id, poll_s=0.001, on_snapshot=seen.append, tick=tick)
    assert snap.status == JobStatus.COMPLETED
    assert len(ticks) == 3
    assert len(seen) == 4


def test_wait_gives_up_after_its_timeout(backend, source):
    job = submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())
    with pytest.raises(StackTimeoutError, match="still created"):
        wait_for_job(backend, job.job_id, poll_s=0.001, timeout_s=0.01)


def test_a_failed_job_is_reported_with_its_stage_and_reason(backend, source, tmp_path):
    job = submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())
    err = JobError(code="invalid_media", message="The file is not a video.", stage="chunking")
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.FAILED, error=err))
    with pytest.raises(ConversionFailedError, match="during chunking: The file is not a video"):
        fetch_result(backend, snapshot(backend, job.job_id), tmp_path / "out.mp4")


def test_a_completed_job_is_downloaded_to_the_output_path(backend, source, tmp_path):
    job = submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())
    backend.output_storage.put_bytes(final_key(job.job_id), b"3d!")
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.COMPLETED))
    out = fetch_result(backend, snapshot(backend, job.job_id), tmp_path / "sub" / "o.mp4")
    assert out.read_bytes() == b"3d!"
    umask = os.umask(0o022)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask  # as any file the person makes
    assert [p.name for p in out.parent.iterdir()] == ["o.mp4"]  # no .part left


def test_a_snapshot_carries_frames_and_speed_from_the_heartbeats(backend, source):
    import time

    from rich.console import Console
    from shared_types.models import SegmentHeartbeat

    from local_stack.progress_view import JobProgressView

    job = submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                              total_segments=2))
    backend.segment_status.mark_pending(job.job_id, 0)
    t = time.time()
    backend.heartbeats.beat(SegmentHeartbeat(job_id=job.job_id, segment_index=0, worker="w",
                                             frames_done=30, frames_total=60,
                                             started_at=t - 10, last_heartbeat=t))
    snap = snapshot(backend, job.job_id)
    assert (snap.frames.frames_done, snap.frames.frames_total, snap.frames.fps) == (30, 120, 3.0)
    console = Console(record=True, width=120)
    with JobProgressView(console, None) as view:
        view.update(snap)
    shown = console.export_text()
    assert "30/120" in shown
    assert "3.0 fps" in shown
    assert "30 s left" in shown


def test_before_any_heartbeat_the_eta_comes_from_this_machines_history(backend, source):
    import time

    from rich.console import Console
    from shared_types.eta_history import MachineRates

    from local_stack.progress_view import JobProgressView

    job = submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())
    backend.jobs.update(job.job_id, JobUpdate(
        status=JobStatus.CHUNKING_COMPLETE, total_segments=4, source_frames=480,
        source_width=320, source_height=180, started_at=time.time() - 1.0))
    # one worker does 24 fps at 320x180; two workers; 2 s lead, 3 s tail
    rates = MachineRates(pixels_per_s=24 * 320 * 180, segment_overhead_s=0.0, lead_s=2.0,
                         tail_s=3.0, workers=2, jobs=3)
    snap = snapshot(backend, job.job_id, rates)
    # 1 s of lead left, two waves of 120-frame segments (5 s each), the tail
    assert snap.eta_seconds == pytest.approx(14.0, abs=0.2)
    assert 0 < snap.percent < 15
    assert snapshot(backend, job.job_id).eta_seconds is None  # no history, nothing measured
    console = Console(record=True, width=120)
    with JobProgressView(console, 480) as view:
        view.update(snap)
    shown = console.export_text()
    assert "14 s left" in shown
    assert f"{snap.percent:.0f} % of the work" in shown


@pytest.mark.parametrize(("status", "total", "done", "failed", "expected"), [
    (JobStatus.CHUNKING_IN_PROGRESS, None, 0, 0, False),  # total not known yet
    (JobStatus.CHUNKING_COMPLETE, 4, 3, 0, False),  # a segment still converts
    (JobStatus.CHUNKING_COMPLETE, 4, 3, 1, True),  # all settled: reassembly is next
    (JobStatus.CHUNKING_COMPLETE, 4, 4, 0, True),
    (JobStatus.REASSEMBLING, 4, 4, 0, True),
    (JobStatus.COMPLETED, 4, 4, 0, True),
])
def test_near_end_is_when_every_segment_has_settled(status, total, done, failed, expected):
    """The CLI reads progress fast only then (busy_poll_s while segments convert)."""
    snap = JobSnapshot("j", status, total, done, failed, None)
    assert near_end(snap) is expected


def test_the_frame_total_comes_from_the_media_workers_probe(backend, source):
    """The CLI opens no video itself: the bar's total is the job's source_frames."""
    from rich.console import Console

    from local_stack.progress_view import JobProgressView

    job = submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())
    assert snapshot(backend, job.job_id).frames_total is None  # not probed yet
    backend.jobs.update(job.job_id, JobUpdate(status=JobStatus.CHUNKING_COMPLETE,
                                              total_segments=4, source_frames=480))
    for index in (0, 1):
        backend.completions.put(SegmentCompletion(job_id=job.job_id, segment_index=index,
                                                  output_key=f"o{index}", run=0))
    snap = snapshot(backend, job.job_id)
    assert snap.frames_total == 480
    console = Console(record=True, width=120)
    with JobProgressView(console) as view:
        view.update(snap)
    assert "240/480" in console.export_text()


class FullDiskStorage(MemoryStorage):
    """A storage whose disk fills up while a source is copied in."""

    def put_file(self, key, path, *, content_type=None, move=False):
        raise DiskFullError("The disk is full: no space was left in /data while storing it.")


def test_a_source_copy_that_fills_the_disk_fails_its_job_instead_of_leaving_it_waiting(
        source):
    backend = dataclasses.replace(memory_backend(), input_storage=FullDiskStorage("input"))

    with pytest.raises(DiskFullError):
        submit_job(backend, source, mode=OutputMode.SBS, params=ConversionParams())

    assert backend.jobs.list_in_progress() == []  # no job waits for a source that won't come
    [job] = backend.jobs.list_by_status(JobStatus.FAILED).items
    assert (job.error.code, job.error.stage) == ("disk_full", "upload")
    assert "no space was left in /data" in job.error.message
