"""Job status changes ring the doorbell: a command waiting for its job reads it
again when its status changes, not at its next poll.

Every waiter here waits up to a minute: one that returns True was rung (a
timeout returns False), so no test depends on how fast the machine is.
"""

import asyncio
import socket
import threading

import pytest
from shared_types.job_changes import UNANNOUNCED
from shared_types.models import JobStatus, JobUpdate
from shared_types.testing.contracts.job_store import make_job

from local_adapters import build_backend
from local_adapters.db import Database
from local_adapters.doorbell import Doorbell
from local_adapters.job_changes import RungJobChanges
from local_adapters.jobs import SqliteJobStore

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"),
                                reason="no UNIX sockets on this OS: job waiters poll")

LONG_WAIT_S = 60.0


def changes_of(db: Database) -> RungJobChanges:
    """A process's own handle on the database's job changes."""
    return RungJobChanges(Doorbell.for_database(db.path))


def store_of(db: Database) -> SqliteJobStore:
    return SqliteJobStore(db, changes_of(db))


class Listener(threading.Thread):
    """Waits once on its own ear, like ``stereo-spot convert`` between two reads."""

    def __init__(self, changes: RungJobChanges, wait_s: float = LONG_WAIT_S) -> None:
        super().__init__(daemon=True)
        self.changes, self.wait_s = changes, wait_s
        self.listening, self.rung = threading.Event(), None

    def run(self) -> None:
        with self.changes.listen() as ear:
            self.listening.set()
            self.rung = ear.wait(self.wait_s)

    def result(self) -> bool:
        self.join(LONG_WAIT_S + 30)
        assert not self.is_alive(), "the wait never returned"
        return self.rung


def listening(changes: RungJobChanges, wait_s: float = LONG_WAIT_S) -> Listener:
    listener = Listener(changes, wait_s)
    listener.start()
    assert listener.listening.wait(30), "the listener never listened"
    return listener


def test_a_status_change_in_another_handle_wakes_a_waiter(db):
    jobs = store_of(db)
    jobs.create(make_job("job-a"))
    listener = listening(changes_of(db))
    store_of(db).update("job-a", JobUpdate(status=JobStatus.COMPLETED))  # as another process
    assert listener.result() is True


def test_a_change_between_the_read_and_the_wait_is_not_missed(db):
    jobs = store_of(db)
    jobs.create(make_job("job-a"))
    with changes_of(db).listen() as ear:
        jobs.get("job-a")  # the waiter's read ...
        jobs.update("job-a", JobUpdate(status=JobStatus.FAILED))  # ... the change after it
        assert ear.wait(LONG_WAIT_S) is True


def test_creating_and_deleting_a_job_ring_too(db):
    jobs = store_of(db)
    with changes_of(db).listen() as ear:
        jobs.create(make_job("job-a"))
        assert ear.wait(LONG_WAIT_S) is True
        jobs.delete("job-a")
        assert ear.wait(LONG_WAIT_S) is True
        jobs.delete("job-a")  # nothing left to delete: nothing changed
        assert ear.wait(0.2) is False


def test_a_write_that_keeps_the_status_rings_nothing(db):
    """Negative control: the same waiter, a write that changes the job but not
    its status (progress does this many times a second): it sleeps through."""
    jobs = store_of(db)
    jobs.create(make_job("job-a"))
    listener = listening(changes_of(db), wait_s=1.0)
    jobs.update("job-a", JobUpdate(total_segments=4, title="still created"))
    assert listener.result() is False
    assert jobs.get("job-a").total_segments == 4


def test_a_store_without_a_doorbell_rings_nothing(db):
    """Negative control: the status changes, but through a store wired without
    one, so the waiter is not told."""
    SqliteJobStore(db).create(make_job("job-a"))
    listener = listening(changes_of(db), wait_s=1.0)
    SqliteJobStore(db).update("job-a", JobUpdate(status=JobStatus.COMPLETED))
    assert listener.result() is False


def test_the_backend_wires_its_job_store_and_its_job_changes_to_one_doorbell(settings):
    backend = build_backend(settings)
    assert backend.job_changes is not UNANNOUNCED
    with backend.job_changes.listen() as ear:
        backend.jobs.create(make_job("job-a"))
        assert ear.wait(LONG_WAIT_S) is True


def test_without_a_doorbell_the_backend_leaves_waiters_to_poll(settings, monkeypatch):
    monkeypatch.setattr(Doorbell, "for_database", classmethod(lambda cls, path: None))
    backend = build_backend(settings)
    assert backend.job_changes is UNANNOUNCED
    with backend.job_changes.listen() as waiter:
        backend.jobs.create(make_job("job-a"))
        assert waiter.wait(0.01) is False


def test_a_coroutine_waits_with_the_event_loop_running(db):
    """``wait_async`` (a web page's progress stream): rung while other
    coroutines run, it answers True; unrung, False when its time is up."""
    jobs = store_of(db)

    async def scenario() -> list[bool]:
        with changes_of(db).listen() as ear:
            quiet = await ear.wait_async(0.05)
            loop = asyncio.get_running_loop()
            loop.call_soon(jobs.create, make_job("job-a"))  # runs while the waiter waits
            rung = await ear.wait_async(LONG_WAIT_S)
            return [quiet, rung]

    assert asyncio.run(scenario()) == [False, True]
