"""Run render and encode concurrently: while batch n is encoded, n+1 is rendered.

Decoding already runs in its own thread (FrameReader); this adds the encoder
thread, joined by a bounded queue so memory stays flat. Errors in either stage
stop both and surface in the caller.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable

import numpy as np

from stereo_inference.decode import FrameBatch

_END = object()


def run_stages(
    batches: Iterable[FrameBatch],
    render: Callable[[FrameBatch], np.ndarray],
    encoder,
    frame_format: str,
    *,
    total: int | None,
    progress: Callable[[int, int | None], None] | None,
) -> int:
    """Render every batch and hand it to ``encoder.write``; returns frames written."""
    pending: queue.Queue = queue.Queue(maxsize=2)
    failure: list[BaseException] = []
    written = [0]

    def encode_loop() -> None:
        while (item := pending.get()) is not _END:
            if failure:
                continue  # drain so the producer never blocks
            frames, batch = item
            try:
                encoder.write(frames, frame_format, batch.pts, batch.durations)
                written[0] += len(frames)
                if progress:
                    progress(written[0], total)
            except BaseException as exc:  # re-raised in the caller's thread
                failure.append(exc)

    worker = threading.Thread(target=encode_loop, name="encode", daemon=True)
    worker.start()
    try:
        for batch in batches:
            if failure:
                break
            pending.put((render(batch), batch))
    finally:
        pending.put(_END)
        worker.join()
    if failure:
        raise failure[0]
    return written[0]
