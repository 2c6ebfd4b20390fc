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
"""

from __future__ import annotations

import logging
import threading

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

    def start(self) -> None:
        """Build the worker and start consuming. Raises what ``build_worker`` raises
        (no ffmpeg, no backend adapter)."""
        sweep_stale_temp(self._settings.work_dir, ("chunk-", "join-"))  # a killed run's
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
