"""What the bounded probe learns from a video stream's packets, one at a time,
in decoding order: whether they come from a packet scan (``bounded_probe``)
or from an MP4's sample table (``mp4_samples``)."""

from __future__ import annotations


class PacketFacts:
    """Frame count, time span, longest keyframe gap, keyframe times and whether a
    keyframe after the first has leading frames (frames coded after it but shown
    before it: an open GOP, which a ``-c copy`` cut at that keyframe loses)."""

    def __init__(self) -> None:
        self.frames = 0
        self._start: float | None = None
        self._end = 0.0
        self._last_key: float | None = None
        self._cut: float | None = None  # the latest keyframe a cut could land on
        self._gap = 0.0
        self._leading = False
        self._keys: list[float] = []

    def add(self, t: float, duration: float, keyframe: bool) -> None:
        """One packet: its presentation time and duration (s) and keyframe flag."""
        self._start = t if self._start is None else min(self._start, t)
        self._end = max(self._end, t + duration)
        self.frames += 1
        if keyframe:
            self._keys.append(t)
            if self._last_key is not None:
                self._gap = max(self._gap, t - self._last_key)
                self._cut = t  # frames coded after it must not precede it
            self._last_key = t
        elif self._last_key is not None and self._cut is not None and t < self._cut:
            self._leading = True

    @property
    def has_keyframe(self) -> bool:
        return self._last_key is not None

    def result(self) -> tuple[int, float, float, bool, tuple[float, ...]]:
        """(frame count, end time in s after the first timestamp, longest keyframe
        gap in s (to the end included), leading frames, keyframe times in s after
        the first timestamp, in order); all zero without a keyframe."""
        if self._last_key is None:
            return 0, 0.0, 0.0, False, ()
        first = self._start or 0.0
        gap = max(self._gap, self._end - self._last_key)
        return (self.frames, self._end - first, gap, self._leading,
                tuple(sorted(t - first for t in self._keys)))
