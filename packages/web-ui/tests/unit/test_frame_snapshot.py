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
    snap = snapshot(backend, job, EtaEstimator(backend, 1.0))
    assert (snap.frames_done, snap.frames_total, snap.fps) == (50, 200, 5.0)
    assert snap.eta_seconds == 30
    assert snap.segment_percent == {0: 50}
    assert snap.percent == round(5 + 85 * 50 / 200, 1)


def test_without_heartbeats_the_snapshot_has_no_frames(backend):
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=2)
    snap = snapshot(backend, job, EtaEstimator(backend, 1.0))
    assert snap.frames_done is None
    assert snap.segment_percent == {}


def test_a_probed_job_shows_the_staged_eta_and_a_percent_weighted_by_frames(backend):
    # 400 frames in 4 segments; one worker has done 50 of its 100 in 10 s
    t = now()
    job = add_job(backend, status=JobStatus.CHUNKING_COMPLETE, total_segments=4,
                  source_frames=400, source_width=320, source_height=180, started_at=t - 12)
    backend.segment_status.mark_pending(job.job_id, 0)
    backend.heartbeats.beat(SegmentHeartbeat(
        job_id=job.job_id, segment_index=0, worker="w1", frames_done=50, frames_total=100,
        started_at=t - 10, last_heartbeat=t))
    snap = snapshot(backend, job, EtaEstimator(backend, 1.0))
    assert snap.frames_total == 400  # the probe's count, not guessed from one segment
    # one worker at 5 fps, no history: 50 + 300 frames left in turn
    assert snap.eta_seconds == 70
    # no history to weigh the stages: splitting 5, converting 85 (by frames), joining 10
    assert snap.percent == round(5 + 85 * 50 / 400, 1)
