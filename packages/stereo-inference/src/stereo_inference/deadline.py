"""The wall-clock deadline of one conversion, enforced inside the engine.

Every path of ``convert_file`` (the frame pipeline, imported depth, iw3) runs
under one :class:`Deadline`: the frame loop checks it at every decoded batch,
whether or not anyone listens to progress, and each ffmpeg or iw3 step it
starts gets only the time that is left as its timeout. Past the deadline the
conversion stops with EngineTimeoutError, its partial output is removed, and
whoever held a lock for it (the HTTP server's) gets it back.

The limit is derived from the video's length: ``base_s + s_per_frame x frames``
(:data:`DEFAULT_BASE_S` = 120 s to load a model and start, plus
:data:`DEFAULT_S_PER_FRAME` = 2 s a frame: a 10 s segment at 30 fps gets
720 s, twice the frames twice the time), capped by ``cap_s`` when one is given
(the server's ``segment_timeout_s``, 3600 s). A source that hangs the engine
is stopped instead of pinning the worker or the instance. A call that never
returns inside one batch is out of this check's reach: the server runs each
conversion in a child process that it kills at the same deadline
(``stereo_inference.engine_process``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from stereo_inference.errors import EngineTimeoutError

DEFAULT_BASE_S = 120.0
DEFAULT_S_PER_FRAME = 2.0
T = TypeVar("T")


@dataclass(frozen=True)
class DeadlinePolicy:
    """How long a conversion of so many frames may take."""

    base_s: float = DEFAULT_BASE_S
    s_per_frame: float = DEFAULT_S_PER_FRAME
    cap_s: float | None = None

    def limit_s(self, frames: int | None) -> float:
        """The limit for ``frames`` (unknown: the cap, else the base alone)."""
        if frames is None:
            return self.cap_s if self.cap_s is not None else self.base_s
        limit = self.base_s + self.s_per_frame * frames
        return min(limit, self.cap_s) if self.cap_s is not None else limit

    @staticmethod
    def frames_of(info) -> int | None:
        """The frame count a limit is derived from: the one a probe
        (``video_info.VideoInfo``) lists, else duration x rate, else unknown."""
        return info.frames or (round(info.duration_s * info.fps) or None)


class Deadline:
    """A point in time a conversion must be done by."""

    def __init__(self, limit_s: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit_s = limit_s
        self._clock = clock
        self._ends = clock() + limit_s

    def left(self) -> float:
        """Seconds left (a little above zero when none are: a timeout of 0 means none)."""
        return max(0.001, self._ends - self._clock())

    def passed(self) -> bool:
        return self._clock() >= self._ends

    def check(self, doing: str) -> None:
        """Raise EngineTimeoutError when the deadline has passed."""
        if self.passed():
            raise EngineTimeoutError(
                f"the conversion ran past its deadline of {self.limit_s:.0f} s while "
                f"{doing} and was stopped")

    def batches(self, items: Iterable[T], doing: str = "converting frames") -> Iterator[T]:
        """``items``, checking the deadline before each is handed on."""
        for item in items:
            self.check(doing)
            yield item
