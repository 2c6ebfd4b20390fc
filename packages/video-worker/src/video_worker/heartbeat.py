"""Live progress of one segment: frames done, reported as a heartbeat record.

The engine calls back after every frame it writes; :class:`SegmentHeartbeater`
turns that into at most one store write per ``interval_s`` (plus the first and
the last), so the page can show frames, fps and an ETA while a long segment
converts, and a silent heartbeat shows a worker that died. At each beat it
also asks whether the job was cancelled, so a worker stops within one
heartbeat.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable

from shared_types.errors import JobCancelledError, StereoSpotError
from shared_types.models import SegmentHeartbeat
from shared_types.ports import SegmentHeartbeatStore

log = logging.getLogger(__name__)

DEFAULT_INTERVAL_S = 2.0


def default_worker_id() -> str:
    """This process, as heartbeats name it: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


class SegmentHeartbeater:
    """A ``(frames_done, frames_total)`` callback that beats for one segment."""

    def __init__(self, store: SegmentHeartbeatStore, job_id: str, segment_index: int,
                 worker: str, *, interval_s: float = DEFAULT_INTERVAL_S,
                 clock: Callable[[], float] = time.time,
                 is_cancelled: Callable[[], bool] | None = None) -> None:
        self._store, self._clock, self._interval = store, clock, interval_s
        self._job_id, self._index, self._worker = job_id, segment_index, worker
        self._is_cancelled = is_cancelled
        self._started = clock()
        self._last: float | None = None
        self.frames_total: int | None = None

    def __call__(self, frames_done: int, frames_total: int | None = None) -> None:
        """Beat when the interval passed; then raise JobCancelledError (which
        stops the engine) if the job was cancelled meanwhile."""
        if frames_total is not None:
            self.frames_total = frames_total
        t = self._clock()
        if self._last is None or t - self._last >= self._interval:
            self._beat(frames_done, t)
            if self._is_cancelled is not None and self._is_cancelled():
                raise JobCancelledError(f"job {self._job_id} was cancelled")

    def finish(self, frames: int) -> None:
        """The last beat: every frame of the segment is done."""
        self.frames_total = frames
        self._beat(frames, self._clock())

    def _beat(self, frames_done: int, t: float) -> None:
        self._last = t
        try:
            self._store.beat(SegmentHeartbeat(
                job_id=self._job_id, segment_index=self._index, worker=self._worker,
                frames_done=frames_done, frames_total=self.frames_total,
                started_at=self._started, last_heartbeat=t))
        except StereoSpotError as exc:  # progress is a nicety; the conversion goes on
            log.warning("job_id=%s segment_index=%d heartbeat not recorded: %s",
                        self._job_id, self._index, exc)
