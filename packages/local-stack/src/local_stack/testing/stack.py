"""Run the workers of a stack in the background for a test or a benchmark."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from local_stack.services import worker_specs
from local_stack.settings import StackSettings
from local_stack.supervisor import Supervisor


@contextmanager
def running_workers(
    settings: StackSettings, *, env: Mapping[str, str] | None = None
) -> Iterator[Supervisor]:
    """media-worker(s) and video-workers under a supervisor (restarting crashed
    ones) until the block ends; their logs go to ``data_dir/logs``."""
    supervisor = Supervisor(
        worker_specs(settings), base_env=env,
        backoff_base_s=settings.restart_backoff_s,
        backoff_max_s=settings.restart_backoff_max_s,
        drain_timeout_s=settings.drain_timeout_s,
        log_dir=Path(settings.data_dir) / "logs",
    )
    supervisor.start()
    stop = threading.Event()
    thread = threading.Thread(target=supervisor.run, args=(stop,), name="supervisor")
    thread.start()
    try:
        yield supervisor
    finally:
        stop.set()
        thread.join()
