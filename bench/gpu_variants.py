"""The engine's switches a benchmark conversion can flip, and the variants that
flip them (``gpu_stages.py``): CUDA graphs and streams, NVDEC, the batch size,
the GIL's switch interval, encoding at all, sleeping waits, the decoder's
threads, the queues between stages. Each switch is a module attribute the
engine reads at call time; ``EngineSwitches`` remembers the shipped values
and sets them as a ``Variant`` says (an engine from before a switch simply
lacks it).
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from types import ModuleType


def optional_module(name: str) -> ModuleType | None:
    """``stereo_inference.<name>``, or None for an engine from before it."""
    try:
        return importlib.import_module(f"stereo_inference.{name}")
    except ImportError:
        return None


@dataclass(frozen=True)
class Variant:
    """One conversion to time: its name and what it changes from the engine as shipped."""

    name: str
    batch: int = 0  # frames a batch (0: the engine's default)
    streams: bool = True  # depth and render on their own CUDA streams
    cores: int | None = None  # decoder and encoder threads (None: the engine's default)
    graphs: bool = True  # CUDA graphs
    switch_ms: float | None = None  # GIL switch interval (None: Python's)
    encode: bool = True  # False: frames made, not encoded
    sleeping_waits: bool = True  # False: the host spins while it waits for the GPU
    decoder_threads: int | None = None  # the decoder alone (None: as ``cores`` says)
    nvdec: bool = True  # False: decoded in software where NVDEC would decode
    queues: int = 0  # batches a queue between stages holds (0: the engine's default)


class EngineSwitches:
    """The engine's switches as shipped, for frames of ``size`` (w, h), and
    ``apply`` to set them as a variant says."""

    def __init__(self, size: tuple[int, int]) -> None:
        import stereo_inference.convert as converting
        import stereo_inference.runtime as engine
        import stereo_inference.stages as staging
        from stereo_inference import arrays
        from stereo_inference.encode import StereoEncoder

        self._size = size
        self._converting, self._engine, self._staging = converting, engine, staging
        self._arrays, self._encoder = arrays, StereoEncoder
        self._graphs, self._streams = optional_module("cuda_graphs"), optional_module("cuda_streams")
        self._nvdec = optional_module("nvdec")
        self._pixels = getattr(engine, "GPU_BATCH_PIXELS", None)  # (older engines: none)
        self.queues = getattr(staging, "QUEUE_BATCHES", None)  # (older engines: none)
        self._reader = converting.FrameReader
        self._switch, self._write = sys.getswitchinterval(), StereoEncoder.write

    def apply(self, v: Variant) -> None:
        """The engine's switches as ``v`` sets them (the defaults: as shipped)."""
        if self._graphs is not None:
            self._graphs.ENABLED = v.graphs
        if self._streams is not None:
            self._streams.ENABLED = v.streams
        if self._nvdec is not None:
            self._nvdec.ENABLED = v.nvdec
        if self._pixels:
            w, h = self._size
            self._engine.GPU_BATCH_PIXELS = v.batch * w * h if v.batch else self._pixels
        sys.setswitchinterval(v.switch_ms / 1000 if v.switch_ms else self._switch)
        self._encoder.write = self._write if v.encode else _made_not_encoded(self._write)
        self._arrays.SLEEPING_WAITS = v.sleeping_waits
        if self.queues is not None:
            self._staging.QUEUE_BATCHES = v.queues or self.queues
        self._converting.FrameReader = self._reader if v.decoder_threads is None else (
            _with_threads(self._reader, v.decoder_threads))


def _with_threads(reader_class, threads: int):
    """``reader_class`` whose decoder gets ``threads`` threads, whatever it is asked."""
    class Reader(reader_class):
        def __init__(self, *args, **kwargs) -> None:
            kwargs["threads"] = threads
            super().__init__(*args, **kwargs)
    return Reader


def _made_not_encoded(write):
    """``StereoEncoder.write`` that encodes the first frame only (a file must
    come out) and makes every other frame without encoding it."""
    from stereo_inference import planes

    def made(encoder, frames, fmt, pts, durations, captions=None) -> None:
        first = not encoder.frames
        if first:
            write(encoder, frames[:1], fmt, pts[:1], durations[:1], captions)
        for i in range(1 if first else 0, len(frames)):
            planes.to_frame(frames[i], fmt)
            encoder.frames += 1
            if pts[i] is not None and encoder.span:  # the picture it stands for, as written
                encoder.span = (encoder.span[0],
                                max(encoder.span[1], pts[i] + (durations[i] or 0)))
    return made
