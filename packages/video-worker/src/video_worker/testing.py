"""Test doubles and factories for video-worker (used by its tests and by
packages that drive the worker in-process)."""

from __future__ import annotations

import threading
from collections.abc import Callable

from shared_types.conversion import FrameProgress
from shared_types.events import build_s3_event_body
from shared_types.keys import output_segment_key, segment_key
from shared_types.models import (
    ConversionParams,
    Job,
    JobStatus,
    Message,
    OutputMode,
    SegmentPayload,
)
from shared_types.ports import Backend

from video_worker.inference import InferenceDeps
from video_worker.inference_backend import InferenceResult


class RecordingInference:
    """An InferenceBackend double: writes a fake output like a real backend
    would, records its calls, and raises ``error`` when set."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self.calls: list[tuple[SegmentPayload, str, ConversionParams]] = []
        self.error: Exception | None = None
        self.during: Callable[[SegmentPayload], None] | None = None
        self.lock = threading.Lock()

    frames = 24

    def convert(self, payload: SegmentPayload, output_key: str,
                params: ConversionParams, on_progress: FrameProgress | None = None,
                ) -> InferenceResult:
        with self.lock:
            self.calls.append((payload, output_key, params))
        if on_progress is not None:
            for done in range(0, self.frames + 1, 8):
                on_progress(done, self.frames)
        if self.during is not None:
            self.during(payload)
        if self.error is not None:
            raise self.error
        self.backend.output_storage.put_bytes(output_key, b"converted:" + payload.key.encode())
        return InferenceResult(output_key=output_key, frames=self.frames)


def make_job(backend: Backend, job_id: str = "job-1", *,
             status: JobStatus = JobStatus.CHUNKING_COMPLETE, total: int | None = 2,
             mode: OutputMode = OutputMode.HALF_SBS, **params: object) -> Job:
    job = Job(job_id=job_id, mode=mode, status=status, total_segments=total,
              params=ConversionParams(**params))
    backend.jobs.create(job)
    return job


def message(body: str, n: int = 1) -> Message:
    return Message(message_id=f"m-{n}", body=body, receipt=f"r-{n}")


def segment_event(backend: Backend, job_id: str, index: int, total: int,
                  mode: OutputMode = OutputMode.HALF_SBS) -> str:
    return build_s3_event_body(backend.input_storage.bucket,
                               segment_key(job_id, index, total, mode), size=100)


def output_event(backend: Backend, job_id: str, index: int) -> str:
    """The output bucket's event for a converted segment, which is stored first
    (S3 only sends it for an object that exists; Retry checks it is there)."""
    key = output_segment_key(job_id, index)
    backend.output_storage.put_bytes(key, b"\x00" * 100)
    return build_s3_event_body(backend.output_storage.bucket, key, size=100)


def record_outputs(message: Message, backend: Backend) -> int:
    """Decode an output-bucket event and record each converted segment, as the
    segment-output consumer would (without its failure policy); new completions."""
    from video_worker.segment_output import decode_segment_outputs, record_segment_output

    return sum(record_segment_output(o, backend) for o in decode_segment_outputs(message))


def convert_all(message: Message, deps: InferenceDeps) -> list[InferenceResult]:
    """Decode a segment-uploaded event and convert each segment, as the inference
    consumer would (without its failure policy); the results of the work done."""
    from video_worker.inference import convert_segment, decode_segment_uploads

    results = (convert_segment(p, deps) for p in decode_segment_uploads(message))
    return [r for r in results if r is not None]
