"""The local queue's doorbell: a waiting receive wakes on a send, polls nothing.

Every test sets the safety interval to an hour, so a waiter that was not rung
(or scheduled for a message it knows of) would sleep through its whole wait.
"""

import socket
import threading
import time
from pathlib import Path

import pytest
from shared_types.stop_event import StopEvent

from local_adapters import queue as queue_module
from local_adapters.db import Database
from local_adapters.doorbell import Doorbell, Ear
from local_adapters.queue import SqliteQueue

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"),
                                reason="no UNIX sockets on this OS: the queue polls")

LONG_WAIT_S = 60  # a waiter still asleep after this fails the test


@pytest.fixture(autouse=True)
def no_safety_interval(monkeypatch):
    monkeypatch.setattr(queue_module, "WAKE_INTERVAL_S", 3600.0)


def queue_of(db: Database, doorbell: Doorbell | None) -> SqliteQueue:
    return SqliteQueue(db, "jobs", doorbell=doorbell)


class Waiter(threading.Thread):
    """One ``receive`` in a thread, like a worker waiting on its queue."""

    def __init__(self, queue: SqliteQueue, wait_s: float = LONG_WAIT_S,
                 stop: threading.Event | None = None) -> None:
        super().__init__(daemon=True)
        self.queue, self.wait_s, self.stop, self.got = queue, wait_s, stop, None

    def run(self) -> None:
        self.got = self.queue.receive(wait_s=self.wait_s, visibility_s=30, stop=self.stop)

    def result(self) -> list:
        self.join(LONG_WAIT_S + 30)
        assert not self.is_alive(), "the receive never returned"
        return self.got


class Sleepers:
    """Counts receives that went to sleep on their ear (after their first look)."""

    def __init__(self) -> None:
        self.count = 0
        self.changed = threading.Condition()

    def wrap(self, wait):
        def counted(ear, timeout_s):
            with self.changed:
                self.count += 1
                self.changed.notify_all()
            return wait(ear, timeout_s)
        return counted

    def reached(self, count: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: self.count >= count, timeout=30), \
                "the waiter never went to sleep"


@pytest.fixture
def sleepers(monkeypatch):
    counter = Sleepers()
    monkeypatch.setattr(Ear, "wait", counter.wrap(Ear.wait))
    return counter


@pytest.fixture
def doorbell(db):
    bell = Doorbell.for_database(db.path)
    assert bell is not None
    return bell


def test_a_send_wakes_a_receive_that_is_already_waiting(db, doorbell, sleepers):
    waiter = Waiter(queue_of(db, doorbell))
    waiter.start()
    sleepers.reached(1)
    started = time.monotonic()
    queue_of(db, Doorbell.for_database(db.path)).send("hello")  # another handle, as a process
    [message] = waiter.result()
    assert message.body == "hello"
    assert time.monotonic() - started < LONG_WAIT_S / 2  # woken, not timed out
    assert list(doorbell.folder.glob("*.sock")) == []  # its socket went with it


def test_without_the_ring_the_same_waiter_sleeps_through_its_wait(db, doorbell, sleepers, tmp_path):
    """Negative control: a sender ringing another folder does not wake the waiter,
    though the message is in the database the whole time."""
    waiter = Waiter(queue_of(db, doorbell), wait_s=1.0)
    waiter.start()
    sleepers.reached(1)
    queue_of(db, Doorbell(tmp_path / "elsewhere")).send("unheard")
    assert waiter.result() == []
    assert queue_of(db, None).stats().visible == 1


@pytest.mark.parametrize("event", [StopEvent, threading.Event])
def test_a_drain_ends_a_wait_that_nothing_rings(db, doorbell, sleepers, event):
    """A consumer told to stop is not held for its long poll (nor for the safety
    interval, an hour here): its receive returns, empty, soon after ``stop``
    (a ``StopEvent`` rings the waiter's socket; a plain event is looked at)."""
    stop = event()
    waiter = Waiter(queue_of(db, doorbell), stop=stop)
    waiter.start()
    sleepers.reached(1)
    started = time.monotonic()
    stop.set()
    assert waiter.result() == []
    assert time.monotonic() - started < LONG_WAIT_S / 2  # stopped, not timed out


def test_every_waiter_of_the_queue_is_rung_and_each_send_feeds_one(db, doorbell, sleepers):
    waiters = [Waiter(queue_of(db, doorbell)) for _ in range(3)]
    for waiter in waiters:
        waiter.start()
    sleepers.reached(3)
    assert doorbell.ring("other-queue") == 0  # another queue's ring reaches none of them
    assert doorbell.ring("jobs") == 3
    queue = queue_of(db, doorbell)
    for body in ("one", "two", "three"):  # each send wakes the ones still waiting
        queue.send(body)
    bodies = sorted(m.body for waiter in waiters for m in waiter.result())
    assert bodies == ["one", "three", "two"]  # one each: nobody slept through its wait


def test_a_delayed_message_is_taken_when_it_becomes_visible(db, doorbell, sleepers):
    waiter = Waiter(queue_of(db, doorbell))
    waiter.start()
    sleepers.reached(1)
    queue_of(db, doorbell).send("later", delay_s=0.3)
    [message] = waiter.result()
    assert message.body == "later"


def test_a_lease_that_runs_out_is_taken_by_a_waiter_nobody_rang(db, doorbell):
    queue = queue_of(db, doorbell)
    queue.send("dropped")
    [held] = queue.receive(visibility_s=0.3)  # its worker dies holding it
    waiter = Waiter(queue)
    waiter.start()
    [message] = waiter.result()
    assert (message.message_id, message.receive_count) == (held.message_id, 2)


def test_release_and_redrive_ring(db, doorbell, sleepers):
    queue = queue_of(db, doorbell)
    queue.send("again")
    [held] = queue.receive(visibility_s=3600)
    waiter = Waiter(queue)
    waiter.start()
    sleepers.reached(1)
    queue.release(held)
    assert waiter.result()[0].message_id == held.message_id

    queue.dead_letter(waiter.got[0], "broken")
    slept = sleepers.count
    waiter = Waiter(queue)
    waiter.start()
    sleepers.reached(slept + 1)
    assert queue.redrive() == 1
    assert waiter.result()[0].message_id == held.message_id


def test_a_dead_processes_socket_is_removed_by_the_next_ring(doorbell):
    stale = doorbell.folder / "jobs@deadbeef0000.sock"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(stale))
    sock.close()  # killed: the file stays, nobody reads it
    assert stale.exists()
    assert doorbell.ring("jobs") == 0
    assert not stale.exists()


def test_a_path_too_long_for_a_socket_falls_back_to_polling(tmp_path, monkeypatch):
    deep = tmp_path.joinpath(*["d" * 40] * 4)
    deep.mkdir(parents=True)
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(deep))
    db = Database(deep / "state.sqlite3")
    assert Doorbell.for_database(db.path) is None
    monkeypatch.setattr(queue_module, "WAKE_INTERVAL_S", 1.0)
    queue = SqliteQueue(db, "jobs", doorbell=None)
    waiter = Waiter(queue, wait_s=30)
    waiter.start()
    queue.send("polled")
    assert waiter.result()[0].body == "polled"


def test_the_backend_wires_one_doorbell_beside_its_database(settings):
    from local_adapters import build_backend

    backend = build_backend(settings)
    bells = {q._doorbell.folder for q in (backend.chunking_queue, backend.video_queue,
                                          backend.segment_output_queue,
                                          backend.reassembly_queue)}
    # beside the database, or in the temp dir where that path is too long
    assert bells == {Doorbell.for_database(Path(settings.data_dir) / "state.sqlite3").folder}


def test_a_folder_removed_under_the_bell_is_made_again_by_the_next_listener(doorbell):
    """A temp cleaner removed the (empty) folder: a waiter listens anyway and
    is rung (before, its bind failed and the receive raised)."""
    doorbell.folder.rmdir()
    with doorbell.listen("jobs") as ear:
        assert doorbell.ring("jobs") == 1
        assert ear.wait(LONG_WAIT_S) is True
