"""The pipeline's stand-ins for the lifecycle state machine: a clock the
adversary can advance, queues whose sends can fail, ffmpeg and inference that
join and mark bytes, and the backend they make (all on the in-memory ports)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from shared_types.errors import TransientStoreError
from shared_types.events import build_s3_event_body
from shared_types.ports import Backend
from shared_types.testing.memory import (
    MemoryJobStore,
    MemoryQueue,
    MemoryReassemblyLock,
    MemorySegmentCompletionStore,
    MemorySegmentStatusStore,
    MemoryStorage,
    memory_backend,
)
from stereo_media.ffmpeg_runner import FfmpegRunner
from video_worker.inference_backend import InferenceResult


class Clock:
    """Real time plus what the adversary let pass (jobs stamp real time)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset


class FlakyQueue:
    """A MemoryQueue whose next ``fail_sends`` sends raise (queue unreachable)."""

    def __init__(self, inner: MemoryQueue) -> None:
        self._inner, self.fail_sends = inner, 0
        self.name = inner.name

    def send(self, body: str, *, delay_s: float = 0) -> str:
        if self.fail_sends:
            self.fail_sends -= 1
            raise TransientStoreError(f"{self.name} unreachable")
        return self._inner.send(body, delay_s=delay_s)

    def __getattr__(self, name: str):
        return getattr(self._inner, name)


class Crash(Exception):
    """A worker process dies here (nothing after this line runs)."""


class JoiningRunner(FfmpegRunner):
    """ffmpeg stand-in: concat joins the listed files' bytes; any other run copies."""

    def __init__(self) -> None:
        super().__init__("ffmpeg", timeout_s=60.0)  # never started: run is replaced
        self.crash = False

    def run(self, args: Sequence[str], *, on_tick: Callable[[], None] | None = None,
            what: str = "ffmpeg") -> None:
        first = Path(args[args.index("-i") + 1])
        if self.crash:
            raise Crash(what)
        if "concat" not in args:
            Path(args[-1]).write_bytes(first.read_bytes())
            return
        parts = [line.split("'")[1] for line in first.read_text().splitlines()[1:]]
        Path(args[-1]).write_bytes(b"".join(Path(p).read_bytes() for p in parts))


class ConvertingInference:
    """Inference stand-in: the output is the segment's bytes, marked converted; the
    output bucket's event is raised like S3 would (memory storage raises none)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def convert(self, payload, output_key, params, on_progress=None):
        data = self.backend.input_storage.get_bytes(payload.key)
        self.backend.output_storage.put_bytes(output_key, b"[" + data + b"]")
        self.backend.segment_output_queue.send(build_s3_event_body(
            self.backend.output_storage.bucket, output_key, size=len(data) + 2))
        return InferenceResult(output_key=output_key, frames=1)


def clocked_backend(clock: Clock) -> Backend:
    def queue(name: str) -> FlakyQueue:
        return FlakyQueue(MemoryQueue(name, max_receives=5, clock=clock))

    return dataclasses.replace(
        memory_backend(), jobs=MemoryJobStore(), completions=MemorySegmentCompletionStore(),
        segment_status=MemorySegmentStatusStore(), reassembly=MemoryReassemblyLock(clock=clock),
        chunking_queue=queue("chunking"), video_queue=queue("video-worker"),
        segment_output_queue=queue("segment-output"), reassembly_queue=queue("reassembly"),
        input_storage=MemoryStorage("input"), output_storage=MemoryStorage("output"))


def segment_bytes(source: bytes, run: int, index: int) -> bytes:
    """What chunking run ``run`` writes as segment ``index`` (the run is visible in
    the bytes, so a segment of another run in a final video is caught)."""
    return source + b"|r%d|%d" % (run, index)


def expected_final(source: bytes, total: int, run: int) -> bytes:
    return b"".join(b"[" + segment_bytes(source, run, i) + b"]" for i in range(total))
