"""``wait_for_job`` on the real local backend sees its job's last steps when
they happen: a status change rings the waiter (``Backend.job_changes``), which
reads the job again instead of sleeping out its poll.

Each wait's own answer tells a ring (True) from a poll that ran out (False),
so nothing here depends on how fast the machine is.
"""

import dataclasses
import threading

import pytest
from local_adapters import build_backend
from local_adapters.doorbell import Ear
from shared_types import job_changes
from shared_types.job_changes import UNANNOUNCED
from shared_types.models import ConversionParams, JobStatus, JobUpdate, OutputMode
from shared_types.settings import BackendSettings
from shared_types.testing.change_waits import RecordedWaits

from local_stack.submission import submit_job, wait_for_job

LONG_S = 60.0


class Waiting(threading.Thread):
    """``wait_for_job`` in a thread, as ``stereo-spot convert`` follows its job;
    says each status it saw."""

    def __init__(self, backend, job_id: str, poll_s: float) -> None:
        super().__init__(daemon=True)
        self.backend, self.job_id, self.poll_s = backend, job_id, poll_s
        self.seen: list[JobStatus] = []
        self.changed = threading.Condition()
        self.final = None

    def saw(self, snap) -> None:
        with self.changed:
            self.seen.append(snap.status)
            self.changed.notify_all()

    def run(self) -> None:
        self.final = wait_for_job(self.backend, self.job_id, poll_s=self.poll_s,
                                  busy_poll_s=self.poll_s, timeout_s=600,
                                  on_snapshot=self.saw)

    def asleep(self, reads: int) -> None:
        """Wait until the waiter has read the job ``reads`` times (and so is
        waiting for a change, or about to)."""
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.seen) >= reads,
                                         timeout=LONG_S), "the waiter never read the job"


@pytest.fixture
def backend(tmp_path):
    return build_backend(BackendSettings(data_dir=tmp_path / "data"))


@pytest.fixture
def job(backend, tmp_path):
    clip = tmp_path / "clip.mp4"
    clip.write_bytes(b"the workers decide what this is")
    return submit_job(backend, clip, mode=OutputMode.HALF_SBS, params=ConversionParams())


def test_the_last_steps_of_a_job_wake_its_waiter(backend, job, monkeypatch):
    waits = RecordedWaits(monkeypatch, Ear)
    waiting = Waiting(backend, job.job_id, poll_s=LONG_S)
    waiting.start()
    for reads, status in enumerate((JobStatus.REASSEMBLING, JobStatus.COMPLETED), 1):
        waiting.asleep(reads)
        backend.jobs.update(job.job_id, JobUpdate(status=status))
    waiting.join(LONG_S * 3)
    assert not waiting.is_alive(), "the completed job was not seen"
    assert waiting.final.status is JobStatus.COMPLETED
    assert waiting.seen == [JobStatus.CREATED, JobStatus.REASSEMBLING, JobStatus.COMPLETED]
    assert waits.answers == [True, True]  # each step rang; no poll ran out


def test_a_backend_that_tells_nothing_is_polled(backend, job, monkeypatch):
    """Negative control: the same steps on a backend without job changes
    (as AWS's): each is seen only when the poll before it runs out."""
    waits = RecordedWaits(monkeypatch, job_changes._Sleeper)
    waiting = Waiting(dataclasses.replace(backend, job_changes=UNANNOUNCED),
                      job.job_id, poll_s=0.5)
    waiting.start()
    for reads, status in enumerate((JobStatus.REASSEMBLING, JobStatus.COMPLETED), 1):
        waiting.asleep(reads)
        backend.jobs.update(job.job_id, JobUpdate(status=status))
    waiting.join(LONG_S)
    assert waiting.final.status is JobStatus.COMPLETED
    assert waits.answers and not any(waits.answers)
