"""Decoding that skips what cannot be decoded, as players do.

A damaged recording or a download cut off mid-packet holds packets the
decoder refuses ("Invalid data found when processing input"). Players show
the pictures around them; PyAV's ``container.decode`` raises at the first
and ends the whole decode. Whether the error even surfaces depended on the
decoder's thread count: one cut-off file converted through
``stereo-inference convert`` (default threads) and failed the same segment
in the stack (one or two threads), losing the job. Here each packet is
decoded on its own and a packet the decoder refuses is skipped and counted.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import av

log = logging.getLogger(__name__)


class ReadableFrames:
    """The frames of ``stream`` in ``container`` that decode; ``skipped``
    counts the packets the decoder refused (logged once, at the end)."""

    def __init__(self, container, stream, name: str) -> None:
        self.container, self.stream, self.name = container, stream, name
        self.skipped = 0

    def __iter__(self) -> Iterator[av.VideoFrame]:
        for packet in self.container.demux(self.stream):  # the last one flushes
            try:
                frames = packet.decode()
            except av.error.InvalidDataError as exc:
                self.skipped += 1
                log.debug("%s: a packet at %s does not decode: %s", self.name, packet.pts, exc)
                continue
            yield from frames
        if self.skipped:
            log.warning("%s: %d damaged video packet(s) skipped, as players skip them "
                        "(the picture may show glitches there)", self.name, self.skipped)
