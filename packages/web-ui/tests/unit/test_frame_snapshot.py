"""The progress snapshot shows frames, fps and a frame-based ETA from heartbeats."""

from shared_types.models import JobStatus, SegmentHeartbeat, now

from web_ui.eta import EtaEstimator
from web_ui.progress_snapshot import snapshot

from .conftest import add_job


def test_a_converting_segment_shows_frames_speed_and_its_percent(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    backend.segment_status.mark_pending(job.job_id, 0)
    t = now()
    backend.heartbeats.beat(SegmentHeartbeat(
        job_id=job.job_id, segment_index=0, worker="w1", frames_done=50, frames_total=100,
        started_at=t - 10, last_heartbeat=t))
    snap = snapshot(backend, job, EtaEstimator(backend.jobs, 1.0))
    assert (snap.frames_done, snap.frames_total, snap.fps) == (50, 200, 5.0)
    assert snap.eta_seconds == 30
    assert snap.segment_percent == {0: 50}
    assert snap.percent == round(5 + 85 * 50 / 200, 1)


def test_without_heartbeats_the_snapshot_has_no_frames(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    snap = snapshot(backend, job, EtaEstimator(backend.jobs, 1.0))
    assert snap.frames_done is None
    assert snap.segment_percent == {}
