"""A wall-clock limit on one engine conversion that scales with the segment.

The in-process engine has no timeout of its own; it reports ``(frames_done,
frames_total)`` as it writes frames. :class:`ConversionDeadline` wraps that
progress callback and stops the conversion (by raising from the callback) once
it has run longer than ``base_s + s_per_frame * frames_total`` seconds: a
segment of twice the frames gets twice the time, a source that hangs the engine
(an 8K clip at 1000 fps that slipped past the probe) is stopped instead of
pinning the worker. The remote backends keep their own request timeouts.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from video_worker.errors import ConversionTimeoutError

FrameProgress = Callable[..., None]


class ConversionDeadline:
    """A progress callback that raises ConversionTimeoutError past the limit,
    then passes the progress on to ``inner``."""

    def __init__(self, inner: FrameProgress, *, base_s: float, s_per_frame: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._inner, self._base_s, self._s_per_frame = inner, base_s, s_per_frame
        self._clock = clock
        self._started = clock()
        self._frames_total: int | None = None

    def limit_s(self) -> float | None:
        """The limit in seconds, once the engine said how many frames it converts."""
        if self._frames_total is None:
            return None
        return self._base_s + self._s_per_frame * self._frames_total

    def __call__(self, frames_done: int, frames_total: int | None = None) -> None:
        if frames_total is not None:
            self._frames_total = frames_total
        limit, elapsed = self.limit_s(), self._clock() - self._started
        if limit is not None and elapsed > limit:
            raise ConversionTimeoutError(
                f"converting took longer than {limit:.0f} s for {self._frames_total} frames "
                f"({frames_done} done) and was stopped")
        self._inner(frames_done, frames_total)
