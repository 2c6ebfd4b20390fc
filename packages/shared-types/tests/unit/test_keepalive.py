import pytest

from shared_types.errors import ConditionFailedError, TransientStoreError
from shared_types.keepalive import JobKeepAlive
from shared_types.models import Job, JobStatus, JobUpdate, OutputMode
from shared_types.testing.clock import ManualClock
from shared_types.testing.memory import memory_backend


def chunking_job():
    backend = memory_backend()
    backend.jobs.create(Job(job_id="j", mode=OutputMode.SBS,
                            status=JobStatus.CHUNKING_IN_PROGRESS, updated_at=1.0))
    return backend


def test_a_tick_refreshes_updated_at_only_once_the_interval_passed():
    backend, clock = chunking_job(), ManualClock()
    alive = JobKeepAlive(backend.jobs, "j", JobStatus.CHUNKING_IN_PROGRESS, every_s=60,
                         clock=clock)
    clock.t = 59
    alive.tick()
    assert backend.jobs.get("j").updated_at == 1.0
    clock.t = 60
    alive.tick()
    assert backend.jobs.get("j").updated_at > 1.0


def test_a_job_that_moved_on_stops_the_step():
    backend, clock = chunking_job(), ManualClock()
    alive = JobKeepAlive(backend.jobs, "j", JobStatus.CHUNKING_IN_PROGRESS, every_s=1,
                         clock=clock)
    backend.jobs.update("j", JobUpdate(status=JobStatus.FAILED))
    clock.t = 2
    with pytest.raises(ConditionFailedError):
        alive.tick()


def test_an_unreachable_store_only_skips_a_beat():
    class Down:
        def update(self, *a, **k):
            raise TransientStoreError("down")

    JobKeepAlive(Down(), "j", JobStatus.REASSEMBLING, every_s=0).tick()
