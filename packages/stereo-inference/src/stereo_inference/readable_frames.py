"""Decoding that skips what cannot be decoded, as players do.

A damaged recording or a download cut off mid-packet holds packets the
decoder refuses ("Invalid data found when processing input"). Players show
the pictures around them; PyAV's ``container.decode`` raises at the first
and ends the whole decode. Whether the error even surfaces depended on the
decoder's thread count: one cut-off file converted through
``stereo-inference convert`` (default threads) and failed the same segment
in the stack (one or two threads), losing the job. Here each packet is
decoded on its own and a packet the decoder refuses is skipped and counted.
Around lost pictures a decoder may also hand frames back out of order (a
B-frame whose references are gone): a frame that would play at or before
the one handed out last is dropped too, as a player drops it, since no
encoder or muxer takes time running backwards (the whole conversion failed
at its end with "Invalid argument").
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import av

from stereo_inference.errors import InvalidInputError

log = logging.getLogger(__name__)

# A few damaged packets are a damaged film (a weak broadcast signal, a cut-off
# download); more than this share of them is not a film any player shows.
MAX_SKIPPED_SHARE = 0.2
MIN_SKIPPED = 10


class ReadableFrames:
    """The frames of ``stream`` in ``container`` that decode, in the order they
    play; ``skipped`` counts the packets the decoder refused, ``disordered``
    the frames dropped for playing no later than the last (both logged once,
    at the end). A file most of whose packets do not decode is not a damaged
    film but no film: past :data:`MAX_SKIPPED_SHARE` of them (and
    :data:`MIN_SKIPPED`), the iteration ends in InvalidInputError, which
    says so."""

    def __init__(self, container, stream, name: str) -> None:
        self.container, self.stream, self.name = container, stream, name
        self.skipped = 0
        self.disordered = 0  # frames handed back out of order, dropped
        self.packets = 0

    def __iter__(self) -> Iterator[av.VideoFrame]:
        last = None  # the pts of the frame handed out last
        for packet in self.container.demux(self.stream):  # the last one flushes
            self.packets += packet.size > 0
            try:
                frames = packet.decode()
            except av.error.InvalidDataError as exc:
                self.skipped += 1
                log.debug("%s: a packet at %s does not decode: %s", self.name, packet.pts, exc)
                continue
            for frame in frames:
                if frame.pts is not None and last is not None and frame.pts <= last:
                    self.disordered += 1
                    continue
                last = frame.pts if frame.pts is not None else last
                yield frame
        if self.skipped > max(MIN_SKIPPED, MAX_SKIPPED_SHARE * self.packets):
            raise InvalidInputError(
                f"{self.name} is too damaged to convert: {self.skipped} of its "
                f"{self.packets} video packets do not decode")
        if self.skipped or self.disordered:
            log.warning("%s: %d damaged video packet(s) and %d frame(s) out of order "
                        "skipped, as players skip them (the picture may show glitches there)",
                        self.name, self.skipped, self.disordered)
