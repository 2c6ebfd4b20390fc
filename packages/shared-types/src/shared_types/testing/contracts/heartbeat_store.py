"""SegmentHeartbeatStore contract. Needs a ``backend`` fixture (its
``heartbeats`` and ``segment_status`` ports share state)."""

from __future__ import annotations

from shared_types.models import SegmentHeartbeat, now


def beat(job_id="job-a", index=0, frames=10, *, worker="w1", total=100, started=None):
    t = now()
    return SegmentHeartbeat(job_id=job_id, segment_index=index, worker=worker,
                            frames_done=frames, frames_total=total,
                            started_at=started if started is not None else t - 5,
                            last_heartbeat=t)


def test_the_latest_beat_of_each_segment_is_kept(backend):
    for index in (1, 0):
        backend.segment_status.mark_pending("job-a", index)
    backend.heartbeats.beat(beat(index=1, frames=10))
    backend.heartbeats.beat(beat(index=1, frames=40, worker="w2"))
    backend.heartbeats.beat(beat(index=0, frames=5))
    beats = backend.heartbeats.list("job-a")
    assert [(b.segment_index, b.frames_done, b.worker) for b in beats] == [
        (0, 5, "w1"), (1, 40, "w2")]
    assert beats[1].frames_total == 100
    assert beats[1].last_heartbeat >= beats[1].started_at


def test_beats_belong_to_their_job(backend):
    backend.segment_status.mark_pending("job-a", 0)
    backend.segment_status.mark_pending("job-b", 0)
    backend.heartbeats.beat(beat("job-b", frames=7))
    assert backend.heartbeats.list("job-a") == []
    assert [b.frames_done for b in backend.heartbeats.list("job-b")] == [7]


def test_a_beat_for_a_segment_without_status_is_ignored(backend):
    backend.heartbeats.beat(beat("job-gone"))
    assert backend.heartbeats.list("job-gone") == []


def test_delete_job_forgets_its_beats(backend):
    backend.segment_status.mark_pending("job-a", 0)
    backend.heartbeats.beat(beat())
    backend.heartbeats.delete_job("job-a")
    assert backend.heartbeats.list("job-a") == []


def test_a_beat_keeps_the_segment_status_readable(backend):
    backend.segment_status.mark_pending("job-a", 0)
    backend.heartbeats.beat(beat())
    [status] = backend.segment_status.list("job-a")
    assert status.state == "pending" and status.attempts == 1


__all__ = [name for name in dir() if name.startswith("test_")]
