"""Run depth, render and encode concurrently, each on its own batch.

Decoding already runs in its own thread (FrameReader); this adds a depth
thread ahead of the render (the caller's thread) and an encoder thread behind
it, joined by bounded queues so memory stays flat: while batch n is encoded,
n+1 is warped and n+2's depth is estimated. OpenCV, numpy and x264 release the
GIL, so on a CPU the stages share the cores instead of taking turns. Errors in
any stage stop all of them and surface in the caller.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from stereo_inference.decode import FrameBatch
from stereo_inference.stage_clock import StageClock

_END = object()

# batches each queue between two stages holds (depth -> render -> encode): what
# evens out the stages' uneven paces, at a batch of frames' memory each
QUEUE_BATCHES = 2


def run_stages(
    batches: Iterable[FrameBatch],
    render: Callable[[FrameBatch], np.ndarray],
    encoder,
    frame_format: str,
    *,
    total: int | None,
    progress: Callable[[int, int | None], None] | None,
    estimate: Callable[[FrameBatch], object] | None = None,
    clock: StageClock | None = None,
    renderers: int = 1,
    finish: Callable[[np.ndarray, FrameBatch], np.ndarray] | None = None,
) -> int:
    """Render every batch and hand it to ``encoder.write``; returns frames written.

    ``estimate`` (the depth stage), when given, runs on every batch, in order,
    in a thread of its own ahead of ``render``. ``renderers`` above 1 renders
    that many consecutive batches at once (``render`` must then keep no state
    from one batch to the next); they reach the encoder in order. ``finish``
    (frames, batch) -> frames, when given, runs on each rendered batch in
    order, in the caller's thread, before the encoder gets it: the step that
    may keep state from one batch to the next (3D subtitles, whose depth only
    grows during a cue). ``clock`` gets each stage's busy time ("depth",
    "render", "encode").
    """
    clock = clock or StageClock()
    pending: queue.Queue = queue.Queue(maxsize=QUEUE_BATCHES)
    failure: list[BaseException] = []
    written = [0]

    def encode_loop() -> None:
        while (item := _waited(clock, "encode", pending.get)) is not _END:
            if failure:
                continue  # drain so the producer never blocks
            frames, batch = item
            try:
                with clock.stage("encode"):
                    encoder.write(frames, frame_format, batch.pts, batch.durations,
                                  batch.captions)
                written[0] += len(frames)
                if progress:
                    progress(written[0], total)
            except BaseException as exc:  # re-raised in the caller's thread
                failure.append(exc)

    worker = threading.Thread(target=encode_loop, name="encode", daemon=True)
    worker.start()
    ahead = (_Ahead(batches, _timed(clock, "depth", estimate), clock=clock)
             if estimate is not None else None)
    render = _timed(clock, "render", render)
    pool = ThreadPoolExecutor(renderers, thread_name_prefix="render") if renderers > 1 else None
    in_flight: deque = deque()

    def hand_on(frames: np.ndarray, batch: FrameBatch) -> None:
        item = (finish(frames, batch) if finish else frames, batch)
        with clock.idle("render", "blocked"):
            pending.put(item)

    try:
        for batch in _starved(clock, "render", ahead if ahead is not None else batches):
            if failure:
                break
            if pool is None:
                hand_on(render(batch), batch)
                continue
            in_flight.append((pool.submit(render, batch), batch))
            if len(in_flight) >= renderers:
                done, batch = in_flight.popleft()
                hand_on(done.result(), batch)
        while in_flight and not failure:
            done, batch = in_flight.popleft()
            hand_on(done.result(), batch)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        if ahead is not None:
            ahead.close()
        pending.put(_END)
        worker.join()
    if failure:
        raise failure[0]
    return written[0]


def _timed(clock: StageClock, name: str, work: Callable) -> Callable:
    def timed(item):
        with clock.stage(name):
            return work(item)

    return timed


def _waited(clock: StageClock, name: str, get: Callable):
    """``get()``, its wait counted as ``name`` starved."""
    with clock.idle(name, "starved"):
        return get()


def _starved(clock: StageClock, name: str, items: Iterable) -> Iterator:
    """``items``, the waits for each counted as ``name`` starved."""
    items = iter(items)
    while (item := _waited(clock, name, lambda: next(items, _END))) is not _END:
        yield item


class _Ahead:
    """Iterate ``items`` after ``work`` ran on each, in a background thread that
    stays at most ``QUEUE_BATCHES`` items ahead; its exceptions are raised to the
    reader. ``clock`` gets the thread's waits as the "depth" stage's."""

    def __init__(self, items: Iterable, work: Callable, clock: StageClock) -> None:
        self._items, self._work, self._clock = items, work, clock
        self._queue: queue.Queue = queue.Queue(maxsize=QUEUE_BATCHES)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="depth", daemon=True)
        self._thread.start()

    def __iter__(self) -> Iterator:
        while (item := self._queue.get()) is not _END:
            if isinstance(item, _Failure):
                raise item.error
            yield item

    def close(self) -> None:
        """Stop the thread (it finishes the item in hand) and drop what it queued."""
        self._stop.set()
        while self._thread.is_alive():
            try:
                self._queue.get(timeout=0.05)
            except queue.Empty:
                continue
        self._thread.join()

    def _run(self) -> None:
        items = iter(self._items)
        try:
            for item in _starved(self._clock, "depth", items):
                if self._stop.is_set():
                    break
                self._work(item)
                with self._clock.idle("depth", "blocked"):
                    if not self._put(item):
                        break
            self._put(_END)
        except BaseException as exc:  # handed to the reader, which re-raises it
            self._put(_Failure(exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()  # a generator (the decoder's) stops its own thread

    def _put(self, item) -> bool:
        while not self._stop.is_set():
            try:
                self._queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error
