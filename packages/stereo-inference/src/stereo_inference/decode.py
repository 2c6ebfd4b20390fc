"""Threaded decoding with PyAV into batches ready for the GPU/CPU stages.

A background thread decodes (with FFmpeg's own frame threads; a packet the
decoder refuses is skipped, as players skip it: ``readable_frames``), makes an
interlaced source progressive (``deinterlace``), scales each frame once for
the depth estimator and once to the eye geometry, and hands batches over a
small bounded queue, so decoding overlaps depth and warping. On a GPU it may
decode on NVDEC into batches on the device instead (``nvdec``).
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import av
import numpy as np
from stereo_media.demuxers import av_options

from stereo_inference import planes
from stereo_inference.arrays import settle
from stereo_inference.deinterlace import progressive_frames
from stereo_inference.errors import InvalidInputError
from stereo_inference.picture_captions import PictureCaptions
from stereo_inference.readable_frames import ReadableFrames
from stereo_inference.scaler import Scaler
from stereo_inference.stage_clock import StageClock

if TYPE_CHECKING:
    from stereo_inference.shot_plan import FramePlan

log = logging.getLogger(__name__)
_END = object()


class EyeFilter(Protocol):
    """Turns a decoded eye frame (in ``source_format``) into one in the eye format."""

    source_format: str

    def __call__(self, frame: np.ndarray) -> np.ndarray: ...


@dataclass
class FrameBatch:
    depth_rgb: np.ndarray | None  # (B,h,w,3) uint8 at the estimator's size; None on a GPU
    eyes: np.ndarray  # (B,H*3/2,W) uint8 yuv420p, or (B,H,W,3) rgb24; a tensor from NVDEC
    pts: list[int | None] = field(default_factory=list)
    durations: list[int | None] = field(default_factory=list)
    time_base: Fraction | None = None
    # closed captions (A/53 cc_data) of the frames that carry them, by pts
    captions: dict[int, bytes] = field(default_factory=dict)
    # normalised depth (B,1,h,w), once the depth stage has run: numpy on a CPU,
    # a torch tensor on a GPU
    depth: Any = None
    plan: FramePlan | None = None  # made with the depth (``shot_plan``)
    held: np.ndarray | None = None  # (B,) bool: frames repeating the one before (depth stage)
    ahead: list[np.ndarray] | None = None  # depth inputs of the frames after it (``lookahead``)
    on_device: object = None  # the eyes uploaded to the GPU (``device_frames``), once
    ready: object = None  # the CUDA event the render waits for (``cuda_streams``)


class FrameReader:
    """Iterate ``FrameBatch``es of the first video stream of ``path``.

    ``depth_size`` None leaves ``depth_rgb`` out (a GPU makes it from the eyes:
    ``device_frames``). ``allocate(shape, dtype)`` gives the arrays eyes are
    copied into (default ``np.empty``; page-locked memory for a GPU).
    ``nvdec`` (``nvdec.DevicePlanes``): decode on it into batches on its device
    (the caller checked ``nvdec.usable``), unless the stream is interlaced;
    neither ``eye_filter`` nor ``depth_size`` is used then.
    Raises InvalidInputError (from the iterator) when the stream cannot be decoded.
    """

    def __init__(
        self,
        path: Path,
        *,
        eye_size: tuple[int, int],
        depth_size: tuple[int, int] | None,
        eye_format: str,
        batch_size: int,
        prefetch: int = 2,
        rotation: int = 0,
        eye_filter: EyeFilter | None = None,
        threads: int | None = None,
        clock: StageClock | None = None,
        allocate=np.empty,
        nvdec=None,
        depth_interpolation: str = "FAST_BILINEAR",
    ) -> None:
        self.path = Path(path)
        self.depth_interpolation = depth_interpolation  # ``depth.input_interpolation``
        self.allocate = allocate
        self.nvdec = nvdec
        self._handed: int | None = None  # the pts of the last frame handed over
        self.clock = clock or StageClock()  # decoding's busy time is "decode"
        # the display rotation (counter-clockwise degrees) is applied to the
        # frames, so the packed output is upright and needs no display matrix
        self.turns = (rotation % 360) // 90
        self.eye_size, self.depth_size = eye_size, depth_size
        self.eye_format, self.batch_size = eye_format, max(1, batch_size)
        self.threads = threads  # decoder threads; None: FFmpeg's automatic count
        # e.g. a ToneMapper: eyes are decoded in its format, then handed to it
        self.eye_filter = eye_filter
        self.decode_format = eye_filter.source_format if eye_filter else eye_format
        self.scaler = Scaler()  # the decoding thread's
        self._queue: queue.Queue = queue.Queue(maxsize=prefetch)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="decode", daemon=True)

    def __iter__(self) -> Iterator[FrameBatch]:
        self._thread.start()
        try:
            while True:
                item = self._queue.get()
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            self.close()

    def close(self) -> None:
        """Stop the decoding thread (safe to call twice)."""
        self._stop.set()
        while self._thread.is_alive():
            try:
                self._queue.get_nowait()
            except queue.Empty:
                self._thread.join(timeout=0.05)

    def _put(self, item) -> bool:
        with self.clock.idle("decode", "blocked"):
            while not self._stop.is_set():
                try:
                    self._queue.put(item, timeout=0.1)
                    if isinstance(item, FrameBatch):
                        self._handed = next((p for p in reversed(item.pts) if p is not None),
                                            self._handed)
                    return True
                except queue.Full:
                    continue
        return False

    def _run(self) -> None:
        try:
            if self.nvdec is not None:
                try:
                    self._open(self.nvdec)
                    self._put(_END)
                    return
                except _Interlaced:
                    log.info("%s is interlaced: decoded in software, to be deinterlaced",
                             self.path.name)
                except av.FFmpegError as exc:  # the software decoder says if it is the file
                    log.warning("%s: NVDEC failed (%s); decoding in software",
                                self.path.name, exc)
            self._open(None)
            self._put(_END)
        except av.FFmpegError as exc:
            self._put(InvalidInputError(f"cannot decode {self.path.name}: {exc}"))
        except BaseException as exc:  # handed to the consumer, which re-raises it
            self._put(exc)

    def _open(self, nvdec) -> None:
        """Decode the whole stream, on ``nvdec`` when given (raising _Interlaced at
        the first interlaced frame), else in software, from the first frame after
        the ones handed over already."""
        hwaccel = nvdec.hwaccel if nvdec else None
        with av.open(str(self.path), options=av_options(), hwaccel=hwaccel) as container:
            stream = container.streams.video[0]
            stream.thread_type = "AUTO"
            if self.threads:
                stream.codec_context.thread_count = self.threads
            if nvdec is None:
                self._decode(container, stream)
            else:
                self._decode_on(nvdec, container, stream)

    def _decode_on(self, nvdec, container, stream) -> None:
        """``_decode`` on NVDEC: every frame copied into a batch on its device."""
        batch, eyes, pts, durations = None, 0, [], []
        captions = PictureCaptions()
        frames = iter(ReadableFrames(container, stream, self.path.name))
        while True:
            with self.clock.stage("decode"):
                frame = next(frames, None)
                if frame is None:
                    break
                if frame.interlaced_frame:  # bwdif runs on the software path's frames
                    raise _Interlaced
                if batch is None:
                    batch = nvdec.batch_array(self.eye_size, self.batch_size)
                nvdec.read_into(frame, batch[eyes], self.turns)
            if self._stop.is_set():
                return
            eyes += 1
            pts.append(frame.pts)
            durations.append(frame.duration or None)
            captions.read(frame)
            if eyes == self.batch_size:
                settle(batch)  # the copies queued into it are done
                if not self._put(FrameBatch(None, batch, pts, durations, stream.time_base,
                                            captions.take())):
                    return
                batch, eyes, pts, durations = None, 0, [], []
        if eyes and batch is not None:
            settle(batch)
            self._put(FrameBatch(None, batch[:eyes], pts, durations, stream.time_base,
                                 captions.take()))

    def _decode(self, container, stream) -> None:
        ew, eh = self.eye_size
        if self.turns % 2:  # decode in the coded orientation, then turn
            (ew, eh) = (eh, ew)
        depth_size = self.depth_size
        if depth_size and self.turns % 2:
            depth_size = depth_size[::-1]
        depth: list[np.ndarray] = []
        eyes: list[np.ndarray] = []
        pts: list[int | None] = []
        durations: list[int | None] = []
        captions = PictureCaptions()  # kept in the output (``encode``)
        # planes copied straight into the batch when the frame needs no conversion
        direct = self.eye_filter is None and not self.turns
        batch = None
        frames = progressive_frames(iter(ReadableFrames(container, stream, self.path.name)),
                                    stream)
        if self._handed is not None:  # NVDEC handed these over before it gave up
            frames = (f for f in frames if f.pts is None or f.pts > self._handed)
        while True:
            with self.clock.stage("decode"):  # the handing over below is not decoding
                frame = next(frames, None)
                if frame is None:
                    break
                slot = None
                if direct and planes.fits(frame, self.decode_format, (ew, eh)):
                    if batch is None:
                        batch = planes.batch_array(self.decode_format, (ew, eh), self.batch_size,
                                                   self.allocate)
                    slot = batch[len(eyes)]
                small, eye = self._convert(frame, (ew, eh), depth_size, slot)
            if self._stop.is_set():
                return
            depth.append(small)
            eyes.append(eye)
            pts.append(frame.pts)
            durations.append(frame.duration or None)
            captions.read(frame)
            if len(eyes) == self.batch_size:
                if not self._put(self._batch(depth, eyes, batch, pts, durations,
                                             captions.take(), stream)):
                    return
                depth, eyes, pts, durations, batch = [], [], [], [], None
        if eyes:
            self._put(self._batch(depth, eyes, batch, pts, durations, captions.take(), stream))

    def _convert(self, frame, eye_size, depth_size, slot: np.ndarray | None):
        """(depth input, eye) of ``frame``; the eye's planes copied into ``slot``
        (a batch array's row) when given, else converted by PyAV."""
        ew, eh = eye_size
        small = None
        if depth_size:  # the weight-free default's is small and blurred: the cheapest scaler
            small = self.scaler.array(frame, width=depth_size[0], height=depth_size[1],
                                      format="rgb24", interpolation=self.depth_interpolation)
        if slot is not None:
            planes.read_into(frame, slot)
            eye = slot
        else:
            eye = self.scaler.array(frame, width=ew, height=eh, format=self.decode_format)
        if self.eye_filter is not None:
            eye = self.eye_filter(eye)
        if self.turns:
            eye = rotate(eye, self.eye_format, self.turns)
            if small is not None:
                small = rotate(small, "rgb24", self.turns)
        return small, eye

    @staticmethod
    def _batch(depth, eyes, batch, pts, durations, captions, stream) -> FrameBatch:
        """``batch``: the array the eyes were read into, used as it is when every
        eye of this batch is in it (no stacking copy)."""
        # (by address: an allocator's array, a view of torch's, is no array's .base)
        whole = batch is not None and all(np.may_share_memory(e, batch) for e in eyes)
        return FrameBatch(
            depth_rgb=np.stack(depth) if depth[0] is not None else None,
            eyes=batch[: len(eyes)] if whole else np.stack(eyes),
            pts=pts,
            durations=durations,
            time_base=stream.time_base,
            captions=captions,
        )


class _Interlaced(Exception):  # noqa: N818 -- a signal, not an error
    """NVDEC met an interlaced frame: the software path decodes from there."""


def rotate(image: np.ndarray, fmt: str, turns: int) -> np.ndarray:
    """``image`` turned counter-clockwise by ``turns`` quarter turns: an (H,W,3)
    rgb24 array, or an (H*3/2,W) yuv420p[10le] array (each plane turned on its own)."""
    if not fmt.startswith("yuv420p"):
        return np.ascontiguousarray(np.rot90(image, turns))
    rows, w = image.shape
    h = rows * 2 // 3
    luma = np.rot90(image[:h], turns)
    chroma = np.rot90(image[h:].reshape(2, h // 2, w // 2), turns, axes=(1, 2))
    return np.concatenate([luma.ravel(), chroma.ravel()]).reshape(-1, luma.shape[1])
