"""Contract suites: one per port, run against every implementation.

Each module defines plain ``test_*`` functions that use one fixture named after
the port (``job_store``, ``completion_store``, ``segment_status_store``,
``reassembly_lock``, ``queue``, ``object_storage``). An implementation's test
module imports the suite and defines that fixture, parametrised over its
implementations::

    from shared_types.testing.contracts.queue import *  # noqa: F403

    @pytest.fixture(params=["sqlite"])
    def queue(request, tmp_path):
        return SqliteQueue(Database(tmp_path / "q.db"), "q", max_receives=QUEUE_MAX_RECEIVES)

Every fixture must hand out a fresh, empty instance. Time-dependent contracts
use short real durations taken from the ``lease_s`` fixture (0.3 s by default);
a backend with coarser timers (SQS visibility is whole seconds) overrides it by
defining its own ``lease_s`` fixture in the test module.
"""

import threading
import time
from collections.abc import Callable
from typing import TypeVar

import pytest

DEFAULT_LEASE_S = 0.3

T = TypeVar("T")


@pytest.fixture
def lease_s() -> float:
    """Seconds a short visibility timeout or lease lasts in time-dependent contracts."""
    return DEFAULT_LEASE_S


def wait_past(seconds: float) -> None:
    """Sleep until ``seconds`` have surely passed (a margin for coarse clocks)."""
    time.sleep(seconds * 1.5 + 0.05)


def run_concurrently(call: Callable[[], T], times: int) -> list[T]:
    """Results of ``call`` run ``times`` times at once on separate threads."""
    results: list[T] = []
    lock = threading.Lock()
    start = threading.Barrier(times)

    def run() -> None:
        start.wait()
        result = call()
        with lock:
            results.append(result)

    threads = [threading.Thread(target=run) for _ in range(times)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results
