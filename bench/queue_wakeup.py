"""Queue wake-up: how fast a waiting local receive sees a message, and what idle waiting costs.

Runs the SQLite queue of ``local_adapters`` two ways in the same run: polling
(no doorbell, the reference: a cheap read every 5-20 ms) and with the
backend's doorbell (a UNIX datagram wakes the waiter). Two numbers each:

- round trip: process A sends "ping", process B (waiting) receives it and
  sends "pong", A (waiting) receives it: two hops, as a job crosses workers;
- idle CPU: 3 consumers of an empty queue in one process for
  ``--idle-seconds``, the process's CPU time as a share of one core, and how
  long their receives took to return once their stop was set. Three ways:
  polling 0.1 s at a time (the reference), the doorbell 0.1 s at a time (how
  local workers waited before their stop could end a wait: 0.1 s was how soon
  they noticed a drain), and the doorbell for the worker's full wait
  (``receive_wait_s``) with a ``StopEvent`` that ends it, as workers wait now.

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
from shared_types.backend_loader import receive_wait_s
from shared_types.settings import BackendSettings
from shared_types.stop_event import StopEvent

SHORT_WAIT_S = 0.1  # how long a local worker's receive waited before stop could end it


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


def _wait_idle(queue: SqliteQueue, stop: StopEvent, wait_s: float) -> None:
    """Receive as a consumer does, ``wait_s`` at a time, until ``stop``."""
    while not stop.is_set():
        queue.receive(wait_s=wait_s, stop=stop)


def _idle(db_path: Path, bell: bool, seconds: float, wait_s: float, out) -> None:
    stop = StopEvent()
    waiters = [threading.Thread(target=_wait_idle,
                                args=(_queue(db_path, "idle", bell), stop, wait_s))
               for _ in range(3)]
    for waiter in waiters:
        waiter.start()
    time.sleep(seconds)  # the bench's measured idle time, not a wait for a condition
    stopped = time.perf_counter()
    stop.set()
    for waiter in waiters:
        waiter.join()
    out.put(time.perf_counter() - stopped)


def idle_cpu(db_path: Path, bell: bool, seconds: float, wait_s: float) -> tuple[float, float]:
    """(CPU seconds per second, seconds from stop to the last receive's return)
    of a process whose 3 receives wait on an empty queue, ``wait_s`` at a time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = multiprocessing.Queue()
    child = multiprocessing.Process(target=_idle, args=(db_path, bell, seconds, wait_s, out))
    start = time.perf_counter()
    child.start()
    stop_s = out.get()
    child.join()
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return cpu / elapsed, stop_s


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
        worker_wait_s = receive_wait_s(BackendSettings(backend="local"))
        idle = {name: idle_cpu(db_path, bell, args.idle_seconds, wait_s)
                for name, bell, wait_s in (("polling", False, SHORT_WAIT_S),
                                           ("doorbell", True, SHORT_WAIT_S),
                                           ("doorbell+stop", True, worker_wait_s))}
    poll_ms, bell_ms = (statistics.median(trips[b]) * 1e3 for b in (False, True))
    poll_p95, bell_p95 = (statistics.quantiles(trips[b], n=20)[-1] * 1e3 for b in (False, True))
    print(f"round trip, 2 hops (median / p95 of {len(trips[True])}):")
    print(f"  polling  : {poll_ms:6.2f} ms / {poll_p95:6.2f} ms  (reference)")
    print(f"  doorbell : {bell_ms:6.2f} ms / {bell_p95:6.2f} ms")
    print(f"  ratio doorbell/polling (median): {bell_ms / poll_ms:.3f}")
    print(f"idle, 3 consumers for {args.idle_seconds:g} s (share of one core; stop to return):")
    for name, (cpu, stop_s) in idle.items():
        note = "  (reference)" if name == "polling" else (
            f"  ratio to polling {cpu / idle['polling'][0]:.3f}")
        print(f"  {name:14s}: {cpu * 100:6.2f} % ; {stop_s * 1e3:7.2f} ms{note}")


if __name__ == "__main__":
    main()
