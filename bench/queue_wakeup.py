"""Queue wake-up: how fast a waiting local receive sees a message, and what idle waiting costs.

Runs the SQLite queue of ``local_adapters`` two ways in the same run: polling
(no doorbell, the reference: a cheap read every 5-20 ms) and with the
backend's doorbell (a UNIX datagram wakes the waiter). Two numbers each:

- round trip: process A sends "ping", process B (waiting) receives it and
  sends "pong", A (waiting) receives it: two hops, as a job crosses workers;
- idle CPU: 3 consumers of an empty queue in one process for
  ``--idle-seconds``, each receiving as a local worker does (0.1 s at a time,
  ``LOCAL_MAX_WAIT_S``, so it sees a stop within 0.1 s), the process's CPU
  time as a share of one core.

Usage: .venv/bin/python bench/queue_wakeup.py [--trips N] [--idle-seconds S]
"""

from __future__ import annotations

import argparse
import multiprocessing
import resource
import statistics
import tempfile
import threading
import time
from pathlib import Path

from local_adapters.db import Database
from local_adapters.doorbell import Doorbell
from local_adapters.queue import SqliteQueue
from shared_types.backend_loader import LOCAL_MAX_WAIT_S


def _queue(db_path: Path, name: str, bell: bool) -> SqliteQueue:
    doorbell = Doorbell.for_database(db_path) if bell else None
    if bell and doorbell is None:
        raise SystemExit("no doorbell on this machine (no UNIX datagram sockets)")
    return SqliteQueue(Database(db_path), name, doorbell=doorbell)


def _echo(db_path: Path, bell: bool, trips: int) -> None:
    ping, pong = _queue(db_path, "ping", bell), _queue(db_path, "pong", bell)
    for _ in range(trips):
        [message] = ping.receive(wait_s=30)
        ping.delete(message)
        pong.send(message.body)


def round_trips(db_path: Path, bell: bool, trips: int) -> list[float]:
    """Seconds of each ping -> pong round trip through a second process."""
    ping, pong = _queue(db_path, "ping", bell), _queue(db_path, "pong", bell)
    echo = multiprocessing.Process(target=_echo, args=(db_path, bell, trips + 1))
    echo.start()
    times = []
    try:
        for i in range(trips + 1):  # the first one warms the echo up
            time.sleep(0.03)  # both sides are asleep in their receive again
            start = time.perf_counter()
            ping.send(str(i))
            [message] = pong.receive(wait_s=30)
            times.append(time.perf_counter() - start)
            pong.delete(message)
    finally:
        echo.join(60)
    return times[1:]


def _wait_idle(queue: SqliteQueue, seconds: float) -> None:
    """Receive as a local worker does (``LOCAL_MAX_WAIT_S`` at a time) for ``seconds``."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        queue.receive(wait_s=LOCAL_MAX_WAIT_S)


def _idle(db_path: Path, bell: bool, seconds: float) -> None:
    waiters = [threading.Thread(target=_wait_idle, args=(_queue(db_path, "idle", bell), seconds))
               for _ in range(3)]
    for waiter in waiters:
        waiter.start()
    for waiter in waiters:
        waiter.join()


def idle_cpu(db_path: Path, bell: bool, seconds: float) -> float:
    """CPU seconds per second of a process whose 3 receives wait on an empty queue."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = multiprocessing.Process(target=_idle, args=(db_path, bell, seconds))
    start = time.perf_counter()
    child.start()
    child.join()
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trips", type=int, default=100)
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    args = parser.parse_args()
    multiprocessing.set_start_method("fork")
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "state.sqlite3"
        Database(db_path).read("SELECT 1")  # the schema, before two processes race for it
        trips = {bell: [] for bell in (False, True)}
        for _ in range(2):  # interleaved: the machine's drift weighs on both
            for bell in (False, True):
                trips[bell] += round_trips(db_path, bell, args.trips // 2)
        idle = {bell: idle_cpu(db_path, bell, args.idle_seconds) for bell in (False, True)}
    poll_ms, bell_ms = (statistics.median(trips[b]) * 1e3 for b in (False, True))
    poll_p95, bell_p95 = (statistics.quantiles(trips[b], n=20)[-1] * 1e3 for b in (False, True))
    print(f"round trip, 2 hops (median / p95 of {len(trips[True])}):")
    print(f"  polling  : {poll_ms:6.2f} ms / {poll_p95:6.2f} ms  (reference)")
    print(f"  doorbell : {bell_ms:6.2f} ms / {bell_p95:6.2f} ms")
    print(f"  ratio doorbell/polling (median): {bell_ms / poll_ms:.3f}")
    print(f"idle, 3 consumers for {args.idle_seconds:g} s (share of one core):")
    print(f"  polling  : {idle[False] * 100:6.2f} %  (reference)")
    print(f"  doorbell : {idle[True] * 100:6.2f} %")
    print(f"  ratio doorbell/polling: {idle[True] / idle[False]:.3f}")


if __name__ == "__main__":
    main()
