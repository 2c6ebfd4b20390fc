"""The media worker as threads of the ``stereo-spot convert`` process.

A one-file conversion needs the media worker at its start (probe, split) and
at its end (reassembly). As a child process it would first start an
interpreter and import pydantic, the models and the backend again: ~0.5 s of
CPU between the job's submission and its first segment, competing with the
video-workers' own start-up on the same cores. Hosted here it shares this
process's imports and consumes the chunking queue as soon as the job is
submitted. It is the same worker (``media_worker.bootstrap.build_worker``),
with the settings a child would read (``services.media_worker_settings``) and
its own backend instance; ``serve`` keeps it a supervised process.

What its threads log goes to ``data_dir/logs/media-worker.log``, as a child's
output goes to its log file (``Supervisor``), and reaches the console only
with ``-v``: the command prints a failed job's reason itself, once, where the
worker's own lines repeated it twice with timestamps and message ids.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from media_worker.bootstrap import build_worker
from shared_types.consumer import run_consumers
from shared_types.temp_sweep import sweep_stale_temp

from local_stack.services import media_worker_settings
from local_stack.settings import StackSettings

log = logging.getLogger(__name__)


class HostedMediaWorker:
    """Both media-worker consumers in background threads, from ``start`` to ``stop``."""

    def __init__(self, settings: StackSettings) -> None:
        self._settings = media_worker_settings(settings)
        self._stop: threading.Event | None = None
        self._thread: threading.Thread | None = None
        self._log = WorkerThreadsLog(Path(settings.data_dir) / "logs" / "media-worker.log")

    def start(self) -> None:
        """Build the worker and start consuming. Raises what ``build_worker`` raises
        (no ffmpeg, no backend adapter)."""
        self._log.install()
        sweep_stale_temp(self._settings.work_folder, ("chunk-", "join-"))  # a killed run's
        consumers = build_worker(self._settings).consumers()
        self._stop = consumers[0].stop  # run_consumers gives every consumer this event
        # daemon threads: a drain that outlasts ``stop``'s timeout does not hold up
        # this process's exit (the message's lease then expires, as a killed child's)
        self._thread = threading.Thread(
            target=run_consumers, args=(consumers,),
            kwargs={"install_signals": False, "daemon": True}, name="media-worker", daemon=True)
        self._thread.start()
        log.info("media-worker started in this process: segment_seconds=%g",
                 self._settings.segment_seconds)

    def stop(self, timeout_s: float | None = None) -> None:
        """Drain: each consumer finishes or releases its message, then its thread ends."""
        if self._stop is None or self._thread is None:
            return
        self._stop.set()
        self._thread.join(timeout_s)
        if not self._thread.is_alive():
            self._log.remove()


class WorkerThreadsLog:
    """While installed, the records of every thread but the main one (the hosted
    worker's: the CLI itself runs on the main thread) go to ``path``, and the
    root logger's other handlers (the console) keep them only when the root
    logs INFO (``-v``)."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._file: logging.Handler | None = None
        self._console: list[logging.Handler] = []

    def _is_worker(self, record: logging.LogRecord) -> bool:
        return record.thread != threading.main_thread().ident

    def _for_console(self, record: logging.LogRecord) -> bool:
        return not self._is_worker(record) or logging.getLogger().isEnabledFor(logging.INFO)

    def install(self) -> None:
        """Route the worker threads' records (idempotent)."""
        if self._file is not None:
            return
        root = logging.getLogger()
        self._console = list(root.handlers)
        for handler in self._console:
            handler.addFilter(self._for_console)
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._file = logging.FileHandler(self._path, encoding="utf-8", delay=True)
        self._file.setFormatter(logging.Formatter(
            "%(asctime)s %(levelname)s %(threadName)s %(name)s: %(message)s"))
        self._file.addFilter(self._is_worker)
        root.addHandler(self._file)

    def remove(self) -> None:
        """Undo :meth:`install`."""
        if self._file is None:
            return
        root = logging.getLogger()
        root.removeHandler(self._file)
        self._file.close()
        for handler in self._console:
            handler.removeFilter(self._for_console)
        self._file, self._console = None, []
