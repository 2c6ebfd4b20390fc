"""The one seam between the pipeline and whatever converts a segment.

Every backend (in-process engine, HTTP server, SageMaker async endpoint) takes
the parsed segment and the canonical output key, makes the converted segment
appear at that key in the output bucket, and returns what it learnt.
"""

from __future__ import annotations

from typing import Any, Protocol

from pydantic import BaseModel, Field, ValidationError
from shared_types.conversion import FrameProgress
from shared_types.envelope import read_result_envelope
from shared_types.errors import MalformedResponseError
from shared_types.failure import RemoteFailure
from shared_types.models import ConversionParams, SegmentPayload

from video_worker.errors import InferenceRejectedError, InferenceUnavailableError

_RESULT_FIELDS = ("frames", "duration_s", "elapsed_s", "fps", "depth_model")


class InferenceResult(BaseModel):
    """What one segment conversion reported (fields unknown to a backend stay None)."""

    output_key: str
    frames: int | None = None
    duration_s: float | None = None
    elapsed_s: float | None = None
    fps: float | None = None
    depth_model: str | None = None
    metrics: dict[str, Any] = Field(default_factory=dict)


def result_from_envelope(body: bytes | str | dict[str, Any], output_key: str) -> InferenceResult:
    """The result of one conversion from an inference server's response envelope
    (``shared_types.envelope``); segment_output fields win over metrics.

    Raises InferenceUnavailableError (transient) when the body is not a readable
    envelope: the output may still appear, and a retry is harmless.
    """
    try:
        blocks = read_result_envelope(body)
    except MalformedResponseError as exc:
        raise InferenceUnavailableError(str(exc)) from exc
    merged = {**blocks.metrics, **blocks.segment}
    fields = {k: merged[k] for k in _RESULT_FIELDS if merged.get(k) is not None}
    try:
        return InferenceResult(output_key=output_key, metrics=blocks.metrics, **fields)
    except ValidationError as exc:
        raise InferenceUnavailableError(f"inference response is malformed: {exc}") from exc


def remote_failure_error(failure: RemoteFailure, where: str) -> Exception:
    """The error to raise for a failure the inference side reported: permanent
    (InferenceRejectedError with its code, so the job fails at once and says
    why) or transient (InferenceUnavailableError, redelivered)."""
    if failure.permanent:
        return InferenceRejectedError(failure.message, code=failure.code)
    return InferenceUnavailableError(f"{where} failed ({failure.code}): {failure.message}")


class InferenceBackend(Protocol):
    def convert(
        self, payload: SegmentPayload, output_key: str, params: ConversionParams,
        on_progress: FrameProgress | None = None,
    ) -> InferenceResult:
        """Convert one segment so that ``output_key`` exists in the output bucket,
        calling ``on_progress(frames_done, frames_total)`` as frames are written
        where the backend can tell (in-process; remote backends report nothing).

        Raises a PermanentError when the segment can never be converted (the job
        fails) and a TransientError when a retry may succeed.
        """
