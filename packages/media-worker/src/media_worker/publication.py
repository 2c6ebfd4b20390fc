"""Handing a job's segments to the video-workers while the split still cuts them.

Segments go out in ``segment_order.publish_order``, each as soon as it and
every segment before it in that order is cut. The last segment is held back
until the split has ended with the planned count and the side streams are
stored: a run whose keys never form the whole set ``0..n-1`` cannot complete
(the janitor sends it back to chunking instead), so a split that went off its
plan, or a chunker that died mid-way, never leaves a job reassembled short.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path


class Publication:
    """``publish(index, path)`` for each segment of ``total``, in ``order``: the
    ready ones as :meth:`cut` reports them (any thread), the rest at :meth:`finish`."""

    def __init__(self, total: int, order: list[int],
                 publish: Callable[[int, Path], None]) -> None:
        self.total, self._order, self._publish = total, order, publish
        self._cut: dict[int, Path] = {}
        self._next = 0  # position in ``order`` of the next segment to publish
        self._lock = threading.Lock()

    def cut(self, index: int, path: Path) -> None:
        """Segment ``index`` is cut: publish it and whatever it unblocks, except
        the last segment. Raises what ``publish`` raises."""
        with self._lock:
            self._cut[index] = path
            self._advance(hold=self.total - 1)

    def finish(self, segments: list[Path]) -> None:
        """The split is over and checked (``segments`` are all of them): publish
        what is left, the last segment included."""
        with self._lock:
            self._cut.update(enumerate(segments))
            self._advance(hold=None)

    @property
    def published(self) -> int:
        return self._next

    def _advance(self, hold: int | None) -> None:
        while self._next < len(self._order):
            index = self._order[self._next]
            if index == hold or index not in self._cut:
                return
            self._publish(index, self._cut[index])
            self._next += 1
