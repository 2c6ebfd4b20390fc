"""FFmpeg's scaler, one kept for a stream's frames and run on the calling thread.

PyAV's ``frame.to_ndarray(width=..., ...)`` and ``frame.reformat(...)`` build a
new scaler for every frame (each frame holds its own ``VideoReformatter``),
and that scaler starts threads of its own, one per core, to scale one picture.
For the 128x72 depth input of a 720p frame that cost 1.2 ms of CPU a frame
(all threads: ~1,200 threads started in a 20-second conversion), ten times
the scaling itself; the same scaler kept for every frame, on one thread,
costs 0.12 ms and gives the same bits (``tests/unit/test_scaler.py``). A
stream whose frames change size or format midway is handled as before: the
scaler sets itself up again for a frame unlike the last.

One ``Scaler`` per thread (the decoder's, a warm-up's): it is not shared.
"""

from __future__ import annotations

import av
import numpy as np
from av.video.reformatter import VideoReformatter


class Scaler:
    def __init__(self) -> None:
        self._reformatter = VideoReformatter()

    def frame(self, frame: av.VideoFrame, **kwargs) -> av.VideoFrame:
        """``frame.reformat(**kwargs)`` (``frame`` itself when nothing changes)."""
        return self._reformatter.reformat(frame, threads=1, **kwargs)

    def array(self, frame: av.VideoFrame, **kwargs) -> np.ndarray:
        """``frame.to_ndarray(**kwargs)``: e.g. width, height, format, interpolation."""
        return self.frame(frame, **kwargs).to_ndarray()
