"""Closed captions carried by the decoded pictures (A/53), read without keeping frames.

A PyAV frame's ``side_data`` property caches a container that refers back to
the frame: the two form a reference cycle, so every picture read that way,
megabytes each, lived until the cyclic garbage collector ran, and a 1080p
conversion's peak memory grew from ~465 to ~755 MB (measured). A container
made for the read alone (``SideDataContainer(frame)``) refers to the frame
but is not kept by it: the frame goes as soon as the decoder is done with it.
"""

from __future__ import annotations

from av.sidedata.sidedata import SideDataContainer

A53_CC = "A53_CC"  # the side data a decoder gives a picture's closed captions as


class PictureCaptions:
    """Collects the caption data (A/53 ``cc_data``) of decoded pictures by pts."""

    def __init__(self) -> None:
        self._pending: dict[int, bytes] = {}

    def read(self, frame) -> None:
        """Note ``frame``'s captions, if it carries any."""
        # av's stub gives SideDataContainer no constructor; it takes the frame
        cc = SideDataContainer(frame).get(A53_CC)  # type: ignore[call-arg]
        if cc is not None and frame.pts is not None:
            self._pending[frame.pts] = bytes(cc)

    def take(self) -> dict[int, bytes]:
        """The captions noted since the last call, by pts."""
        taken, self._pending = self._pending, {}
        return taken
